#!/usr/bin/env python3
"""A simulated measurement corpus: what a long sweep of one workload on the simulated Jetson
would store, written at once from the performance model in the public PowerTrain CSV layout
(cores,cpu,gpu,mem,observed_time,observed_power). `ptwb demo` imports it as its reference
corpus. Every value is SIMULATED, not measured; the file's name says so.

    python3 corpus.py --device orin-agx --workload resnet18 --out simulated-resnet18.csv

Modes: the grid of the public data (even core counts, every other CPU clock from the third),
4,368 on AGX Orin; --all for every mode. Noise: the same run-to-run spread as the simulated
workload (a few percent), seeded by --seed.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfmodel  # noqa: E402

TIME_NOISE = 0.02
POWER_NOISE = 0.01


def grid(table, every_mode):
    cores = table["cores"] if isinstance(table["cores"], list) else \
        list(range(table["cores"]["min"], table["cores"]["max"] + 1))
    cpus = table["cpu_khz"]
    if not every_mode:
        cores = [c for c in cores if c % 2 == 0]
        cpus = cpus[2::2]
    for c in cores:
        for cpu in cpus:
            for gpu in table["gpu_hz"]:
                for emc in table["emc_hz"]:
                    yield perfmodel.Mode(c, cpu, gpu, emc)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="orin-agx")
    ap.add_argument("--workload", default="resnet18")
    ap.add_argument("--out", required=True, help="CSV file to write ('-' for stdout)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--all", action="store_true", help="every mode, not the public grid")
    ap.add_argument("--sample", type=int, default=0, metavar="N",
                    help="only N modes drawn at random (seeded) from the grid: what a short "
                         "profiling sweep of a new workload would measure")
    args = ap.parse_args(argv)
    model = perfmodel.PerfModel(args.device)
    if not model.has_workload(args.workload):
        sys.stderr.write("corpus: unknown workload %r (known: %s)\n"
                         % (args.workload, ", ".join(model.workloads())))
        return 2
    rng = random.Random(args.seed)
    lines = ["cores,cpu,gpu,mem,observed_time,observed_power"]
    modes = list(grid(model.table, args.all))
    if args.sample > 0:
        chosen = random.Random(args.seed + 1).sample(range(len(modes)),
                                                     min(args.sample, len(modes)))
        modes = [modes[i] for i in sorted(chosen)]
    for mode in modes:
        t = model.time_ms(args.workload, mode) * (1 + rng.gauss(0, TIME_NOISE))
        p = model.power_w(args.workload, mode) * (1 + rng.gauss(0, POWER_NOISE))
        lines.append("%d,%d,%d,%d,%.4f,%.4f" % (mode.cores, mode.cpu_khz, mode.gpu_hz,
                                                mode.emc_hz, t, p))
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
