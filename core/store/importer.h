#pragma once

#include "store/measurementcsv.h"
#include "store/rawrunfolder.h"
#include "store/store.h"
#include "util/expected.h"

namespace ptwb {

struct ImportRequest
{
    QString filePath;  // a summary CSV, a raw run folder, or a folder of raw run folders
    QString device;  // a device already in the store, or a built-in kind such as orin-agx
    QString deviceKind;  // optional: the kind of a new device with its own name
    QString workload;
    bool dryRun = false;  // read and check everything, store nothing
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
    qint64 repeatedModes = 0;  // (mode, inference batch size) pairs on more than one line
    QVector<int> inferenceBatches;  // an inference file's batch sizes, ascending; else empty
    double seconds = 0;
    bool dryRun = false;
    // Raw run folders: one entry per folder found, imported or not.
    bool rawRuns = false;
    QVector<RunFolderResult> folders;

    qint64 rejectedFolders() const;
    qint64 alreadyImportedFolders() const;

    // One paragraph for a person.
    QString describe() const;
};

// Imports measurements into a store: one CSV file in the public PowerTrain layout, or raw run
// folders as the study's scripts write them (RawRunFolder). Reads and validates everything
// first, then stores it in one transaction. Content (SHA-256 of a file, or of a run folder's
// logs) already imported for the same device and workload is not imported again. Of raw run
// folders, the good ones are imported and the others reported in the outcome, each with its
// reason; the import fails only when no folder is good.
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
    Expected<ImportOutcome> runCsv(const ImportRequest &request, const DeviceSpec &spec,
                                   const Store::Progress &progress);
    Expected<ImportOutcome> runFolders(const ImportRequest &request, const DeviceSpec &spec,
                                       const Store::Progress &progress);

    Store &m_store;
};

}  // namespace ptwb
