#include "workloadcommands.h"

#include "devicetargets.h"
#include "store/store.h"
#include "workloads.h"

#include <QEventLoop>
#include <QJsonArray>

namespace ptwb::cli {

namespace {

constexpr int kDefaultTestSeconds = 30;
// The simulated Jetson's clock for a test: device seconds pass 10 times faster, so a test of 30
// s takes 3 s and Python's start-up is no large part of it (a sweep's default is 50).
constexpr double kTestSimulatorSpeed = 10;

// The option (or argument) that sets a field WorkloadDefinition::problemField names.
QString flagOf(const QString &field)
{
    if (field == QLatin1String("name"))
        return QStringLiteral("NAME");
    if (field == QLatin1String("argv"))
        return QStringLiteral("ARGV (after --)");
    if (field == QLatin1String("timeout"))
        return QStringLiteral("--timeout");
    return QStringLiteral("--") + field;  // cwd, env, pattern, skip, keep
}

QJsonObject definitionJson(const WorkloadDefinition &definition)
{
    QJsonObject object = definition.toJson();
    object.insert(QStringLiteral("name"), definition.name);
    object.insert(QStringLiteral("command_line"), definition.commandLine());
    if (!definition.createdAt.isEmpty())
        object.insert(QStringLiteral("created_at"), definition.createdAt);
    if (!definition.updatedAt.isEmpty())
        object.insert(QStringLiteral("updated_at"), definition.updatedAt);
    return object;
}

QString recognitionText(const WorkloadDefinition &d)
{
    switch (d.recogniser) {
    case WorkloadDefinition::Recogniser::Marker:
        return QStringLiteral("marker line PTWB_MINIBATCH <ms>");
    case WorkloadDefinition::Recogniser::Regex:
        return QStringLiteral("regex %1 (group in %2)")
            .arg(d.pattern, WorkloadRecognisers::unitName(d.unit));
    case WorkloadDefinition::Recogniser::Launcher:
        return QStringLiteral("launcher (times every optimizer.step())");
    }
    return {};
}

Expected<int> intOption(const QCommandLineParser &parser, const QString &name, int fallback)
{
    if (!parser.isSet(name))
        return fallback;
    bool ok = false;
    const int value = parser.value(name).toInt(&ok);
    if (!ok) {
        return Expected<int>::badInput(
            InputField::None,
            QStringLiteral("--%1: '%2' is not a whole number").arg(name, parser.value(name)));
    }
    return value;
}

// The definition `ptwb workload add` describes; bad values name their option.
Expected<WorkloadDefinition> definitionOf(const QCommandLineParser &parser, const QString &name,
                                          const QStringList &argv)
{
    using Result = Expected<WorkloadDefinition>;
    WorkloadDefinition d;
    d.name = name;
    d.argv = argv;
    d.deviceKind = parser.value(QStringLiteral("device-kind"));
    d.workingDirectory = parser.value(QStringLiteral("cwd"));
    for (const QString &pair : parser.values(QStringLiteral("env"))) {
        const qsizetype equals = pair.indexOf(QLatin1Char('='));
        if (equals <= 0) {
            return Result::badInput(
                InputField::None,
                QStringLiteral("--env: '%1': expected NAME=VALUE").arg(pair.left(200)));
        }
        d.environment.append({pair.left(equals), pair.mid(equals + 1)});
    }
    const QString recognise = parser.value(QStringLiteral("recognise"));
    if (!recognise.isEmpty() && !WorkloadRecognisers::fromName(recognise, &d.recogniser)) {
        return Result::badInput(InputField::None,
                                QStringLiteral("--recognise: '%1': expected marker, regex or "
                                               "launcher")
                                    .arg(recognise.left(64)));
    }
    d.pattern = parser.value(QStringLiteral("pattern"));
    if (!d.pattern.isEmpty() && d.recogniser != WorkloadDefinition::Recogniser::Regex)
        return Result::badInput(InputField::None,
                                QStringLiteral("--pattern: only with --recognise regex"));
    if (d.recogniser == WorkloadDefinition::Recogniser::Regex && d.pattern.isEmpty())
        return Result::badInput(InputField::None,
                                QStringLiteral("--pattern: --recognise regex needs a pattern with "
                                               "one named group, e.g. '(?P<rate>[0-9.]+)it/s'"));
    const QString unit = parser.value(QStringLiteral("unit"));
    if (!unit.isEmpty() && !WorkloadRecognisers::unitFromName(unit, &d.unit)) {
        return Result::badInput(
            InputField::None,
            QStringLiteral("--unit: '%1': expected ms, s or per_s").arg(unit.left(64)));
    }
    for (auto [option, field] : {std::pair("skip", &d.skip), std::pair("keep", &d.keep),
                                 std::pair("timeout", &d.timeoutSeconds)}) {
        const Expected<int> value = intOption(parser, QLatin1String(option), *field);
        if (!value)
            return passOn<Result>(value);
        *field = *value;
    }
    if (const QString problem = d.problem(); !problem.isEmpty()) {
        return Result::badInput(InputField::None,
                                QStringLiteral("%1: %2").arg(flagOf(d.problemField()), problem));
    }
    return d;
}

void printDefinition(Output &output, const WorkloadDefinition &d)
{
    output.line(QStringLiteral("workload %1").arg(d.name));
    output.line(QStringLiteral("  command:     %1").arg(d.commandLine()));
    output.line(QStringLiteral("  directory:   %1")
                    .arg(d.workingDirectory.isEmpty() ? QStringLiteral("(the agent's)")
                                                      : d.workingDirectory));
    for (const auto &[key, value] : d.environment)
        output.line(QStringLiteral("  env:         %1=%2").arg(key, value));
    output.line(QStringLiteral("  recognised:  %1").arg(recognitionText(d)));
    output.line(QStringLiteral("  minibatches: skip %1, keep %2 per mode; fails after %3 s "
                               "without one")
                    .arg(d.skip)
                    .arg(d.keep)
                    .arg(d.timeoutSeconds));
    output.line(QStringLiteral("  device kind: %1")
                    .arg(d.deviceKind.isEmpty() ? QStringLiteral("any") : d.deviceKind));
    if (!d.updatedAt.isEmpty())
        output.line(QStringLiteral("  saved:       %1 (created %2)").arg(d.updatedAt, d.createdAt));
}

int listWorkloadsCommand(const QCommandLineParser &parser, Output &output, Store &store)
{
    const Expected<QVector<workflows::WorkloadEntry>> entries =
        workflows::listWorkloads(store, parser.value(QStringLiteral("device-kind")));
    if (!entries)
        return output.fail(entries);
    for (const workflows::WorkloadEntry &entry : *entries) {
        if (output.json()) {
            QJsonObject object {{QStringLiteral("name"), entry.name},
                                {QStringLiteral("builtin"), entry.builtin}};
            if (entry.definition)
                object.insert(QStringLiteral("definition"), definitionJson(*entry.definition));
            output.object(object);
        } else if (entry.builtin) {
            output.line(QStringLiteral("%1  built-in (read-only)").arg(entry.name, -24));
        } else {
            const WorkloadDefinition &d = *entry.definition;
            output.line(
                QStringLiteral("%1  %2, %3  %4")
                    .arg(d.name, -24)
                    .arg(WorkloadRecognisers::name(d.recogniser))
                    .arg(d.deviceKind.isEmpty() ? QStringLiteral("any device") : d.deviceKind)
                    .arg(d.commandLine()));
        }
    }
    return kExitOk;
}

int showWorkloadCommand(const QString &name, Output &output, Store &store)
{
    if (isBuiltinWorkloadName(name)) {
        if (output.json())
            output.object({{QStringLiteral("name"), name}, {QStringLiteral("builtin"), true}});
        else
            output.line(QStringLiteral("workload %1: built in (read-only)").arg(name));
        return kExitOk;
    }
    const Expected<std::optional<WorkloadDefinition>> found = workflows::findWorkload(store, name);
    if (!found)
        return output.fail(found);
    if (!found->has_value()) {
        return output.badUsage(
            QStringLiteral("no workload named '%1'; see 'ptwb workload list'").arg(name.left(64)));
    }
    if (output.json()) {
        output.object({{QStringLiteral("name"), name},
                       {QStringLiteral("builtin"), false},
                       {QStringLiteral("definition"), definitionJson(**found)}});
    } else {
        printDefinition(output, **found);
    }
    return kExitOk;
}

int addWorkloadCommand(const QCommandLineParser &parser, const QStringList &words, Output &output,
                       Store &store)
{
    if (words.size() < 2)
        return output.badUsage(QStringLiteral("workload add: name the workload: ptwb workload add "
                                              "NAME [options] -- ARGV..."));
    if (words.size() < 3)
        return output.badUsage(QStringLiteral("ARGV (after --): workload add %1: give the command "
                                              "to run after --, e.g. -- python3 train.py")
                                   .arg(words.at(1).left(64)));
    const Expected<WorkloadDefinition> definition = definitionOf(parser, words.at(1), words.mid(2));
    if (!definition)
        return output.fail(definition);
    const Expected<std::optional<WorkloadDefinition>> existing =
        workflows::findWorkload(store, definition->name);
    if (!existing)
        return output.fail(existing);
    const bool replace = existing->has_value() && parser.isSet(QStringLiteral("replace"));
    const Status saved = replace ? workflows::updateWorkload(store, definition->name, *definition)
                                 : workflows::addWorkload(store, *definition);
    if (!saved) {
        if (existing->has_value())
            return output.badUsage(QStringLiteral("NAME: a workload named '%1' is saved "
                                                  "already; add --replace to replace it")
                                       .arg(definition->name));
        return output.fail(saved);
    }
    if (output.json()) {
        output.object({{QStringLiteral("name"), definition->name},
                       {QStringLiteral("saved"), true},
                       {QStringLiteral("replaced"), replace}});
    } else {
        output.line(QStringLiteral("%1 workload %2: %3")
                        .arg(replace ? QStringLiteral("replaced") : QStringLiteral("saved"),
                             definition->name, definition->commandLine()));
    }
    return kExitOk;
}

int removeWorkloadCommand(const QString &name, Output &output, Store &store)
{
    if (isBuiltinWorkloadName(name))
        return output.badUsage(
            QStringLiteral("NAME: %1 is built in; it cannot be removed").arg(name));
    if (const Status removed = workflows::removeWorkload(store, name); !removed)
        return output.fail(removed);
    if (output.json())
        output.object({{QStringLiteral("name"), name}, {QStringLiteral("removed"), true}});
    else
        output.line(QStringLiteral("removed workload %1 (what was measured with it stays in the "
                                   "store)")
                        .arg(name));
    return kExitOk;
}

void printReport(Output &output, const QString &name, const workflows::WorkloadTestReport &r)
{
    const bool fine = r.recognised();
    if (output.json()) {
        QJsonObject object {
            {QStringLiteral("name"), name},
            {QStringLiteral("lines"), WorkloadOutput::toJson(r.lines)},
            {QStringLiteral("minibatches"), r.minibatches},
            {QStringLiteral("median_ms"), r.medianMs ? QJsonValue(*r.medianMs) : QJsonValue()},
            {QStringLiteral("median_w"), r.medianW ? QJsonValue(*r.medianW) : QJsonValue()},
            {QStringLiteral("exit_status"),
             r.exitStatus ? QJsonValue(*r.exitStatus) : QJsonValue()},
            {QStringLiteral("reason"), r.reason.isEmpty() ? QJsonValue() : QJsonValue(r.reason)},
            {QStringLiteral("seconds"), r.seconds},
            {QStringLiteral("recognised"), fine}};
        output.object(object);
        return;
    }
    output.line(QStringLiteral("last %1 lines of %2 (* a recognised minibatch):")
                    .arg(r.lines.size())
                    .arg(name));
    for (const workflows::OutputLine &line : r.lines) {
        // Sanitised when parsed (WorkloadOutput): nothing from the device steers the terminal.
        const QString mark = line.ms ? QStringLiteral("* %1 ms").arg(*line.ms, 9, 'f', 1)
                                     : QString(13, QLatin1Char(' '));
        output.line(QStringLiteral("%1 %2 | %3").arg(mark, line.stream, line.text));
    }
    if (r.minibatches > 0) {
        output.line(
            QStringLiteral("%1 minibatches recognised in %2 s: median %3 ms, %4")
                .arg(r.minibatches)
                .arg(r.seconds, 0, 'f', 1)
                .arg(r.medianMs ? QString::number(*r.medianMs, 'f', 1) : QStringLiteral("?"))
                .arg(r.medianW ? QStringLiteral("%1 W").arg(*r.medianW, 0, 'f', 1)
                               : QStringLiteral("no power reading")));
    }
    if (!r.reason.isEmpty())
        output.line(QStringLiteral("not usable for a sweep: %1").arg(r.reason));
    else if (r.minibatches == 0)
        output.line(QStringLiteral("no minibatch recognised"));
    if (r.exitStatus)
        output.line(QStringLiteral("the workload exited with status %1").arg(*r.exitStatus));
}

int testWorkloadCommand(const QCommandLineParser &parser, const QString &name, Output &output,
                        Store &store)
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("target")}, output, &exitCode))
        return exitCode;
    const Expected<int> seconds = intOption(parser, QStringLiteral("seconds"), kDefaultTestSeconds);
    if (!seconds)
        return output.fail(seconds);
    if (*seconds < 1 || *seconds > workflows::WorkloadTest::kMaxSeconds) {
        return output.badUsage(QStringLiteral("--seconds: expected 1 to %1 device seconds, got %2")
                                   .arg(workflows::WorkloadTest::kMaxSeconds)
                                   .arg(*seconds));
    }
    WorkloadSpec spec;
    if (isBuiltinWorkloadName(name)) {
        spec.builtin = name.section(QLatin1Char('-'), 0, 0);
        spec.inference = name.endsWith(QLatin1String("-inference"));
    } else {
        const Expected<std::optional<WorkloadDefinition>> found =
            workflows::findWorkload(store, name);
        if (!found)
            return output.fail(found);
        if (!found->has_value())
            return output.badUsage(
                QStringLiteral("no workload named '%1'; see 'ptwb workload list'")
                    .arg(name.left(64)));
        spec = WorkloadSpec::fromDefinition(**found);
    }
    const Expected<QVector<workflows::DeviceEndpoint>> devices =
        targetDevices(parser, kTestSimulatorSpeed);
    if (!devices)
        return output.fail(devices);
    if (devices->size() != 1)
        return output.badUsage(QStringLiteral("--target: a test runs on one device"));

    std::optional<Expected<workflows::WorkloadTestReport>> result;
    QEventLoop loop;
    std::unique_ptr<workflows::WorkloadTest> test =
        workflows::startWorkloadTest(devices->first(), spec, *seconds);
    QObject::connect(
        test.get(), &workflows::WorkloadTest::connected, &loop,
        [&output, &name, &seconds](const QString &device) {
            output.err()
                << QStringLiteral("testing %1 on %2 for up to %3 s").arg(name, device).arg(*seconds)
                << Qt::endl;
        });
    QObject::connect(test.get(), &workflows::WorkloadTest::finished, &loop,
                     [&](const Expected<workflows::WorkloadTestReport> &report) {
                         result = report;
                         loop.quit();
                     });
    if (!test->isFinished())
        loop.exec();
    if (!result)
        return output.fail(QStringLiteral("the test ended without a result"), ErrorKind::Failed);
    if (!*result)
        return output.fail(*result);
    printReport(output, name, **result);
    return (*result)->recognised() ? kExitOk : kExitFailed;
}

}  // namespace

void WorkloadCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption(dbOption());
    parser.addOption({QStringLiteral("device-kind"),
                      QStringLiteral("list: only workloads for this device kind (and any); add: "
                                     "the kind the workload is for (default: any)."),
                      QStringLiteral("KIND")});
    parser.addOption({QStringLiteral("cwd"),
                      QStringLiteral("add: working directory on the device, absolute or under "
                                     "~/ (default: the agent's)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("env"),
                      QStringLiteral("add: an environment variable NAME=VALUE for the workload "
                                     "(repeatable; no secrets: definitions are stored in plain "
                                     "text)."),
                      QStringLiteral("NAME=VALUE")});
    parser.addOption({QStringLiteral("recognise"),
                      QStringLiteral("add: how a minibatch is recognised: marker (a line "
                                     "PTWB_MINIBATCH <ms>, the default), regex (--pattern) or "
                                     "launcher (times optimizer.step() of an unmodified PyTorch "
                                     "script)."),
                      QStringLiteral("HOW")});
    parser.addOption({QStringLiteral("pattern"),
                      QStringLiteral("add: with --recognise regex, a regular expression with "
                                     "one named group holding the number, e.g. "
                                     "'(?P<rate>[0-9.]+)it/s'."),
                      QStringLiteral("RE")});
    parser.addOption({QStringLiteral("unit"),
                      QStringLiteral("add: what the group is: ms or s per minibatch, or per_s "
                                     "(minibatches per second; default ms)."),
                      QStringLiteral("UNIT")});
    parser.addOption({QStringLiteral("skip"),
                      QStringLiteral("add: minibatches never measured, for warm-up (default 1)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("keep"),
                      QStringLiteral("add: minibatches measured per mode (default 39)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("timeout"),
                      QStringLiteral("add: device seconds without a recognised minibatch before "
                                     "a mode fails (default 120)."),
                      QStringLiteral("S")});
    parser.addOption({QStringLiteral("replace"),
                      QStringLiteral("add: replace a saved workload of the same name.")});
    parser.addOption({QStringLiteral("seconds"),
                      QStringLiteral("test: run for up to S device seconds (default 30; it stops "
                                     "earlier after 20 measured minibatches)."),
                      QStringLiteral("S")});
    parser.addOption({QStringLiteral("target"),
                      QStringLiteral("test: the device, sim:orin-agx (the simulated Jetson) or "
                                     "ssh://USER@HOST[:PORT]."),
                      QStringLiteral("TARGET")});
    addSimulatorOptions(parser);
    addSshOptions(parser);
}

QString WorkloadCommand::optionFor(InputField field) const
{
    switch (field) {
    case InputField::Workload:
    case InputField::Run:
        return {};  // the NAME argument, or the definition: the message names its field
    default:
        return defaultOptionFor(field);
    }
}

int WorkloadCommand::run(const QCommandLineParser &parser, Output &output) const
{
    const QStringList words = parser.positionalArguments();
    const QString action = words.value(0);
    const QStringList actions {QStringLiteral("list"), QStringLiteral("show"),
                               QStringLiteral("add"), QStringLiteral("remove"),
                               QStringLiteral("test")};
    if (!actions.contains(action)) {
        return output.badUsage(QStringLiteral("workload: expected list, show, add, remove or "
                                              "test, got '%1'; see 'ptwb workload --help'")
                                   .arg(action.left(64)));
    }
    if (action != QLatin1String("add") && action != QLatin1String("list") && words.size() != 2) {
        return output.badUsage(
            QStringLiteral("workload %1: expected one workload NAME").arg(action));
    }
    if (action == QLatin1String("list") && words.size() != 1)
        return output.badUsage(QStringLiteral("workload list: takes no NAME"));
    if (action != QLatin1String("add")) {
        for (const char *option :
             {"cwd", "env", "recognise", "pattern", "unit", "skip", "keep", "timeout", "replace"}) {
            if (parser.isSet(QLatin1String(option)))
                return output.badUsage(
                    QStringLiteral("--%1: only with 'workload add'").arg(option));
        }
    }
    if (action != QLatin1String("test")) {
        for (const char *option : {"seconds", "target"}) {
            if (parser.isSet(QLatin1String(option)))
                return output.badUsage(
                    QStringLiteral("--%1: only with 'workload test'").arg(option));
        }
    }
    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    if (action == QLatin1String("list"))
        return listWorkloadsCommand(parser, output, **store);
    if (action == QLatin1String("show"))
        return showWorkloadCommand(words.at(1), output, **store);
    if (action == QLatin1String("add"))
        return addWorkloadCommand(parser, words, output, **store);
    if (action == QLatin1String("remove"))
        return removeWorkloadCommand(words.at(1), output, **store);
    return testWorkloadCommand(parser, words.at(1), output, **store);
}

}  // namespace ptwb::cli
