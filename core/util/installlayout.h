#pragma once

#include <string>

// Where an installed program finds its parts. The same binary runs from the build tree (tests,
// scripts/run) and from an installation (the .deb, `cmake --install`); only in the build tree may
// it fall back to files in the build and source trees, so an installed copy never depends on a
// checkout that happens to still be on the machine.
namespace ptwb::install {

// The running executable's directory (from /proc/self/exe), without a trailing slash.
std::string executableDirectory();

// True when the executable lives inside the build tree it was built in.
bool runningFromBuildTree();

// The installation's private library directory (the prediction engine's module), derived from
// the executable's directory and the layout CMake installed with.
std::string privateLibraryDirectory();

// The installation's data directory: share/powertrain-workbench (agent, simulator, device tables).
std::string dataDirectory();

}  // namespace ptwb::install
