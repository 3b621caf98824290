#include "comparepanel.h"
#include "predict/modelfit.h"
#include "predict/syntheticstore.h"
#include "strategybarchart.h"
#include "strategyboxchart.h"

#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace ptwb;
using namespace ptwb::ui;

namespace {

constexpr int kTimeout = 60000;

// Waits until the panel lists the store's workloads.
bool openPanel(ComparePanel &panel, const QString &path)
{
    QSignalSpy loaded(&panel, &ComparePanel::listsLoaded);
    panel.setDeviceKind(QStringLiteral("orin-agx"));
    panel.setDatabasePath(path);
    return QTest::qWaitFor([&] { return !loaded.isEmpty(); }, kTimeout);
}

// The five numbers of a box, each the same.
bool sameBox(const Distribution &got, const Distribution &want)
{
    return got.low == want.low && got.q1 == want.q1 && got.median == want.median &&
        got.q3 == want.q3 && got.high == want.high;
}

// The CSV's 10 significant digits.
bool near(double got, double want)
{
    return std::fabs(got - want) <= 1e-8 * std::max(1.0, std::fabs(want));
}

}  // namespace

class TestComparePanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void emptyStoreSaysWhatToDo()
    {
        QTemporaryDir dir;
        ComparePanel panel;
        QVERIFY(openPanel(panel, dir.filePath(QStringLiteral("empty.sqlite"))));
        const auto *stack = panel.findChild<QStackedWidget *>();
        const auto *label = qobject_cast<QLabel *>(stack->currentWidget());
        QVERIFY(label);
        QVERIFY(label->text().contains(QStringLiteral("Import measurements or run a sweep")));
    }

    void defaultsAreTheCommandLines()
    {
        const ComparePanel panel;
        const EvaluationOptions options = panel.options();
        QCOMPARE(options.budgetsW, *EvaluationOptions::parseBudgets(QStringLiteral("17:50:1")));
        QCOMPARE(options.strategies, Strategy::names());
        QCOMPARE(options.repeats, 10);
        QCOMPARE(options.samples, 50);
        QCOMPARE(options.seed, quint64(0));
    }

    void runMatchesTheEvaluator()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 400);
        QVERIFY(!path.isEmpty());
        ComparePanel panel;
        QVERIFY(openPanel(panel, path));
        QVERIFY(panel.setReferenceWorkload(QStringLiteral("resnet")));
        QVERIFY(panel.setTargetWorkload(QStringLiteral("mobilenet")));
        panel.setBudgets(20, 40, 2.5);
        panel.setRepeats(3);
        panel.setSamples(20);
        panel.setSeed(4);
        const QStringList strategies {QStringLiteral("optimal"), QStringLiteral("maxn"),
                                      QStringLiteral("nvp"), QStringLiteral("rnd")};
        panel.setStrategies(strategies);
        QSignalSpy finished(&panel, &ComparePanel::finished);
        QSignalSpy failed(&panel, &ComparePanel::failed);
        panel.run();
        QVERIFY(panel.isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), kTimeout);
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));

        // The same numbers as the core Evaluator with the same options.
        auto store = Store::open(path);
        QVERIFY(store.ok());
        const auto target = WorkloadData::load(**store, QStringLiteral("mobilenet"), {});
        QVERIFY(target.ok());
        const EvaluationOptions options = panel.options();
        QCOMPARE(options.budgetsW.size(), 9);
        QCOMPARE(options.strategies, strategies);
        const auto expected =
            Evaluator({}, target->data, QStringLiteral("orin-agx"), options).run({}, {});
        QVERIFY2(expected.ok(), qPrintable(expected.error()));
        QCOMPARE(panel.results().size(), 4);
        QCOMPARE(panel.table()->rowCount(), 4);
        for (int i = 0; i < 4; ++i) {
            const StrategyMetrics &got = panel.results()[i];
            const StrategyMetrics &want = expected->at(i);
            QCOMPARE(got.strategy, want.strategy);
            QCOMPARE(got.profiled, want.profiled);
            QCOMPARE(got.profiledPerBudget, want.profiledPerBudget);
            QCOMPARE(got.solutions, want.solutions);
            QCOMPARE(got.timePenaltyMedian, want.timePenaltyMedian);
            QCOMPARE(got.energyPenaltyMedian, want.energyPenaltyMedian);
            QCOMPARE(got.al, want.al);
            QCOMPARE(got.al1, want.al1);
            QCOMPARE(panel.table()->item(i, 0)->text(), want.strategy);
            // Each box is the core's distribution, over every budget and repeat.
            QVERIFY(sameBox(got.timePenalty, want.timePenalty));
            QVERIFY(sameBox(got.excessPower, want.excessPower));
            QVERIFY(sameBox(panel.penaltyChart()->box(i), want.timePenalty));
            QVERIFY(sameBox(panel.excessPowerChart()->box(i), want.excessPower));
            QCOMPARE(panel.penaltyChart()->box(i).median, want.timePenaltyMedian);
            QVERIFY(panel.penaltyChart()->boxText(i).contains(
                QLocale().toString(want.timePenalty.q3, 'f', 2)));
            QCOMPARE(panel.violationChart()->value(0, i), want.al);
            QCOMPARE(panel.violationChart()->value(1, i), want.al1);
        }
        QCOMPARE(panel.penaltyChart()->categories(), strategies);
        QCOMPARE(panel.excessPowerChart()->categories(), strategies);
        QVERIFY(expected->at(1).al > 0);  // maxn goes over the low budgets
        // rnd's picks spread: a box with some height, unlike optimal's single value.
        QVERIFY(expected->at(3).timePenalty.q3 > expected->at(3).timePenalty.q1);
        QCOMPARE(expected->at(0).timePenalty.high, 0.0);

        // CSV export, written on a worker.
        QSignalSpy exported(&panel, &ComparePanel::exported);
        const QString csvPath = dir.filePath(QStringLiteral("out.csv"));
        panel.exportCsv(csvPath);
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, kTimeout);
        QFile file(csvPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 5);
        QVERIFY(lines[0].startsWith("strategy,profiled,profiled_per_budget,time_penalty_median"));
        QVERIFY(lines[2].startsWith("maxn,1,1,"));
        // The box plots' numbers, under their JSON keys, in every row.
        const QList<QByteArray> header = lines[0].split(',');
        for (int i = 0; i < 4; ++i) {
            const QList<QByteArray> row = lines[i + 1].split(',');
            QCOMPARE(row.size(), header.size());
            const auto number = [&](const char *key) {
                const int column = int(header.indexOf(QByteArray(key)));
                return column < 0 ? NAN : row[column].toDouble();
            };
            const StrategyMetrics &want = expected->at(i);
            QVERIFY(near(number("time_penalty_whisker_low"), want.timePenalty.low));
            QVERIFY(near(number("time_penalty_q1"), want.timePenalty.q1));
            QVERIFY(near(number("time_penalty_median"), want.timePenalty.median));
            QVERIFY(near(number("time_penalty_q3"), want.timePenalty.q3));
            QVERIFY(near(number("time_penalty_whisker_high"), want.timePenalty.high));
            QVERIFY(near(number("excess_power_whisker_low"), want.excessPower.low));
            QVERIFY(near(number("excess_power_q1"), want.excessPower.q1));
            QVERIFY(near(number("excess_power_median"), want.excessPower.median));
            QVERIFY(near(number("excess_power_q3"), want.excessPower.q3));
            QVERIFY(near(number("excess_power_whisker_high"), want.excessPower.high));
        }

        // The charts as pictures, through the views' exporter.
        QString error;
        const QString png = dir.filePath(QStringLiteral("charts.png"));
        QVERIFY2(panel.exportCharts(png, &error), qPrintable(error));
        const QImage picture(png);
        QCOMPARE(picture.size(), panel.charts()->size());
        const QString svg = dir.filePath(QStringLiteral("charts.svg"));
        QVERIFY2(panel.exportCharts(svg, &error), qPrintable(error));
        QFile drawing(svg);
        QVERIFY(drawing.open(QIODevice::ReadOnly));
        const QByteArray text = drawing.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("Time penalty against the optimal pick"));
        QVERIFY(text.contains("Power above the budget"));
    }

    void cancelLeavesNoHalfRow()
    {
        QTemporaryDir dir;
        const QString path = makeSyntheticStore(dir, 400);
        QVERIFY(!path.isEmpty());
        ComparePanel panel;
        QVERIFY(openPanel(panel, path));
        QVERIFY(panel.setTargetWorkload(QStringLiteral("mobilenet")));
        panel.setBudgets(17, 50, 0.5);
        panel.setRepeats(100);
        panel.setSamples(20);
        // optimal is quick; als trains networks for every repeat: cancelled during it.
        panel.setStrategies({QStringLiteral("optimal"), QStringLiteral("als")});
        QSignalSpy cancelled(&panel, &ComparePanel::cancelled);
        QSignalSpy finished(&panel, &ComparePanel::finished);
        panel.run();
        QTRY_COMPARE_WITH_TIMEOUT(panel.results().size(), 1, kTimeout);
        panel.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, kTimeout);
        QVERIFY(finished.isEmpty());
        QVERIFY(!panel.isRunning());
        QCOMPARE(panel.results().size(), 1);
        QCOMPARE(panel.results().first().strategy, QStringLiteral("optimal"));
        QCOMPARE(panel.table()->rowCount(), 1);
        QCOMPARE(panel.penaltyChart()->categories(), QStringList {QStringLiteral("optimal")});
    }
};

QTEST_MAIN(TestComparePanel)
#include "test_comparepanel.moc"
