#include "modescommand.h"

#include "modes/modespace.h"
#include "store/store.h"

#include <QJsonArray>

namespace ptwb::cli {

namespace {

// The tables --device names: a built-in kind, or with --db a device of that store (its kind) or a
// spec it has seen (opening the store makes its specs known).
Expected<DeviceSpec> deviceTables(const QCommandLineParser &parser)
{
    const QString device = parser.value(QStringLiteral("device"));
    std::unique_ptr<Store> store;  // open while its specs are looked up
    if (parser.isSet(QStringLiteral("db"))) {
        Expected<std::unique_ptr<Store>> opened = Store::open(parser.value(QStringLiteral("db")));
        if (!opened)
            return passOn<Expected<DeviceSpec>>(opened);
        store = std::move(opened).value();
    }
    const Expected<DeviceSpec> spec = store
        ? DeviceSpec::lookup(store->deviceKind(device).value_or(device))
        : DeviceSpec::builtin(device);
    if (!spec)
        return Expected<DeviceSpec>::failure(spec.error(), ErrorKind::BadInput);
    return spec;
}

}  // namespace

void ModesCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Device kind: %1; with --db also a device of the database "
                                     "or the spec id of one it has seen (its own tables).")
                          .arg(DeviceSpec::builtinIds().join(QStringLiteral(", "))),
                      QStringLiteral("KIND")});
    parser.addOption({QStringLiteral("db"),
                      QStringLiteral("A workbench database whose devices' own tables --device may "
                                     "name."),
                      QStringLiteral("DB")});
    parser.addOption(
        {QStringLiteral("grid"),
         QStringLiteral("Sub-grid, e.g. \"cores=even;cpu=every:2:2\" (the PowerTrain "
                        "grid). Selectors: all, even, odd, every:N[:START], LOW..HIGH, "
                        "V1,V2,..."),
         QStringLiteral("SPEC")});
    parser.addOption({QStringLiteral("list"), QStringLiteral("List every mode, one per line.")});
    parser.addOption({QStringLiteral("presets"),
                      QStringLiteral("Show the stock presets and the mode each maps to.")});
    parser.addOption({QStringLiteral("format"),
                      QStringLiteral("Mode notation for --list: canonical (default), short or "
                                     "underscore."),
                      QStringLiteral("FORMAT"), QStringLiteral("canonical")});
}

int ModesCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("device")}, output, &exitCode))
        return exitCode;
    const Expected<DeviceSpec> device = deviceTables(parser);
    if (!device)
        return device.errorKind() == ErrorKind::BadInput ? output.badUsage(device.error())
                                                         : output.fail(device);
    const Expected<ModeSpace> space =
        ModeSpace::subGrid(*device, parser.value(QStringLiteral("grid")));
    if (!space)
        return output.badUsage(space.error());
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("canonical") && format != QLatin1String("short") &&
        format != QLatin1String("underscore")) {
        return output.badUsage(
            QStringLiteral("--format '%1': expected canonical, short or underscore").arg(format));
    }
    const auto text = [&format](const PowerMode &mode) {
        if (format == QLatin1String("short"))
            return mode.toShort();
        return format == QLatin1String("underscore") ? mode.toUnderscore() : mode.toCanonical();
    };

    if (parser.isSet(QStringLiteral("presets"))) {
        for (const Preset &preset : device->presets()) {
            const std::optional<PowerMode> mode = space->presetMode(preset);
            const QString modeText = mode ? text(*mode) : QStringLiteral("none in this grid");
            if (output.json()) {
                output.object({{QStringLiteral("preset"), preset.name},
                               {QStringLiteral("id"), preset.id},
                               {QStringLiteral("mode"), mode ? modeText : QString()}});
            } else {
                output.line(QStringLiteral("%1  %2").arg(preset.name, -14).arg(modeText));
            }
        }
        return kExitOk;
    }
    if (parser.isSet(QStringLiteral("list"))) {
        QTextStream &out = output.out();
        for (qint64 i = 0; i < space->size(); ++i) {
            if (output.json())
                out << QStringLiteral("{\"index\":%1,\"mode\":\"%2\"}\n")
                           .arg(i)
                           .arg(text(space->mode(i)));
            else
                out << text(space->mode(i)) << '\n';
        }
        out.flush();
        return kExitOk;
    }
    if (output.json()) {
        output.object({{QStringLiteral("device"), device->id()},
                       {QStringLiteral("grid"), parser.value(QStringLiteral("grid"))},
                       {QStringLiteral("modes"), space->size()}});
    } else {
        output.line(QString::number(space->size()));
    }
    return kExitOk;
}

}  // namespace ptwb::cli
