#include "optimize/storedevaluation.h"
#include "predict/modelfit.h"
#include "predict/synthetic.h"
#include "shareddata.h"
#include "store/importer.h"
#include "store/store.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

using namespace ptwb;

namespace {

const QString kReference = QStringLiteral("resnet18");
const QString kTarget = QStringLiteral("mobilenetv3");

// Three budgets, few repeats and samples: every strategy in well under a second.
EvaluationOptions cheapOptions(const QStringList &strategies, int repeats)
{
    EvaluationOptions options;
    options.budgetsW = {20, 30, 40};
    options.repeats = repeats;
    options.samples = 20;
    options.strategies = strategies;
    return options;
}

// What one run reported through its callbacks.
struct Reports
{
    QStringList results;
    QStringList log;
    QVector<QPair<int, int>> progress;

    StoredEvaluation::Callbacks callbacks(std::function<bool()> cancelled = {})
    {
        StoredEvaluation::Callbacks c;
        c.cancelled = std::move(cancelled);
        c.progress = [this](int done, int total) { progress.append({done, total}); };
        c.result = [this](const StrategyMetrics &m) { results.append(m.strategy); };
        c.log = [this](const QString &line) { log.append(line); };
        return c;
    }
};

}  // namespace

// The Compare view's evaluation on a real store filled with the public AGX Orin measurements.
class TestStoredEvaluation : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_path;

    StoredEvaluation::Params params(const QStringList &strategies, int repeats) const
    {
        StoredEvaluation::Params p;
        p.databasePath = m_path;
        p.targetWorkload = kTarget;
        p.referenceWorkload = kReference;
        p.options = cheapOptions(strategies, repeats);
        return p;
    }

    // A quickly trained reference model of the reference workload, stored as configuration
    // `config`; its id.
    qint64 storeReferenceModel(const QString &config)
    {
        auto store = Store::open(m_path);
        if (!store)
            return 0;
        const Expected<WorkloadData> data = WorkloadData::load(**store, kReference, {});
        if (!data)
            return 0;
        Expected<PowerModel> model =
            PowerModel::train(data->device, data->kind, kReference, data->data,
                              QStringLiteral("reference"), quickConfig(), 1);
        if (!model)
            return 0;
        ModelRecord record = model->toRecord();
        record.config = config;
        const Expected<qint64> id = (*store)->saveModel(record);
        return id ? *id : 0;
    }

    static bool needsReference(const QStringList &strategies)
    {
        EvaluationOptions options;
        options.strategies = strategies;
        return options.needsReference();
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString reference = sharedDataFile(QStringLiteral("resnet18_imagenet_train.csv"));
        const QString target = sharedDataFile(QStringLiteral("mobilenetv3_gld23k_train.csv"));
        PTWB_REQUIRE_SHARED_DATA(reference);
        PTWB_REQUIRE_SHARED_DATA(target);
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("store.sqlite"));
        auto store = Store::open(m_path);
        QVERIFY2(store.ok(), qPrintable(store.error()));
        for (const auto &[file, workload] :
             {qMakePair(reference, kReference), qMakePair(target, kTarget)}) {
            const auto outcome =
                Importer(**store).run({file, QStringLiteral("orin-agx"), {}, workload});
            QVERIFY2(outcome.ok(), qPrintable(outcome.error()));
        }
    }

    void needsReferenceOnlyForPtAndSafe()
    {
        QVERIFY(!needsReference(
            {QStringLiteral("optimal"), QStringLiteral("maxn"), QStringLiteral("nn")}));
        QVERIFY(needsReference({QStringLiteral("rnd"), QStringLiteral("pt")}));
        QVERIFY(needsReference({QStringLiteral("safe")}));
    }

    void evaluatesWithoutAReferenceWhenNoneIsNeeded()
    {
        const QStringList strategies {QStringLiteral("optimal"), QStringLiteral("maxn"),
                                      QStringLiteral("rnd")};
        StoredEvaluation::Params p = params(strategies, 2);
        p.referenceWorkload.clear();  // not read: none of them needs a reference
        Reports reports;
        const auto results = StoredEvaluation(p).run(reports.callbacks());
        QVERIFY2(results.ok(), qPrintable(results.error()));
        QCOMPARE(results->size(), 3);
        QCOMPARE(reports.results, strategies);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(results->at(i).strategy, strategies[i]);
            QCOMPARE(results->at(i).solutions, 6);  // 3 budgets x 2 repeats
        }
        QCOMPARE(results->at(0).timePenaltyMedian, 0.0);  // optimal is the yardstick
        QCOMPARE(results->at(0).al, 0.0);
        QCOMPARE(results->at(1).profiled, 1.0);  // maxn profiles MAXN only
        QVERIFY(results->at(2).profiled >= 20);
        QCOMPARE(reports.progress.size(), 6);
        QCOMPARE(reports.progress.last(), qMakePair(6, 6));
        QVERIFY(reports.log.filter(QStringLiteral("reference model")).isEmpty());
    }

    void usesOnlyAStoredReferenceModelOfTheDefaultConfiguration()
    {
        const QStringList strategies {QStringLiteral("optimal"), QStringLiteral("pt")};
        // A model of another configuration is not used: a reference model would be trained, and
        // cancelling as soon as that is announced stops the training.
        QVERIFY(storeReferenceModel(QStringLiteral("quick")) > 0);
        {
            Reports reports;
            bool training = false;
            StoredEvaluation::Callbacks callbacks = reports.callbacks([&] { return training; });
            callbacks.log = [&](const QString &line) {
                reports.log.append(line);
                training = training || line.startsWith(QStringLiteral("Training"));
            };
            const auto results = StoredEvaluation(params(strategies, 1)).run(callbacks);
            QCOMPARE(reports.log.first(),
                     QStringLiteral("Training a reference model on %1 for pt and safe…")
                         .arg(kReference));
            QVERIFY(!results.ok());
            QVERIFY2(results.error().contains(QStringLiteral("cancelled")),
                     qPrintable(results.error()));
            QVERIFY(reports.results.isEmpty());
        }

        // The newest one of the default configuration is used as is: no training. (A quick
        // model labelled "default" stands in for the costly real one.)
        const qint64 id = storeReferenceModel(QStringLiteral("default"));
        QVERIFY(id > 0);
        Reports reports;
        QElapsedTimer clock;
        clock.start();
        const auto results = StoredEvaluation(params(strategies, 1)).run(reports.callbacks());
        QVERIFY2(results.ok(), qPrintable(results.error()));
        qInfo("pt with a stored reference model: %.1f s", clock.elapsed() / 1000.0);
        QCOMPARE(reports.log.first(),
                 QStringLiteral("Using stored reference model %1 of %2").arg(id).arg(kReference));
        QVERIFY2(reports.log.filter(QStringLiteral("Training")).isEmpty(),
                 qPrintable(reports.log.join(QLatin1Char('\n'))));
        QVERIFY(reports.log.filter(QStringLiteral("reference model:")).isEmpty());
        QCOMPARE(reports.results, strategies);
        QCOMPARE(results->at(1).solutions, 3);
        QVERIFY(results->at(1).profiled >= 20);
    }

    void cancelStopsAfterTheCurrentRepeat()
    {
        const QStringList strategies {QStringLiteral("optimal"), QStringLiteral("maxn"),
                                      QStringLiteral("rnd")};
        Reports reports;
        // Cancelled once optimal's three repeats are done.
        const auto results = StoredEvaluation(params(strategies, 3)).run(reports.callbacks([&] {
            return reports.progress.size() >= 3;
        }));
        QVERIFY(!results.ok());
        QVERIFY2(results.error().contains(QStringLiteral("cancelled")),
                 qPrintable(results.error()));
        QCOMPARE(reports.results, QStringList {QStringLiteral("optimal")});
        QCOMPARE(reports.progress.size(), 3);
    }

    void missingWorkloadsAreNamed()
    {
        StoredEvaluation::Params p = params({QStringLiteral("optimal")}, 1);
        p.targetWorkload = QStringLiteral("no-such-target");
        Reports reports;
        auto results = StoredEvaluation(p).run(reports.callbacks());
        QVERIFY(!results.ok());
        QCOMPARE(results.errorKind(), ErrorKind::BadInput);
        QVERIFY2(results.error().contains(QStringLiteral("no-such-target")),
                 qPrintable(results.error()));
        QVERIFY(reports.results.isEmpty() && reports.progress.isEmpty());

        // pt needs the reference workload's measurements.
        p = params({QStringLiteral("optimal"), QStringLiteral("pt")}, 1);
        p.referenceWorkload = QStringLiteral("no-such-reference");
        results = StoredEvaluation(p).run(reports.callbacks());
        QVERIFY(!results.ok());
        QVERIFY2(results.error().contains(QStringLiteral("no-such-reference")),
                 qPrintable(results.error()));
        QVERIFY(reports.results.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestStoredEvaluation)
#include "test_storedevaluation.moc"
