#pragma once

#include "store/workloaddefinition.h"
#include "util/expected.h"

#include <QString>
#include <QVector>

#include <optional>

namespace ptwb {

class Store;

// The saved workload definitions (table workload_definitions, schema version 8), by name. A
// definition that cannot be run (WorkloadDefinition::problem), a built-in's name or a name
// already taken is bad input about the workload. A definition is how to run a workload, not its
// measurements: removing or renaming one never touches what was measured under its name, and a
// sweep keeps the run it was planned with.
class WorkloadLibrary
{
public:
    explicit WorkloadLibrary(Store &store)
        : m_store(store)
    {
    }

    // Every definition, by name.
    Expected<QVector<WorkloadDefinition>> all();
    Expected<std::optional<WorkloadDefinition>> find(const QString &name);
    Status add(const WorkloadDefinition &definition);
    // Replaces definition `oldName` (it may be renamed; its creation time is kept).
    Status update(const QString &oldName, const WorkloadDefinition &definition);
    Status remove(const QString &name);
    // Stores a copy named "NAME-copy" (then "NAME-copy-2", ...) and returns it.
    Expected<WorkloadDefinition> duplicate(const QString &name);

private:
    Status checkStorable(const WorkloadDefinition &definition);
    Expected<bool> exists(const QString &name);

    Store &m_store;
};

}  // namespace ptwb
