#include "cli.h"

#include "batchevaluate.h"
#include "benchcommand.h"
#include "command.h"
#include "concurrentcommands.h"
#include "convergencecommands.h"
#include "democommand.h"
#include "devicecommands.h"
#include "devicesetupcommand.h"
#include "modelcommands.h"
#include "modescommand.h"
#include "optimizecommands.h"
#include "searchcommand.h"
#include "storecommands.h"
#include "verifycommand.h"
#include "workloadcommands.h"

#include "predict/regressor.h"
#include "simulatorlauncher.h"

#include <memory>
#include <vector>

namespace ptwb::cli {

namespace {

std::vector<std::unique_ptr<Command>> allCommands()
{
    std::vector<std::unique_ptr<Command>> commands;
    commands.push_back(std::make_unique<ImportCommand>());
    commands.push_back(std::make_unique<ExportCommand>());
    commands.push_back(std::make_unique<WorkloadsCommand>());
    commands.push_back(std::make_unique<WorkloadCommand>());
    commands.push_back(std::make_unique<ModesCommand>());
    commands.push_back(std::make_unique<TrainCommand>());
    commands.push_back(std::make_unique<TransferCommand>());
    commands.push_back(std::make_unique<PredictCommand>());
    commands.push_back(std::make_unique<ModelsCommand>());
    commands.push_back(std::make_unique<RecommendCommand>());
    commands.push_back(std::make_unique<ParetoCommand>());
    commands.push_back(std::make_unique<EvaluateCommand>());
    commands.push_back(std::make_unique<EvaluateBatchCommand>());
    commands.push_back(std::make_unique<EvaluateConcurrentCommand>());
    commands.push_back(std::make_unique<RecommendConcurrentCommand>());
    commands.push_back(std::make_unique<VerifyConcurrentCommand>());
    commands.push_back(std::make_unique<SweepCommand>());
    commands.push_back(std::make_unique<ConvergenceCommand>());
    commands.push_back(std::make_unique<ApplyCommand>());
    commands.push_back(std::make_unique<DeviceCommand>());
    commands.push_back(std::make_unique<SearchCommand>());
    commands.push_back(std::make_unique<DemoCommand>());
    commands.push_back(std::make_unique<BenchCommand>());
    return commands;
}

QString overview(const std::vector<std::unique_ptr<Command>> &commands)
{
    QString text = QStringLiteral(
        "Usage: ptwb COMMAND [options]\n\n"
        "PowerTrain Workbench on the command line: power modes, measurements, prediction and\n"
        "power-mode selection for NVIDIA Jetson training workloads.\n\n"
        "Commands:\n");
    for (const auto &command : commands)
        text += QStringLiteral("  %1  %2\n").arg(command->name(), -10).arg(command->summary());
    text += QStringLiteral("\nEvery command accepts --help (or: ptwb help COMMAND) and --json (one "
                           "JSON object\nper line).\n"
                           "Exit status: 0 success, 1 the work failed, 2 bad usage or bad input.\n"
                           "Options:\n  -h, --help     Show this help.\n"
                           "  -v, --version  Show the version.\n");
    return text;
}

// The version, then where this copy finds its parts: what a bug report about an installation
// needs, and what the packaging test checks (an unpacked .deb must not use a build tree).
QString versionText()
{
    const std::string engine = predict::engineModulePath();
    const Expected<QString> scripts = SimulatorLauncher::scriptDirectory();
    return QStringLiteral("ptwb %1\nprediction engine: %2\ndevice scripts: %3\n")
        .arg(QStringLiteral(PTWB_VERSION),
             engine.empty() ? QStringLiteral("not found") : QString::fromStdString(engine),
             scripts ? *scripts : QStringLiteral("not found"));
}

}  // namespace

int run(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    Output output(out, err);
    const auto commands = allCommands();
    const QString first = arguments.value(1);
    // `ptwb help sweep` is `ptwb sweep --help`, as people type it after reading the overview.
    if (first == QLatin1String("help") && arguments.size() > 2)
        return run({arguments.value(0), arguments.value(2), QStringLiteral("--help")}, out, err);
    if (first == QLatin1String("--help") || first == QLatin1String("-h") ||
        first == QLatin1String("help")) {
        out << overview(commands);
        return kExitOk;
    }
    if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
        out << versionText();
        return kExitOk;
    }
    if (first.isEmpty()) {
        err << overview(commands);
        return kExitBadInput;
    }
    const auto found = std::find_if(commands.begin(), commands.end(),
                                    [&first](const auto &c) { return c->name() == first; });
    if (found == commands.end()) {
        return output.badUsage(
            QStringLiteral("ptwb: unknown command '%1'; run 'ptwb --help' for the list")
                .arg(first));
    }
    const Command &command = **found;

    QCommandLineParser parser;
    parser.setApplicationDescription(command.summary());
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")},
                                        QStringLiteral("Show this help."));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Machine output: one JSON object per line."));
    parser.addOption(helpOption);
    parser.addOption(jsonOption);
    command.addOptions(parser);

    QStringList commandArguments = arguments.mid(1);
    commandArguments[0] = QStringLiteral("ptwb %1").arg(command.name());
    if (!parser.parse(commandArguments))
        return output.badUsage(QStringLiteral("ptwb %1: %2; see 'ptwb %1 --help'")
                                   .arg(command.name(), parser.errorText()));
    output.setJson(parser.isSet(jsonOption));
    if (parser.isSet(helpOption)) {
        QString help = parser.helpText();
        // QCommandLineParser names the executable's path; show the real usage line instead.
        const qsizetype firstLineEnd = help.indexOf(QLatin1Char('\n'));
        help.replace(0, firstLineEnd,
                     QStringLiteral("Usage: ptwb %1 [options] %2")
                         .arg(command.name(), command.positionalSyntax())
                         .trimmed());
        out << help;
        return kExitOk;
    }
    output.setOptionNames([&command](InputField field) { return command.optionFor(field); });
    return command.run(parser, output);
}

}  // namespace ptwb::cli
