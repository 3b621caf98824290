// The SSH transport against a real, throwaway sshd on 127.0.0.1 (SshdFixture): host-key checks
// (unknown, refused, changed, a config that tries to weaken them), key authentication, exact
// argument passing, the content-addressed upload, and the simulated Jetson driven by
// DeviceClient over SSH, through a dropped and a stalled connection.
#include "deviceclient.h"
#include "helpersetup.h"
#include "hostkeycheck.h"
#include "modes/devicespec.h"
#include "remote/awaitreply.h"
#include "remote/sshdfixture.h"
#include "remote/standinsudo.h"
#include "shellquote.h"
#include "simulatorlauncher.h"
#include "sshlaunch.h"
#include "sshsession.h"
#include "sshthreads.h"
#include "sshtransport.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace ptwb;

namespace {

// Fixed answers, counted; called on the transport's worker thread.
class TestPrompts : public SynchronousSshPrompts
{
public:
    explicit TestPrompts(bool acceptHost)
        : m_accept(acceptHost)
    {
    }
    bool acceptUnknownHost(const QString &, int, const QString &,
                           const QString &fingerprint) override
    {
        ++hostQuestions;
        const std::lock_guard<std::mutex> lock(m_mutex);
        lastFingerprint = fingerprint;
        return m_accept;
    }
    std::optional<QString> passphrase(const QString &) override
    {
        ++secretQuestions;
        if (keyPassphrase.isEmpty())
            return std::nullopt;
        return keyPassphrase;
    }
    std::optional<QString> password(const QString &, const QString &) override
    {
        ++secretQuestions;
        return std::nullopt;
    }
    std::optional<QStringList> keyboardInteractive(const QString &, const QString &,
                                                   const QList<Question> &) override
    {
        ++secretQuestions;
        return std::nullopt;
    }
    QString fingerprint()
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        return lastFingerprint;
    }

    QString keyPassphrase;  // set before use
    std::atomic<int> hostQuestions {0};
    std::atomic<int> secretQuestions {0};

private:
    bool m_accept;
    std::mutex m_mutex;
    QString lastFingerprint;
};

// Never answers by itself: records each question and its reply callback, and the ids the
// transport withdrew. ask() is called on the worker thread; the test reads from its own.
class PendingPrompts : public SshPrompts
{
public:
    void ask(const SshPromptRequest &request, Reply reply) override
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_asked.append(request.id);
        m_reply = std::move(reply);
    }
    void cancel(quint64 id) override
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_cancelled.append(id);
    }
    QList<quint64> asked()
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        return m_asked;
    }
    QList<quint64> cancelled()
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        return m_cancelled;
    }
    // Answers the last question now, as a person would too late.
    void replyLate(bool given)
    {
        Reply reply;
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            reply = std::exchange(m_reply, nullptr);
        }
        if (reply)
            reply(SshPromptAnswer {given, {}, {}});
    }

private:
    std::mutex m_mutex;
    QList<quint64> m_asked;
    QList<quint64> m_cancelled;
    Reply m_reply;
};

// A TCP listener on 127.0.0.1 that takes connections and never says a word: an SSH client
// connecting to it waits for the server's banner until its connect timeout.
class SilentListener
{
public:
    SilentListener()
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address {};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (m_fd < 0 || ::bind(m_fd, reinterpret_cast<sockaddr *>(&address), length) != 0 ||
            ::listen(m_fd, 4) != 0 ||
            ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&address), &length) != 0)
            return;
        m_port = ntohs(address.sin_port);
    }
    ~SilentListener()
    {
        for (int fd : std::as_const(m_accepted))
            ::close(fd);
        if (m_fd >= 0)
            ::close(m_fd);
    }
    int port() const { return m_port; }
    // Waits for a client and keeps its connection open, silent; false on timeout.
    bool acceptOne(int timeoutMs)
    {
        pollfd wait {m_fd, POLLIN, 0};
        if (::poll(&wait, 1, timeoutMs) != 1)
            return false;
        const int fd = ::accept(m_fd, nullptr, nullptr);
        if (fd < 0)
            return false;
        m_accepted.append(fd);
        return true;
    }

private:
    int m_fd = -1;
    int m_port = 0;
    QList<int> m_accepted;
};

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(content);
}

}  // namespace

class TestSsh : public QObject
{
    Q_OBJECT

private:
    SshdFixture m_sshd;
    std::unique_ptr<QTemporaryDir> m_case;  // one per test function

    QString casePath(const QString &name) const { return m_case->filePath(name); }

    // Options for the fixture's server with this test's own known_hosts, no ssh config, no
    // agent, and only the fixture's user key.
    SshOptions baseOptions(std::shared_ptr<SshPrompts> prompts) const
    {
        SshOptions options;
        options.host = QStringLiteral("127.0.0.1");
        options.port = m_sshd.port();
        options.user = m_sshd.user();
        options.connectTimeoutMs = 10000;
        options.knownHostsPath = casePath(QStringLiteral("known_hosts"));
        options.readConfig = false;
        options.identityFiles = {m_sshd.userKey()};
        options.useDefaultIdentities = false;
        options.useAgent = false;
        options.remoteCacheDir = casePath(QStringLiteral("remote-cache"));
        options.prompts = std::move(prompts);
        return options;
    }

    QByteArray knownHostsLine(const QByteArray &publicKey) const
    {
        return HostKeyCheck::knownHostsName(QStringLiteral("127.0.0.1"), m_sshd.port()).toUtf8() +
            ' ' + publicKey + '\n';
    }

    // A known_hosts that holds another ed25519 key for the server: what an attacker's server
    // would look like. Returns that key's fingerprint.
    QString writeChangedKnownHosts(const QString &path)
    {
        QString otherFingerprint;
        const QString other = m_sshd.makeKey(QStringLiteral("impostor"), &otherFingerprint);
        writeFile(path, knownHostsLine(m_sshd.publicKey(other)));
        return otherFingerprint;
    }

    std::unique_ptr<DeviceClient> simulatorClient(SshOptions options, QString *error)
    {
        SimulatorOptions simulator;
        simulator.stateDirectory = casePath(QStringLiteral("state"));
        simulator.speed = 100;
        Expected<SshLaunch> launch = SshLaunches::simulator(simulator);
        if (!launch) {
            *error = launch.error();
            return nullptr;
        }
        options.launch = *launch;
        options.description = QStringLiteral("simulated orin-agx over ssh");
        return std::make_unique<DeviceClient>(new SshTransport(options));
    }

    static bool waitReady(DeviceClient *client, QString *error)
    {
        QSignalSpy ready(client, &DeviceClient::ready);
        QSignalSpy gone(client, &DeviceClient::disconnected);
        client->connectToDevice();
        if (!QTest::qWaitFor([&] { return ready.count() + gone.count() > 0; }, 30000)) {
            *error = QStringLiteral("timeout");
            return false;
        }
        if (ready.isEmpty()) {
            *error = gone.at(0).at(0).toString();
            return false;
        }
        return true;
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString missing = SshdFixture::missingPrograms();
        if (!missing.isEmpty())
            QSKIP(qPrintable(missing));
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        QString error;
        QVERIFY2(m_sshd.start(&error), qPrintable(error));
    }

    void init()
    {
        m_case = std::make_unique<QTemporaryDir>();
        QVERIFY(m_case->isValid());
    }

    void cleanup()
    {
        if (QTest::currentTestFailed())
            qWarning("sshd log:\n%s", qPrintable(m_sshd.log().right(3000)));
    }

    // --- pure pieces ------------------------------------------------------------------------

    void quotingIsStrict_data()
    {
        QTest::addColumn<QString>("token");
        QTest::addColumn<QByteArray>("quoted");
        QTest::newRow("plain") << QStringLiteral("python3") << QByteArray("'python3'");
        QTest::newRow("empty") << QString() << QByteArray("''");
        QTest::newRow("quote") << QStringLiteral("it's") << QByteArray("'it'\\''s'");
        QTest::newRow("dollar") << QStringLiteral("$(id)") << QByteArray("'$(id)'");
        QTest::newRow("newline") << QStringLiteral("a\nb") << QByteArray("'a\nb'");
    }
    void quotingIsStrict()
    {
        QFETCH(QString, token);
        QFETCH(QByteArray, quoted);
        QCOMPARE(ShellQuote::quote(token), quoted);
    }

    void hostKeyDecisions()
    {
        HostKeyFacts facts;
        facts.host = QStringLiteral("orin");
        facts.port = 2222;
        facts.keyType = QStringLiteral("ssh-ed25519");
        facts.fingerprint = QStringLiteral("SHA256:new");
        facts.knownHostsFile = QStringLiteral("/kh");
        facts.known = {{QStringLiteral("ssh-ed25519"), QStringLiteral("SHA256:old")}};
        using Action = HostKeyDecision::Action;
        facts.state = HostKeyFacts::State::Known;
        QCOMPARE(HostKeyCheck::decide(facts).action, Action::Proceed);
        facts.state = HostKeyFacts::State::Unknown;
        QCOMPARE(HostKeyCheck::decide(facts).action, Action::Ask);
        facts.state = HostKeyFacts::State::NoKnownHostsFile;
        QCOMPARE(HostKeyCheck::decide(facts).action, Action::Ask);
        for (auto state : {HostKeyFacts::State::Changed, HostKeyFacts::State::OtherType,
                           HostKeyFacts::State::Error}) {
            facts.state = state;
            const HostKeyDecision decision = HostKeyCheck::decide(facts);
            QCOMPARE(decision.action, Action::Refuse);
            QVERIFY2(decision.message.contains(QLatin1String("orin:2222")),
                     qPrintable(decision.message));
            if (state != HostKeyFacts::State::Error) {
                QVERIFY(decision.message.contains(QLatin1String("SHA256:new")));
                QVERIFY(decision.message.contains(QLatin1String("SHA256:old")));
                QVERIFY(decision.message.contains(QLatin1String("ssh-keygen -R '[orin]:2222'")));
            }
        }
    }

    void unconfirmedAndChangedKeysSayWhatToDo()
    {
        HostKeyFacts facts;
        facts.host = QStringLiteral("orin");
        facts.port = 2222;
        facts.keyType = QStringLiteral("ssh-ed25519");
        facts.fingerprint = QStringLiteral("SHA256:new");
        facts.knownHostsFile = QStringLiteral("/kh");
        // No one was asked: the note of the prompts (the CLI's names its flag) is the advice.
        const QString note = QStringLiteral("re-run with --accept-new-host-key");
        const QString unconfirmed = HostKeyCheck::refusedByUser(facts, note);
        QVERIFY2(unconfirmed.contains(note), qPrintable(unconfirmed));
        QVERIFY(unconfirmed.contains(QLatin1String("SHA256:new")));
        QVERIFY(unconfirmed.contains(QLatin1String("orin:2222")));
        // A person said no: check the fingerprint, connect again; no flag.
        const QString refused = HostKeyCheck::refusedByUser(facts);
        QVERIFY2(refused.contains(QLatin1String("ssh-keygen -lf")), qPrintable(refused));
        QVERIFY(!refused.contains(QLatin1String("--accept-new-host-key")));
        // A changed key is never something to accept: how to remove the old entry, no flag.
        facts.state = HostKeyFacts::State::Changed;
        facts.known = {{QStringLiteral("ssh-ed25519"), QStringLiteral("SHA256:old")}};
        const QString changed = HostKeyCheck::decide(facts).message;
        QVERIFY2(changed.contains(QLatin1String("ssh-keygen -R '[orin]:2222' -f '/kh'")),
                 qPrintable(changed));
        QVERIFY2(!changed.contains(QLatin1String("accept-new-host-key")), qPrintable(changed));
    }

    // --- host keys --------------------------------------------------------------------------

    void unknownHostAcceptedIsRemembered()
    {
        auto prompts = std::make_shared<TestPrompts>(true);
        const QString knownHosts = casePath(QStringLiteral("known_hosts"));
        {
            SshSession session(baseOptions(prompts));
            const Status status = session.connect();
            QVERIFY2(status.ok(), qPrintable(status.error()));
        }
        QCOMPARE(prompts->hostQuestions.load(), 1);
        QCOMPARE(prompts->fingerprint(), m_sshd.hostKeyFingerprint());
        const QByteArray remembered = readFile(knownHosts);
        QVERIFY2(remembered.startsWith(
                     QStringLiteral("[127.0.0.1]:%1 ssh-ed25519 ").arg(m_sshd.port()).toUtf8()),
                 remembered.constData());

        SshSession again(baseOptions(prompts));
        const Status status = again.connect();
        QVERIFY2(status.ok(), qPrintable(status.error()));
        QCOMPARE(prompts->hostQuestions.load(), 1);  // not asked twice
        QCOMPARE(readFile(knownHosts), remembered);
    }

    void unknownHostRefusedWritesNothing()
    {
        auto prompts = std::make_shared<TestPrompts>(false);
        SshSession session(baseOptions(prompts));
        const Status status = session.connect();
        QVERIFY(!status.ok());
        QCOMPARE(prompts->hostQuestions.load(), 1);
        QVERIFY2(status.error().contains(QStringLiteral("127.0.0.1:%1").arg(m_sshd.port())),
                 qPrintable(status.error()));
        QVERIFY2(status.error().contains(m_sshd.hostKeyFingerprint()), qPrintable(status.error()));
        QVERIFY(!QFileInfo::exists(casePath(QStringLiteral("known_hosts"))));
        QCOMPARE(prompts->secretQuestions.load(), 0);  // no authentication was attempted
        QVERIFY(session.hostKeyRejected());
    }

    void cancelWhileAPromptWaitsFailsCleanly()
    {
        // The worker asks and waits for the answer without blocking its thread: close() (a
        // device or window closed) reaches it meanwhile, withdraws the question and ends the
        // attempt with "cancelled". With a blocking prompt nothing would happen until answered.
        auto prompts = std::make_shared<PendingPrompts>();
        SshTransport transport(baseOptions(prompts));
        QSignalSpy closed(&transport, &Transport::closed);
        QSignalSpy opened(&transport, &Transport::opened);
        transport.open();
        QTRY_COMPARE_WITH_TIMEOUT(prompts->asked().size(), 1, 15000);  // the unknown host key
        QVERIFY(closed.isEmpty());
        transport.close();
        QVERIFY(closed.wait(5000));
        const QString reason = closed.at(0).at(0).toString();
        QVERIFY2(reason.contains(QLatin1String("cancelled")), qPrintable(reason));
        QVERIFY2(reason.contains(QStringLiteral("127.0.0.1:%1").arg(m_sshd.port())),
                 qPrintable(reason));
        QCOMPARE(prompts->cancelled(), prompts->asked());  // the question was withdrawn
        QVERIFY(!transport.hostKeyRejected());  // a cancel is no verdict on the key
        // An answer after the cancel changes nothing: nothing is trusted, nothing opens.
        prompts->replyLate(true);
        QTest::qWait(200);
        QCOMPARE(opened.count(), 0);
        QCOMPARE(closed.count(), 1);
        QVERIFY(!QFileInfo::exists(casePath(QStringLiteral("known_hosts"))));

        // And again from scratch: the cancel of the last attempt does not linger.
        transport.open();
        QTRY_COMPARE_WITH_TIMEOUT(prompts->asked().size(), 2, 15000);
        prompts->replyLate(false);
        QVERIFY(closed.wait(5000));
        QVERIFY2(closed.at(1).at(0).toString().contains(QLatin1String("was not accepted")),
                 qPrintable(closed.at(1).at(0).toString()));
        QVERIFY(transport.hostKeyRejected());
    }

    void destroyingATransportStuckInConnectReturnsAtOnce()
    {
        SilentListener silent;
        QVERIFY(silent.port() > 0);
        SshOptions options = baseOptions(std::make_shared<PendingPrompts>());
        options.port = silent.port();
        options.connectTimeoutMs = 3000;
        auto *transport = new SshTransport(options);
        transport->open();
        // The worker is now inside libssh's blocking connect, waiting for a banner.
        QVERIFY(silent.acceptOne(10000));
        QTRY_COMPARE(SshThreads::running(), 0);  // those of earlier tests have ended
        QElapsedTimer elapsed;
        elapsed.start();
        delete transport;
        QVERIFY2(elapsed.elapsed() < 500, qPrintable(QString::number(elapsed.elapsed())));
        QCOMPARE(SshThreads::running(), 1);  // handed over, still in its connect
        // It ends by itself once libssh gives up, and is cleaned up then.
        QTRY_COMPARE_WITH_TIMEOUT(SshThreads::running(), 0, 15000);
    }

    void changedHostKeyIsRefused()
    {
        auto prompts = std::make_shared<TestPrompts>(true);
        const QString knownHosts = casePath(QStringLiteral("known_hosts"));
        const QString otherFingerprint = writeChangedKnownHosts(knownHosts);
        const QByteArray before = readFile(knownHosts);

        SshSession session(baseOptions(prompts));
        const Status status = session.connect();
        QVERIFY(!status.ok());
        QVERIFY2(status.error().contains(QLatin1String("CHANGED")), qPrintable(status.error()));
        QVERIFY2(status.error().contains(m_sshd.hostKeyFingerprint()), qPrintable(status.error()));
        QVERIFY2(status.error().contains(otherFingerprint), qPrintable(status.error()));
        QVERIFY(status.error().contains(QStringLiteral("127.0.0.1:%1").arg(m_sshd.port())));
        QCOMPARE(prompts->hostQuestions.load(), 0);  // never offered to accept it
        QCOMPARE(readFile(knownHosts), before);
        QVERIFY(session.hostKeyRejected());  // a sweep must not retry it
    }

    void sshConfigCannotWeakenHostKeyChecks()
    {
        auto prompts = std::make_shared<TestPrompts>(true);
        const QString knownHosts = casePath(QStringLiteral("config_known_hosts"));
        const QString otherFingerprint = writeChangedKnownHosts(knownHosts);
        const QByteArray before = readFile(knownHosts);
        const QString config = casePath(QStringLiteral("ssh_config"));
        writeFile(config,
                  QStringLiteral("Host 127.0.0.1\n"
                                 "  StrictHostKeyChecking no\n"
                                 "  UserKnownHostsFile %1\n"
                                 "  CheckHostIP no\n")
                      .arg(knownHosts)
                      .toUtf8());

        SshOptions options = baseOptions(prompts);
        options.knownHostsPath.clear();  // the config's UserKnownHostsFile is used
        options.readConfig = true;
        options.configPath = config;
        SshSession session(options);
        const Status status = session.connect();
        QVERIFY(!status.ok());
        QVERIFY2(status.error().contains(otherFingerprint), qPrintable(status.error()));
        QVERIFY2(status.error().contains(knownHosts), qPrintable(status.error()));
        QCOMPARE(prompts->hostQuestions.load(), 0);
        QCOMPARE(readFile(knownHosts), before);
    }

    void sshConfigAliasResolves()
    {
        auto prompts = std::make_shared<TestPrompts>(true);
        const QString config = casePath(QStringLiteral("ssh_config"));
        writeFile(config,
                  QStringLiteral("Host myjetson\n"
                                 "  Hostname 127.0.0.1\n"
                                 "  Port %1\n"
                                 "  User %2\n"
                                 "  IdentityFile %3\n")
                      .arg(m_sshd.port())
                      .arg(m_sshd.user(), m_sshd.userKey())
                      .toUtf8());
        SshOptions options = baseOptions(prompts);
        options.host = QStringLiteral("myjetson");
        options.port = 0;
        options.user.clear();
        options.identityFiles.clear();
        options.readConfig = true;
        options.configPath = config;
        SshSession session(options);
        const Status status = session.connect();
        QVERIFY2(status.ok(), qPrintable(status.error()));
        QCOMPARE(session.target(),
                 QStringLiteral("%1@127.0.0.1:%2").arg(m_sshd.user()).arg(m_sshd.port()));
    }

    // --- authentication ---------------------------------------------------------------------

    void wrongUserKeyNamesWhatWasTried()
    {
        auto prompts = std::make_shared<TestPrompts>(true);
        SshOptions options = baseOptions(prompts);
        options.identityFiles = {m_sshd.makeKey(QStringLiteral("stranger"))};
        SshSession session(options);
        const Status status = session.connect();
        QVERIFY(!status.ok());
        const QString error = status.error();
        QVERIFY2(error.contains(QLatin1String("authentication to")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("@127.0.0.1:%1").arg(m_sshd.port())),
                 qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("offers: publickey")), qPrintable(error));
        QVERIFY2(error.contains(options.identityFiles.first()), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("refused")), qPrintable(error));
        // The host key was accepted before authentication failed.
        QCOMPARE(prompts->hostQuestions.load(), 1);
        QVERIFY(!session.hostKeyRejected());
    }

    void encryptedKeyAsksForItsPassphrase()
    {
        const QString key =
            m_sshd.makeKey(QStringLiteral("locked"), nullptr, QStringLiteral("correct horse"));
        QVERIFY(!key.isEmpty());
        m_sshd.authorize(key);
        // Without its .pub the private key must be opened before the server is asked.
        QVERIFY(QFile::remove(key + QStringLiteral(".pub")));
        auto prompts = std::make_shared<TestPrompts>(true);
        SshOptions options = baseOptions(prompts);
        options.identityFiles = {key};
        {
            SshSession refused(options);  // no passphrase given: the key is skipped
            const Status status = refused.connect();
            QVERIFY(!status.ok());
            QVERIFY2(status.error().contains(QLatin1String("no passphrase given")),
                     qPrintable(status.error()));
        }
        prompts->keyPassphrase = QStringLiteral("correct horse");
        SshSession session(options);
        const Status status = session.connect();
        QVERIFY2(status.ok(), qPrintable(status.error()));
        QCOMPARE(prompts->secretQuestions.load(), 2);
    }

    // --- the command line -------------------------------------------------------------------

    void hostileArgumentsArriveByteExact()
    {
        const QString marker = casePath(QStringLiteral("pwned"));
        const QStringList hostile {
            QStringLiteral("it's"),
            QStringLiteral("\"double\" quotes"),
            QStringLiteral("$(touch %1)").arg(marker),
            QStringLiteral("`touch %1`").arg(marker),
            QStringLiteral("a; touch %1").arg(marker),
            QStringLiteral("x && touch %1 || y").arg(marker),
            QStringLiteral("line one\nline two\n"),
            QStringLiteral("  spaces  around  "),
            QString(),
            QStringLiteral("*"),
            QStringLiteral("\\back\\slash\\"),
            QStringLiteral("$HOME ${PATH} $1"),
            QStringLiteral("'"),
            QStringLiteral("''\\''"),
            QStringLiteral("tab\there | pipe > redirect < in"),
            QStringLiteral("-n"),
            QStringLiteral("\xc3\xbc\xe2\x82\xac unicode"),
        };
        auto prompts = std::make_shared<TestPrompts>(true);
        SshSession session(baseOptions(prompts));
        const Status status = session.connect();
        QVERIFY2(status.ok(), qPrintable(status.error()));
        QStringList argv {QStringLiteral("python3"), QStringLiteral("-c"),
                          QStringLiteral("import json, sys; "
                                         "sys.stdout.write(json.dumps(sys.argv[1:]))")};
        argv += hostile;
        Expected<SshSession::RunResult> result = session.run(ShellQuote::join(argv));
        QVERIFY2(result.ok(), qPrintable(result.error()));
        QVERIFY2(result->exitStatus == 0, result->err.constData());
        const QJsonArray received = QJsonDocument::fromJson(result->out).array();
        QCOMPARE(received.size(), hostile.size());
        for (int i = 0; i < hostile.size(); ++i)
            QCOMPARE(received.at(i).toString(), hostile.at(i));
        QVERIFY(!QFileInfo::exists(marker));
    }

    void deviceSetupSendsThePasswordOnStdinAndInstallsRootOwnedPieces()
    {
        // `ptwb device setup` runs `sudo -S ... python3 -I -c <loader>` with the password as
        // stdin's first line and the helper after it; a stand-in sudo checks that
        // (tests/remote/standinsudo.h) and installs under a temporary prefix.
        const QByteArray password = "correct horse $(battery) 'staple'";
        StandInSudo sudo(casePath(QStringLiteral("sudo")), password);
        QString error;
        QVERIFY2(sudo.install(m_sshd, &error), qPrintable(error));
        SshOptions options = baseOptions(std::make_shared<TestPrompts>(true));
        options.identityFiles = {sudo.key()};

        // A wrong password: sudo's complaint comes back, nothing is installed.
        const Expected<HelperSetup::Report> refused = HelperSetup::run(options, "wrong");
        QVERIFY2(refused, qPrintable(refused.error()));
        QVERIFY(!refused->ok());
        QVERIFY2(refused->sudoError.contains(QLatin1String("incorrect password")),
                 qPrintable(refused->sudoError));
        QVERIFY(!QFileInfo::exists(sudo.helperPath()));

        const Expected<HelperSetup::Report> report = HelperSetup::run(options, password);
        QVERIFY2(report, qPrintable(report.error()));
        QVERIFY2(report->ok(),
                 qPrintable(report->lines.join(QLatin1Char('\n')) + report->sudoError));
        const Expected<QByteArray> source = HelperSetup::helperSource();
        QVERIFY(source);
        const QString helper = sudo.helperPath();
        QCOMPARE(readFile(helper), *source);
        QCOMPARE(QFileInfo(helper).permissions() & (QFile::WriteGroup | QFile::WriteOther),
                 QFileDevice::Permissions());
        const QFileInfo state(sudo.stateDirectory());
        QVERIFY(state.isDir() && !state.isSymLink());
        QCOMPARE(state.permissions() & (QFile::ReadGroup | QFile::ReadOther | QFile::WriteOther),
                 QFileDevice::Permissions());
        // The drop-in names exactly the installed helper, for the login user, and nothing else.
        const QByteArray sudoers = sudo.sudoers();
        QStringList rules;
        for (const QByteArray &line : sudoers.split('\n')) {
            if (!line.trimmed().isEmpty() && !line.startsWith('#'))
                rules.append(QString::fromUtf8(line));
        }
        QCOMPARE(rules,
                 QStringList {QStringLiteral(
                     "nvidia ALL=(root) NOPASSWD: /usr/lib/powertrain-workbench/ptwb-helper")});
        QVERIFY(!QFileInfo::exists(sudo.sudoersPath() + QStringLiteral(".ptwb-new")));
        QVERIFY2(report->lines.join(QLatin1Char('\n')).contains(QLatin1String("visudo -c: ok")),
                 qPrintable(report->lines.join(QLatin1Char('\n'))));

        // The password reached sudo's stdin only: not its arguments, not the environment, not
        // what the setup reports.
        const QByteArray argv = sudo.seenArguments();
        QVERIFY(argv.startsWith("-S\n-p\n\n/usr/bin/python3\n-I\n-c\n"));
        QVERIFY(!argv.contains("horse"));
        QVERIFY(!sudo.seenEnvironment().contains("horse"));
        QVERIFY(!report->lines.join(QLatin1Char('\n')).contains(QLatin1String("horse")));
    }

    void plantedLoginOutputCannotChangeTheShownRule()
    {
        // What a line in the login user's shell startup files could print, before and after the
        // setup's own output (here a forced command around it), imitating the installer.
        const QString planted = casePath(QStringLiteral("planted.sh"));
        writeFile(planted,
                  "#!/bin/sh\n"
                  "printf 'sudoers drop-in /etc/sudoers.d/powertrain-workbench: "
                  "Defaults\\t!authenticate\\n'\n"
                  "printf 'sudoers drop-in /etc/sudoers.d/powertrain-workbench: ALL ALL=(ALL) "
                  "NOPASSWD: ALL\\n'\n"
                  "sh -c \"$SSH_ORIGINAL_COMMAND\"; status=$?\n"
                  "printf 'add: Defaults !authenticate\\n'\n"
                  "exit $status\n");
        QVERIFY(QFile::setPermissions(planted,
                                      QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                          QFile::ReadOther | QFile::ExeOther));
        const QByteArray password = "pw";
        StandInSudo sudo(casePath(QStringLiteral("sudo")), password);
        QString error;
        QVERIFY2(sudo.install(m_sshd, &error, "command=\"" + QFile::encodeName(planted) + "\""),
                 qPrintable(error));
        SshOptions options = baseOptions(std::make_shared<TestPrompts>(true));
        options.identityFiles = {sudo.key()};
        const Expected<HelperSetup::Report> report = HelperSetup::run(options, password);
        QVERIFY2(report, qPrintable(report.error()));
        const QString shown = report->lines.join(QLatin1Char('\n'));
        QVERIFY2(report->ok(), qPrintable(shown + report->problem));
        // What the user reads is this workbench's own text: the planted lines are not in it.
        QVERIFY2(!shown.contains(QLatin1String("authenticate")) &&
                     !shown.contains(QLatin1String("ALL ALL")),
                 qPrintable(shown));
        QCOMPARE(report->user, QStringLiteral("nvidia"));
        QVERIFY2(
            shown.contains(QLatin1String("sudoers drop-in /etc/sudoers.d/powertrain-workbench: "
                                         "nvidia ALL=(root) NOPASSWD: "
                                         "/usr/lib/powertrain-workbench/ptwb-helper")),
            qPrintable(shown));
        // and what was installed comes from the helper this workbench sent
        QStringList rules;
        for (const QByteArray &line : sudo.sudoers().split('\n')) {
            if (!line.trimmed().isEmpty() && !line.startsWith('#'))
                rules.append(QString::fromUtf8(line));
        }
        QCOMPARE(rules, QStringList {HelperSetup::sudoersRule(QStringLiteral("nvidia"))});
        QCOMPARE(readFile(sudo.helperPath()), HelperSetup::helperSource().value());
    }

    void unreadableKnownHostsIsAnErrorNamingIt_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("chmod 000") << QStringLiteral("chmod");
        QTest::newRow("a directory") << QStringLiteral("directory");
        QTest::newRow("a symbolic link loop") << QStringLiteral("loop");
    }

    // An existing known_hosts that cannot be read may hold this host's (old) key: no new host,
    // no question, nothing appended, even with a prompt that accepts any new host
    // (--accept-new-host-key).
    void unreadableKnownHostsIsAnErrorNamingIt()
    {
        QFETCH(QString, kind);
        const QString path = casePath(QStringLiteral("known_hosts"));
        QByteArray before;
        if (kind == QLatin1String("chmod")) {
            writeChangedKnownHosts(path);  // the old key, in a file the user cannot read
            before = readFile(path);
            QVERIFY(QFile::setPermissions(path, QFileDevice::Permissions()));
            QFile probe(path);
            if (probe.open(QIODevice::ReadOnly)) {
                QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
                QSKIP("running as root: chmod 000 does not stop root reading; the directory and "
                      "link-loop rows make known_hosts unreadable for root too");
            }
        } else if (kind == QLatin1String("directory")) {
            QVERIFY(QDir().mkpath(path));
        } else {
            QVERIFY(QFile::link(path, path));  // ELOOP
        }
        auto prompts = std::make_shared<TestPrompts>(true);
        SshSession session(baseOptions(prompts));
        const Status status = session.connect();
        if (kind == QLatin1String("chmod")) {
            QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
            QCOMPARE(readFile(path), before);
        } else if (kind == QLatin1String("directory")) {
            QVERIFY(QFileInfo(path).isDir());
            QVERIFY(QDir(path).isEmpty());
        } else {
            QVERIFY(QFileInfo(path).isSymLink());
        }
        QVERIFY(!status.ok());
        QVERIFY2(status.error().contains(path) &&
                     status.error().contains(QLatin1String("cannot be read")),
                 qPrintable(status.error()));
        QCOMPARE(prompts->hostQuestions.load(), 0);
        QVERIFY(session.hostKeyRejected());
    }

    // --- upload -----------------------------------------------------------------------------

    void agentUploadIsContentAddressed()
    {
        Expected<SshLaunch> launch = SshLaunches::agent();
        QVERIFY2(launch.ok(), qPrintable(launch.error()));
        const QString emptyRoot = casePath(QStringLiteral("root"));
        QVERIFY(QDir().mkpath(emptyRoot));
        // The real agent, against an empty tree so it touches nothing of this machine.
        launch->argv << QStringLiteral("--root") << emptyRoot;
        SshOptions options = baseOptions(std::make_shared<TestPrompts>(true));
        options.launch = *launch;
        SshTransport transport(options);

        // The agent, its helper and its launcher, in one directory named after them: the
        // SHA-256 of "name\0sha256hex\n" lines (docs/ssh.md), so a change to any uploads all
        // afresh.
        QCOMPARE(launch->files.size(), 3);
        QList<QByteArray> contents;
        QCryptographicHash bundle(QCryptographicHash::Sha256);
        for (const SshLaunch::File &file : std::as_const(launch->files)) {
            contents.append(readFile(file.localPath));
            QVERIFY(!contents.constLast().isEmpty());
            bundle.addData(
                file.name.toUtf8() + '\0' +
                QCryptographicHash::hash(contents.constLast(), QCryptographicHash::Sha256).toHex() +
                '\n');
        }
        const QString directory = options.remoteCacheDir + QLatin1Char('/') +
            QString::fromLatin1(bundle.result().toHex()) + QLatin1Char('/');

        QSignalSpy opened(&transport, &Transport::opened);
        QSignalSpy closed(&transport, &Transport::closed);
        QSignalSpy lines(&transport, &Transport::lineReceived);
        QSignalSpy log(&transport, &SshTransport::logMessage);
        for (int round = 0; round < 2; ++round) {
            transport.open();
            QVERIFY2(
                QTest::qWaitFor([&] { return opened.count() + closed.count() > round * 2; }, 30000),
                "never opened");
            QVERIFY2(transport.isOpen(),
                     qPrintable(closed.isEmpty() ? QString() : closed.last().at(0).toString()));
            for (qsizetype i = 0; i < contents.size(); ++i) {
                const QString uploaded = directory + launch->files.at(i).name;
                QCOMPARE(readFile(uploaded), contents.at(i));
                QCOMPARE(QFileInfo(uploaded).permissions() &
                             (QFile::ReadGroup | QFile::ReadOther | QFile::WriteOther),
                         QFile::Permissions());
            }
            const QStringList messages = [&] {
                QStringList all;
                for (const QList<QVariant> &entry : std::as_const(log))
                    all << entry.at(0).toString();
                return all;
            }();
            const QString expected = round == 0 ? QStringLiteral("3 file(s) uploaded, 0 already")
                                                : QStringLiteral("0 file(s) uploaded, 3 already");
            QVERIFY2(messages.join(QLatin1Char('\n')).contains(expected),
                     qPrintable(messages.join(QLatin1Char('\n'))));
            log.clear();
            // The uploaded agent answers (an error: the empty tree is no Jetson).
            transport.sendLine(R"({"id": 7, "op": "get_mode"})");
            QVERIFY(QTest::qWaitFor([&] { return !lines.isEmpty(); }, 20000));
            const QByteArray answer = lines.takeFirst().at(0).toByteArray();
            QVERIFY2(answer.contains("\"id\":7"), answer.constData());
            transport.close();
            QVERIFY(QTest::qWaitFor([&] { return closed.count() == round + 1; }, 20000));
            QCOMPARE(closed.last().at(0).toString(), QStringLiteral("closed"));
        }
    }

    // A file of the right size under the content-addressed name is not taken on trust: one
    // changed on the device (same size, other bytes) is uploaded again.
    void sameSizeChangedUploadIsReplaced()
    {
        const QString local = casePath(QStringLiteral("tool.py"));
        writeFile(local, "print('the real tool')\n");
        SshSession session(baseOptions(std::make_shared<TestPrompts>(true)));
        const Status status = session.connect();
        QVERIFY2(status.ok(), qPrintable(status.error()));
        const QList<SshLaunch::File> files {{local, QStringLiteral("tool.py")}};
        const Expected<SshSession::Upload> first = session.upload(files);
        QVERIFY2(first, qPrintable(first.error()));
        QCOMPARE(first->uploaded, 1);
        const QString remote = first->directory + QStringLiteral("/tool.py");
        QByteArray tampered = readFile(remote);
        QCOMPARE(tampered, readFile(local));
        tampered.replace("real", "evil");  // same size
        QVERIFY(QFile::setPermissions(remote, QFile::ReadOwner | QFile::WriteOwner));
        writeFile(remote, tampered);
        const Expected<SshSession::Upload> second = session.upload(files);
        QVERIFY2(second, qPrintable(second.error()));
        QCOMPARE(second->uploaded, 1);
        QCOMPARE(second->skipped, 0);
        QCOMPARE(readFile(remote), readFile(local));
        const Expected<SshSession::Upload> third = session.upload(files);
        QVERIFY2(third, qPrintable(third.error()));
        QCOMPARE(third->skipped, 1);
        session.disconnect();
    }

    // --- the simulated Jetson over SSH ------------------------------------------------------

    void simulatorOverSshThroughADrop()
    {
        SshOptions options = baseOptions(std::make_shared<TestPrompts>(true));
        QString error;
        std::unique_ptr<DeviceClient> client = simulatorClient(options, &error);
        QVERIFY2(client, qPrintable(error));
        QVERIFY2(waitReady(client.get(), &error), qPrintable(error));
        QVERIFY(client->info().simulated);
        QCOMPARE(client->info().kind, QStringLiteral("orin-agx"));

        const DeviceSpec spec = DeviceSpec::builtin(QStringLiteral("orin-agx")).value();
        PowerMode mode;
        mode.cores = 4;
        mode.cpuKHz = spec.values(Dimension::Cpu).at(5);
        mode.gpuHz = spec.values(Dimension::Gpu).at(2);
        mode.emcHz = spec.values(Dimension::Emc).at(1);
        const DeviceReply applied = awaitReply(client->applyMode(mode));
        QVERIFY2(applied.ok, qPrintable(applied.error.text()));
        const DeviceReply now = awaitReply(client->getMode());
        QVERIFY2(now.ok, qPrintable(now.error.text()));
        QCOMPARE(
            modeFromJson(now.result.value(QLatin1String("mode")).toObject(), QStringLiteral("mode"))
                ->toCanonical(),
            mode.toCanonical());

        // The connection drops while a streaming call runs.
        QSignalSpy gone(client.get(), &DeviceClient::disconnected);
        DeviceCall *pending = client->samplePower(100, 100000);
        auto reply = std::make_shared<std::optional<DeviceReply>>();
        connect(pending, &DeviceCall::finished, [reply](const DeviceReply &r) { *reply = r; });
        QSignalSpy events(pending, &DeviceCall::eventReceived);
        QVERIFY(QTest::qWaitFor([&] { return !events.isEmpty(); }, 20000));
        QVERIFY(!m_sshd.sessionPids().isEmpty());
        m_sshd.signalSessions(SIGKILL);
        QVERIFY(QTest::qWaitFor([&] { return !gone.isEmpty(); }, 20000));
        QVERIFY2(gone.first().at(0).toString().contains(QLatin1String("connection lost")),
                 qPrintable(gone.first().at(0).toString()));
        QVERIFY(QTest::qWaitFor([&] { return reply->has_value(); }, 5000));
        QVERIFY(!(*reply)->ok);
        QCOMPARE((*reply)->error.code, QStringLiteral("disconnected"));

        // And comes back from scratch.
        QVERIFY2(waitReady(client.get(), &error), qPrintable(error));
        const DeviceReply again = awaitReply(client->getMode());
        QVERIFY2(again.ok, qPrintable(again.error.text()));

        // A stalled server (stopped, its TCP still up) is noticed by the keepalives.
        client.reset();
        options.keepaliveIntervalMs = 500;
        options.keepaliveMaxMissed = 3;
        client = simulatorClient(options, &error);
        QVERIFY2(client, qPrintable(error));
        QVERIFY2(waitReady(client.get(), &error), qPrintable(error));
        QSignalSpy stalled(client.get(), &DeviceClient::disconnected);
        m_sshd.signalSessions(SIGSTOP);
        const bool noticed = QTest::qWaitFor([&] { return !stalled.isEmpty(); }, 15000);
        m_sshd.signalSessions(SIGKILL);
        m_sshd.signalSessions(SIGCONT);
        QVERIFY(noticed);
        QVERIFY2(stalled.first().at(0).toString().contains(QLatin1String("no answer")),
                 qPrintable(stalled.first().at(0).toString()));

        // A clean close: EOF, the simulator exits, "closed".
        QVERIFY2(waitReady(client.get(), &error), qPrintable(error));
        QSignalSpy closedCleanly(client.get(), &DeviceClient::disconnected);
        client->disconnectFromDevice();
        QVERIFY(QTest::qWaitFor([&] { return !closedCleanly.isEmpty(); }, 10000));
        QCOMPARE(closedCleanly.first().at(0).toString(), QStringLiteral("closed"));
    }
};

QTEST_GUILESS_MAIN(TestSsh)
#include "test_ssh.moc"
