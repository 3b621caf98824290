#pragma once

#include "store/sqlite.h"
#include "util/expected.h"

namespace ptwb {

// The store's schema history. Each version is one migration step that runs in its own
// transaction together with the version bump, so a crash leaves the previous version intact.
class Schema
{
public:
    static constexpr int kCurrentVersion = 9;
    // PRAGMA application_id of our files: "PTWB".
    static constexpr qint64 kApplicationId = 0x50545742;

    // Refuses files that are not ours or are from a newer schema, before anything is written.
    static Status checkCompatible(SqliteConnection &db);
    // Brings the schema up to `targetVersion` (tests build old versions with it).
    static Status migrate(SqliteConnection &db, int targetVersion = kCurrentVersion);
    static Expected<int> version(SqliteConnection &db);
};

}  // namespace ptwb
