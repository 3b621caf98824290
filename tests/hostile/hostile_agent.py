#!/usr/bin/env python3
"""The hostile stand-in device, for tests only (issue 21).

  hostile_agent.py --case CASE[@N] [--device orin-agx] [--state DIR] [--speed 50]

Speaks the device protocol (docs/device-protocol.md) honestly, being the simulated Jetson's real
agent, except in the one way CASE names (remote/simulator/hostile.py lists them; the environment
variable PTWB_HOSTILE_CASE works as --case). The first N requests are answered honestly. Without
--state, a fresh state directory is made and removed at the end. Runs as a local process or as
the command of an SSH exec (the loopback sshd fixture), from the source tree or with
PTWB_REMOTE_DIR naming a directory that holds simulator/.
"""

import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REMOTE = os.environ.get("PTWB_REMOTE_DIR") or os.path.normpath(
    os.path.join(HERE, "..", "..", "remote"))
sys.path.insert(0, os.path.join(REMOTE, "simulator"))

import hostile  # noqa: E402
import ptwb_simjetson  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(prog="hostile_agent.py", description=__doc__.split("\n")[1])
    ap.add_argument("--case", default=os.environ.get("PTWB_HOSTILE_CASE"),
                    help="one of: %s (default $PTWB_HOSTILE_CASE)" % ", ".join(hostile.CASES))
    ap.add_argument("--device", default="orin-agx")
    ap.add_argument("--state", metavar="DIR")
    ap.add_argument("--speed", default="50")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if not args.case:
        ap.error("--case is required (or PTWB_HOSTILE_CASE)")
    try:
        hostile.parse_case(args.case)
    except hostile.CaseError as e:
        ap.error(str(e))
    state = args.state or tempfile.mkdtemp(prefix="ptwb-hostile-")
    try:
        return ptwb_simjetson.main(["--device", args.device, "--state", state, "--speed",
                                    args.speed, "--hostile", args.case])
    finally:
        if not args.state:
            shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
