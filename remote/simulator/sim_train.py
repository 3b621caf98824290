#!/usr/bin/env python3
"""A researcher's training script on the simulated Jetson (simulated: no model is trained).

  python3 train.py --log marker|tqdm|steps|none [--model resnet18] [--batch-size 16]
                   [--minibatches 200] [--fail-after N] [--exit-status S]

The simulated Jetson copies this file to STATE/home/train.py (its agent's working directory and
$HOME) so that `command` workloads run a real script for every recogniser
(docs/simulator.md). How it reports each minibatch:
  marker  `PTWB_MINIBATCH <ms>` on stdout (the marker recogniser);
  tqdm    a progress bar on stderr, redrawn with \\r, ending in `12.34it/s` (a regex, per_s);
  steps   `step 40/200 loss 1.234 95.1 ms` on stdout (a regex, ms);
  none    only an `epoch` line now and then; it calls torch.optim.SGD(...).step() once per
          minibatch (the stand-in torch in standin/, or a real one): the launcher recogniser.
--fail-after N: after N minibatches it writes a traceback-like error on stderr and exits with
--exit-status (default 1); --exit-status alone is the status at the end.

Minibatch times come from the performance model of the mode the simulated device runs
(perfmodel.py, clocks read from the fake tree before each minibatch, as sim_workload.py does),
with the same noise, and the script sleeps time/speed. While it runs, STATE/load.json announces
the load so the simulated power follows. It finds the simulator through its environment:
PTWB_SIM_STATE, PTWB_SIM_SPEED, PTWB_SIM_SEED and PTWB_SIM_DIR (the simulator's directory).
"""

import argparse
import json
import os
import random
import signal
import sys
import time

LOGS = ("marker", "tqdm", "steps", "none")


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="train.py", description="A simulated training script.")
    ap.add_argument("--log", choices=LOGS, default="marker")
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--minibatches", type=int, default=200)
    ap.add_argument("--fail-after", type=int, default=None, metavar="N")
    ap.add_argument("--exit-status", type=int, default=None, metavar="S")
    args = ap.parse_args(argv)
    if args.batch_size < 1 or args.minibatches < 1 or (args.fail_after is not None
                                                      and args.fail_after < 0):
        ap.error("--batch-size and --minibatches must be positive, --fail-after not negative")
    return args


def simulator():
    """(sim_workload module, state dir, speed, seed) from the environment, or exit 2."""
    where = os.environ.get("PTWB_SIM_DIR")
    state = os.environ.get("PTWB_SIM_STATE")
    if not where or not state:
        sys.stderr.write("train.py: not on a simulated Jetson (PTWB_SIM_DIR and PTWB_SIM_STATE "
                         "are not set)\n")
        sys.exit(2)
    sys.path.insert(0, where)
    import sim_workload
    try:
        speed = float(os.environ.get("PTWB_SIM_SPEED", "50"))
        seed = int(os.environ.get("PTWB_SIM_SEED", "0"))
    except ValueError:
        speed, seed = 50.0, 0
    return sim_workload, os.path.abspath(state), speed, seed


class Reporter(object):
    """Writes one minibatch the way --log says."""

    def __init__(self, log, total):
        self.log = log
        self.total = total
        self.optimizer = None
        if log == "none":
            import torch
            self.torch = torch
            weights = torch.nn.Parameter(torch.zeros(4))
            self.optimizer = torch.optim.SGD([weights], lr=0.01)

    def start(self):
        if self.log == "tqdm":
            sys.stderr.write("\r  0%%|          | 0/%d [00:00<?, ?it/s]" % self.total)
            sys.stderr.flush()
        elif self.log == "none":
            print("epoch 1: training %d minibatches" % self.total, flush=True)

    def minibatch(self, i, ms, loss):
        n = i + 1
        if self.log == "marker":
            print("PTWB_MINIBATCH %.3f" % ms, flush=True)
        elif self.log == "steps":
            print("step %d/%d loss %.3f %.1f ms" % (n, self.total, loss, ms), flush=True)
        elif self.log == "tqdm":
            done = int(10 * n / self.total)
            bar = "\u2588" * done + " " * (10 - done)
            sys.stderr.write("\r%3d%%|%s| %d/%d [00:%02d<00:00, %.2fit/s]"
                             % (100 * n // self.total, bar, n, self.total, n % 60, 1000.0 / ms))
            sys.stderr.flush()
        else:
            self.optimizer.zero_grad()
            self.optimizer.step()
            if n % 50 == 0:
                print("epoch %d: loss %.3f" % (n // 50 + 1, loss), flush=True)

    def end(self):
        if self.log == "tqdm":
            sys.stderr.write("\n")
            sys.stderr.flush()


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    sim, state, speed, seed = simulator()
    try:
        with open(os.path.join(state, "sim.json"), "r", encoding="utf-8") as f:
            device = json.load(f)["device"]
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write("train.py: no simulated device in %s: %s\n" % (state, e))
        return 2
    model = sim.perfmodel.PerfModel(device)
    if not model.has_workload(args.model):
        sys.stderr.write("train.py: unknown model %r; known: %s\n"
                         % (args.model, ", ".join(model.workloads())))
        return 2
    root = os.path.join(state, "root")
    mode = sim.simkernel.read_mode(root, device)
    key = "%d/train.py/%s/%d/%s/%d" % (seed, args.model, args.batch_size, mode,
                                       sim.next_run_number(state))
    rng = random.Random(key)
    run_factor = 1.0 + rng.gauss(0.0, sim.RUN_NOISE)
    reporter = Reporter(args.log, args.minibatches)
    load_path = os.path.join(state, "load.json")

    def on_term(signum, frame):
        sim.cleanup_load(load_path)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    sim.simkernel.atomic_write(load_path, json.dumps(
        {"pid": os.getpid(), "name": args.model, "batch_size": args.batch_size}) + "\n")
    reporter.start()
    # Each minibatch ends its time (over speed) after the previous one ended, whatever this
    # script did in between: at simulator speeds that work is a good part of a minibatch, and
    # the launcher times the wall time between steps. (Not a schedule from the start: after a
    # late wake-up on a busy host, that would bunch the next steps and shorten them.)
    last = time.monotonic()
    try:
        for i in range(args.minibatches):
            if args.fail_after is not None and i >= args.fail_after:
                reporter.end()
                sys.stderr.write("Traceback (most recent call last):\n"
                                 "  File \"train.py\", line 1, in <module>\n"
                                 "RuntimeError: simulated failure after %d minibatches\n" % i)
                return 1 if args.exit_status is None else args.exit_status
            mode = sim.simkernel.read_mode(root, device)
            ms = model.time_ms(args.model, mode, args.batch_size) * run_factor
            ms *= max(0.5, 1.0 + rng.gauss(0.0, sim.MINIBATCH_NOISE))
            if i == 0:
                ms *= rng.uniform(*sim.WARMUP)
            time.sleep(max(0.0, last + ms / 1000.0 / speed - time.monotonic()))
            reporter.minibatch(i, ms, 2.5 * 0.99 ** i + rng.uniform(0.0, 0.05))
            last = time.monotonic()
        reporter.end()
    except BrokenPipeError:
        return 1
    finally:
        sim.cleanup_load(load_path)
    return 0 if args.exit_status is None else args.exit_status


if __name__ == "__main__":
    sys.exit(main())
