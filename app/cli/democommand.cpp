#include "democommand.h"

#include "cli.h"
#include "simulatedcorpus.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

namespace ptwb::cli {

namespace {

// Runs one ptwb command in-process, echoing it like a shell session. With `json`, returns its
// last JSON line (and prints the human form by running it a second time without --json).
struct Step
{
    Output &output;
    QElapsedTimer &clock;
    int number = 0;

    bool run(const QString &title, QStringList arguments, QJsonObject *json = nullptr)
    {
        output.line(QString());
        output.line(QStringLiteral("== %1. %2 (%3 s so far)")
                        .arg(++number)
                        .arg(title)
                        .arg(clock.nsecsElapsed() / 1e9, 0, 'f', 1));
        output.line(QStringLiteral("$ ptwb %1").arg(arguments.join(QLatin1Char(' '))));
        QString text;
        QString errors;
        QTextStream out(&text);
        QTextStream err(&errors);
        const int code = cli::run(QStringList {QStringLiteral("ptwb")} + arguments, out, err);
        out.flush();
        err.flush();
        output.out() << text;
        if (json && code == kExitOk) {
            // The same question again, for the machine-readable answer the next step needs.
            QString machine;
            QString ignored;
            QTextStream jsonOut(&machine);
            QTextStream jsonErr(&ignored);
            cli::run(QStringList {QStringLiteral("ptwb")} + arguments +
                         QStringList {QStringLiteral("--json")},
                     jsonOut, jsonErr);
            jsonOut.flush();
            *json = QJsonDocument::fromJson(
                        machine.trimmed().split(QLatin1Char('\n')).constLast().toUtf8())
                        .object();
        }
        // Progress lines go to stderr; keep only the last few so the story stays readable.
        const QStringList notes = errors.trimmed().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (const QString &note : notes.mid(qMax(0, int(notes.size()) - 3)))
            output.line(QStringLiteral("  | %1").arg(note));
        if (code != kExitOk) {
            output.err() << QStringLiteral("demo: step %1 failed (exit %2)").arg(number).arg(code)
                         << Qt::endl;
            return false;
        }
        return true;
    }
};

}  // namespace

void DemoCommand::addOptions(QCommandLineParser &parser) const
{
    parser.addOption({QStringLiteral("dir"),
                      QStringLiteral("Keep the demo's database and simulated device here "
                                     "(default: a temporary directory, removed at the end)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("budget"),
                      QStringLiteral("Power budget to recommend for, in watts (default 30)."),
                      QStringLiteral("W"), QStringLiteral("30")});
}

int DemoCommand::run(const QCommandLineParser &parser, Output &output) const
{
    QElapsedTimer clock;
    clock.start();
    QTemporaryDir temporary;
    const QString dir = parser.isSet(QStringLiteral("dir")) ? parser.value(QStringLiteral("dir"))
                                                            : temporary.path();
    if (dir.isEmpty() || !QDir().mkpath(dir))
        return output.fail(QStringLiteral("demo: cannot create a working directory"),
                           ErrorKind::Failed);
    const QString db = dir + QStringLiteral("/demo.sqlite");
    const QString state = dir + QStringLiteral("/simulated-orin-agx");
    const QString corpus = dir + QStringLiteral("/simulated-resnet18.csv");
    const QString budget = parser.value(QStringLiteral("budget"));
    const QStringList sim {QStringLiteral("--sim-state"), state, QStringLiteral("--sim-speed"),
                           QStringLiteral("200")};

    output.line(QStringLiteral("PowerTrain Workbench demo on a SIMULATED Jetson AGX Orin: every "
                               "number below comes from the simulator's performance model "
                               "(docs/simulator.md), not from a device. Working in %1.")
                    .arg(dir));
    Step step {output, clock};

    // 1. A reference corpus: what a long sweep of ResNet-18 would give, from the model at once.
    output.line(QString());
    output.line(QStringLiteral("== %1. Reference corpus: ResNet-18 on 4,368 modes, simulated")
                    .arg(++step.number));
    const Expected<QStringList> corpusArguments =
        SimulatedCorpus::arguments(QStringLiteral("orin-agx"), QStringLiteral("resnet18"), corpus);
    if (!corpusArguments)
        return output.fail(corpusArguments);
    output.line(QStringLiteral("$ python3 %1").arg(corpusArguments->join(QLatin1Char(' '))));
    const Status generated =
        SimulatedCorpus::generate(QStringLiteral("orin-agx"), QStringLiteral("resnet18"), corpus);
    if (!generated)
        return output.fail(QStringLiteral("demo: %1").arg(generated.error()), ErrorKind::Failed);
    QJsonObject recommendation;
    const bool ok = step.run(QStringLiteral("Store it"),
                             {QStringLiteral("import"), corpus, QStringLiteral("--db"), db,
                              QStringLiteral("--device"), QStringLiteral("simulated-orin-agx"),
                              QStringLiteral("--kind"), QStringLiteral("orin-agx"),
                              QStringLiteral("--workload"), QStringLiteral("resnet18")}) &&
        step.run(QStringLiteral("Train the reference model"),
                 {QStringLiteral("train"), QStringLiteral("--db"), db, QStringLiteral("--workload"),
                  QStringLiteral("resnet18")}) &&
        step.run(QStringLiteral("Profile 50 modes of a new workload (MobileNet v3) on the "
                                "simulated device"),
                 QStringList {QStringLiteral("sweep"), QStringLiteral("--db"), db,
                              QStringLiteral("--target"), QStringLiteral("sim:orin-agx"),
                              QStringLiteral("--workload"), QStringLiteral("mobilenet_v3"),
                              QStringLiteral("--modes"), QStringLiteral("random:50")} +
                     sim) &&
        step.run(QStringLiteral("Transfer: PowerTrain from the reference to the 50 modes"),
                 {QStringLiteral("transfer"), QStringLiteral("--db"), db, QStringLiteral("--from"),
                  QStringLiteral("resnet18"), QStringLiteral("--to"),
                  QStringLiteral("mobilenet_v3")}) &&
        step.run(QStringLiteral("The predicted Pareto front (power vs time) of all 18,096 modes"),
                 {QStringLiteral("pareto"), QStringLiteral("--db"), db,
                  QStringLiteral("--workload"), QStringLiteral("mobilenet_v3"),
                  QStringLiteral("--out"), dir + QStringLiteral("/front.csv")}) &&
        step.run(QStringLiteral("Recommend the fastest mode within %1 W").arg(budget),
                 {QStringLiteral("recommend"), QStringLiteral("--db"), db,
                  QStringLiteral("--workload"), QStringLiteral("mobilenet_v3"),
                  QStringLiteral("--power-budget"), budget},
                 &recommendation) &&
        step.run(QStringLiteral("Apply it: the device reverts by itself unless confirmed"),
                 {QStringLiteral("apply"), QStringLiteral("--target"),
                  QStringLiteral("sim:orin-agx"), QStringLiteral("--mode"),
                  recommendation.value(QLatin1String("mode")).toString(),
                  QStringLiteral("--sim-state"), state});
    if (!ok)
        return kExitFailed;
    output.line(QString());
    output.line(QStringLiteral("Done in %1 s. The front is in %2/front.csv%3.")
                    .arg(clock.nsecsElapsed() / 1e9, 0, 'f', 1)
                    .arg(dir)
                    .arg(parser.isSet(QStringLiteral("dir"))
                             ? QString()
                             : QStringLiteral(" (removed now: keep it with --dir DIR)")));
    return kExitOk;
}

}  // namespace ptwb::cli
