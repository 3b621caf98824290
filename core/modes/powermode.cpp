#include "modes/powermode.h"

#include <QRegularExpression>
#include <QStringList>

#include <cmath>
#include <tuple>

namespace ptwb {

QString dimensionKey(Dimension dimension)
{
    switch (dimension) {
    case Dimension::Cores:
        return QStringLiteral("cores");
    case Dimension::Cpu:
        return QStringLiteral("cpu");
    case Dimension::Gpu:
        return QStringLiteral("gpu");
    case Dimension::Emc:
        return QStringLiteral("mem");
    }
    return {};
}

QString dimensionLabel(Dimension dimension)
{
    switch (dimension) {
    case Dimension::Cores:
        return QStringLiteral("core count");
    case Dimension::Cpu:
        return QStringLiteral("CPU frequency");
    case Dimension::Gpu:
        return QStringLiteral("GPU frequency");
    case Dimension::Emc:
        return QStringLiteral("memory frequency");
    }
    return {};
}

QString dimensionUnit(Dimension dimension)
{
    switch (dimension) {
    case Dimension::Cores:
        return {};
    case Dimension::Cpu:
        return QStringLiteral("kHz");
    case Dimension::Gpu:
    case Dimension::Emc:
        return QStringLiteral("Hz");
    }
    return {};
}

qint64 PowerMode::value(Dimension dimension) const
{
    switch (dimension) {
    case Dimension::Cores:
        return cores;
    case Dimension::Cpu:
        return cpuKHz;
    case Dimension::Gpu:
        return gpuHz;
    case Dimension::Emc:
        return emcHz;
    }
    return 0;
}

void PowerMode::setValue(Dimension dimension, qint64 value)
{
    switch (dimension) {
    case Dimension::Cores:
        cores = static_cast<int>(value);
        break;
    case Dimension::Cpu:
        cpuKHz = value;
        break;
    case Dimension::Gpu:
        gpuHz = value;
        break;
    case Dimension::Emc:
        emcHz = value;
        break;
    }
}

QString PowerMode::toCanonical() const
{
    return QStringLiteral("%1/%2/%3/%4").arg(cores).arg(cpuKHz).arg(gpuHz).arg(emcHz);
}

QString PowerMode::toUnderscore() const
{
    return QStringLiteral("%1_%2_%3_%4").arg(cores).arg(cpuKHz).arg(gpuHz).arg(emcHz);
}

QString PowerMode::toShort() const
{
    const auto ghz = [](double value) { return QString::number(value, 'f', 2); };
    return QStringLiteral("%1c/%2C/%3G/%4M")
        .arg(cores)
        .arg(ghz(cpuKHz / 1e6), ghz(gpuHz / 1e9), ghz(emcHz / 1e9));
}

namespace {

const QString kExpectedForms = QStringLiteral(
    "expected cores/cpu_kHz/gpu_Hz/emc_Hz (12/2201600/1300500000/3199000000), the underscore "
    "form (12_2201600_1300500000_3199000000) or the short form (12c/2.20C/1.30G/3.20M)");

bool parsePositiveInteger(const QString &text, qint64 *out)
{
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value <= 0)
        return false;
    *out = value;
    return true;
}

Expected<PowerMode> parseShort(const QStringList &parts, const QString &text)
{
    static const QString suffixes = QStringLiteral("cCGM");
    double values[kDimensionCount] = {};
    for (int i = 0; i < kDimensionCount; ++i) {
        const QString &part = parts[i];
        if (part.size() < 2 || part.back() != suffixes[i]) {
            return Expected<PowerMode>::failure(
                QStringLiteral("'%1': field %2 ('%3') should end in '%4'; %5")
                    .arg(text)
                    .arg(i + 1)
                    .arg(part, suffixes[i], kExpectedForms));
        }
        bool ok = false;
        values[i] = part.chopped(1).toDouble(&ok);
        if (!ok || !std::isfinite(values[i]) || values[i] <= 0) {
            return Expected<PowerMode>::failure(
                QStringLiteral("'%1': '%2' is not a positive number; %3")
                    .arg(text, part, kExpectedForms));
        }
    }
    if (values[0] != std::floor(values[0])) {
        return Expected<PowerMode>::failure(
            QStringLiteral("'%1': the core count '%2' is not a whole number").arg(text, parts[0]));
    }
    PowerMode mode;
    mode.cores = static_cast<int>(values[0]);
    mode.cpuKHz = std::llround(values[1] * 1e6);
    mode.gpuHz = std::llround(values[2] * 1e9);
    mode.emcHz = std::llround(values[3] * 1e9);
    return mode;
}

}  // namespace

Expected<PowerMode> PowerMode::parse(const QString &input, ModeNotation *notation)
{
    const QString text = input.trimmed();
    const bool underscore = text.contains(QLatin1Char('_'));
    const QStringList parts = text.split(underscore ? QLatin1Char('_') : QLatin1Char('/'));
    if (parts.size() != kDimensionCount) {
        return Expected<PowerMode>::failure(
            QStringLiteral("'%1' is not a power mode: %2").arg(input, kExpectedForms));
    }
    const bool isShort = !underscore && parts[0].endsWith(QLatin1Char('c'));
    if (notation)
        *notation = underscore ? ModeNotation::Underscore
                               : (isShort ? ModeNotation::Short : ModeNotation::Canonical);
    if (isShort)
        return parseShort(parts, text);

    PowerMode mode;
    for (int i = 0; i < kDimensionCount; ++i) {
        qint64 value = 0;
        if (!parsePositiveInteger(parts[i], &value)) {
            const Dimension dimension = kAllDimensions[i];
            return Expected<PowerMode>::failure(
                QStringLiteral("'%1': %2 '%3' is not a positive whole number%4; %5")
                    .arg(input, dimensionLabel(dimension), parts[i],
                         dimensionUnit(dimension).isEmpty()
                             ? QString()
                             : QStringLiteral(" of %1").arg(dimensionUnit(dimension)),
                         kExpectedForms));
        }
        mode.setValue(kAllDimensions[i], value);
    }
    return mode;
}

bool operator<(const PowerMode &a, const PowerMode &b)
{
    return std::tie(a.cores, a.cpuKHz, a.gpuHz, a.emcHz) <
        std::tie(b.cores, b.cpuKHz, b.gpuHz, b.emcHz);
}

size_t qHash(const PowerMode &mode, size_t seed) noexcept
{
    return qHashMulti(seed, mode.cores, mode.cpuKHz, mode.gpuHz, mode.emcHz);
}

}  // namespace ptwb
