#include "store/convergence.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptwb {

bool ConvergenceProvenance::isKnown(const QString &provenance)
{
    return provenance == QLatin1String(kUser) || provenance == QLatin1String(kProxy) ||
        provenance == QLatin1String(kSimulated);
}

QString ConvergenceRelation::problem() const
{
    if (workload.trimmed().isEmpty())
        return QStringLiteral("a samples-to-accuracy relation needs a workload name");
    if (!ConvergenceProvenance::isKnown(provenance)) {
        return QStringLiteral("provenance '%1' is not one of user, proxy, simulated")
            .arg(provenance);
    }
    if (points.size() < kMinPoints) {
        return QStringLiteral("%1 batch size(s); a samples-to-accuracy relation needs at least %2")
            .arg(points.size())
            .arg(kMinPoints);
    }
    for (int i = 0; i < points.size(); ++i) {
        const ConvergencePoint &point = points[i];
        if (point.batchSize < 1 || point.batchSize > kMaxBatch) {
            return QStringLiteral("batch size %1 is out of range; expected 1 to %2")
                .arg(point.batchSize)
                .arg(kMaxBatch);
        }
        if (i > 0 && point.batchSize <= points[i - 1].batchSize) {
            return QStringLiteral("batch size %1 after %2; expected each batch size once, "
                                  "ascending")
                .arg(point.batchSize)
                .arg(points[i - 1].batchSize);
        }
        if (!std::isfinite(point.samples) || point.samples <= 0) {
            return QStringLiteral("batch size %1: %2 samples; expected a positive number")
                .arg(point.batchSize)
                .arg(point.samples);
        }
    }
    if (targetAccuracy &&
        (!std::isfinite(*targetAccuracy) || *targetAccuracy <= 0 || *targetAccuracy > 1)) {
        return QStringLiteral("target accuracy %1; expected an accuracy between 0 and 1")
            .arg(*targetAccuracy);
    }
    return {};
}

double ConvergenceRelation::samplesAt(int batch) const
{
    if (points.isEmpty() || batch < 1)
        return std::numeric_limits<double>::quiet_NaN();
    const ConvergencePoint &first = points.front();
    const ConvergencePoint &last = points.back();
    if (batch <= first.batchSize)
        return first.samples;  // flat: the perfect-scaling regime (see the header)
    if (batch >= last.batchSize)
        return last.samples * double(batch) / double(last.batchSize);  // as many steps
    const auto upper = std::lower_bound(
        points.cbegin(), points.cend(), batch,
        [](const ConvergencePoint &point, int value) { return point.batchSize < value; });
    if (upper->batchSize == batch)
        return upper->samples;
    const ConvergencePoint &lower = *(upper - 1);
    const double t = std::log(double(batch) / lower.batchSize) /
        std::log(double(upper->batchSize) / lower.batchSize);
    return std::exp(std::log(lower.samples) + t * std::log(upper->samples / lower.samples));
}

double ConvergenceRelation::relativeSamples(int batch, int referenceBatch) const
{
    return samplesAt(batch) / samplesAt(referenceBatch);
}

QVector<double> ConvergenceRelation::relativeTo(int referenceBatch) const
{
    QVector<double> out;
    out.reserve(points.size());
    const double reference = samplesAt(referenceBatch);
    for (const ConvergencePoint &point : points)
        out.append(point.samples / reference);
    return out;
}

}  // namespace ptwb
