#pragma once

#include "util/expected.h"

#include <QHashFunctions>
#include <QString>

#include <array>

namespace ptwb {

// The four knobs of a Jetson power mode, in the order of the canonical text form.
enum class Dimension { Cores = 0, Cpu = 1, Gpu = 2, Emc = 3 };
constexpr int kDimensionCount = 4;
constexpr std::array<Dimension, kDimensionCount> kAllDimensions = {Dimension::Cores, Dimension::Cpu,
                                                                   Dimension::Gpu, Dimension::Emc};

// Column name in the public PowerTrain CSV layout: cores, cpu, gpu, mem.
QString dimensionKey(Dimension dimension);
// What a person calls it: "core count", "CPU frequency", ...
QString dimensionLabel(Dimension dimension);
// Unit of the stored integer: "", "kHz", "Hz", "Hz".
QString dimensionUnit(Dimension dimension);

enum class ModeNotation {
    Canonical,  // 12/2201600/1300500000/3199000000
    Underscore,  // 12_2201600_1300500000_3199000000
    Short,  // 12c/2.20C/1.30G/3.20M (GHz, rounded: parse gives approximate values)
};

// A power mode: CPU cores online, CPU frequency (kHz), GPU frequency (Hz), memory (EMC)
// frequency (Hz). A plain value; whether a device offers it is ModeSpace's business.
struct PowerMode
{
    int cores = 0;
    qint64 cpuKHz = 0;
    qint64 gpuHz = 0;
    qint64 emcHz = 0;

    qint64 value(Dimension dimension) const;
    void setValue(Dimension dimension, qint64 value);

    QString toCanonical() const;
    QString toUnderscore() const;
    QString toShort() const;

    // Accepts all three notations. The short form is rounded to 10 MHz, so the values it
    // gives are approximate: ModeSpace::parse snaps them to the device's table.
    static Expected<PowerMode> parse(const QString &text, ModeNotation *notation = nullptr);

    friend bool operator==(const PowerMode &a, const PowerMode &b)
    {
        return a.cores == b.cores && a.cpuKHz == b.cpuKHz && a.gpuHz == b.gpuHz &&
            a.emcHz == b.emcHz;
    }
    friend bool operator!=(const PowerMode &a, const PowerMode &b) { return !(a == b); }
    friend bool operator<(const PowerMode &a, const PowerMode &b);
};

size_t qHash(const PowerMode &mode, size_t seed = 0) noexcept;

}  // namespace ptwb
