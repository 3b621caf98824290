#include "searchcommand.h"

#include "devicesearch.h"
#include "devicetargets.h"
#include "devicework.h"
#include "simulatorlauncher.h"
#include "store/store.h"
#include "store/sweepstore.h"
#include "util/printable.h"

namespace ptwb::cli {

namespace {

QString describe(const PowerMode &mode, const std::optional<Measurement> &measured)
{
    QString text = QStringLiteral("%1 (%2)").arg(mode.toCanonical(), mode.toShort());
    if (measured)
        text += QStringLiteral(": %1 W, %2 ms per minibatch")
                    .arg(measured->powerW, 0, 'f', 1)
                    .arg(measured->timeMs, 0, 'f', 1);
    return text;
}

}  // namespace

void SearchCommand::addOptions(QCommandLineParser &parser) const
{
    addSweepRunOptions(parser,
                       QStringLiteral("Go on with the newest search of this workload and "
                                      "device where it stopped (its strategy and "
                                      "budget)."));
    parser.addOption({QStringLiteral("strategy"),
                      QStringLiteral("gmd (the Fulcrum study's gradient descent, at most 15 "
                                     "modes), bs (its binary search, about 11) or pts (PowerTrain "
                                     "verifying its pick, at most 15; needs --reference)."),
                      QStringLiteral("NAME"), QStringLiteral("gmd")});
    parser.addOption({QStringLiteral("power-budget"),
                      QStringLiteral("Watts the chosen mode may draw: the fastest such mode."),
                      QStringLiteral("W")});
    parser.addOption({QStringLiteral("time-budget"),
                      QStringLiteral("Milliseconds per minibatch the chosen mode may take: the "
                                     "lowest-power such mode."),
                      QStringLiteral("MS")});
    parser.addOption({QStringLiteral("reference"),
                      QStringLiteral("For pts: the workload whose newest reference model it "
                                     "transfers (ptwb train --workload NAME)."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("apply"),
                      QStringLiteral("Apply the mode found, with the device-side revert "
                                     "(as ptwb apply).")});
    parser.addOption({QStringLiteral("confirm-within"),
                      QStringLiteral("With --apply: seconds the device waits for the "
                                     "confirmation before it reverts by itself (default 30)."),
                      QStringLiteral("S"), QStringLiteral("30")});
}

int SearchCommand::run(const QCommandLineParser &parser, Output &output) const
{
    int exitCode = kExitOk;
    if (!requireOptions(parser, {QStringLiteral("target"), QStringLiteral("workload")}, output,
                        &exitCode)) {
        return exitCode;
    }
    const bool resume = parser.isSet(QStringLiteral("resume"));
    const bool hasPower = parser.isSet(QStringLiteral("power-budget"));
    const bool hasTime = parser.isSet(QStringLiteral("time-budget"));
    if (!resume && hasPower == hasTime)
        return output.badUsage(QStringLiteral("search: give one of --power-budget W and "
                                              "--time-budget MS (or --resume)"));
    bool ok = false;
    const int confirmSeconds = parser.value(QStringLiteral("confirm-within")).toInt(&ok);
    if (!ok || confirmSeconds < 5 || confirmSeconds > 3600)
        return output.badUsage(QStringLiteral("--confirm-within: expected 5..3600 seconds"));
    const Expected<QVector<workflows::DeviceEndpoint>> devices =
        targetDevices(parser, SimulatorOptions().speed, true);
    if (!devices)
        return output.fail(devices);
    if (parser.isSet(QStringLiteral("apply")) && devices->size() != 1)
        return output.badUsage(QStringLiteral("--apply: a search that applies takes one device"));
    Expected<workflows::SweepRequest> run = sweepRunRequest(parser);
    if (!run)
        return output.fail(run);
    workflows::SearchRequest request;
    request.workload = run->workload;
    request.minibatches = run->minibatches;
    request.run = run->run;
    request.deviceName = run->deviceName;
    request.resume = resume;
    if (!resume) {
        request.strategy = parser.value(QStringLiteral("strategy"));
        request.referenceWorkload = parser.value(QStringLiteral("reference"));
        if (hasPower) {
            request.powerBudgetW = parser.value(QStringLiteral("power-budget")).toDouble(&ok);
            if (!ok || request.powerBudgetW <= 0)
                return output.badUsage(QStringLiteral("--power-budget: expected watts above 0"));
        } else {
            request.timeBudgetMs = parser.value(QStringLiteral("time-budget")).toDouble(&ok);
            if (!ok || request.timeBudgetMs <= 0)
                return output.badUsage(QStringLiteral("--time-budget: expected milliseconds per "
                                                      "minibatch above 0"));
        }
        if (!BudgetSearch::strategies().contains(request.strategy))
            return output.badUsage(QStringLiteral("--strategy: expected one of %1")
                                       .arg(BudgetSearch::strategies().join(QStringLiteral(", "))));
    }

    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    const Expected<qint64> planned = workflows::planSearch(**store, request, *devices);
    if (!planned)
        return output.fail(planned);
    // The planned search, resumed by id: the sweep the plan named.
    workflows::SweepRequest sweep = *run;
    sweep.resume = true;
    sweep.resumeSweepId = *planned;
    // Steps count from the search's start, across resumes.
    const Expected<SweepRecord> before = SweepStore(**store).load(*planned);
    int step = before ? int(before->items.size()) - before->count(SweepItem::State::Pending) : 0;
    const auto recorded = [&output, &step](const SweepItem &item, const Measurement &measured) {
        ++step;
        output.err() << QStringLiteral("step %1: %2")
                            .arg(step)
                            .arg(item.state == SweepItem::State::Done
                                     ? describe(item.mode, measured)
                                     // The device's words: no control characters on a terminal.
                                     : QStringLiteral("%1 failed: %2")
                                           .arg(item.mode.toCanonical(), printable(item.reason)))
                     << Qt::endl;
    };
    const Expected<SweepOutcome> outcome =
        runSweep(parser, sweep, *devices, **store, output, recorded);
    if (!outcome)
        return output.fail(outcome);
    // A store that could not be written: what it holds is not the search's answer.
    if (!outcome->storeFailure.isEmpty())
        return output.fail(outcome->summary + QStringLiteral(" (run again with --resume)"),
                           ErrorKind::Failed);
    const Expected<workflows::SearchOutcome> found =
        workflows::searchOutcome(**store, outcome->sweepId);
    if (!found)
        return output.fail(found.error() + QStringLiteral(": ") + outcome->summary +
                               QStringLiteral(" (run again with --resume)"),
                           found.errorKind());
    const SearchGoal &goal = found->goal;
    const std::optional<Measurement> &measured = found->measured;

    // When nothing fits, the search answers with the mode closest to the budget.
    const QString closest = goal.isTimeBudget() ? QStringLiteral("the fastest mode seen is ")
                                                : QStringLiteral("the lowest-power mode seen is ");
    bool applied = false;
    if (parser.isSet(QStringLiteral("apply"))) {
        if (!found->fits)
            return output.fail(
                QStringLiteral("no mode profiled fits %1 (%2%3); nothing applied")
                    .arg(goal.budgetText(), closest, describe(found->mode, measured)),
                ErrorKind::Failed);
        const double speed = parser.isSet(QStringLiteral("sim-speed"))
            ? parser.value(QStringLiteral("sim-speed")).toDouble()
            : 1.0;
        const Expected<PowerMode> previous =
            applyWithRevert(devices->first(), found->mode, confirmSeconds, speed, output);
        if (!previous)
            return output.fail(previous);
        applied = true;
    }
    if (output.json()) {
        QJsonObject object {{QStringLiteral("sweep"), double(outcome->sweepId)},
                            {QStringLiteral("strategy"), goal.strategy},
                            {QStringLiteral("mode"), found->mode.toCanonical()},
                            {QStringLiteral("fits"), found->fits},
                            {QStringLiteral("power_w"), measured ? measured->powerW : 0.0},
                            {QStringLiteral("time_ms"), measured ? measured->timeMs : 0.0},
                            {QStringLiteral("profiled"), found->profiled},
                            {QStringLiteral("applied"), applied},
                            {QStringLiteral("seconds"), outcome->seconds}};
        if (goal.isTimeBudget())
            object.insert(QStringLiteral("time_budget_ms"), goal.timeBudgetMs);
        else
            object.insert(QStringLiteral("power_budget_w"), goal.powerBudgetW);
        output.object(object);
    } else {
        output.line(QStringLiteral("%1 %2 within %3 after %4 profiled modes: %5%6")
                        .arg(goal.strategy,
                             found->fits ? QStringLiteral("found") : QStringLiteral("found none"),
                             goal.budgetText())
                        .arg(found->profiled)
                        .arg((found->fits ? QString() : closest) + describe(found->mode, measured),
                             applied ? QStringLiteral(", applied and confirmed") : QString()));
    }
    return found->fits ? kExitOk : kExitFailed;
}

}  // namespace ptwb::cli
