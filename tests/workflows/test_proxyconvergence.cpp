// Samples to accuracy by a proxy run (issue 17), the workflow both front ends call: the
// simulated Jetson's proxy_train.py trains with each batch size to the target, the relation of
// those that reached it is stored with provenance proxy; a run where fewer than two reach it
// stores nothing; cancel ends it; a bad request names its field.
#include "proxyconvergence.h"
#include "store/convergencestore.h"
#include "store/store.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;
using namespace ptwb::workflows;

Q_DECLARE_METATYPE(ptwb::InputField)

namespace {

ProxyRunRequest resnetRequest(const QStringList &extra = {})
{
    ProxyRunRequest r;
    r.workload = QStringLiteral("resnet18");
    r.argv = QStringList {QStringLiteral("python3"), QStringLiteral("proxy_train.py"),
                          QStringLiteral("--model"), QStringLiteral("resnet18")} +
        extra;
    r.batchSizes = {16, 64, 256};
    r.targetAccuracy = 0.6;
    r.baseLearningRate = 0.1;  // the simulator's model: 0.1 at 256
    r.baseBatch = 256;
    return r;
}

}  // namespace

class TestProxyConvergence : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_runs = 0;
    std::unique_ptr<Store> m_store;
    DeviceEndpoint m_device;

    Expected<ProxyRunReport> run(const ProxyRunRequest &request, int *progressEvents = nullptr,
                                 bool cancelEarly = false)
    {
        std::optional<Expected<ProxyRunReport>> result;
        std::unique_ptr<ProxyConvergenceRun> proxy = startProxyConvergence(m_device, request);
        connect(proxy.get(), &ProxyConvergenceRun::progressed, this, [&](int, double, double) {
            if (progressEvents)
                ++*progressEvents;
            if (cancelEarly)
                proxy->cancel();
        });
        connect(proxy.get(), &ProxyConvergenceRun::finished, this,
                [&](const Expected<ProxyRunReport> &report) { result = report; });
        if (!QTest::qWaitFor([&] { return result.has_value(); }, 180000))
            return Expected<ProxyRunReport>::failure(QStringLiteral("no result in 180 s"));
        if (!cancelEarly && *result) {
            if (proxy->fractionDone() != 1.0)
                return Expected<ProxyRunReport>::failure(QStringLiteral("not all done"));
        }
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
        options.simulatorSpeed = 5000;
        m_device = endpoint(QStringLiteral("sim:orin-agx"), options).value();
    }

    void cleanup() { m_store.reset(); }

    void storesTheRelationWithProvenanceProxy()
    {
        int progress = 0;
        const ProxyRunRequest request = resnetRequest();
        const Expected<ProxyRunReport> report = run(request, &progress);
        QVERIFY2(report.ok(), qPrintable(report.error()));
        QCOMPARE(report->batches.size(), 3);
        QVERIFY(progress > 10);
        for (const ProxyBatchResult &batch : report->batches)
            QVERIFY2(batch.reached(), qPrintable(batch.reason));
        QCOMPARE(report->batches[0].learningRate, 0.00625);
        const Expected<ConvergenceRelation> stored = storeProxyRelation(*m_store, request, *report);
        QVERIFY2(stored.ok(), qPrintable(stored.error()));
        const auto loaded = ConvergenceStore(*m_store).load(QStringLiteral("resnet18"));
        QVERIFY(loaded && loaded->has_value());
        const ConvergenceRelation &relation = **loaded;
        QCOMPARE(relation.provenance, QStringLiteral("proxy"));
        QVERIFY2(relation.source.contains(QStringLiteral("sim:orin-agx")) &&
                     relation.source.contains(QStringLiteral("proxy_train.py")),
                 qPrintable(relation.source));
        QCOMPARE(relation.targetAccuracy, std::optional<double>(0.6));
        QCOMPARE(relation.points.size(), 3);
        // the simulator's model at 5 % of the dataset: 1.5e6 (1 + b/256) x 0.05, +-3 % noise and
        // up to a quarter epoch (625 samples)
        for (const ConvergencePoint &point : relation.points) {
            const double truth = 1.5e6 * (1 + point.batchSize / 256.0) * 0.05;
            QVERIFY2(std::abs(point.samples - truth) / truth < 0.04,
                     qPrintable(QStringLiteral("%1: %2 against %3")
                                    .arg(point.batchSize)
                                    .arg(point.samples)
                                    .arg(truth)));
        }
    }

    void fewerThanTwoReachingStoresNothing()
    {
        // batch 1024 does not fit the simulated memory; 16 and 64 train too few epochs
        ProxyRunRequest request =
            resnetRequest({QStringLiteral("--max-epochs"), QStringLiteral("3")});
        request.batchSizes = {16, 1024};
        const Expected<ProxyRunReport> report = run(request);
        QVERIFY2(report.ok(), qPrintable(report.error()));
        QCOMPARE(report->batches.size(), 2);
        QCOMPARE(report->batches[0].status, ProxyBatchResult::Status::NotReached);
        QVERIFY2(report->batches[0].reason.contains(QStringLiteral("did not reach accuracy 0.6")),
                 qPrintable(report->batches[0].reason));
        QCOMPARE(report->batches[1].status, ProxyBatchResult::Status::Failed);
        QVERIFY(!report->batches[1].output.isEmpty());
        const Expected<ConvergenceRelation> stored = storeProxyRelation(*m_store, request, *report);
        QVERIFY(!stored.ok());
        QVERIFY2(stored.error().contains(QStringLiteral("nothing was stored")) &&
                     stored.error().contains(QStringLiteral("batch 1024: failed")),
                 qPrintable(stored.error()));
        const auto loaded = ConvergenceStore(*m_store).load(QStringLiteral("resnet18"));
        QVERIFY(loaded && !loaded->has_value());
    }

    void reachedBatchesAreStoredWithoutTheOneThatFailed()
    {
        ProxyRunRequest request = resnetRequest();
        request.batchSizes = {16, 64, 1024};
        request.sampleScale = 20;  // the proxy dataset is 5 % of the full one
        const Expected<ProxyRunReport> report = run(request);
        QVERIFY2(report.ok(), qPrintable(report.error()));
        const Expected<ConvergenceRelation> stored = storeProxyRelation(*m_store, request, *report);
        QVERIFY2(stored.ok(), qPrintable(stored.error()));
        QCOMPARE(stored->points.size(), 2);
        QCOMPARE(stored->points[1].batchSize, 64);
        QVERIFY(std::abs(stored->points[0].samples - 1.59375e6) / 1.59375e6 < 0.04);
        QCOMPARE(report->shortfalls().size(), 1);
    }

    void cancelEndsTheRun()
    {
        const Expected<ProxyRunReport> report = run(resnetRequest(), nullptr, true);
        QVERIFY(!report.ok());
        QCOMPARE(report.error(), QStringLiteral("cancelled"));
    }

    // What a device reports is untrusted: a "reached" without a usable number of samples is a
    // failure, text is bounded and printable, samples past the request's cap are not stored.
    void deviceTextIsNotBelieved()
    {
        const auto noSamples =
            ProxyBatchResult::fromJson({{QStringLiteral("batch_size"), 16},
                                        {QStringLiteral("status"), QStringLiteral("reached")},
                                        {QStringLiteral("samples"), QStringLiteral("many")}});
        QVERIFY(noSamples.ok());
        QCOMPARE(noSamples->status, ProxyBatchResult::Status::Failed);
        QVERIFY(ProxyBatchResult::fromJson({{QStringLiteral("batch_size"), 99999}})
                    .error()
                    .contains(QStringLiteral("1..4096")));
        const auto hostile = ProxyBatchResult::fromJson(
            {{QStringLiteral("batch_size"), 16},
             {QStringLiteral("status"), QStringLiteral("failed")},
             {QStringLiteral("reason"), QStringLiteral("\x1b]52;c;AAAA\x07") + QString(5000, 'x')},
             {QStringLiteral("output"),
              QJsonArray {QJsonObject {{QStringLiteral("stream"), QStringLiteral("out")},
                                       {QStringLiteral("text"), QStringLiteral("\x1b[2Kbad")}}}}});
        QVERIFY(hostile.ok());
        QVERIFY(hostile->reason.size() <= 1000 && !hostile->reason.contains(QChar(0x1b)));
        QCOMPARE(hostile->output.size(), 1);
        QVERIFY(!hostile->output[0].text.contains(QChar(0x1b)));

        ProxyRunRequest request = resnetRequest();
        request.maxSamples = 1000;
        ProxyRunReport report;
        report.host = QStringLiteral("sim:orin-agx");
        for (int batch : {16, 64}) {
            ProxyBatchResult r;
            r.batchSize = batch;
            r.status = ProxyBatchResult::Status::Reached;
            r.samples = batch == 16 ? 900 : 1e300;
            report.batches.append(r);
        }
        QVERIFY(!report.relation(request).ok());  // one believable point only
        report.batches[1].samples = 950;
        const auto relation = report.relation(request);
        QVERIFY2(relation.ok(), qPrintable(relation.error()));
        QCOMPARE(relation->provenance, QStringLiteral("proxy"));
    }

    void badRequestsNameTheirField_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<InputField>("field");
        QTest::addColumn<QString>("words");
        QTest::newRow("batch sizes") << 0 << InputField::BatchSizes << QStringLiteral("batch");
        QTest::newRow("command") << 1 << InputField::Run << QStringLiteral("command");
        QTest::newRow("percent") << 2 << InputField::None << QStringLiteral("target accuracy");
        QTest::newRow("base batch") << 3 << InputField::None << QStringLiteral("base batch");
    }

    void badRequestsNameTheirField()
    {
        QFETCH(int, which);
        QFETCH(InputField, field);
        QFETCH(QString, words);
        ProxyRunRequest request = resnetRequest();
        if (which == 0)
            request.batchSizes = {16, 16};
        else if (which == 1)
            request.argv.clear();
        else if (which == 2)
            request.targetAccuracy = 90;
        else
            request.baseBatch = 0;
        const Expected<ProxyRunReport> report = run(request);
        QVERIFY(!report.ok());
        QCOMPARE(report.errorKind(), ErrorKind::BadInput);
        QCOMPARE(report.field(), field);
        QVERIFY2(report.error().contains(words), qPrintable(report.error()));
    }
};

QTEST_GUILESS_MAIN(TestProxyConvergence)
#include "test_proxyconvergence.moc"
