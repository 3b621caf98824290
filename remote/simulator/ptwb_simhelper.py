#!/usr/bin/env python3
"""The simulated Jetson's privileged helper: the real ptwb_helper.py, run as a child process of the
simulated agent exactly as `sudo -n ptwb-helper` runs on a device, but against the fake kernel
and as the same user (nothing here is root; the label "simulated" says so in hello).

  ptwb_simhelper.py --device KIND --state DIR [--speed S] [--seed N] [--fault SPEC ...] VERB ARGS

The helper's state directory is DIR/helper (the device's /var/lib/powertrain-workbench). Its
watchdog is this program again with `watch TOKEN`, in a session of its own; after a simulated
reboot this program runs again with `boot`, as the device's boot unit would.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT_DIR = os.path.normpath(os.path.join(HERE, "..", "agent"))
sys.path.insert(0, HERE)
sys.path.insert(0, AGENT_DIR)

import perfmodel  # noqa: E402
import simkernel  # noqa: E402
import ptwb_helper  # noqa: E402


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="ptwb_simhelper.py")
    ap.add_argument("--device", required=True, choices=simkernel.DEVICES)
    ap.add_argument("--state", required=True)
    ap.add_argument("--speed", type=float, default=50.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fault", action="append", default=[])
    ap.add_argument("verb", nargs=argparse.REMAINDER)
    return ap.parse_args(argv)


def prefix_of(device, state, speed, seed, faults):
    """The argv prefix the simulated agent runs this helper with."""
    out = [sys.executable, "-B", os.path.join(HERE, "ptwb_simhelper.py"), "--device", device,
           "--state", state, "--speed", repr(speed), "--seed", str(seed)]
    for f in faults:
        out += ["--fault", f]
    return out


def spawn_boot(prefix):
    """What systemd does at a real boot: powertrain-workbench-boot.service runs `ptwb-helper
    boot`. Detached: the reboot may run under the helper's lock (a watchdog's reboot), which
    `boot` waits for; a helper call that comes first does the same work (see _drop_stale)."""
    subprocess.Popen(prefix + ["boot"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        faults = simkernel.Faults(args.fault, os.path.join(args.state, "faults.json"))
    except simkernel.FaultError as e:
        sys.stderr.write("ptwb_simhelper.py: %s\n" % e)
        return 2
    state = os.path.abspath(args.state)
    table = perfmodel.load_device_table(args.device)
    kernel = simkernel.SimKernel(state, args.device, table=table, speed=args.speed,
                                 seed=args.seed, faults=faults)
    files = simkernel.make_kernel_files(ptwb_helper.KernelFiles)(kernel.root, kernel)
    prefix = prefix_of(args.device, state, args.speed, args.seed, args.fault)

    def spawn_watch(token):
        subprocess.Popen(prefix + ["watch", token], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                         start_new_session=True)

    def reboot():
        kernel.reboot()
        simkernel.log("simulated reboot by the helper (new boot id)")
        spawn_boot(prefix)

    config = ptwb_helper.Config(files, os.path.join(state, "helper"), os.geteuid(),
                                time_scale=args.speed, spawn_watch=spawn_watch, reboot=reboot)
    return ptwb_helper.main(args.verb, config)


if __name__ == "__main__":
    sys.exit(main())
