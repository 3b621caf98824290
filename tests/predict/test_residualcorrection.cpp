#include "predict/residualcorrection.h"

#include <QTest>

#include <cmath>

using namespace ptwb;

namespace {

// A line of GPU clocks at fixed cores, CPU and memory: the features vary in one dimension only.
QVector<PowerMode> gpuLine(int count)
{
    QVector<PowerMode> modes;
    for (int i = 0; i < count; ++i)
        modes.append({12, 2201600, 100000000LL * (i + 1), 3199000000LL});
    return modes;
}

ModePredictions flat(int count, double time, double power)
{
    ModePredictions p;
    p.timeMs.fill(time, count);
    p.powerW.fill(power, count);
    p.timeStdMs.fill(1, count);
    p.powerStdW.fill(1, count);
    return p;
}

}  // namespace

class TestResidualCorrection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneAnchorByHand()
    {
        const QVector<PowerMode> modes = gpuLine(100);
        const ResidualCorrection correction(modes);
        const ModePredictions predicted = flat(100, 100, 20);
        // Mode 0 observed 10 % slower and 5 % less power than predicted.
        const ModePredictions out = correction.apply(predicted, {0}, {110}, {19});
        const double w = 1.0;  // the anchor's own weight: distance 0
        QVERIFY(qFuzzyCompare(
            out.timeMs[0],
            100 * std::exp(std::log(1.1) * w / (ResidualCorrection::kPriorWeight + w))));
        // Power is only ever raised: drawing less than predicted nearby is no promise.
        QCOMPARE(out.powerW[0], 20.0);
        const ModePredictions hotter = correction.apply(predicted, {0}, {110}, {21});
        QVERIFY(qFuzzyCompare(
            hotter.powerW[0],
            20 * std::exp(std::log(1.05) * w / (ResidualCorrection::kPriorWeight + w))));
        // A neighbour at scaled distance d gets the kernel weight.
        const double x0 = std::log(1e8), x1 = std::log(2e8), x99 = std::log(1e10);
        const double d = (x1 - x0) / (x99 - x0);
        const double w1 = std::exp(
            -d * d / (2 * ResidualCorrection::kLengthScale * ResidualCorrection::kLengthScale));
        QVERIFY(qFuzzyCompare(
            out.timeMs[1],
            100 * std::exp(std::log(1.1) * w1 / (ResidualCorrection::kPriorWeight + w1))));
        // Far away: untouched (to the precision of a double).
        QVERIFY(std::abs(out.timeMs[99] - 100) < 1e-9);
        QVERIFY(std::abs(out.powerW[99] - 20) < 1e-9);
        // Uncertainties are not changed.
        QCOMPARE(out.timeStdMs, predicted.timeStdMs);
    }

    void manyAgreeingAnchorsPullAllTheWay()
    {
        // The same residual at many nearby modes outweighs the prior: the correction approaches
        // the observed ratio.
        const QVector<PowerMode> modes = gpuLine(400);
        const ResidualCorrection correction(modes);
        QVector<int> rows;
        QVector<double> times;
        QVector<double> powers;
        for (int row = 180; row < 220; ++row) {
            rows.append(row);
            times.append(120);
            powers.append(20);
        }
        const ModePredictions out = correction.apply(flat(400, 100, 20), rows, times, powers);
        QVERIFY2(std::abs(out.timeMs[200] / 120 - 1) < 0.01,
                 qPrintable(QString::number(out.timeMs[200])));
        QVERIFY(std::abs(out.powerW[200] - 20) < 1e-9);  // no power residual: no change
        QVERIFY(std::abs(out.timeMs[0] - 100) < 1e-6);
    }

    void unusableAnchorsAreIgnored()
    {
        const QVector<PowerMode> modes = gpuLine(10);
        const ResidualCorrection correction(modes);
        ModePredictions predicted = flat(10, 100, 20);
        predicted.timeMs[3] = std::nan("");
        const ModePredictions out = correction.apply(
            predicted, {2, 3, 4, 42}, {std::nan(""), 150, -1, 150}, {20, 20, 20, 20});
        for (int i : {0, 1, 2, 4, 5, 9})
            QCOMPARE(out.timeMs[i], 100.0);
    }
};

QTEST_GUILESS_MAIN(TestResidualCorrection)
#include "test_residualcorrection.moc"
