#include "util/numberrange.h"

#include <QStringList>

#include <cmath>

namespace ptwb {

Expected<QVector<double>> parseNumberRange(const QString &text, InputField field,
                                           const QString &example)
{
    using Result = Expected<QVector<double>>;
    const auto bad = [&] {
        return Result::badInput(field,
                                QStringLiteral("'%1': expected FROM:TO:STEP (%2) or a list "
                                               "of positive numbers")
                                    .arg(text, example));
    };
    QVector<double> out;
    const QStringList range = text.split(QLatin1Char(':'));
    if (range.size() == 3) {
        bool a = false, b = false, c = false;
        const double from = range[0].toDouble(&a);
        const double to = range[1].toDouble(&b);
        const double step = range[2].toDouble(&c);
        if (!a || !b || !c || from <= 0 || step <= 0 || to < from || (to - from) / step > 10000)
            return bad();
        for (int i = 0; from + i * step <= to + 1e-9; ++i)
            out.append(std::round((from + i * step) * 1e9) / 1e9);
        return out;
    }
    for (const QString &item : text.split(QLatin1Char(','))) {
        bool ok = false;
        const double value = item.trimmed().toDouble(&ok);
        if (!ok || value <= 0 || !std::isfinite(value))
            return bad();
        out.append(value);
    }
    return out;
}

}  // namespace ptwb
