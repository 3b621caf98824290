#pragma once

#include "store/measurementcsv.h"
#include "store/store.h"
#include "util/expected.h"

namespace ptwb {

struct ImportRequest
{
    QString filePath;
    QString device;  // a device already in the store, or a built-in kind such as orin-agx
    QString deviceKind;  // optional: the kind of a new device with its own name
    QString workload;
};

struct ImportOutcome
{
    ImportRecord record;
    QString device;
    QString deviceKind;
    QString workload;
    bool alreadyImported = false;  // the same content was imported before: nothing changed
    qint64 rows = 0;
    qint64 distinctModes = 0;
    qint64 repeatedModes = 0;
    double seconds = 0;

    // One paragraph for a person.
    QString describe() const;
};

// Imports one CSV file in the public PowerTrain layout into a store: reads and validates the
// whole file first, then stores it in one transaction. A file with the same content (SHA-256)
// already imported for the same device and workload is not imported again.
class Importer
{
public:
    explicit Importer(Store &store)
        : m_store(store)
    {
    }

    Expected<ImportOutcome> run(const ImportRequest &request, const Store::Progress &progress = {});

    // Which kind a device name stands for: the store's record, `explicitKind`, or the name
    // itself when it is a built-in kind.
    static Expected<QString> resolveKind(Store &store, const QString &device,
                                         const QString &explicitKind);

private:
    Store &m_store;
};

}  // namespace ptwb
