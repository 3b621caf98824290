#!/usr/bin/env python3
"""SIMULATED convergence proxy: training samples (and epochs) a built-in workload needs to reach
its target accuracy at each minibatch size. Nothing here is measured; see docs/simulator.md,
"Batch size (training)".

  convergence.py --workload NAME --batch-sizes 8,16,32,64 [--device orin-agx] [--seed N]

prints CSV on stdout, one row per batch size, ascending:

  batch_size,samples_to_target,epochs_to_target

The model is the critical batch size model of McCandlish et al. 2018 ("An Empirical Model of
Large-Batch Training"): with the learning rate scaled linearly with the batch up to the critical
batch B_crit (learning_rate), the samples to the target are

  samples(b) = samples_min * (1 + b / B_crit)

flat (perfect scaling: the same samples in fewer, larger steps) well below B_crit, twice the
minimum at B_crit, growing linearly above it. The parameters are each workload's "convergence"
entry in profiles.json (written by calibrate.py, TRAINING_BATCH). Each row carries seeded
run-to-run noise (uniform, +-3 %) like a proxy measurement: the same seed, device, workload and
batch always give the same row, whatever else is asked for. With --device, a batch that does
not fit the device's (simulated) memory is still printed and named on stderr: profiling it
fails with workload_failed. Bad arguments: a message naming the argument, exit status 2.
Standard library only, Python 3.8+.
"""

import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perfmodel  # noqa: E402
import simdevices  # noqa: E402

NOISE = 0.03          # relative half-width of the run-to-run noise (uniform)
MAX_BATCH = 4096      # the agent's limit on workload.batch_size


class UsageError(ValueError):
    pass


def samples_to_target(conv, batch):
    """Noise-free samples to the target accuracy at minibatch `batch` (McCandlish et al.)."""
    return conv["samples_min"] * (1.0 + float(batch) / conv["critical_batch"])


def learning_rate(conv, batch):
    """The learning rate the model assumes at minibatch `batch`: scaled linearly with the batch
    from base_lr at base_lr_batch, up to the critical batch, constant above it."""
    return conv["base_lr"] * min(float(batch), conv["critical_batch"]) / conv["base_lr_batch"]


def noisy_samples(conv, batch, seed, device, workload):
    """samples_to_target times a seeded factor in [1 - NOISE, 1 + NOISE], keyed by (seed,
    device, workload, batch) so a row does not depend on the other rows asked for."""
    rng = random.Random("%d/%s/%s/%d/convergence" % (seed, device, workload, batch))
    return samples_to_target(conv, batch) * (1.0 + rng.uniform(-NOISE, NOISE))


def parse_batch_sizes(text):
    """'8,16,32' -> [8, 16, 32] ascending, without duplicates; UsageError naming the argument."""
    sizes = set()
    for part in text.split(","):
        part = part.strip()
        try:
            b = int(part)
        except ValueError:
            raise UsageError("--batch-sizes: %r is not an integer (expected e.g. 8,16,32,64)"
                             % part)
        if not 1 <= b <= MAX_BATCH:
            raise UsageError("--batch-sizes: %d is out of range (1..%d)" % (b, MAX_BATCH))
        sizes.add(b)
    return sorted(sizes)


def rows(conv, batch_sizes, seed, device, workload):
    """[(batch, samples, epochs)] with samples rounded to whole samples."""
    out = []
    for b in batch_sizes:
        s = int(round(noisy_samples(conv, b, seed, device, workload)))
        out.append((b, s, s / float(conv["dataset_samples"])))
    return out


def write_csv(out, table):
    out.write("batch_size,samples_to_target,epochs_to_target\n")
    for b, s, e in table:
        out.write("%d,%d,%.3f\n" % (b, s, e))


def memory_notes(model, workload, batch_sizes):
    """One stderr line per batch that does not fit the device's simulated memory."""
    notes = []
    for b in batch_sizes:
        if model.out_of_memory(workload, b) is not None:
            notes.append("convergence.py: note: batch %d of %s does not fit %s's simulated "
                         "memory (needs about %.1f GiB, has %.1f GiB); profiling it fails with "
                         "workload_failed" % (b, workload, model.device,
                                              model.training_memory_gib(workload, b),
                                              model.memory_gib()))
    return notes


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="convergence.py",
        description="SIMULATED convergence proxy (not a measurement): samples and epochs a "
                    "built-in workload needs to reach its target accuracy at each minibatch "
                    "size, from the critical batch size model of McCandlish et al. 2018 with "
                    "seeded +-3 % run-to-run noise. Prints CSV: "
                    "batch_size,samples_to_target,epochs_to_target.")
    ap.add_argument("--workload", required=True, help="a workload of profiles.json")
    ap.add_argument("--batch-sizes", required=True,
                    help="comma-separated minibatch sizes, 1..%d (e.g. 8,16,32,64)" % MAX_BATCH)
    ap.add_argument("--device", default="orin-agx",
                    help="a simulated device (%s; default orin-agx): names batches that do "
                         "not fit its simulated memory on stderr; part of the noise seed"
                         % ", ".join(simdevices.KINDS))
    ap.add_argument("--seed", type=int, default=0, help="seed of the run-to-run noise")
    return ap.parse_args(argv)


def resolve(args):
    """(model, convergence parameters, batch sizes) or UsageError naming the bad argument."""
    if args.device not in simdevices.KINDS:
        raise UsageError("--device: unknown device %r (known: %s)"
                         % (args.device, ", ".join(simdevices.KINDS)))
    model = perfmodel.PerfModel(args.device)
    if not model.has_workload(args.workload):
        raise UsageError("--workload: unknown workload %r (known: %s)"
                         % (args.workload, ", ".join(model.workloads())))
    conv = model.profiles["workloads"][args.workload].get("convergence")
    if conv is None:
        raise UsageError("--workload: %r has no convergence model in profiles.json"
                         % args.workload)
    return model, conv, parse_batch_sizes(args.batch_sizes)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        model, conv, sizes = resolve(args)
    except UsageError as e:
        sys.stderr.write("convergence.py: %s\n" % e)
        return 2
    for note in memory_notes(model, args.workload, sizes):
        sys.stderr.write(note + "\n")
    write_csv(sys.stdout, rows(conv, sizes, args.seed, args.device, args.workload))
    return 0


if __name__ == "__main__":
    sys.exit(main())
