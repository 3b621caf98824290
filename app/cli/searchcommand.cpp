#include "searchcommand.h"

#include "devicetargets.h"
#include "devicework.h"
#include "simulatorlauncher.h"
#include "store/store.h"
#include "store/sweepstore.h"
#include "sweepsetup.h"

namespace ptwb::cli {

namespace {

// The stored measurement of `mode` in a search sweep, if it was measured.
std::optional<Measurement> measurementOf(Store &store, const SweepRecord &record,
                                         const PowerMode &mode)
{
    Expected<QVector<Measurement>> rows =
        store.measurements(record.plan.device, record.plan.workload);
    if (!rows)
        return std::nullopt;
    for (const SweepItem &item : record.items) {
        if (item.mode != mode || item.state != SweepItem::State::Done)
            continue;
        for (const Measurement &row : *rows)
            if (row.id == item.measurementId)
                return row;
    }
    return std::nullopt;
}

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
                                     "modes) or bs (its binary search, about 11)."),
                      QStringLiteral("NAME"), QStringLiteral("gmd")});
    parser.addOption({QStringLiteral("power-budget"),
                      QStringLiteral("Watts the chosen mode may draw."), QStringLiteral("W")});
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
    if (!resume && !parser.isSet(QStringLiteral("power-budget")))
        return output.badUsage(QStringLiteral("search: --power-budget is required (or --resume)"));
    bool ok = false;
    const int confirmSeconds = parser.value(QStringLiteral("confirm-within")).toInt(&ok);
    if (!ok || confirmSeconds < 5 || confirmSeconds > 3600)
        return output.badUsage(QStringLiteral("--confirm-within: expected 5..3600 seconds"));
    const Expected<QVector<workflows::DeviceEndpoint>> devices =
        targetDevices(parser, SimulatorOptions().speed);
    if (!devices)
        return output.fail(devices);
    if (parser.isSet(QStringLiteral("apply")) && devices->size() != 1)
        return output.badUsage(QStringLiteral("--apply: a search that applies takes one device"));
    Expected<workflows::SweepRequest> request = sweepRunRequest(parser);
    if (!request)
        return output.fail(request);
    if (!resume) {
        SearchGoal goal;
        goal.strategy = parser.value(QStringLiteral("strategy"));
        goal.powerBudgetW = parser.value(QStringLiteral("power-budget")).toDouble(&ok);
        if (!ok || goal.powerBudgetW <= 0)
            return output.badUsage(QStringLiteral("--power-budget: expected watts above 0"));
        if (!BudgetSearch::strategies().contains(goal.strategy))
            return output.badUsage(QStringLiteral("--strategy: expected one of %1")
                                       .arg(BudgetSearch::strategies().join(QStringLiteral(", "))));
        request->modeSet = goal.modeSet();
    }

    Expected<std::unique_ptr<Store>> store = Store::open(dbPath(parser));
    if (!store)
        return output.fail(store);
    int step = 0;
    const auto recorded = [&output, &step](const SweepItem &item, const Measurement &measured) {
        ++step;
        output.err() << QStringLiteral("step %1: %2")
                            .arg(step)
                            .arg(item.state == SweepItem::State::Done
                                     ? describe(item.mode, measured)
                                     : QStringLiteral("%1 failed: %2")
                                           .arg(item.mode.toCanonical(), item.reason))
                     << Qt::endl;
    };
    const Expected<SweepOutcome> outcome =
        runSweep(parser, *request, *devices, **store, output, recorded);
    if (!outcome)
        return output.fail(outcome);
    Expected<SweepRecord> record = SweepStore(**store).load(outcome->sweepId);
    if (!record)
        return output.fail(record);
    const Expected<SearchStep> found = SweepSetup::searchStep(**store, *record);
    if (!found)
        return output.fail(found);
    if (found->next)
        return output.fail(QStringLiteral("search %1 stopped before it found a mode: %2 (run "
                                          "again with --resume)")
                               .arg(outcome->sweepId)
                               .arg(outcome->summary),
                           ErrorKind::Failed);
    const std::optional<SearchGoal> goal = *SearchGoal::of(record->plan.modeSet);
    const std::optional<Measurement> measured = measurementOf(**store, *record, found->answer);

    bool applied = false;
    if (parser.isSet(QStringLiteral("apply"))) {
        if (!found->fits)
            return output.fail(QStringLiteral("no mode profiled fits %1 W (the lowest drew %2); "
                                              "nothing applied")
                                   .arg(goal->powerBudgetW)
                                   .arg(describe(found->answer, measured)),
                               ErrorKind::Failed);
        const double speed = parser.isSet(QStringLiteral("sim-speed"))
            ? parser.value(QStringLiteral("sim-speed")).toDouble()
            : 1.0;
        const Expected<PowerMode> previous =
            applyWithRevert(devices->first(), found->answer, confirmSeconds, speed, output);
        if (!previous)
            return output.fail(previous);
        applied = true;
    }
    if (output.json()) {
        output.object({{QStringLiteral("sweep"), double(outcome->sweepId)},
                       {QStringLiteral("strategy"), goal->strategy},
                       {QStringLiteral("power_budget_w"), goal->powerBudgetW},
                       {QStringLiteral("mode"), found->answer.toCanonical()},
                       {QStringLiteral("fits"), found->fits},
                       {QStringLiteral("power_w"), measured ? measured->powerW : 0.0},
                       {QStringLiteral("time_ms"), measured ? measured->timeMs : 0.0},
                       {QStringLiteral("profiled"), found->profiled},
                       {QStringLiteral("applied"), applied},
                       {QStringLiteral("seconds"), outcome->seconds}});
    } else {
        output.line(QStringLiteral("%1 %2 within %3 W after %4 profiled modes: %5%6")
                        .arg(goal->strategy,
                             found->fits ? QStringLiteral("found") : QStringLiteral("found none"))
                        .arg(goal->powerBudgetW)
                        .arg(found->profiled)
                        .arg(found->fits ? describe(found->answer, measured)
                                         : QStringLiteral("the lowest-power mode seen is ") +
                                     describe(found->answer, measured))
                        .arg(applied ? QStringLiteral(", applied and confirmed") : QString()));
    }
    return found->fits ? kExitOk : kExitFailed;
}

}  // namespace ptwb::cli
