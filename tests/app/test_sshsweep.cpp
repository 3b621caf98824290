// Sweeps and apply over SSH: ptwb against a throwaway sshd on 127.0.0.1 whose host runs the
// simulated Jetson (--remote-simulator). Every planned mode measured exactly once through a
// killed connection, a killed agent and a reboot; an unconfirmed mode goes back by itself.
#include "clirunner.h"
#include "deviceclient.h"
#include "remote/awaitreply.h"
#include "remote/sshdfixture.h"
#include "remote/standinsudo.h"
#include "sshlaunch.h"
#include "sshtransport.h"
#include "storequery.h"

#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <csignal>
#include <memory>
#include <optional>

using namespace ptwb;

class TestSshSweep : public QObject
{
    Q_OBJECT

private:
    SshdFixture m_sshd;
    QTemporaryDir m_dir;
    int m_runs = 0;

    QString fresh(const QString &name)
    {
        return m_dir.filePath(QStringLiteral("%1-%2").arg(name).arg(++m_runs));
    }

    QString target() const
    {
        return QStringLiteral("ssh://%1@127.0.0.1:%2").arg(m_sshd.user()).arg(m_sshd.port());
    }

    QStringList sshArguments(const QString &state) const
    {
        return {QStringLiteral("--target"),
                target(),
                QStringLiteral("--remote-simulator"),
                QStringLiteral("orin-agx"),
                QStringLiteral("--sim-state"),
                state,
                QStringLiteral("--identity"),
                m_sshd.userKey(),
                QStringLiteral("--known-hosts"),
                m_dir.filePath(QStringLiteral("known_hosts")),
                QStringLiteral("--ssh-config"),
                m_dir.filePath(QStringLiteral("ssh_config")),
                QStringLiteral("--accept-new-host-key")};
    }

    QStringList sweepArguments(const QString &db, const QString &state, bool resume = false)
    {
        QStringList arguments {QStringLiteral("sweep"),
                               QStringLiteral("--db"),
                               db,
                               QStringLiteral("--workload"),
                               QStringLiteral("resnet18"),
                               QStringLiteral("--minibatches"),
                               QStringLiteral("40"),
                               QStringLiteral("--sim-speed"),
                               QStringLiteral("400"),
                               QStringLiteral("--json")};
        if (resume)
            arguments << QStringLiteral("--resume");
        else
            arguments << QStringLiteral("--modes") << QStringLiteral("random:30");
        return arguments + sshArguments(state);
    }

    void verifyExactlyOnce(const QString &db, qint64 planned)
    {
        auto connection = SqliteConnection::open(db, false);
        QVERIFY(connection);
        auto failed = connection->prepare(
            QStringLiteral("SELECT position, reason FROM sweep_modes WHERE state = 'failed'"));
        QVERIFY(failed);
        QString reasons;
        while (*failed->step())
            reasons +=
                QStringLiteral("%1: %2\n").arg(failed->columnInt(0)).arg(failed->columnText(1));
        QVERIFY2(reasons.isEmpty(), qPrintable(reasons));
        QCOMPARE(queryInt(db, QStringLiteral("SELECT count(*) FROM sweep_modes")), planned);
        QCOMPARE(queryInt(db,
                          QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = "
                                         "'done'")),
                 planned);
        QCOMPARE(queryInt(db, QStringLiteral("SELECT count(*) FROM measurements")), planned);
        QCOMPARE(queryInt(db,
                          QStringLiteral("SELECT count(*) FROM (SELECT DISTINCT cores, "
                                         "cpu_khz, gpu_hz, emc_hz FROM measurements)")),
                 planned);
    }

    // Starts a sweep, runs `interrupt` once `done` modes are stored, lets it end, then resumes
    // it; every planned mode must end up measured exactly once.
    void
    interruptAndResume(const std::function<void(qint64 ptwbPid, const QString &state)> &interrupt,
                       const QString &expectedInFirstRun = {})
    {
        const QString db = fresh(QStringLiteral("ssh.sqlite"));
        const QString state = fresh(QStringLiteral("sim"));
        QProcess sweep;
        sweep.setProgram(QStringLiteral(PTWB_CLI));
        sweep.setArguments(sweepArguments(db, state));
        sweep.start();
        QVERIFY(sweep.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(
            queryInt(db,
                     QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = "
                                    "'done'")) >= 5,
            120000);
        interrupt(sweep.processId(), state);
        QVERIFY(sweep.waitForFinished(180000));
        const QString firstRun = QString::fromUtf8(sweep.readAllStandardError());
        QVERIFY2(firstRun.contains(expectedInFirstRun), qPrintable(firstRun));
        const CliResult resumed = runCli(sweepArguments(db, state, true), 180000);
        QVERIFY2(resumed.exitCode == 0, qPrintable(firstRun + resumed.err));
        verifyExactlyOnce(db, 30);
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString missing = SshdFixture::missingPrograms();
        if (!missing.isEmpty())
            QSKIP(qPrintable(QStringLiteral("no SSH server to test against: %1").arg(missing)));
        QVERIFY(m_dir.isValid());
        QFile config(m_dir.filePath(QStringLiteral("ssh_config")));
        QVERIFY(config.open(QIODevice::WriteOnly));  // empty: the user's own stays out of it
        QString error;
        QVERIFY2(m_sshd.start(&error), qPrintable(error));
    }

    void deviceSetupKeepsThePasswordOutOfEverythingButSudosStdin()
    {
        // `ptwb device setup --password-stdin` against the loopback sshd, whose stand-in sudo
        // installs under a temporary prefix (tests/remote/standinsudo.h). The password must
        // reach sudo's stdin and nothing else: not sudo's argv or environment, not what ptwb
        // prints, not any file ptwb writes (its data, config, cache and state directories are
        // all under `root` here), not the server's log.
        const QByteArray password =
            "lab-secret-" + QByteArray::number(QRandomGenerator::global()->generate64());
        const QString root = fresh(QStringLiteral("setup"));
        StandInSudo sudo(root + QStringLiteral("/sudo"), password);
        QString error;
        QVERIFY2(sudo.install(m_sshd, &error), qPrintable(error));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (const char *name :
             {"XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"})
            environment.insert(QLatin1String(name), root + QLatin1Char('/') + QLatin1String(name));
        const QStringList arguments {QStringLiteral("device"),
                                     QStringLiteral("setup"),
                                     QStringLiteral("--target"),
                                     target(),
                                     QStringLiteral("--identity"),
                                     sudo.key(),
                                     QStringLiteral("--known-hosts"),
                                     m_dir.filePath(QStringLiteral("known_hosts")),
                                     QStringLiteral("--ssh-config"),
                                     m_dir.filePath(QStringLiteral("ssh_config")),
                                     QStringLiteral("--accept-new-host-key"),
                                     QStringLiteral("--password-stdin"),
                                     QStringLiteral("--json")};

        // A wrong password: refused with sudo's words, nothing installed.
        const CliResult wrong =
            runProgram(QStringLiteral(PTWB_CLI), arguments, 60000, environment, "not-it\n");
        QVERIFY2(wrong.exitCode != 0, qPrintable(wrong.out));
        QVERIFY2(wrong.err.contains(QLatin1String("incorrect password")), qPrintable(wrong.err));
        QVERIFY(!QFileInfo::exists(sudo.helperPath()));

        const CliResult r =
            runProgram(QStringLiteral(PTWB_CLI), arguments, 60000, environment, password + '\n');
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QJsonObject reply = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QVERIFY2(reply.value(QLatin1String("ok")).toBool(), qPrintable(r.out));
        QVERIFY2(reply.value(QLatin1String("steps"))
                         .toArray()
                         .contains(QLatin1String("visudo -c: ok")) ||
                     r.out.contains(QLatin1String("visudo -c: ok")),
                 qPrintable(r.out));
        QVERIFY(QFileInfo(sudo.helperPath()).isFile());

        QVERIFY(!sudo.seenArguments().isEmpty());
        QVERIFY(!sudo.seenArguments().contains(password));
        QVERIFY(!sudo.seenEnvironment().contains(password));
        QVERIFY(!r.out.toUtf8().contains(password) && !r.err.toUtf8().contains(password));
        QVERIFY(!m_sshd.log().toUtf8().contains(password));
        int files = 0;
        for (QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
             it.hasNext();) {
            const QString path = it.next();
            if (path.endsWith(QLatin1String("/seen/expected")))
                continue;  // the stand-in's own copy, to check stdin against
            QFile file(path);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
            QVERIFY2(!file.readAll().contains(password), qPrintable(path));
            ++files;
        }
        QVERIFY(files >= 4);  // the helper, the sudoers drop-in, what sudo saw, the key
    }

    void thirtyModesOverSsh()
    {
        const QString db = fresh(QStringLiteral("ssh.sqlite"));
        const CliResult r = runCli(sweepArguments(db, fresh(QStringLiteral("sim"))), 180000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + m_sshd.log().right(2000)));
        verifyExactlyOnce(db, 30);
        // The benchmark figure of issue 6 (docs/benchmarks.md): the workbench's own cost per
        // mode, everything but the profile itself. Printed, not asserted: timing is no test.
        const QJsonObject summary = QJsonDocument::fromJson(r.out.toUtf8()).object();
        qInfo("overhead per mode over SSH: %.3f s (30 modes, %.1f s in all)",
              summary.value(QLatin1String("overhead_per_mode_s")).toDouble(),
              summary.value(QLatin1String("seconds")).toDouble());
        // The host key was accepted as asked and remembered.
        QFile knownHosts(m_dir.filePath(QStringLiteral("known_hosts")));
        QVERIFY(knownHosts.open(QIODevice::ReadOnly));
        QVERIFY(knownHosts.readAll().contains(
            QStringLiteral("[127.0.0.1]:%1").arg(m_sshd.port()).toUtf8()));
    }

    void unconfirmedHostKeyStopsTheSweepAtOnce()
    {
        // An unknown host, no --accept-new-host-key and no terminal to ask (QProcess gives ptwb
        // pipes): the key cannot be confirmed. That is no lost connection: the sweep must stop
        // after the one attempt, naming the host and the key, not go through its reconnects.
        const QString knownHosts = fresh(QStringLiteral("known_hosts"));
        QFile empty(knownHosts);
        QVERIFY(empty.open(QIODevice::WriteOnly));
        empty.close();
        const QString db = fresh(QStringLiteral("hostkey.sqlite"));
        // Connections that ended before authentication, as sshd logs them ("Connection closed
        // by 127.0.0.1 port N [preauth]"); the fixture's own port probes end before that.
        const auto connections = [this] {
            return m_sshd.log().count(QRegularExpression(
                QStringLiteral("Connection closed by 127\\.0\\.0\\.1 port \\d+ \\[preauth\\]")));
        };
        const qsizetype before = connections();
        const CliResult r = runCli(
            {QStringLiteral("sweep"), QStringLiteral("--db"), db, QStringLiteral("--workload"),
             QStringLiteral("resnet18"), QStringLiteral("--modes"), QStringLiteral("random:3"),
             QStringLiteral("--target"), target(), QStringLiteral("--remote-simulator"),
             QStringLiteral("orin-agx"), QStringLiteral("--sim-state"),
             fresh(QStringLiteral("sim")), QStringLiteral("--identity"), m_sshd.userKey(),
             QStringLiteral("--known-hosts"), knownHosts, QStringLiteral("--ssh-config"),
             m_dir.filePath(QStringLiteral("ssh_config"))},
            60000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QLatin1String("host key")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("127.0.0.1:%1").arg(m_sshd.port())),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(m_sshd.hostKeyFingerprint()), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QLatin1String("reconnecting")), qPrintable(r.err));
        // No one could be asked: the error says how to trust it knowingly.
        QVERIFY2(r.err.contains(QLatin1String("re-run with --accept-new-host-key")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("ssh-keygen -lf")), qPrintable(r.err));
        // The server saw one connection (sshd logs it before the key exchange).
        QTRY_COMPARE(connections() - before, 1);
        QCOMPARE(QFile(knownHosts).size(), 0);  // nothing was trusted
        QCOMPARE(queryInt(db,
                          QStringLiteral("SELECT count(*) FROM sweep_modes WHERE state = "
                                         "'pending'")),
                 3);
    }

    void changedHostKeyIsNeverOfferedTheFlag()
    {
        // known_hosts holds another key for the server: refused whatever the flags, and the error
        // says how to remove the old entry, never to re-run with --accept-new-host-key (which
        // would not help, and must not look like the way out of a possible interception).
        QString impostor;
        const QString other =
            m_sshd.makeKey(QStringLiteral("impostor-%1").arg(++m_runs), &impostor);
        const QString knownHosts = fresh(QStringLiteral("known_hosts"));
        QFile file(knownHosts);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QStringLiteral("[127.0.0.1]:%1 ").arg(m_sshd.port()).toUtf8() +
                   m_sshd.publicKey(other) + '\n');
        file.close();
        const QByteArray before = [&] {
            QFile read(knownHosts);
            return read.open(QIODevice::ReadOnly) ? read.readAll() : QByteArray();
        }();
        for (const bool flag : {false, true}) {
            QStringList arguments {QStringLiteral("apply"),
                                   QStringLiteral("--mode"),
                                   QStringLiteral("6/1728000/828750000/3199000000"),
                                   QStringLiteral("--target"),
                                   target(),
                                   QStringLiteral("--remote-simulator"),
                                   QStringLiteral("orin-agx"),
                                   QStringLiteral("--sim-state"),
                                   fresh(QStringLiteral("sim")),
                                   QStringLiteral("--identity"),
                                   m_sshd.userKey(),
                                   QStringLiteral("--known-hosts"),
                                   knownHosts,
                                   QStringLiteral("--ssh-config"),
                                   m_dir.filePath(QStringLiteral("ssh_config"))};
            if (flag)
                arguments << QStringLiteral("--accept-new-host-key");
            const CliResult r = runCli(arguments, 60000);
            QVERIFY2(r.exitCode != 0, qPrintable(r.err));
            QVERIFY2(r.err.contains(QLatin1String("CHANGED")), qPrintable(r.err));
            QVERIFY2(r.err.contains(impostor), qPrintable(r.err));
            QVERIFY2(r.err.contains(QStringLiteral("ssh-keygen -R '[127.0.0.1]:%1' -f '%2'")
                                        .arg(m_sshd.port())
                                        .arg(knownHosts)),
                     qPrintable(r.err));
            QVERIFY2(!r.err.contains(QLatin1String("accept-new-host-key")), qPrintable(r.err));
            QFile after(knownHosts);
            QVERIFY(after.open(QIODevice::ReadOnly));
            QCOMPARE(after.readAll(), before);  // nothing written, nothing replaced
        }
    }

    void killedConnectionIsResumed()
    {
        // The connection dies under the sweep; ptwb reconnects on its own, and what it did
        // not finish, --resume does.
        interruptAndResume([this](qint64, const QString &) { m_sshd.signalSessions(SIGKILL); },
                           QStringLiteral("reconnecting"));
    }

    void killedPtwbIsResumed()
    {
        interruptAndResume([](qint64 pid, const QString &) { ::kill(pid_t(pid), SIGKILL); });
    }

    void killedAgentIsResumed()
    {
        // Only this test's simulator: other suites may run theirs in parallel.
        interruptAndResume(
            [](qint64, const QString &state) {
                QProcess::execute(QStringLiteral("pkill"),
                                  {QStringLiteral("-KILL"), QStringLiteral("-f"),
                                   QStringLiteral("ptwb_simjetson.py .*--state %1").arg(state)});
            },
            QStringLiteral("reconnecting"));
    }

    void rebootedDeviceIsMeasuredAgain()
    {
        const QString db = fresh(QStringLiteral("ssh.sqlite"));
        QStringList arguments = sweepArguments(db, fresh(QStringLiteral("sim")));
        arguments << QStringLiteral("--sim-fault") << QStringLiteral("reboot-after:12");
        const CliResult r = runCli(arguments, 240000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("rebooted")), qPrintable(r.err));
        verifyExactlyOnce(db, 30);
        QVERIFY(queryInt(db, QStringLiteral("SELECT count(DISTINCT boot_id) FROM measurements")) >
                1);
    }

    void applyWithConfirmationKeepsTheMode()
    {
        const QString state = fresh(QStringLiteral("sim"));
        const QString mode = QStringLiteral("6/1728000/828750000/3199000000");
        const CliResult r = runCli(QStringList {QStringLiteral("apply"), QStringLiteral("--mode"),
                                                mode, QStringLiteral("--json")} +
                                       sshArguments(state),
                                   60000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QLatin1String("\"confirmed\":true")), qPrintable(r.out));
        QTest::qWait(1500);  // the 30 s window at the simulator's default speed is long gone
        const CliResult again =
            runCli(QStringList {QStringLiteral("apply"), QStringLiteral("--mode"), mode} +
                       sshArguments(state),
                   60000);
        QVERIFY2(again.out.contains(QLatin1String("already in")),
                 qPrintable(again.out + again.err));
    }

    void unconfirmedModeGoesBack()
    {
        // The first half of apply, then silence: no second connection ever confirms.
        SimulatorOptions simulator;
        simulator.stateDirectory = fresh(QStringLiteral("sim"));
        simulator.speed = 100;
        SshOptions options;
        options.host = QStringLiteral("127.0.0.1");
        options.port = m_sshd.port();
        options.user = m_sshd.user();
        options.knownHostsPath = m_dir.filePath(QStringLiteral("known_hosts"));
        options.readConfig = false;
        options.identityFiles = {m_sshd.userKey()};
        options.useDefaultIdentities = false;
        options.useAgent = false;
        options.launch = SshLaunches::simulator(simulator).value();
        auto client = std::make_unique<DeviceClient>(new SshTransport(options));
        QSignalSpy ready(client.get(), &DeviceClient::ready);
        client->connectToDevice();
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
        const QString before = client->info().mode.toCanonical();
        QVERIFY(awaitReply(client->armRevert(100)).ok);  // 1 s of wall time at speed 100
        PowerMode low {2, 729600, 420750000, 665600000};
        QVERIFY(awaitReply(client->applyMode(low)).ok);
        client->disconnectFromDevice();
        QTest::qWait(2500);

        auto later = std::make_unique<DeviceClient>(new SshTransport(options));
        QSignalSpy readyAgain(later.get(), &DeviceClient::ready);
        later->connectToDevice();
        QTRY_COMPARE_WITH_TIMEOUT(readyAgain.count(), 1, 30000);
        QCOMPARE(later->info().mode.toCanonical(), before);
    }
};

QTEST_GUILESS_MAIN(TestSshSweep)
#include "test_sshsweep.moc"
