#pragma once

#include "store/convergence.h"
#include "util/expected.h"

#include <QString>
#include <QVector>

#include <optional>

namespace ptwb {

class Store;

// The samples-to-accuracy relations in the store (table convergence, schema version 7): at most
// one per workload, whatever device measured it, all of its rows of one provenance.
class ConvergenceStore
{
public:
    explicit ConvergenceStore(Store &store)
        : m_store(store)
    {
    }

    // Stores `relation` as its workload's relation, replacing every row of the one before in one
    // transaction: a failure leaves the old relation as it was, never a mix of the two. A
    // relation that cannot be stored (ConvergenceRelation::problem) is bad input about the
    // workload. An empty recordedAt is now.
    Status replace(const ConvergenceRelation &relation);
    // The workload's relation, or nothing when it has none.
    Expected<std::optional<ConvergenceRelation>> load(const QString &workload);
    // Every stored relation, by workload name.
    Expected<QVector<ConvergenceRelation>> all();

private:
    Store &m_store;
};

}  // namespace ptwb
