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
    // A device kind as the workbench uses it: a built-in id, or the id of a spec a connected
    // device reported (remember(); its store registers every spec it holds when opened). Spec
    // ids name their tables by a hash, so one id always means the same tables: remembering one
    // process-wide is safe.
    static Expected<DeviceSpec> lookup(const QString &kind);
    static void remember(const DeviceSpec &spec);

    const QString &id() const { return m_id; }
    // The Jetson family (jetsonFamilies() id): a built-in table's own id, or the family a
    // reported spec was built for ("orin-nano-super" of "orin-nano-super-3f2a9c01d4e7").
    const QString &family() const { return m_family.isEmpty() ? m_id : m_family; }
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
    // The same mode space and presets (values of every dimension; each preset's name, cores and
    // the fastest table value under each cap); ids, names, rails and the default preset aside.
    bool sameTables(const DeviceSpec &other) const;
    // Its size and presets for a person: "4,224 modes (6 core counts × 16 CPU × 11 GPU × 4
    // memory clocks); presets 7W, 15W, 25W, MAXN_SUPER".
    QString summary() const;
    // The spec in the schema fromJson reads (a stored device spec round-trips through it).
    QByteArray toJson() const;

private:
    QString m_id;
    QString m_name;
    QString m_source;
    QString m_socFamily;
    QString m_family;
    QVector<qint64> m_values[kDimensionCount];
    QVector<Preset> m_presets;
    QString m_defaultPreset;
    QStringList m_powerRails;
};

}  // namespace ptwb
