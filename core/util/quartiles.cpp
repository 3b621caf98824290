#include "util/quartiles.h"

#include <algorithm>

namespace ptwb {

Quartiles Quartiles::of(QVector<double> values)
{
    if (values.isEmpty())
        return {};
    std::sort(values.begin(), values.end());
    const auto at = [&values](double q) {
        const double position = q * (values.size() - 1);
        const int low = int(position);
        const int high = std::min(int(values.size()) - 1, low + 1);
        return values[low] + (values[high] - values[low]) * (position - low);
    };
    return {at(0.5), at(0.25), at(0.75)};
}

}  // namespace ptwb
