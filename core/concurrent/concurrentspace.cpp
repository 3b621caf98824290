#include "concurrent/concurrentspace.h"

#include <QHash>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptwb {

Expected<ConcurrentSpace> ConcurrentSpace::build(const TradeoffSpace &training,
                                                 const QVector<Measurement> &inference,
                                                 const QString &inferenceName)
{
    using Result = Expected<ConcurrentSpace>;
    // The inference pairs on the training workload's candidate modes, as measurements of both.
    QVector<Measurement> trainingRows;
    for (int i = 0; i < training.size(); ++i) {
        Measurement m;
        m.mode = training.mode(i);
        m.timeMs = training.timeMs(i);
        m.powerW = training.powerW(i);
        trainingRows.append(m);
    }
    Expected<ConcurrentData> joined =
        ConcurrentData::join(trainingRows, inference, training.workload(), inferenceName,
                             InputField::Training, InputField::Inference);
    if (!joined)
        return passOn<Result>(joined);

    ConcurrentSpace space;
    space.m_training = training;
    // Every candidate mode of the training workload, not only those with inference measured.
    ConcurrentData &data = space.m_data;
    data.batches = joined->batches;
    QHash<PowerMode, int> measuredRow;
    for (int i = 0; i < joined->modes.size(); ++i)
        measuredRow.insert(joined->modes[i], i);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    PairPredictions &predicted = space.m_predicted;
    for (int i = 0; i < training.size(); ++i) {
        data.modes.append(training.mode(i));
        data.trainTimeMs.append(training.timeMs(i));
        data.trainPowerW.append(training.powerW(i));
        const bool observed = training.isObserved(i);
        const bool spread = training.hasUncertainty() && !observed;
        predicted.trainTimeMs.append(training.timeMs(i));
        predicted.trainPowerW.append(training.powerW(i));
        predicted.trainTimeStdMs.append(spread ? training.predictedTimeStdMs(i) : 0.0);
        predicted.trainPowerStdW.append(spread ? training.predictedPowerStdW(i) : 0.0);
        const int row = measuredRow.value(training.mode(i), -1);
        for (int b = 0; b < data.batches.size(); ++b) {
            const int from = row < 0 ? -1 : joined->pairOf(row, b);
            data.inferTimeMs.append(from < 0 ? nan : joined->inferTimeMs[from]);
            data.inferPowerW.append(from < 0 ? nan : joined->inferPowerW[from]);
            predicted.shapeTimeMs.append(training.timeMs(i));
            predicted.shapePowerW.append(training.powerW(i));
        }
    }
    QVector<int> known;
    for (int pair = 0; pair < data.pairCount(); ++pair) {
        if (data.isMeasured(pair))
            known.append(pair);
    }
    predicted.calibrate(data, known);
    for (int pair : known)
        space.m_measuredPairs += space.isMeasured(pair) ? 1 : 0;
    return space;
}

bool ConcurrentSpace::isMeasured(int pair) const
{
    return m_data.isMeasured(pair) && m_training.isObserved(m_data.modeOf(pair));
}

ConcurrentSpace::Choice ConcurrentSpace::choose(const ConcurrentProblem &problem,
                                                double sigmas) const
{
    Choice best;
    for (int pair = 0; pair < pairCount(); ++pair) {
        const ConcurrentOutcome outcome = assessPair(problem, pair, sigmas);
        if (outcome.feasible() && (best.pair < 0 || isBetter(outcome, best.outcome)))
            best = {pair, outcome};
    }
    return best;
}

}  // namespace ptwb
