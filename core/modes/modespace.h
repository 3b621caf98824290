#pragma once

#include "modes/devicespec.h"
#include "modes/powermode.h"
#include "util/expected.h"

#include <QHash>
#include <QVector>

#include <optional>

namespace ptwb {

// The power modes of a device as a grid: every combination of a chosen set of values per
// dimension. The full space takes every value of the device; a sub-grid takes some, for example
// the PowerTrain grid "cores=even;cpu=every:2:2" (4,368 of AGX Orin's 18,096 modes).
// Mode <-> index is O(1); indices run cores-major, then CPU, GPU and memory.
class ModeSpace
{
public:
    explicit ModeSpace(const DeviceSpec &device);

    // Grid syntax: ';'-separated `dimension=selector`, dimension one of cores, cpu, gpu, mem
    // (or emc); selector one of
    //   all                  every value of the device
    //   even | odd           core counts only
    //   every:N[:START]      every N-th value of the device's ascending table from index START
    //   LOW..HIGH            values within an inclusive range
    //   V1,V2,...            exactly these values (each must exist on the device)
    // Dimensions not named keep every value.
    static Expected<ModeSpace> subGrid(const DeviceSpec &device, const QString &spec);

    const DeviceSpec &device() const { return m_device; }
    qint64 size() const { return m_size; }
    const QVector<qint64> &values(Dimension dimension) const
    {
        return m_values[static_cast<int>(dimension)];
    }

    PowerMode mode(qint64 index) const;
    // -1 when the mode is not in this space.
    qint64 indexOf(const PowerMode &mode) const;
    bool contains(const PowerMode &mode) const { return indexOf(mode) >= 0; }

    // Why `value` is not allowed in `dimension` (empty when it is): names the nearest values.
    QString checkValue(Dimension dimension, qint64 value) const;
    // Checks every field; the error names the first field that is not allowed.
    Status validate(const PowerMode &mode) const;
    // Parses any notation; the short form is snapped to the nearest allowed value of each
    // dimension (within 10 MHz), then the mode is validated.
    Expected<PowerMode> parse(const QString &text) const;
    // The fastest mode of this space within the preset's caps (highest allowed value of each
    // dimension under its cap), or nothing when a cap is below every allowed value.
    std::optional<PowerMode> presetMode(const Preset &preset) const;

private:
    ModeSpace(const DeviceSpec &device, QVector<qint64> values[kDimensionCount]);
    void buildIndex();

    DeviceSpec m_device;
    QVector<qint64> m_values[kDimensionCount];
    QHash<qint64, int> m_position[kDimensionCount];
    qint64 m_stride[kDimensionCount] = {};
    qint64 m_size = 0;
};

}  // namespace ptwb
