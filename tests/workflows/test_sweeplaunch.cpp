#include "deviceprobe.h"
#include "localprocesstransport.h"
#include "modes/devicespec.h"
#include "simulatorlauncher.h"
#include "store/store.h"
#include "store/sweepstore.h"
#include "sweeplaunch.h"
#include "sweeprunner.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::workflows;

namespace {

SweepRequest request(const QString &modeSet)
{
    SweepRequest r;
    r.workload = QStringLiteral("resnet18");
    r.modeSet = modeSet;
    r.minibatches = 30;
    r.seed = 7;
    return r;
}

}  // namespace

// Launching a sweep as `ptwb sweep` and the Sweep view both do, without either.
class TestSweepLaunch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        auto store = Store::open(m_dir.filePath(QStringLiteral("db-%1.sqlite").arg(++m_runs)));
        QVERIFY(store);
        m_store = std::move(store).value();
        ConnectionOptions options;
        options.simulatorState = m_dir.filePath(QStringLiteral("sim-%1").arg(m_runs));
        options.simulatorSpeed = 400;
        m_device = endpoint(QStringLiteral("sim:orin-agx"), options).value();
    }

    void cleanup() { m_store.reset(); }

    void aPlanIsStoredFromTheRequest()
    {
        const Expected<qint64> id =
            planSweep(*m_store, request(QStringLiteral("random:5")), {m_device});
        QVERIFY2(id, qPrintable(id.error()));
        const Expected<SweepRecord> record = SweepStore(*m_store).load(*id);
        QVERIFY(record);
        QCOMPARE(record->items.size(), 5);
        QCOMPARE(record->plan.device, QStringLiteral("simulated-orin-agx"));
        QCOMPARE(record->plan.deviceKind, QStringLiteral("orin-agx"));
        QCOMPARE(record->plan.target, QStringLiteral("sim:orin-agx"));
        QCOMPARE(record->plan.minibatches, 30);
        QVERIFY2(record->plan.run.contains(QStringLiteral("\"name\":\"resnet18\"")),
                 qPrintable(record->plan.run));
    }

    void resumeFindsTheNewestSweepOfTheWorkloadOnTheDevice()
    {
        SweepRequest resume = request(QString());
        resume.resume = true;
        const Expected<qint64> none = planSweep(*m_store, resume, {m_device});
        QVERIFY(!none);
        QCOMPARE(none.field(), InputField::Resume);
        QVERIFY2(!none.error().contains(QStringLiteral("--")), qPrintable(none.error()));

        const Expected<qint64> first =
            planSweep(*m_store, request(QStringLiteral("random:2")), {m_device});
        const Expected<qint64> second =
            planSweep(*m_store, request(QStringLiteral("random:3")), {m_device});
        QVERIFY(first && second);
        const Expected<qint64> resumed = planSweep(*m_store, resume, {m_device});
        QVERIFY(resumed);
        QCOMPARE(*resumed, *second);
        // The same sweep on a device of another kind is refused.
        DeviceEndpoint nano = m_device;
        nano.kind = QStringLiteral("orin-nano");
        resume.resumeSweepId = *second;
        const Expected<qint64> otherKind = planSweep(*m_store, resume, {nano});
        QVERIFY(!otherKind);
        QCOMPARE(otherKind.field(), InputField::Target);
    }

    // A device measured under one spec whose tables then changed (a JetPack upgrade gave an
    // Orin Nano the Super clocks): what is measured now is kept apart, under "NAME [KIND]",
    // and the measurements of the old spec stay under the name with their kind.
    void measurementsAfterAnUpgradeGoUnderTheNewSpec()
    {
        QVERIFY(m_store->ensureDevice(QStringLiteral("lab-nano"), QStringLiteral("orin-nano")));
        DeviceEndpoint super = m_device;
        super.kind = QStringLiteral("orin-nano-super");
        super.storeName = QStringLiteral("lab-nano");
        for (int round = 0; round < 2; ++round) {  // the same name each time, no second suffix
            const Expected<qint64> id =
                planSweep(*m_store, request(QStringLiteral("random:3")), {super});
            QVERIFY2(id, qPrintable(id.error()));
            const Expected<SweepRecord> record = SweepStore(*m_store).load(*id);
            QVERIFY(record);
            QCOMPARE(record->plan.device, QStringLiteral("lab-nano [orin-nano-super]"));
            QCOMPARE(record->plan.deviceKind, QStringLiteral("orin-nano-super"));
        }
        QCOMPARE(m_store->deviceKind(QStringLiteral("lab-nano")).value_or(QString()),
                 QStringLiteral("orin-nano"));
    }

    void badRequestsNameTheirField_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("modeSet");
        QTest::addColumn<int>("minibatches");
        QTest::addColumn<int>("repeats");
        QTest::addColumn<int>("field");
        QTest::newRow("no workload")
            << QString() << "random:3" << 30 << 1 << int(InputField::Workload);
        QTest::newRow("not built in") << "mywork"
                                      << "random:3" << 30 << 1 << int(InputField::Run);
        QTest::newRow("no modes") << "resnet18"
                                  << "" << 30 << 1 << int(InputField::Modes);
        QTest::newRow("bad mode set") << "resnet18"
                                      << "random:0" << 30 << 1 << int(InputField::Modes);
        QTest::newRow("grid") << "resnet18"
                              << "grid:cores=nonesuch" << 30 << 1 << int(InputField::Modes);
        QTest::newRow("minibatches") << "resnet18"
                                     << "random:3" << 1 << 1 << int(InputField::Minibatches);
        QTest::newRow("repeats") << "resnet18"
                                 << "random:3" << 30 << 0 << int(InputField::Repeats);
    }

    void badRequestsNameTheirField()
    {
        QFETCH(QString, workload);
        QFETCH(QString, modeSet);
        QFETCH(int, minibatches);
        QFETCH(int, repeats);
        QFETCH(int, field);
        SweepRequest r = request(modeSet);
        r.workload = workload;
        r.minibatches = minibatches;
        r.repeats = repeats;
        const Expected<qint64> refused = planSweep(*m_store, r, {m_device});
        QVERIFY(!refused);
        QCOMPARE(refused.errorKind(), ErrorKind::BadInput);
        QCOMPARE(int(refused.field()), field);
        QVERIFY2(!refused.error().contains(QStringLiteral("--")), qPrintable(refused.error()));
        QCOMPARE(SweepStore(*m_store)
                     .latest(QStringLiteral("simulated-orin-agx"), QStringLiteral("resnet18"))
                     .ok(),
                 false);  // nothing stored
    }

    void theLaunchedRunnerMeasuresThePlanOnTheSimulatedJetson()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        const Expected<qint64> id =
            planSweep(*m_store, request(QStringLiteral("random:3")), {m_device});
        QVERIFY(id);
        Expected<std::unique_ptr<SweepRunner>> runner = sweepRunner(*m_store, *id, {m_device});
        QVERIFY2(runner, qPrintable(runner.error()));
        QSignalSpy finished(runner->get(), &SweepRunner::finished);
        (*runner)->start();
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.first().first().toBool(), qPrintable(finished.first().at(1).toString()));
        const Expected<SweepRecord> record = SweepStore(*m_store).load(*id);
        QVERIFY(record);
        QCOMPARE(record->count(SweepItem::State::Done), 3);
        const auto rows =
            m_store->measurements(QStringLiteral("simulated-orin-agx"), QStringLiteral("resnet18"));
        QVERIFY(rows);
        QCOMPARE(rows->size(), 3);
    }

    // A device whose memory clock cannot be controlled (the simulated Orin Nano with the
    // emc-locked fault, reached as a real device would be: its kind from its hello) is planned
    // in its own tables, EMC fixed at the clock it runs at, and swept.
    void aDeviceWhoseMemoryClockIsLockedIsSweptAtItsClock()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed; scripts/install-deps installs it");
        SimulatorOptions sim;
        sim.deviceKind = QStringLiteral("orin-nano");
        sim.stateDirectory = m_dir.filePath(QStringLiteral("locked-%1").arg(m_runs));
        sim.speed = 400;
        sim.faults = {QStringLiteral("emc-locked")};
        DeviceEndpoint locked;
        locked.name = QStringLiteral("lab nano");
        locked.address = QStringLiteral("ssh://nvidia@lab-nano");
        locked.simulated = false;
        locked.storeName = QStringLiteral("lab-nano");
        locked.connect = [sim]() -> Expected<Transport *> {
            Expected<LocalProcessTransport *> transport = SimulatorLauncher::transport(sim);
            if (!transport)
                return passOn<Expected<Transport *>>(transport);
            return static_cast<Transport *>(*transport);
        };
        const Expected<QVector<DeviceEndpoint>> probed = withReportedKinds({locked});
        QVERIFY2(probed, qPrintable(probed.error()));
        const QString kind = probed->first().kind;
        QVERIFY2(kind.startsWith(QLatin1String("orin-nano-")), qPrintable(kind));
        const Expected<DeviceSpec> spec = DeviceSpec::lookup(kind);
        QVERIFY(spec);
        QCOMPARE(spec->values(Dimension::Emc).size(), 1);
        const qint64 emc = spec->values(Dimension::Emc).front();
        const DeviceSpec builtin = DeviceSpec::builtin(QStringLiteral("orin-nano")).value();
        QCOMPARE(spec->values(Dimension::Gpu), builtin.values(Dimension::Gpu));
        QCOMPARE(spec->presets().size(), builtin.presets().size());  // every preset a baseline

        const Expected<qint64> id =
            planSweep(*m_store, request(QStringLiteral("random:3")), *probed);
        QVERIFY2(id, qPrintable(id.error()));
        Expected<std::unique_ptr<SweepRunner>> runner = sweepRunner(*m_store, *id, *probed);
        QVERIFY2(runner, qPrintable(runner.error()));
        QSignalSpy finished(runner->get(), &SweepRunner::finished);
        (*runner)->start();
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.first().first().toBool(), qPrintable(finished.first().at(1).toString()));
        const auto rows =
            m_store->measurements(QStringLiteral("lab-nano"), QStringLiteral("resnet18"));
        QVERIFY(rows);
        QCOMPARE(rows->size(), 3);
        for (const Measurement &m : *rows)
            QCOMPARE(m.mode.emcHz, emc);
    }

private:
    QTemporaryDir m_dir;
    int m_runs = 0;
    std::unique_ptr<Store> m_store;
    DeviceEndpoint m_device;
};

QTEST_GUILESS_MAIN(TestSweepLaunch)
#include "test_sweeplaunch.moc"
