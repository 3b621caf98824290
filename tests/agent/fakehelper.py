#!/usr/bin/env python3
"""The fake device's root helper as a process of its own, for the agent-as-a-process tests: the
real ptwb_helper.py run against the fake tree, the way ptwb_simhelper.py runs it for the
simulated Jetson (nothing here is root or sudo).

  fakehelper.py ROOT TIME_SCALE VERB ARGS...

Its state directory is faketree.state_dir(ROOT); its watchdog is this program again with
`watch TOKEN`, in a session of its own, so that it outlives the agent that armed it. Every
argv it is run with is appended to calls_file(ROOT) (one JSON array a line)."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import faketree  # noqa: E402
import ptwb_helper  # noqa: E402


def calls_file(root):
    return os.path.join(root, ".helper-calls.jsonl")


def prefix(root, scale):
    """The agent's --helper-command for the fake tree in root."""
    return [sys.executable, "-B", os.path.abspath(__file__), root, repr(float(scale))]


def main(argv):
    root, scale, verb = argv[0], float(argv[1]), argv[2:]
    with open(calls_file(root), "a") as f:
        f.write(json.dumps(verb) + "\n")
    files = faketree.FakeKernel(root)

    def spawn_watch(token):
        subprocess.Popen(prefix(root, scale) + ["watch", token], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                         start_new_session=True)

    config = ptwb_helper.Config(files, faketree.make_state_dir(root), os.geteuid(), scale,
                                spawn_watch=spawn_watch, reboot=None)
    return ptwb_helper.main(verb, config)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
