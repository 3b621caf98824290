#!/usr/bin/env python3
"""A proxy training run on the simulated Jetson (SIMULATED: no model is trained, no accuracy is
measured).

  python3 proxy_train.py [--model resnet18] [--proxy-fraction 0.05] [--evals-per-epoch 4]
                         [--max-epochs E] [--fail-after-evals N] [--percent]

The simulated Jetson copies this file to STATE/home/proxy_train.py beside train.py, for the
agent's proxy_convergence op (docs/device-protocol.md, "Samples to accuracy by a proxy run").
It reads its batch size and learning rate from PTWB_BATCH_SIZE and PTWB_LEARNING_RATE (as the
agent sets them) and prints, after each evaluation, a progress line on stdout:

  {"samples": 12500, "accuracy": 0.4213, "epoch": 5.0, "simulated": true}

How many samples reach the target follows the simulator's convergence model
(convergence.py: McCandlish et al.'s samples(b) = samples_min (1 + b / B_crit)) on a proxy
dataset of --proxy-fraction of the workload's (so samples are that fraction of the model's),
times seeded run-to-run noise (+-3 %), times a penalty when the learning rate differs from the
model's (convergence.learning_rate: linear up to B_crit, held above): 1 + 0.3 ln(lr/lr_model)^2,
and no progress at all (it diverges: accuracy stays near chance) above 16x the model's rate.
Accuracy follows a(s) = a_max (1 - exp(-s / tau)), tau set so a(samples) = target, plus noise
(sd 0.002). Time: each evaluation interval's minibatches take the performance model's time at
the mode the simulated device runs (re-read at each evaluation), over the simulator's speed;
STATE/load.json announces the load so the simulated power follows. A batch that does not fit
the simulated memory fails at once (stderr, exit status 1), as PyTorch does.

--fail-after-evals N: a traceback on stderr and exit status 1 after N evaluations;
--percent: accuracy printed in percent (a mistake the agent reports); --max-epochs: it stops
(exit 0) after that many epochs, reached or not (default 3x the model's epochs at this batch).
Finds the simulator through PTWB_SIM_STATE, PTWB_SIM_SPEED, PTWB_SIM_SEED and PTWB_SIM_DIR.
"""

import argparse
import json
import math
import os
import random
import signal
import sys
import time

PROXY_NOISE = 0.03        # relative half-width of the run-to-run noise of the samples
ACCURACY_NOISE = 0.002    # sd of one evaluation's accuracy
LR_PENALTY = 0.3          # samples x (1 + LR_PENALTY ln(lr / lr_model)^2)
LR_DIVERGE = 16.0         # above this many times the model's rate, training diverges


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="proxy_train.py",
                                 description="A SIMULATED proxy training run (nothing is "
                                             "trained): progress lines {\"samples\", "
                                             "\"accuracy\"} on stdout.")
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--proxy-fraction", type=float, default=0.05)
    ap.add_argument("--evals-per-epoch", type=int, default=4)
    ap.add_argument("--max-epochs", type=float, default=None)
    ap.add_argument("--fail-after-evals", type=int, default=None, metavar="N")
    ap.add_argument("--percent", action="store_true")
    args = ap.parse_args(argv)
    if not 0 < args.proxy_fraction <= 1 or args.evals_per_epoch < 1 \
            or (args.max_epochs is not None and not args.max_epochs > 0):
        ap.error("--proxy-fraction must be in (0, 1], --evals-per-epoch and --max-epochs "
                 "positive")
    return args


def simulator():
    """(sim_workload module, convergence module, state dir, speed, seed), or exit 2."""
    where = os.environ.get("PTWB_SIM_DIR")
    state = os.environ.get("PTWB_SIM_STATE")
    if not where or not state:
        sys.stderr.write("proxy_train.py: not on a simulated Jetson (PTWB_SIM_DIR and "
                         "PTWB_SIM_STATE are not set)\n")
        sys.exit(2)
    sys.path.insert(0, where)
    import sim_workload
    import convergence
    try:
        speed = float(os.environ.get("PTWB_SIM_SPEED", "50"))
        seed = int(os.environ.get("PTWB_SIM_SEED", "0"))
    except ValueError:
        speed, seed = 50.0, 0
    return sim_workload, convergence, os.path.abspath(state), speed, seed


def lr_factor(lr, lr_model):
    """How many times the samples a learning rate needs against the model's own (None: it
    diverges and never reaches the target)."""
    r = lr / lr_model
    if r > LR_DIVERGE:
        return None
    return 1.0 + LR_PENALTY * math.log(r) ** 2


def samples_needed(conv_module, conv, batch, lr, key, fraction):
    """Samples of the proxy dataset to the target at this batch and rate, or None (diverges)."""
    factor = lr_factor(lr, conv_module.learning_rate(conv, batch))
    if factor is None:
        return None
    rng = random.Random(key + "/proxy-samples")
    noise = 1.0 + rng.uniform(-PROXY_NOISE, PROXY_NOISE)
    return conv_module.samples_to_target(conv, batch) * fraction * factor * noise


def accuracy_at(samples, needed, target):
    """a_max (1 - exp(-samples / tau)) with a(needed) = target; near chance when needed is None."""
    if needed is None:
        return 0.001
    a_max = target + 0.5 * (1.0 - target)
    tau = needed / -math.log(1.0 - target / a_max)
    return a_max * (1.0 - math.exp(-samples / tau))


def env_number(name, kind):
    try:
        v = kind(os.environ[name])
    except (KeyError, ValueError):
        return None
    return v if v > 0 else None


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    sim, conv_module, state, speed, seed = simulator()
    batch = env_number("PTWB_BATCH_SIZE", int)
    if batch is None:
        sys.stderr.write("proxy_train.py: PTWB_BATCH_SIZE is not set (the agent's "
                         "proxy_convergence sets it)\n")
        return 2
    try:
        with open(os.path.join(state, "sim.json"), "r", encoding="utf-8") as f:
            device = json.load(f)["device"]
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write("proxy_train.py: no simulated device in %s: %s\n" % (state, e))
        return 2
    model = sim.perfmodel.PerfModel(device)
    conv = model.profiles["workloads"].get(args.model, {}).get("convergence")
    if conv is None:
        sys.stderr.write("proxy_train.py: no convergence model for %r\n" % args.model)
        return 2
    oom = model.out_of_memory(args.model, batch)
    if oom is not None:
        sys.stderr.write("RuntimeError: CUDA out of memory (simulated). %s\n" % oom)
        return 1
    lr = env_number("PTWB_LEARNING_RATE", float) or conv_module.learning_rate(conv, batch)
    run = sim.next_run_number(state)
    key = "%d/%s/%s/%d/%d" % (seed, device, args.model, batch, run)
    rng = random.Random(key + "/proxy-accuracy")
    target = conv["target_accuracy"]
    needed = samples_needed(conv_module, conv, batch, lr, key, args.proxy_fraction)
    dataset = max(1, int(round(conv["dataset_samples"] * args.proxy_fraction)))
    max_epochs = args.max_epochs
    if max_epochs is None:
        max_epochs = 3.0 * conv_module.samples_to_target(conv, batch) \
            * args.proxy_fraction / dataset
    interval = max(batch, dataset // args.evals_per_epoch // batch * batch)
    root = os.path.join(state, "root")
    load_path = os.path.join(state, "load.json")

    def on_term(signum, frame):
        sim.cleanup_load(load_path)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    sim.simkernel.atomic_write(load_path, json.dumps(
        {"pid": os.getpid(), "name": args.model, "batch_size": batch}) + "\n")
    print("proxy_train.py (SIMULATED): %s, batch %d, learning rate %.6g, proxy dataset %d "
          "samples" % (args.model, batch, lr, dataset), flush=True)
    samples, evals = 0, 0
    last = time.monotonic()
    try:
        while samples < max_epochs * dataset:
            if args.fail_after_evals is not None and evals >= args.fail_after_evals:
                sys.stderr.write("Traceback (most recent call last):\n"
                                 "  File \"proxy_train.py\", line 1, in <module>\n"
                                 "RuntimeError: simulated failure after %d evaluations\n" % evals)
                return 1
            mode = sim.simkernel.read_mode(root, device)
            ms = model.time_ms(args.model, mode, batch) * (interval // batch)
            time.sleep(max(0.0, last + ms / 1000.0 / speed - time.monotonic()))
            last = time.monotonic()
            samples += interval
            evals += 1
            acc = accuracy_at(samples, needed, target) + rng.gauss(0.0, ACCURACY_NOISE)
            acc = min(1.0, max(0.0, acc))
            print(json.dumps({"samples": samples,
                              "accuracy": round(acc * 100 if args.percent else acc, 4),
                              "epoch": round(samples / float(dataset), 3), "simulated": True}),
                  flush=True)
    except BrokenPipeError:
        return 1
    finally:
        sim.cleanup_load(load_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
