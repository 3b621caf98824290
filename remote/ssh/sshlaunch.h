#pragma once

#include "devicetarget.h"
#include "simulatorlauncher.h"
#include "sshoptions.h"
#include "util/expected.h"

namespace ptwb {

// What to run over SSH, ready for SshOptions::launch.
namespace SshLaunches {

// The agent on a real device: remote/agent/ptwb_agent.py, its helper ptwb_helper.py and its
// launcher ptwb_launch.py (the launcher recogniser of command workloads) are
// uploaded to ~/.cache/powertrain-workbench/agent/<sha256>/ and the agent runs as the login user,
// `python3 <dir>/ptwb_agent.py`. It never runs through sudo: what needs root it asks of the
// installed helper (docs/ssh.md, "Least privilege").
Expected<SshLaunch> agent();

// The simulated Jetson on the SSH host itself, for tests and demos: nothing is uploaded; the
// simulator is run from this installation's absolute path (SimulatorLauncher::scriptDirectory),
// so the SSH host must be this machine (127.0.0.1) and the user one who can read it. The state
// directory is created here (empty options: the per-user default).
Expected<SshLaunch> simulator(const SimulatorOptions &options);

// Options for ssh://USER@HOST[:PORT]: port 22 is left to the ssh config (it may say otherwise).
SshOptions optionsFor(const DeviceTarget &target);

}  // namespace SshLaunches

}  // namespace ptwb
