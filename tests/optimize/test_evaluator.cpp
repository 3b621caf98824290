#include "optimize/evaluation.h"
#include "predict/syntheticstore.h"

#include <QTest>

using namespace ptwb;

namespace {

EvaluationOptions cheapOptions()
{
    EvaluationOptions options;
    options.budgetsW = {20, 25, 30, 35, 40};
    options.repeats = 3;
    options.samples = 20;
    options.strategies = {QStringLiteral("optimal"), QStringLiteral("maxn"), QStringLiteral("rnd")};
    return options;
}

}  // namespace

// The Evaluator's hooks for a window: progress, cancellation and a reference model given to it.
class TestEvaluator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void reportsProgressPerRepeat()
    {
        Evaluator evaluator({}, syntheticDataWithMaxn(400, 1), QStringLiteral("orin-agx"),
                            cheapOptions());
        QVector<QPair<int, int>> steps;
        evaluator.setProgress([&](int done, int total) { steps.append({done, total}); });
        const auto results = evaluator.run({}, {});
        QVERIFY2(results.ok(), qPrintable(results.error()));
        QCOMPARE(steps.size(), 9);  // 3 strategies x 3 repeats
        for (int i = 0; i < steps.size(); ++i)
            QCOMPARE(steps[i], qMakePair(i + 1, 9));
    }

    void cancelStopsBetweenRepeatsWithoutAHalfStrategy()
    {
        Evaluator evaluator({}, syntheticDataWithMaxn(400, 1), QStringLiteral("orin-agx"),
                            cheapOptions());
        int progressed = 0;
        evaluator.setProgress([&](int, int) { ++progressed; });
        // Cancelled during the second strategy's second repeat.
        evaluator.setCancelled([&] { return progressed >= 4; });
        QStringList done;
        const auto results =
            evaluator.run([&](const StrategyMetrics &m) { done.append(m.strategy); }, {});
        QVERIFY(!results.ok());
        QVERIFY2(results.error().contains(QStringLiteral("cancelled")),
                 qPrintable(results.error()));
        QCOMPARE(done, QStringList {QStringLiteral("optimal")});
        QCOMPARE(progressed, 4);
    }

    void cancelStopsTheReferenceTraining()
    {
        EvaluationOptions options = cheapOptions();
        options.strategies = {QStringLiteral("pt")};
        Evaluator evaluator(syntheticData(2000, 2), syntheticDataWithMaxn(400, 1),
                            QStringLiteral("orin-agx"), options);
        int polls = 0;
        evaluator.setCancelled([&] { return ++polls > 2; });  // two epochs in
        const auto results = evaluator.run({}, {});
        QVERIFY(!results.ok());
        QVERIFY2(results.error().contains(QStringLiteral("cancelled")),
                 qPrintable(results.error()));
    }

    void usesAGivenReferenceModel()
    {
        // A reference model given to the evaluator is used as is: no reference data needed.
        Expected<PowerModel> reference = PowerModel::train(
            QStringLiteral("orin-agx"), QStringLiteral("orin-agx"), QStringLiteral("ref"),
            syntheticData(300, 2, 0.5), QStringLiteral("reference"), quickConfig(), 1);
        QVERIFY2(reference.ok(), qPrintable(reference.error()));
        EvaluationOptions options = cheapOptions();
        options.strategies = {QStringLiteral("optimal"), QStringLiteral("pt")};
        options.repeats = 1;
        Evaluator evaluator({}, syntheticDataWithMaxn(400, 1), QStringLiteral("orin-agx"), options);
        evaluator.setReferenceModel(std::make_shared<PowerModel>(std::move(reference).value()));
        QStringList log;
        const auto results = evaluator.run({}, [&](const QString &line) { log.append(line); });
        QVERIFY2(results.ok(), qPrintable(results.error()));
        QCOMPARE(results->size(), 2);
        QCOMPARE(results->at(1).strategy, QStringLiteral("pt"));
        QCOMPARE(results->at(1).solutions, 5);
        QVERIFY(results->at(1).profiled >= 20);
        QVERIFY(log.filter(QStringLiteral("reference model:")).isEmpty());  // none trained
    }
};

QTEST_GUILESS_MAIN(TestEvaluator)
#include "test_evaluator.moc"
