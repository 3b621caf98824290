#pragma once

#include "store/measurement.h"
#include "store/workloadoutput.h"
#include "sweep/sweepplan.h"
#include "util/expected.h"

#include <QMetaType>
#include <QString>
#include <QVector>

namespace ptwb {

class Store;

// What became of a sweep. The store keeps it as text (sweepStateText); Failed is only reported
// (a sweep that could not start), never stored.
enum class SweepState { Planned, Running, Paused, Cancelled, Interrupted, Done, Failed };
QString sweepStateText(SweepState state);
// Unknown text (a newer program's state) reads as Interrupted: resumable, never lost.
SweepState sweepStateFromText(const QString &text);

// One planned (mode, batch size, repeat) of a sweep and what became of it.
struct SweepItem
{
    enum class State { Pending, Done, Failed };
    static QString stateText(State state);  // the store's text: pending, done, failed
    static State stateFromText(const QString &text);
    int position = 0;
    PowerMode mode;
    int batchSize = 0;  // the minibatch size it profiles; 0: the sweep's run's own
    int repeat = 0;
    State state = State::Pending;
    QString reason;  // why it failed
    // The last lines the workload printed before it failed (empty when it printed none, or the
    // failure was not the workload's), sanitised when stored.
    QVector<WorkloadOutputLine> output;
    int attempts = 0;
    QString target;  // which device of a fleet measured it
    qint64 measurementId = 0;  // the stored measurement of a done item
};

// One (mode, batch size) to add to a plan; batch 0: the run's own.
struct PlannedItem
{
    PowerMode mode;
    int batchSize = 0;
};

struct SweepRecord
{
    qint64 id = 0;
    SweepPlan plan;  // modes filled from the items
    SweepState state = SweepState::Planned;
    QString createdAt;
    QVector<SweepItem> items;

    int count(SweepItem::State state) const;
};

// Sweeps in the store: the plan is written before the first mode is profiled, and each profiled
// mode is one transaction that writes its measurement and marks its plan row done, so a crash
// leaves every mode either wholly recorded or still pending (no duplicate, no gap).
class SweepStore
{
public:
    explicit SweepStore(Store &store)
        : m_store(store)
    {
    }

    // Stores the plan with its items: plan.modes at every plan.batchSizes, or, when given,
    // exactly `explicitItems` (a plan that chooses batch sizes as it goes).
    Expected<qint64> create(const SweepPlan &plan, const QVector<PlannedItem> &explicitItems = {});
    Expected<SweepRecord> load(qint64 id);
    // Adds modes to a stored plan (an adaptive sweep grows as it learns), after the last
    // position, in one transaction, each at every batch size of `batchSizes` (empty: the run's
    // own). Returns the new items.
    Expected<QVector<SweepItem>> append(qint64 sweepId, const QVector<PowerMode> &modes,
                                        int repeats, const QVector<int> &batchSizes = {});
    // The same with each item's own batch size (a plan that chooses batch sizes as it goes).
    Expected<QVector<SweepItem>> appendItems(qint64 sweepId, const QVector<PlannedItem> &items,
                                             int repeats);
    // The newest sweep of a workload on a device, for --resume without an id.
    Expected<qint64> latest(const QString &device, const QString &workload);
    Status setState(qint64 id, SweepState state);

    // Records the measurement of a pending item. Fails (and stores nothing) when the item is no
    // longer pending: a second device of a fleet, or a resumed run, measured it first (that
    // refusal is ErrorKind::BadInput; a store that cannot be written is ErrorKind::Failed).
    // Returns the stored measurement's id.
    Expected<qint64> recordDone(qint64 sweepId, int position, const Measurement &measurement,
                                const QString &target);
    // Marks a pending item failed with a reason a person can act on, and the workload's last
    // output lines (at most kStoredOutputLines are kept, each sanitised again).
    static constexpr int kStoredOutputLines = 20;
    Status recordFailed(qint64 sweepId, int position, const QString &reason, const QString &target,
                        const QVector<WorkloadOutputLine> &output = {});

private:
    Store &m_store;
};

}  // namespace ptwb

Q_DECLARE_METATYPE(ptwb::SweepState)
