// The shared workload workflow (issue 20) the Workloads dialog and `ptwb workload` both call:
// the list, a sweep of a saved definition, and a test run on the simulated Jetson, event-driven.
#include "store/store.h"
#include "store/sweepstore.h"
#include "sweeplaunch.h"
#include "workloads.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::workflows;

namespace {

WorkloadDefinition trainScript(const QString &name, const QString &log)
{
    WorkloadDefinition d;
    d.name = name;
    d.argv = {QStringLiteral("python3"), QStringLiteral("train.py"), QStringLiteral("--log"), log};
    d.skip = 2;
    d.keep = 6;
    d.timeoutSeconds = 600;
    return d;
}

bool haveSimulatedTrainScript()
{
    return QFile::exists(QStringLiteral(PTWB_SOURCE_DIR "/remote/simulator/sim_train.py"));
}

}  // namespace

class TestWorkloads : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;
    std::unique_ptr<Store> m_store;
    DeviceEndpoint m_device;

    // A WorkloadTest to its end, with the minibatch events it sent.
    Expected<WorkloadTestReport> runTest(const WorkloadSpec &spec, int seconds,
                                         QVector<double> *minibatches, bool cancelEarly = false)
    {
        std::optional<Expected<WorkloadTestReport>> result;
        std::unique_ptr<WorkloadTest> test = startWorkloadTest(m_device, spec, seconds);
        connect(test.get(), &WorkloadTest::minibatch, this, [&](int, double ms) {
            minibatches->append(ms);
            if (cancelEarly && minibatches->size() == 2)
                test->cancel();
        });
        connect(test.get(), &WorkloadTest::finished, this,
                [&](const Expected<WorkloadTestReport> &report) { result = report; });
        if (!QTest::qWaitFor([&] { return result.has_value(); }, 120000))
            return Expected<WorkloadTestReport>::failure(QStringLiteral("no result in 120 s"));
        return *result;
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        auto store = Store::open(m_dir.filePath(QStringLiteral("db-%1.sqlite").arg(++m_runs)));
        QVERIFY(store);
        m_store = std::move(store).value();
        ConnectionOptions options;
        options.simulatorState = m_dir.filePath(QStringLiteral("sim-%1").arg(m_runs));
        options.simulatorSpeed = 10;
        m_device = endpoint(QStringLiteral("sim:orin-agx"), options).value();
    }

    void cleanup() { m_store.reset(); }

    void builtInsFirstThenDefinitionsOfTheKind()
    {
        WorkloadDefinition nano = trainScript(QStringLiteral("a-nano"), QStringLiteral("marker"));
        nano.deviceKind = QStringLiteral("orin-nano");
        QVERIFY(addWorkload(*m_store, nano).ok());
        QVERIFY(addWorkload(*m_store, trainScript(QStringLiteral("b-any"), QStringLiteral("tqdm")))
                    .ok());
        const auto all = listWorkloads(*m_store);
        QVERIFY(all);
        QCOMPARE(all->size(), 6);
        QVERIFY(all->at(0).builtin && !all->at(0).definition);
        QCOMPARE(all->at(4).name, QStringLiteral("a-nano"));
        QVERIFY(!all->at(4).builtin && all->at(4).definition);
        const auto agx = listWorkloads(*m_store, QStringLiteral("orin-agx"));
        QCOMPARE(agx->size(), 5);
        QCOMPARE(agx->last().name, QStringLiteral("b-any"));
        // the same functions edit them
        const auto copy = duplicateWorkload(*m_store, QStringLiteral("b-any"));
        QVERIFY(copy);
        WorkloadDefinition renamed = *copy;
        renamed.name = QStringLiteral("c-renamed");
        QVERIFY(updateWorkload(*m_store, copy->name, renamed).ok());
        QVERIFY(removeWorkload(*m_store, QStringLiteral("a-nano")).ok());
        const auto now = listWorkloads(*m_store);
        QCOMPARE(now->size(), 6);
        QCOMPARE(now->last().name, QStringLiteral("c-renamed"));
        const Status bad = addWorkload(*m_store, trainScript(QString(), QStringLiteral("x")));
        QCOMPARE(bad.field(), InputField::Workload);
    }

    // planSweep: the saved definition before the built-in, skip + keep per mode, its whole run
    // recorded; a definition for another kind of device is refused.
    void aSweepPlansTheSavedDefinition()
    {
        QVERIFY(addWorkload(*m_store, trainScript(QStringLiteral("mine"), QStringLiteral("marker")))
                    .ok());
        SweepRequest request;
        request.workload = QStringLiteral("mine");
        request.modeSet = QStringLiteral("random:3");
        const Expected<qint64> id = planSweep(*m_store, request, {m_device});
        QVERIFY2(id, qPrintable(id.error()));
        const SweepRecord record = SweepStore(*m_store).load(*id).value();
        QCOMPARE(record.plan.minibatches, 8);
        const QJsonObject run = QJsonDocument::fromJson(record.plan.run.toUtf8()).object();
        QCOMPARE(run,
                 WorkloadSpec::fromDefinition(
                     trainScript(QStringLiteral("mine"), QStringLiteral("marker")))
                     .toJson());
        WorkloadDefinition nano = trainScript(QStringLiteral("nano"), QStringLiteral("marker"));
        nano.deviceKind = QStringLiteral("orin-nano");
        QVERIFY(addWorkload(*m_store, nano).ok());
        request.workload = QStringLiteral("nano");
        const Expected<qint64> refused = planSweep(*m_store, request, {m_device});
        QVERIFY(!refused);
        QCOMPARE(refused.field(), InputField::Workload);
        QVERIFY2(refused.error().contains(QLatin1String("defined for orin-nano devices")),
                 qPrintable(refused.error()));
    }

    void aTestReportsWhatWasRecognised()
    {
        if (!haveSimulatedTrainScript())
            QSKIP("remote/simulator/sim_train.py is missing: the simulated train.py comes with "
                  "the agent's issue 20 work (branch wt-agent20)");
        QVector<double> minibatches;
        const auto report = runTest(WorkloadSpec::fromDefinition(
                                        trainScript(QStringLiteral("m"), QStringLiteral("marker"))),
                                    120, &minibatches);
        QVERIFY2(report, qPrintable(report.error()));
        QVERIFY2(report->recognised(), qPrintable(report->reason));
        QCOMPARE(minibatches.size(), 2 + WorkloadTest::kTestMinibatches);  // skipped ones too
        QVERIFY(*report->medianMs > 0);
        QVERIFY(*report->medianW > 0);
        QVERIFY(!report->lines.isEmpty());
        QVERIFY(report->lines.last().ms.has_value());
        QVERIFY(report->lines.last().text.startsWith(QLatin1String("PTWB_MINIBATCH ")));
    }

    void aFailingWorkloadIsAReportWithItsReason()
    {
        if (!haveSimulatedTrainScript())
            QSKIP("remote/simulator/sim_train.py is missing: the simulated train.py comes with "
                  "the agent's issue 20 work (branch wt-agent20)");
        WorkloadDefinition d = trainScript(QStringLiteral("f"), QStringLiteral("marker"));
        d.argv << QStringLiteral("--fail-after") << QStringLiteral("1")
               << QStringLiteral("--exit-status") << QStringLiteral("4");
        QVector<double> minibatches;
        const auto report = runTest(WorkloadSpec::fromDefinition(d), 120, &minibatches);
        QVERIFY2(report, qPrintable(report.error()));
        QVERIFY(!report->recognised());
        QCOMPARE(report->exitStatus, std::optional<int>(4));
        QVERIFY2(report->reason.contains(QLatin1String("status 4")), qPrintable(report->reason));
        QVERIFY(
            std::any_of(report->lines.cbegin(), report->lines.cend(), [](const OutputLine &line) {
                return line.stream == QLatin1String("err");
            }));
    }

    void cancelStopsTheWorkload()
    {
        if (!haveSimulatedTrainScript())
            QSKIP("remote/simulator/sim_train.py is missing: the simulated train.py comes with "
                  "the agent's issue 20 work (branch wt-agent20)");
        WorkloadDefinition d = trainScript(QStringLiteral("c"), QStringLiteral("marker"));
        d.keep = 100000 - 2;
        QVector<double> minibatches;
        const auto report = runTest(WorkloadSpec::fromDefinition(d), 600, &minibatches, true);
        QVERIFY(!report);
        QCOMPARE(report.error(), QStringLiteral("cancelled"));
        QVERIFY(minibatches.size() < 50);
    }

    void aBadRequestFinishesAtOnce()
    {
        QVector<double> minibatches;
        WorkloadSpec empty;
        const auto noCommand = runTest(empty, 30, &minibatches);
        QVERIFY(!noCommand);
        QCOMPARE(noCommand.field(), InputField::Run);
        WorkloadSpec builtin;
        builtin.builtin = QStringLiteral("resnet18");
        const auto tooLong = runTest(builtin, 601, &minibatches);
        QVERIFY(!tooLong);
        QCOMPARE(tooLong.errorKind(), ErrorKind::BadInput);
    }
};

QTEST_GUILESS_MAIN(TestWorkloads)
#include "test_workloads.moc"
