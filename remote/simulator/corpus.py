#!/usr/bin/env python3
"""A simulated measurement corpus: what a long sweep of one workload on the simulated Jetson
would store, written at once from the performance model in the public PowerTrain CSV layout
(cores,cpu,gpu,mem,observed_time,observed_power). `ptwb demo` imports it as its reference
corpus. Every value is SIMULATED, not measured; the file's name says so.

    python3 corpus.py --device orin-agx --workload resnet18 --out simulated-resnet18.csv
    python3 corpus.py --inference --workload bert_base --grid fulcrum --out simulated-bert-infer.csv

Modes (--grid): `public` (default), the grid of the public training data (even core counts,
every other CPU clock from the third), 4,368 on AGX Orin; `fulcrum`, the 441 modes of the
concurrent training + inference study's files (AGX Orin only); `all`, every mode (--all is the
same). Noise: the same run-to-run spread as the simulated workload (a few percent), seeded by --seed.

--inference writes the public inference layout instead
(cores,cpu,gpu,mem,observed_time,bs,observed_power: observed_time in ms per inference minibatch
of bs requests), one row per mode and batch size (--batch-sizes, default 1,4,16,32,64), batch
size outermost as in the public files; the workload needs an inference profile.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfmodel  # noqa: E402

TIME_NOISE = 0.02
POWER_NOISE = 0.01

TRAIN_HEADER = "cores,cpu,gpu,mem,observed_time,observed_power"
INFER_HEADER = "cores,cpu,gpu,mem,observed_time,bs,observed_power"
DEFAULT_BATCH_SIZES = (1, 4, 16, 32, 64)

# The 441-mode grid of the concurrent training + inference study (Fulcrum) on the AGX Orin: the
# clocks its public files ../shared/data/orin-agx/{resnet18,mobilenetv3}_infer.csv use (read
# from those files once and hard-coded here, so no data is needed to write a corpus). Rows go in
# the files' order: CPU clock, GPU clock, cores, memory clock (innermost).
FULCRUM_GRID = {
    "orin-agx": {
        "cores": (4, 8, 12),
        "cpu_khz": (422400, 729600, 1036800, 1344000, 1651200, 1958400, 2201600),
        "gpu_hz": (114750000, 318750000, 522750000, 726750000, 930750000, 1134750000,
                   1300500000),
        "emc_hz": (665600000, 2133000000, 3199000000),
    },
}
GRIDS = ("public", "fulcrum", "all")


def grid(table, every_mode):
    """The public training grid (every_mode False) or every mode of the device's table."""
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


def fulcrum_grid(device):
    """The study's 441 modes, in its files' order; KeyError for a device it did not measure."""
    g = FULCRUM_GRID[device]
    for cpu in g["cpu_khz"]:
        for gpu in g["gpu_hz"]:
            for c in g["cores"]:
                for emc in g["emc_hz"]:
                    yield perfmodel.Mode(c, cpu, gpu, emc)


def modes_of(table, device, name):
    if name == "fulcrum":
        return list(fulcrum_grid(device))
    return list(grid(table, name == "all"))


def parse_batch_sizes(text):
    try:
        out = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("expected comma-separated integers, got %r" % text)
    if not out or any(b < 1 or b > 4096 for b in out):
        raise argparse.ArgumentTypeError("batch sizes must be integers 1..4096, got %r" % text)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="orin-agx")
    ap.add_argument("--workload", default="resnet18")
    ap.add_argument("--out", required=True, help="CSV file to write ('-' for stdout)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--grid", choices=GRIDS, default=None,
                    help="public (default): the public training grid; fulcrum: the 441 modes of "
                         "the public inference files (AGX Orin); all: every mode")
    ap.add_argument("--all", action="store_true", help="every mode (the same as --grid all)")
    ap.add_argument("--sample", type=int, default=0, metavar="N",
                    help="only N modes drawn at random (seeded) from the grid: what a short "
                         "profiling sweep of a new workload would measure")
    ap.add_argument("--inference", action="store_true",
                    help="inference minibatches in the public inference layout (with bs)")
    ap.add_argument("--batch-sizes", type=parse_batch_sizes, default=None, metavar="LIST",
                    help="with --inference: inference batch sizes (default 1,4,16,32,64); "
                         "without: training batch sizes, written with batch_size and "
                         "peak_power columns (a batch that does not fit the device's memory "
                         "is left out, as a sweep would fail it)")
    args = ap.parse_args(argv)
    if args.all and args.grid not in (None, "all"):
        ap.error("--all contradicts --grid %s" % args.grid)
    grid_name = "all" if args.all else (args.grid or "public")
    batch_sizes = args.batch_sizes or list(DEFAULT_BATCH_SIZES)

    model = perfmodel.PerfModel(args.device)
    if not model.has_workload(args.workload):
        sys.stderr.write("corpus: unknown workload %r (known: %s)\n"
                         % (args.workload, ", ".join(model.workloads())))
        return 2
    if args.inference and not model.has_inference(args.workload):
        sys.stderr.write("corpus: workload %r has no inference profile (with one: %s)\n"
                         % (args.workload, ", ".join(model.inference_workloads())))
        return 2
    if grid_name == "fulcrum" and args.device not in FULCRUM_GRID:
        sys.stderr.write("corpus: --grid fulcrum is the AGX Orin's 441 modes; no such grid for %s "
                         "(known: %s)\n" % (args.device, ", ".join(sorted(FULCRUM_GRID))))
        return 2
    rng = random.Random(args.seed)
    modes = modes_of(model.table, args.device, grid_name)
    if args.sample > 0:
        chosen = random.Random(args.seed + 1).sample(range(len(modes)),
                                                     min(args.sample, len(modes)))
        modes = [modes[i] for i in sorted(chosen)]
    if args.inference:
        lines = [INFER_HEADER]
        for b in batch_sizes:
            for mode in modes:
                t = model.inference_time_ms(args.workload, mode, b) * (1 + rng.gauss(0, TIME_NOISE))
                p = model.inference_power_w(args.workload, mode, b) * (1 + rng.gauss(0, POWER_NOISE))
                lines.append("%d,%d,%d,%d,%.4f,%.1f,%.4f" % (mode.cores, mode.cpu_khz, mode.gpu_hz,
                                                             mode.emc_hz, t, b, p))
    elif args.batch_sizes is not None:
        lines = [TRAIN_HEADER + ",batch_size,peak_power"]
        for b in batch_sizes:
            if model.out_of_memory(args.workload, b):
                sys.stderr.write("corpus: batch %d does not fit: %s\n"
                                 % (b, model.out_of_memory(args.workload, b)))
                continue
            for mode in modes:
                t = model.time_ms(args.workload, mode, b) * (1 + rng.gauss(0, TIME_NOISE))
                noise = 1 + rng.gauss(0, POWER_NOISE)
                p = model.power_w(args.workload, mode, b) * noise
                peak = model.training_peak_w(args.workload, mode, b) * noise
                lines.append("%d,%d,%d,%d,%.4f,%.4f,%d,%.4f" % (mode.cores, mode.cpu_khz,
                                                                mode.gpu_hz, mode.emc_hz, t, p,
                                                                b, max(p, peak)))
    else:
        lines = [TRAIN_HEADER]
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
