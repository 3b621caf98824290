#pragma once

#include "modes/powermode.h"
#include "util/expected.h"

#include <QStringList>
#include <QVector>

namespace ptwb {

// A stock nvpmodel preset: a core count and a cap on each clock.
struct Preset
{
    QString name;
    int id = 0;
    int cores = 0;
    qint64 cpuMaxKHz = 0;
    qint64 gpuMaxHz = 0;
    qint64 emcMaxHz = 0;
};

// The frequency tables and presets of one Jetson model, as read from resources/devices/*.json
// (built in) or as a connected device reports them (deviceSpecFromReport, modes/devicereport.h).
class DeviceSpec
{
public:
    // Parses a device table. `sourceName` names the file in error messages.
    static Expected<DeviceSpec> fromJson(const QByteArray &json, const QString &sourceName);
    // One of builtinIds(): "orin-agx", "orin-nano", "agx-thor", ... (resources/devices).
    static Expected<DeviceSpec> builtin(const QString &id);
    static QStringList builtinIds();

    const QString &id() const { return m_id; }
    const QString &name() const { return m_name; }
    const QString &source() const { return m_source; }
    // The SoC family the kernel reports, e.g. "tegra234"; empty when the table names none.
    const QString &socFamily() const { return m_socFamily; }
    // Allowed values of one dimension, ascending. Cores are minCores..maxCores.
    const QVector<qint64> &values(Dimension dimension) const
    {
        return m_values[static_cast<int>(dimension)];
    }
    int minCores() const { return static_cast<int>(m_values[0].front()); }
    int maxCores() const { return static_cast<int>(m_values[0].back()); }
    const QVector<Preset> &presets() const { return m_presets; }
    const Preset *preset(const QString &name) const;
    const QString &defaultPreset() const { return m_defaultPreset; }
    const QStringList &powerRails() const { return m_powerRails; }
    // Every clock at its highest value with all cores online (what NVIDIA calls MAXN).
    PowerMode maxMode() const;
    // The spec in the schema fromJson reads (a stored device spec round-trips through it).
    QByteArray toJson() const;

private:
    QString m_id;
    QString m_name;
    QString m_source;
    QString m_socFamily;
    QVector<qint64> m_values[kDimensionCount];
    QVector<Preset> m_presets;
    QString m_defaultPreset;
    QStringList m_powerRails;
};

}  // namespace ptwb
