#!/usr/bin/env python3
"""The simulated Jetson: the real device agent served against a fake kernel.

  ptwb_simjetson.py --device KIND --state DIR [--speed 50] [--seed N]
                    [--fault SPEC ...] [--hostile CASE[@N]]

Speaks the agent's JSON-lines protocol on stdin/stdout (docs/device-protocol.md); logs go to
stderr. Everything it reports is labeled simulated: the device-tree model ends in "(simulated)"
and hello says "simulated": true. See docs/simulator.md. Standard library only, Python 3.8+.

Exit status: the agent's (0 after stdin closes); 2 for bad arguments; 75 when a drop-after fault
drops the connection; 76 when the device reboots (a reboot-after fault or the agent's `reboot`).
"""

import argparse
import json
import os
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT_DIR = os.path.normpath(os.path.join(HERE, "..", "agent"))
STANDIN = os.path.join(HERE, "standin")  # the stand-in torch package (simulated)
sys.path.insert(0, HERE)
sys.path.insert(0, AGENT_DIR)

import hostile  # noqa: E402
import perfmodel  # noqa: E402
import ptwb_simhelper  # noqa: E402
import simkernel  # noqa: E402

EXIT_DROPPED = 75
EXIT_REBOOTED = 76


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="ptwb_simjetson.py", description="The simulated Jetson.")
    ap.add_argument("--device", required=True, choices=simkernel.DEVICES)
    ap.add_argument("--state", required=True, metavar="DIR",
                    help="state directory (the fake tree is DIR/root; reused across runs)")
    ap.add_argument("--speed", type=float, default=50.0,
                    help="time compression: device seconds per wall second (default 50)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the simulated noise")
    ap.add_argument("--fault", action="append", default=[], metavar="SPEC",
                    help="reject:FIELD=VALUE, drop-after:N, reboot-after:N, throttle:F, "
                         "decreasing-only, emc-locked, hostile:CASE[@N] (repeatable)")
    ap.add_argument("--hostile", metavar="CASE[@N]", default=os.environ.get(hostile.ENV_CASE),
                    help="for tests only: a hostile device, perturbing the agent's output in "
                         "one way (default $%s; cases: %s)"
                         % (hostile.ENV_CASE, ", ".join(hostile.CASES)))
    args = ap.parse_args(argv)
    if not (args.speed > 0 and args.speed < 1e6):
        ap.error("--speed must be a positive number")
    # `--fault hostile:CASE` is the same as --hostile CASE, so that whatever passes faults to
    # the simulator (ptwb --sim-fault) can select a case
    for spec in [f for f in args.fault if f.startswith("hostile:")]:
        args.fault.remove(spec)
        args.hostile = spec[len("hostile:"):]
    if args.hostile:
        try:
            hostile.parse_case(args.hostile)
        except hostile.CaseError as e:
            ap.error(str(e))
    return args


def forward_stdin(src, dst_fd, kernel, faults, helper_prefix, hostile_out=None):
    """Copy request lines from the real stdin to the agent, counting them for connection faults
    (and showing them to a hostile case first)."""
    count = 0
    dst = os.fdopen(dst_fd, "wb", buffering=0)
    try:
        while True:
            line = src.readline()
            if not line:
                break
            if line.strip():
                count += 1
                faults.reload()
                hit = faults.connection_fault(count)
                if hit is not None:
                    fault, from_file = hit
                    if from_file:
                        faults.consume_file_fault(fault)
                    if fault[0] == "reboot-after":
                        kernel.reboot()
                        ptwb_simhelper.spawn_boot(helper_prefix)
                        simkernel.log("simulated reboot at request %d (new boot id); "
                                      "connection dropped" % count)
                        sys.stderr.flush()
                        os._exit(EXIT_REBOOTED)
                    simkernel.log("simulated connection drop at request %d" % count)
                    sys.stderr.flush()
                    os._exit(EXIT_DROPPED)
                if hostile_out is not None:
                    hostile_out.on_request(line)
            dst.write(line)
    except (OSError, ValueError) as e:
        simkernel.log("stdin: %s" % e)
    finally:
        try:
            dst.close()
        except OSError:
            pass


def prepare_home(state, speed, seed):
    """The login user's side of the simulated Jetson: the agent runs (and `command` workloads
    start) in STATE/home, which is also $HOME, holding train.py (a copy of sim_train.py, so
    that `python3 train.py --log ...` is a real script for every recogniser) and proxy_train.py
    (sim_proxy_train.py, for proxy_convergence), with the
    stand-in torch first on PYTHONPATH (for the launcher; docs/simulator.md) and the simulator
    named in PTWB_SIM_* for train.py to find its state and speed. The agent runs in this
    process, so these are this process's own cwd and environment."""
    home = os.path.join(state, "home")
    os.makedirs(home, exist_ok=True)
    for source, name in (("sim_train.py", "train.py"), ("sim_proxy_train.py", "proxy_train.py")):
        with open(os.path.join(HERE, source), "rb") as f:
            simkernel.atomic_write(os.path.join(home, name), f.read().decode("utf-8"))
    os.environ["HOME"] = home
    path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = STANDIN + (os.pathsep + path if path else "")
    os.environ["PTWB_SIM_STATE"] = state
    os.environ["PTWB_SIM_SPEED"] = repr(speed)
    os.environ["PTWB_SIM_SEED"] = str(seed)
    os.environ["PTWB_SIM_DIR"] = HERE
    # as the runner's -B: an installed simulator's directory gets no byte-code caches
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    os.chdir(home)
    return home


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        faults = simkernel.Faults(args.fault, os.path.abspath(os.path.join(args.state,
                                                                           "faults.json")))
    except simkernel.FaultError as e:
        sys.stderr.write("ptwb_simjetson.py: %s\n" % e)
        return 2
    try:
        import ptwb_agent
    except ImportError as e:
        sys.stderr.write("ptwb_simjetson.py: cannot import the agent from %s: %s\n" % (AGENT_DIR, e))
        return 2
    state = os.path.abspath(args.state)
    table = perfmodel.load_device_table(args.device)
    kernel = simkernel.SimKernel(state, args.device, table=table, speed=args.speed,
                                 seed=args.seed, faults=faults)
    simkernel.log("%s %s in %s (speed %g)" % ("created" if kernel.created else "reusing",
                                               args.device, kernel.root, args.speed))
    kernel.start()
    def rebooted():
        # The reply to `reboot` is written: drop the connection, as a real reboot would.
        simkernel.log("connection dropped by the reboot")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_REBOOTED)

    files = simkernel.make_kernel_files(ptwb_agent.KernelFiles)(kernel.root, kernel)
    # The agent runs unprivileged and asks the helper (a child process running the real
    # ptwb_helper.py against this fake kernel) for every mode change, as on a device.
    helper_prefix = ptwb_simhelper.prefix_of(args.device, state, args.speed, args.seed,
                                             args.fault)
    helper = ptwb_agent.HelperProcess(helper_prefix, simulated=True)
    # -B: an installed simulator lives in /usr/share; it must not write byte-code caches there.
    runner = [sys.executable, "-B", os.path.join(HERE, "sim_workload.py"), "--state", state,
              "--speed", repr(args.speed), "--seed", str(args.seed)]
    prepare_home(state, args.speed, args.seed)
    out = sys.stdout
    hostile_out = None
    if args.hostile:
        simkernel.log("HOSTILE device (tests only): case %s" % args.hostile)
        hostile_out = hostile.HostileOutput(args.hostile, getattr(sys.stdout, "buffer",
                                                                  sys.stdout))
        out = hostile_out
    rfd, wfd = os.pipe()
    src = getattr(sys.stdin, "buffer", sys.stdin)
    fwd = threading.Thread(target=forward_stdin,
                           args=(src, wfd, kernel, faults, helper_prefix, hostile_out),
                           name="sim-stdin", daemon=True)
    fwd.start()
    agent_stdin = os.fdopen(rfd, "rb")
    try:
        rc = ptwb_agent.main(argv=["--root", kernel.root, "--time-scale", repr(args.speed),
                                   "--workload-runner", json.dumps(runner)],
                             stdin=agent_stdin, stdout=out, files=files, helper=helper,
                             on_reboot=rebooted)
    finally:
        kernel.stop()
        if hostile_out is not None:
            hostile_out.log_hostile("the agent ends")
    return rc if isinstance(rc, int) else 0


if __name__ == "__main__":
    sys.exit(main())
