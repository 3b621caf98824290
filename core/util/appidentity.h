#pragma once

namespace ptwb {

// Sets the application and organization names that QStandardPaths and QSettings derive paths
// from, so the window and the command line share one store and one settings file.
void setApplicationIdentity();

}  // namespace ptwb
