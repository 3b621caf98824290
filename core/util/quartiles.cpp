#include "util/quartiles.h"

#include <algorithm>
#include <iterator>

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

Distribution Distribution::of(QVector<double> values)
{
    if (values.isEmpty())
        return {};
    std::sort(values.begin(), values.end());
    const Quartiles box = Quartiles::of(values);
    const double reach = 1.5 * box.interquartileRange();
    Distribution d {box.q1, box.q1, box.median, box.q3, box.q3};
    // Interpolated quartiles can fall between samples: a whisker never ends inside the box.
    const auto first = std::lower_bound(values.cbegin(), values.cend(), box.q1 - reach);
    d.low = std::min(*first, box.q1);
    const auto last = std::upper_bound(values.cbegin(), values.cend(), box.q3 + reach);
    d.high = std::max(*std::prev(last), box.q3);
    return d;
}

}  // namespace ptwb
