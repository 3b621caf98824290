#include "concurrentpairs.h"

#include <algorithm>
#include <cmath>

namespace ptwb::ui {

ConcurrentPicture pictureOf(const ConcurrentSpace &space, const ConcurrentProblem &problem,
                            double sigmas, const QVector<int> &byPower)
{
    ConcurrentPicture picture;
    const int pairs = space.pairCount();
    const bool ordered = byPower.size() == pairs;
    picture.infeasiblePredicted.reserve(pairs);
    for (int i = 0; i < pairs; ++i) {
        const int pair = ordered ? byPower[i] : i;
        const ConcurrentOutcome o = space.assessPair(problem, pair, sigmas);
        picture.keepUp += o.keepsUp ? 1 : 0;
        picture.meetLatency += o.meetsLatency ? 1 : 0;
        picture.meetPower += o.meetsPower ? 1 : 0;
        const bool measured = space.isMeasured(pair);
        QVector<ChartPoint> &layer = o.feasible()
            ? (measured ? picture.feasibleMeasured : picture.feasiblePredicted)
            : (measured ? picture.infeasibleMeasured : picture.infeasiblePredicted);
        layer.append({pair, o.powerW, o.throughput});
    }
    picture.pick = space.choose(problem, sigmas);
    return picture;
}

QVector<int> pairsByPower(const ConcurrentSpace &space, double sigmas)
{
    const int pairs = space.pairCount();
    QVector<double> power(pairs);
    QVector<int> order(pairs);
    for (int pair = 0; pair < pairs; ++pair) {
        const PairCost cost = space.cost(pair, sigmas);
        const double p = std::max(cost.trainPowerW, cost.inferPowerW);
        power[pair] = std::isfinite(p) ? p : qInf();  // unknown ones last
        order[pair] = pair;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&power](int a, int b) { return power[a] < power[b]; });
    return order;
}

QByteArray pairsCsv(const ConcurrentSpace &space, const ConcurrentProblem &problem, double sigmas)
{
    QByteArray out("cores,cpu,gpu,mem,mode,bs,minibatches_per_cycle,throughput,latency_s,"
                   "power_w,keeps_up,meets_latency,meets_power,feasible,source\n");
    const ConcurrentData &data = space.data();
    const auto yes = [](bool b) { return b ? QByteArrayLiteral("1") : QByteArrayLiteral("0"); };
    for (int pair = 0; pair < space.pairCount(); ++pair) {
        const PowerMode &m = data.modes[data.modeOf(pair)];
        const ConcurrentOutcome o = space.assessPair(problem, pair, sigmas);
        out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,")
                   .arg(m.cores)
                   .arg(m.cpuKHz)
                   .arg(m.gpuHz)
                   .arg(m.emcHz)
                   .arg(m.toShort())
                   .arg(data.batchOf(pair))
                   .arg(o.minibatchesPerCycle)
                   .arg(o.throughput, 0, 'g', 8)
                   .arg(o.latencyS, 0, 'g', 8)
                   .arg(o.powerW, 0, 'g', 8)
                   .toUtf8();
        out += yes(o.keepsUp) + ',' + yes(o.meetsLatency) + ',' + yes(o.meetsPower) + ',' +
            yes(o.feasible()) + ',' +
            (space.isMeasured(pair) ? QByteArrayLiteral("measured")
                                    : QByteArrayLiteral("predicted")) +
            '\n';
    }
    return out;
}

}  // namespace ptwb::ui
