#!/usr/bin/env python3
"""A simulated training or inference workload: prints one `PTWB_MINIBATCH <ms>` line per minibatch.

  sim_workload.py --state DIR [--speed 50] [--seed N] [--inference] --name NAME --batch-size B
                  --minibatches N

With --inference it serves inference minibatches of B requests back to back (each line is the
time of one inference minibatch, in ms) from the workload's inference profile; a workload without
one is refused like an unknown workload (exit 2).

  sim_workload.py --state DIR [--speed 50] [--seed N] --name TRAIN --batch-size B
                  --infer-name INFER --infer-batch-size BI --serve

With --serve it takes orders on stdin, one a line, for the agent's run_concurrent: `train` runs
one training minibatch of TRAIN, `infer` one inference minibatch of BI requests of INFER (each
answered with its PTWB_MINIBATCH line once done), `idle` announces that nothing runs; it exits
when stdin closes. DIR/load.json follows what runs, so the simulated power follows the time
slicing. The first minibatch of each kind is the slow warm-up.

The agent of the simulated Jetson runs it for built-in workloads (--workload-runner). It reads the
clocks and online cores from the fake tree in DIR/root before every minibatch, takes the minibatch
time from the performance model (perfmodel.py, profiles.json), adds noise (a per-run factor and
per-minibatch jitter; the first minibatch is a slower warm-up) and sleeps time/speed. While it
runs, DIR/load.json announces the load so the simulated kernel reports training power.
Unknown workload: a message on stderr and exit status 2. A training batch that does not fit the
device's (simulated) memory prints "CUDA out of memory: training batch B of NAME needs about X
GiB, the device has Y GiB" on stderr and exits 1 before any minibatch.
"""

import argparse
import json
import os
import random
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perfmodel  # noqa: E402
import simkernel  # noqa: E402

RUN_NOISE = 0.015        # relative sd of a run's factor (run-to-run)
MINIBATCH_NOISE = 0.025  # relative sd of one minibatch
WARMUP = (1.6, 2.2)      # the first minibatch is this many times slower


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="sim_workload.py")
    ap.add_argument("--state", required=True)
    ap.add_argument("--speed", type=float, default=50.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default=None, help="default: the device of DIR/sim.json")
    ap.add_argument("--name", required=True)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--minibatches", type=int, default=40)
    ap.add_argument("--inference", action="store_true",
                    help="inference minibatches of --batch-size requests (the inference profile)")
    ap.add_argument("--serve", action="store_true",
                    help="one minibatch per order on stdin (train, infer, idle)")
    ap.add_argument("--infer-name", default=None, help="with --serve: the inference workload")
    ap.add_argument("--infer-batch-size", type=int, default=16,
                    help="with --serve: requests per inference minibatch")
    return ap.parse_args(argv)


def next_run_number(state):
    """A counter in DIR/runs so repeated runs of one mode differ but stay reproducible."""
    path = os.path.join(state, "runs")
    try:
        with open(path, "r") as f:
            n = int(f.read().strip() or 0) + 1
    except (OSError, ValueError):
        n = 1
    try:
        simkernel.atomic_write(path, "%d\n" % n)
    except OSError:
        pass
    return n


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    state = os.path.abspath(args.state)
    device = args.device
    if device is None:
        try:
            with open(os.path.join(state, "sim.json"), "r", encoding="utf-8") as f:
                device = json.load(f)["device"]
        except (OSError, ValueError, KeyError) as e:
            sys.stderr.write("sim_workload: no simulated device in %s: %s\n" % (state, e))
            return 2
    model = perfmodel.PerfModel(device)
    if not model.has_workload(args.name):
        sys.stderr.write("sim_workload: unknown workload %r; known: %s\n"
                         % (args.name, ", ".join(model.workloads())))
        return 2
    if args.inference and not model.has_inference(args.name):
        sys.stderr.write("sim_workload: workload %r has no inference profile; with one: %s\n"
                         % (args.name, ", ".join(model.inference_workloads())))
        return 2
    if args.serve and (args.infer_name is None or not model.has_inference(args.infer_name)):
        sys.stderr.write("sim_workload: --serve needs --infer-name with an inference profile "
                         "(%s)\n" % ", ".join(model.inference_workloads()))
        return 2
    if args.batch_size < 1 or args.minibatches < 1 or not args.speed > 0 \
            or args.infer_batch_size < 1:
        sys.stderr.write("sim_workload: --batch-size, --minibatches and --speed must be positive\n")
        return 2
    if not args.inference:
        # a training batch that does not fit the device's memory fails at once, as PyTorch
        # does on a device, before any minibatch (the agent reports workload_failed)
        oom = model.out_of_memory(args.name, args.batch_size)
        if oom is not None:
            sys.stderr.write(oom + "\n")
            return 1
    if args.serve:
        return serve(args, state, device, model)
    root = os.path.join(state, "root")
    mode = simkernel.read_mode(root, device)
    run = next_run_number(state)
    key = "%d/%s/%d/%s/%d" % (args.seed, args.name, args.batch_size, mode, run)
    rng = random.Random(key + "/inference" if args.inference else key)
    run_factor = 1.0 + rng.gauss(0.0, RUN_NOISE)

    load_path = os.path.join(state, "load.json")

    def cleanup(*_):
        try:
            with open(load_path, "r", encoding="utf-8") as f:
                if json.load(f).get("pid") == os.getpid():
                    os.remove(load_path)
        except (OSError, ValueError, AttributeError):
            pass

    def on_term(signum, frame):
        cleanup()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    load = {"pid": os.getpid(), "name": args.name, "batch_size": args.batch_size}
    if args.inference:
        load["kind"] = "inference"
    simkernel.atomic_write(load_path, json.dumps(load) + "\n")
    try:
        for i in range(args.minibatches):
            mode = simkernel.read_mode(root, device)
            if args.inference:
                ms = model.inference_time_ms(args.name, mode, args.batch_size) * run_factor
            else:
                ms = model.time_ms(args.name, mode, args.batch_size) * run_factor
            ms *= max(0.5, 1.0 + rng.gauss(0.0, MINIBATCH_NOISE))
            if i == 0:
                ms *= rng.uniform(*WARMUP)
            time.sleep(ms / 1000.0 / args.speed)
            sys.stdout.write("PTWB_MINIBATCH %.3f\n" % ms)
            sys.stdout.flush()
    except BrokenPipeError:
        cleanup()
        return 1
    finally:
        cleanup()
    return 0


def serve(args, state, device, model):
    """--serve: a training and an inference workload in one process, one minibatch per order."""
    root = os.path.join(state, "root")
    mode = simkernel.read_mode(root, device)
    run = next_run_number(state)
    key = "%d/%s/%d/%s/%d/serve/%s/%d" % (args.seed, args.name, args.batch_size, mode, run,
                                          args.infer_name, args.infer_batch_size)
    rng = random.Random(key)
    kinds = {
        "train": {"factor": 1.0 + rng.gauss(0.0, RUN_NOISE), "first": True,
                  "load": {"pid": os.getpid(), "name": args.name,
                           "batch_size": args.batch_size},
                  "ms": lambda m: model.time_ms(args.name, m, args.batch_size)},
        "infer": {"factor": 1.0 + rng.gauss(0.0, RUN_NOISE), "first": True,
                  "load": {"pid": os.getpid(), "name": args.infer_name,
                           "batch_size": args.infer_batch_size, "kind": "inference"},
                  "ms": lambda m: model.inference_time_ms(args.infer_name, m,
                                                          args.infer_batch_size)},
    }
    load_path = os.path.join(state, "load.json")
    announced = [None]

    def announce(what):
        if announced[0] == what:
            return
        announced[0] = what
        if what == "idle":
            cleanup_load(load_path)
        else:
            simkernel.atomic_write(load_path, json.dumps(kinds[what]["load"]) + "\n")

    def on_term(signum, frame):
        cleanup_load(load_path)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    try:
        for line in sys.stdin:
            what = line.strip()
            if what == "idle":
                announce("idle")
                continue
            k = kinds.get(what)
            if k is None:
                continue
            announce(what)
            ms = k["ms"](simkernel.read_mode(root, device)) * k["factor"]
            ms *= max(0.5, 1.0 + rng.gauss(0.0, MINIBATCH_NOISE))
            if k["first"]:
                k["first"] = False
                ms *= rng.uniform(*WARMUP)
            time.sleep(ms / 1000.0 / args.speed)
            sys.stdout.write("PTWB_MINIBATCH %.3f\n" % ms)
            sys.stdout.flush()
    except BrokenPipeError:
        return 1
    finally:
        cleanup_load(load_path)
    return 0


def cleanup_load(load_path):
    """Removes DIR/load.json when this process wrote it."""
    try:
        with open(load_path, "r", encoding="utf-8") as f:
            if json.load(f).get("pid") == os.getpid():
                os.remove(load_path)
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main())
