#include "modes/jetsonfamily.h"

#include "util/printable.h"

#include <QStringList>

namespace ptwb {

namespace {

// The original Orin Nano's GPU top; the Super clocks (JetPack 6.1+) reach about 1020 MHz.
constexpr qint64 kOrinNanoTopGpuHz = 624750000;

}  // namespace

const QVector<JetsonFamily> &jetsonFamilies()
{
    static const QVector<JetsonFamily> families {
        {QStringLiteral("orin-agx"), QStringLiteral("Jetson AGX Orin"), QStringLiteral("tegra234")},
        {QStringLiteral("orin-nx"), QStringLiteral("Jetson Orin NX"), QStringLiteral("tegra234")},
        {QStringLiteral("orin-nano"), QStringLiteral("Jetson Orin Nano"),
         QStringLiteral("tegra234")},
        {QStringLiteral("orin-nano-super"), QStringLiteral("Jetson Orin Nano (Super clocks)"),
         QStringLiteral("tegra234")},
        {QStringLiteral("xavier-agx"), QStringLiteral("Jetson AGX Xavier"),
         QStringLiteral("tegra194")},
        {QStringLiteral("xavier-nx"), QStringLiteral("Jetson Xavier NX"),
         QStringLiteral("tegra194")},
        {QStringLiteral("agx-thor"), QStringLiteral("Jetson AGX Thor"), QStringLiteral("tegra264")},
    };
    return families;
}

Expected<JetsonFamily> jetsonFamilyOf(const QString &model, qint64 gpuTopHz)
{
    const auto family = [](const char *id) {
        for (const JetsonFamily &f : jetsonFamilies()) {
            if (f.id == QLatin1String(id))
                return f;
        }
        return JetsonFamily {};
    };
    const auto has = [&model](const char *words) {
        return model.contains(QLatin1String(words), Qt::CaseInsensitive);
    };
    if (has("AGX Orin"))
        return family("orin-agx");
    if (has("Orin NX"))
        return family("orin-nx");
    if (has("Orin Nano"))
        return family(has("Super") || gpuTopHz > kOrinNanoTopGpuHz ? "orin-nano-super"
                                                                   : "orin-nano");
    if (has("Xavier NX"))
        return family("xavier-nx");
    // A real AGX Xavier's device tree says just "Jetson-AGX".
    if (has("AGX Xavier") || model.trimmed() == QLatin1String("Jetson-AGX"))
        return family("xavier-agx");
    if (has("Thor"))
        return family("agx-thor");
    QStringList names;
    for (const JetsonFamily &f : jetsonFamilies())
        names.append(f.name);
    return Expected<JetsonFamily>::failure(
        QStringLiteral("'%1' is no Jetson the workbench knows (it knows %2)")
            .arg(printable(model.isEmpty() ? QStringLiteral("(no model)") : model, 120),
                 names.join(QStringLiteral(", "))));
}

}  // namespace ptwb
