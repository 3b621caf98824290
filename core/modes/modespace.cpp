#include "modes/modespace.h"

#include <QStringList>

#include <algorithm>
#include <cmath>

namespace ptwb {

ModeSpace::ModeSpace(const DeviceSpec &device)
    : m_device(device)
{
    for (Dimension dimension : kAllDimensions)
        m_values[static_cast<int>(dimension)] = device.values(dimension);
    buildIndex();
}

ModeSpace::ModeSpace(const DeviceSpec &device, QVector<qint64> values[kDimensionCount])
    : m_device(device)
{
    for (int i = 0; i < kDimensionCount; ++i)
        m_values[i] = values[i];
    buildIndex();
}

void ModeSpace::buildIndex()
{
    m_size = 1;
    for (int i = kDimensionCount - 1; i >= 0; --i) {
        m_stride[i] = m_size;
        m_size *= m_values[i].size();
        m_position[i].clear();
        m_position[i].reserve(m_values[i].size());
        for (int p = 0; p < m_values[i].size(); ++p)
            m_position[i].insert(m_values[i][p], p);
    }
}

PowerMode ModeSpace::mode(qint64 index) const
{
    Q_ASSERT(index >= 0 && index < m_size);
    PowerMode mode;
    for (int i = 0; i < kDimensionCount; ++i) {
        const qint64 position = (index / m_stride[i]) % m_values[i].size();
        mode.setValue(kAllDimensions[i], m_values[i][position]);
    }
    return mode;
}

qint64 ModeSpace::indexOf(const PowerMode &mode) const
{
    qint64 index = 0;
    for (int i = 0; i < kDimensionCount; ++i) {
        const auto it = m_position[i].constFind(mode.value(kAllDimensions[i]));
        if (it == m_position[i].cend())
            return -1;
        index += *it * m_stride[i];
    }
    return index;
}

namespace {

QString formatValue(Dimension dimension, qint64 value)
{
    const QString unit = dimensionUnit(dimension);
    return unit.isEmpty() ? QString::number(value) : QStringLiteral("%1 %2").arg(value).arg(unit);
}

}  // namespace

QString ModeSpace::checkValue(Dimension dimension, qint64 value) const
{
    const QVector<qint64> &allowed = values(dimension);
    if (m_position[static_cast<int>(dimension)].contains(value))
        return {};
    if (dimension == Dimension::Cores && allowed.size() == m_device.values(dimension).size()) {
        return QStringLiteral("%1 is out of range; %2 has %3..%4 cores")
            .arg(value)
            .arg(m_device.id())
            .arg(allowed.front())
            .arg(allowed.back());
    }
    const auto upper = std::lower_bound(allowed.cbegin(), allowed.cend(), value);
    QStringList nearest;
    if (upper != allowed.cbegin())
        nearest.append(QString::number(*(upper - 1)));
    if (upper != allowed.cend())
        nearest.append(QString::number(*upper));
    const bool fullTable = allowed.size() == m_device.values(dimension).size();
    return QStringLiteral("%1 is not a %2 of %3%4; nearest allowed: %5")
        .arg(formatValue(dimension, value), dimensionLabel(dimension), m_device.id(),
             fullTable ? QString() : QStringLiteral(" in this grid"),
             nearest.join(QStringLiteral(", ")));
}

Status ModeSpace::validate(const PowerMode &mode) const
{
    for (Dimension dimension : kAllDimensions) {
        const QString problem = checkValue(dimension, mode.value(dimension));
        if (!problem.isEmpty())
            return Status::failure(
                QStringLiteral("field '%1': %2").arg(dimensionKey(dimension), problem));
    }
    return {};
}

Expected<PowerMode> ModeSpace::parse(const QString &text) const
{
    ModeNotation notation = ModeNotation::Canonical;
    Expected<PowerMode> parsed = PowerMode::parse(text, &notation);
    if (!parsed)
        return parsed;
    PowerMode mode = *parsed;
    if (notation == ModeNotation::Short) {
        // The short form keeps two decimals of GHz: snap to the table within rounding.
        constexpr double kToleranceHz = 10e6;
        for (Dimension dimension : {Dimension::Cpu, Dimension::Gpu, Dimension::Emc}) {
            const double scale = dimension == Dimension::Cpu ? 1e3 : 1.0;
            const QVector<qint64> &allowed = values(dimension);
            const qint64 wanted = mode.value(dimension);
            const auto nearest =
                std::min_element(allowed.cbegin(), allowed.cend(), [wanted](qint64 a, qint64 b) {
                    return std::llabs(a - wanted) < std::llabs(b - wanted);
                });
            if (std::llabs(*nearest - wanted) * scale <= kToleranceHz)
                mode.setValue(dimension, *nearest);
        }
    }
    const Status status = validate(mode);
    if (!status)
        return Expected<PowerMode>::failure(QStringLiteral("'%1': %2").arg(text, status.error()));
    return mode;
}

std::optional<PowerMode> ModeSpace::presetMode(const Preset &preset) const
{
    const qint64 caps[kDimensionCount] = {preset.cores, preset.cpuMaxKHz, preset.gpuMaxHz,
                                          preset.emcMaxHz};
    PowerMode mode;
    for (int i = 0; i < kDimensionCount; ++i) {
        const QVector<qint64> &allowed = m_values[i];
        const auto above = std::upper_bound(allowed.cbegin(), allowed.cend(), caps[i]);
        if (above == allowed.cbegin())
            return std::nullopt;
        mode.setValue(kAllDimensions[i], *(above - 1));
    }
    return mode;
}

namespace {

Expected<QVector<qint64>> selectValues(const DeviceSpec &device, Dimension dimension,
                                       const QString &selector, const QString &clause)
{
    using Result = Expected<QVector<qint64>>;
    const QVector<qint64> &table = device.values(dimension);
    const auto fail = [&](const QString &what) {
        return Result::failure(QStringLiteral("grid '%1': %2").arg(clause, what));
    };
    QVector<qint64> out;
    if (selector == QLatin1String("all"))
        return table;
    if (selector == QLatin1String("even") || selector == QLatin1String("odd")) {
        if (dimension != Dimension::Cores)
            return fail(QStringLiteral("'even' and 'odd' apply to core counts only; use every:2 "
                                       "for every other frequency"));
        const int remainder = selector == QLatin1String("even") ? 0 : 1;
        for (qint64 value : table) {
            if (value % 2 == remainder)
                out.append(value);
        }
    } else if (selector.startsWith(QLatin1String("every:"))) {
        const QStringList parts = selector.mid(6).split(QLatin1Char(':'));
        bool stepOk = false;
        bool startOk = true;
        const int step = parts.value(0).toInt(&stepOk);
        const int start = parts.size() > 1 ? parts[1].toInt(&startOk) : 0;
        if (!stepOk || step < 1 || !startOk || start < 0 || parts.size() > 2)
            return fail(QStringLiteral("expected every:N or every:N:START with N >= 1 and "
                                       "START >= 0"));
        for (int i = start; i < table.size(); i += step)
            out.append(table[i]);
    } else if (selector.contains(QLatin1String(".."))) {
        const QStringList bounds = selector.split(QStringLiteral(".."));
        bool lowOk = false;
        bool highOk = false;
        const qint64 low = bounds.value(0).toLongLong(&lowOk);
        const qint64 high = bounds.value(1).toLongLong(&highOk);
        if (bounds.size() != 2 || !lowOk || !highOk || high < low)
            return fail(QStringLiteral("expected LOW..HIGH with whole numbers, LOW <= HIGH"));
        for (qint64 value : table) {
            if (value >= low && value <= high)
                out.append(value);
        }
    } else {
        for (const QString &item : selector.split(QLatin1Char(','))) {
            bool ok = false;
            const qint64 value = item.trimmed().toLongLong(&ok);
            if (!ok || !table.contains(value))
                return fail(QStringLiteral("'%1' is not a %2 of %3")
                                .arg(item, dimensionLabel(dimension), device.id()));
            if (!out.contains(value))
                out.append(value);
        }
        std::sort(out.begin(), out.end());
    }
    if (out.isEmpty())
        return fail(QStringLiteral("selects no %1").arg(dimensionLabel(dimension)));
    return out;
}

}  // namespace

Expected<ModeSpace> ModeSpace::subGrid(const DeviceSpec &device, const QString &spec)
{
    QVector<qint64> values[kDimensionCount];
    for (Dimension dimension : kAllDimensions)
        values[static_cast<int>(dimension)] = device.values(dimension);
    bool named[kDimensionCount] = {};

    for (const QString &rawClause : spec.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const QString clause = rawClause.trimmed();
        const int equals = clause.indexOf(QLatin1Char('='));
        const QString key = clause.left(equals).trimmed().toLower();
        const QString selector = clause.mid(equals + 1).trimmed();
        int position = -1;
        for (Dimension dimension : kAllDimensions) {
            if (key == dimensionKey(dimension))
                position = static_cast<int>(dimension);
        }
        if (key == QLatin1String("emc"))
            position = static_cast<int>(Dimension::Emc);
        if (equals < 0 || position < 0) {
            return Expected<ModeSpace>::failure(
                QStringLiteral("grid '%1': expected DIMENSION=SELECTOR with DIMENSION one of "
                               "cores, cpu, gpu, mem")
                    .arg(clause));
        }
        if (named[position]) {
            return Expected<ModeSpace>::failure(
                QStringLiteral("grid '%1': %2 is selected twice").arg(clause, key));
        }
        named[position] = true;
        auto selected = selectValues(device, kAllDimensions[position], selector, clause);
        if (!selected)
            return Expected<ModeSpace>::failure(selected.error());
        values[position] = std::move(selected).value();
    }
    return ModeSpace(device, values);
}

}  // namespace ptwb
