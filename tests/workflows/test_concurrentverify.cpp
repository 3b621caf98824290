// startVerification as the window uses it: progress arrives, cancel stops the run on the
// simulated device and leaves it in its previous mode, a bad request never reaches the device.
#include "concurrentverify.h"
#include "deviceclient.h"

#include <QEventLoop>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace ptwb;
using namespace ptwb::workflows;

namespace {

const PowerMode kLow {8, 1497600, 930750000, 3199000000};

VerificationRequest request()
{
    VerificationRequest r;
    r.trainWorkload = QStringLiteral("resnet18");
    r.inferWorkload = QStringLiteral("mobilenet_v3");
    r.inferBatch = 12;
    r.arrivalRate = 40;
    r.durationS = 40;
    r.mode = kLow;
    r.problem.latencyBudgetS = 0.5;
    r.problem.powerBudgetW = 40;
    r.predicted = PairCost {80, 30, 40, 25, 12};
    return r;
}

}  // namespace

class TestConcurrentVerify : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        ConnectionOptions options;
        options.simulatorState = m_dir.filePath(QStringLiteral("sim-%1").arg(++m_runs));
        options.simulatorSpeed = 10;
        m_device = endpoint(QStringLiteral("sim:orin-agx"), options).value();
    }

    void checksTheRequest_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<int>("field");
        for (int i = 0; i < 6; ++i)
            QTest::addRow("%d", i)
                << i
                << int(i < 2        ? (i == 0 ? InputField::Training : InputField::Inference)
                           : i == 2 ? InputField::ArrivalRate
                           : i == 3 ? InputField::Inference
                                    : InputField::Run);
    }

    void checksTheRequest()
    {
        QFETCH(int, which);
        QFETCH(int, field);
        VerificationRequest r = request();
        switch (which) {
        case 0:
            r.trainWorkload.clear();
            break;
        case 1:
            r.inferWorkload.clear();
            break;
        case 2:
            r.arrivalRate = 10001;
            break;
        case 3:
            r.inferBatch = 0;
            break;
        case 4:
            r.durationS = 3001;
            break;
        default:
            r.arrivalRate = 1;
            r.durationS = 5;
            break;  // not one batch of 12
        }
        const Status status = checkVerification(r);
        QVERIFY(!status);
        QCOMPARE(int(status.field()), field);
        QCOMPARE(status.errorKind(), ErrorKind::BadInput);
        // Finishes without touching the device.
        std::optional<Expected<VerificationOutcome>> done;
        auto run = startVerification(m_device, r, {{}, {}, [&](const auto &o) { done = o; }});
        QTRY_VERIFY(done.has_value());
        QVERIFY(!*done);
        QCOMPARE(done->errorKind(), ErrorKind::BadInput);
    }

    void judgesTheRunAgainstItsBudgets()
    {
        ConcurrentMeasurement measured;
        const ConcurrentProblem problem {60, 0.5, 25};
        // Nothing answered yet, no power reported: nothing to judge.
        QVERIFY(!workflows::latencyCheck(problem, measured).judged());
        QVERIFY(!workflows::powerCheck(problem, measured).judged());
        measured.latencyMs = LatencyPercentiles {300, 480, 520, 560};
        measured.powerMedianW = 24.0;
        const workflows::BudgetCheck latency = workflows::latencyCheck(problem, measured);
        QVERIFY(latency.judged() && !latency.met());  // p99 0.52 s over 0.5 s
        QVERIFY(std::abs(latency.over() - 0.02) < 1e-9);
        QVERIFY(workflows::powerCheck(problem, measured).met());
        // No budget: not judged, whatever was measured.
        QVERIFY(!workflows::powerCheck({60, 0.5, 0}, measured).judged());
    }

    void reportsProgressAndTheOutcome()
    {
        VerificationRequest r = request();
        r.durationS = 30;
        int progress = 0;
        std::optional<Expected<VerificationOutcome>> done;
        auto run = startVerification(m_device, r,
                                     {{},
                                      [&](const ConcurrentMeasurement &m) {
                                          ++progress;
                                          QVERIFY(!m.final);
                                      },
                                      [&](const Expected<VerificationOutcome> &o) { done = o; }});
        QTRY_VERIFY_WITH_TIMEOUT(done.has_value(), 60000);
        QVERIFY2(*done, qPrintable(done->error()));
        QVERIFY(progress >= 1);
        const VerificationOutcome &o = **done;
        QVERIFY(o.measured.final);
        QCOMPARE(o.measured.mode, kLow);
        QCOMPARE(o.measured.requests, 30 * 40 / 12 * 12);
        QVERIFY(o.predicted.has_value());
        // Predicted: n = floor((0.3 - 0.04) / 0.08) = 3, 3 x 40 / 12 = 10 per second.
        QCOMPARE(o.predicted->minibatchesPerCycle, 3);
        QVERIFY(std::abs(o.predicted->throughput - 10.0) < 1e-9);
        QVERIFY(o.fromMeasuredTimes.minibatchesPerCycle >= 1);
        QVERIFY(!o.modeKept);
        QCOMPARE(currentMode(), o.previousMode);
    }

    void cancelStopsTheRunAndRestoresTheMode()
    {
        const PowerMode before = currentMode();
        QVERIFY(before != kLow);
        VerificationRequest r = request();
        r.durationS = 3000;
        r.arrivalRate = 40;
        std::optional<Expected<VerificationOutcome>> done;
        std::unique_ptr<VerificationRun> run;
        run = startVerification(m_device, r,
                                {{},
                                 [&](const ConcurrentMeasurement &) { run->cancel(); },
                                 [&](const Expected<VerificationOutcome> &o) { done = o; }});
        QTRY_VERIFY_WITH_TIMEOUT(done.has_value(), 60000);
        QVERIFY(!*done);
        QVERIFY2(done->error().contains(QStringLiteral("cancelled")), qPrintable(done->error()));
        QCOMPARE(currentMode(), before);
    }

private:
    PowerMode currentMode()
    {
        Expected<Transport *> transport = m_device.connect();
        if (!transport)
            return {};
        DeviceClient client(*transport);
        QEventLoop loop;
        PowerMode mode;
        connect(&client, &DeviceClient::ready, &loop, [&](const DeviceInfo &info) {
            mode = info.mode;
            loop.quit();
        });
        connect(&client, &DeviceClient::disconnected, &loop, &QEventLoop::quit);
        QTimer::singleShot(30000, &loop, &QEventLoop::quit);
        client.connectToDevice();
        loop.exec();
        return mode;
    }

    QTemporaryDir m_dir;
    int m_runs = 0;
    DeviceEndpoint m_device;
};

QTEST_GUILESS_MAIN(TestConcurrentVerify)
#include "test_concurrentverify.moc"
