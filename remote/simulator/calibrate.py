#!/usr/bin/env python3
"""Calibrate the simulated Jetson's performance model on real AGX Orin measurements.

  calibrate.py [--data DIR]            fit ResNet-18 and MobileNet v3 (training, then
                                       inference), write profiles.json
  calibrate.py --inference-only [--data DIR]
                                       fit the inference profiles only, keeping every training
                                       parameter of profiles.json as it is
  calibrate.py --devices-only          rewrite only the devices' scaling factors (simdevices.py);
                                       needs no data, keeps every workload parameter
  calibrate.py --check [--data DIR]    evaluate profiles.json on every measured mode: time and
                                       power MAPE per workload (inference: overall and per batch
                                       size); exit 1 if a bound is missed

DIR defaults to ../shared/data beside the checkout (the directory holding orin-agx/*.csv). When it
is absent the script says so and exits 0 (nothing to check). The measurements are read in place,
never copied. Standard library only: the fit is a small Levenberg-Marquardt in pure Python.
"""

import argparse
import csv
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perfmodel  # noqa: E402
import simdevices  # noqa: E402

DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "data"))

TIME_MAPE_BOUND = 15.0
POWER_MAPE_BOUND = 8.0

# Workloads fitted on real data: name -> (file under DATA/orin-agx, description)
CALIBRATED = {
    "resnet18": ("resnet18_imagenet_train.csv", "ResNet-18, ImageNet-val, minibatch 16"),
    "mobilenet_v3": ("mobilenetv3_gld23k_train.csv", "MobileNet v3, GLD-23k, minibatch 16"),
}

# Inference fitted on real data: name -> (file under DATA/orin-agx, description). Layout
# cores,cpu,gpu,mem,observed_time,bs,observed_power (ms per minibatch of bs requests).
CALIBRATED_INFERENCE = {
    "resnet18": ("resnet18_infer.csv", "ResNet-18 inference, minibatches of 1-64 requests"),
    "mobilenet_v3": ("mobilenetv3_infer.csv", "MobileNet v3 inference, minibatches of 1-64 requests"),
}
INFER_TIME_MAPE_BOUND = 10.0
INFER_POWER_MAPE_BOUND = 7.0

# Hand-set workloads: derived from a calibrated one by multiplying its terms. The shape
# parameters (p, p_dev, c0, n_sat, q, voltage slopes) are kept; the magnitudes say where the
# time goes. Plausible, not measured: see docs/simulator.md.
HANDSET = {
    "yolo_detect": {
        "base": "resnet18",
        "description": "detection-like (YOLO-style): heavy CPU augmentation and decoding, "
                       "CPU-bound below ~8 cores or ~1.5 GHz",
        "time": {"gpu": 1.8, "mem": 1.3, "load_cpu": 3.2, "load_mem": 2.0, "launch_cpu": 1.3,
                 "t0": 1.5},
        "power": {"gpu_busy": 1.05, "core_busy": 1.1},
    },
    "yolo_v8n": {
        "base": "resnet18",
        "description": "small detector (YOLO v8n-like): data loading on the CPU dominates, a "
                       "light GPU load (11-25 W), the GPU clock matters little",
        "time": {"gpu": 0.45, "mem": 0.7, "load_cpu": 4.5, "load_mem": 1.6, "launch_cpu": 1.2,
                 "t0": 1.2},
        "power": {"gpu_busy": 0.3, "gpu_clk": 0.5, "mem_busy": 0.6},
    },
    "bert_base": {
        "base": "resnet18",
        "description": "transformer-like (BERT-base fine-tuning): GPU compute-bound, little "
                       "input work, high GPU power",
        "time": {"gpu": 4.0, "mem": 2.2, "load_cpu": 0.15, "load_mem": 0.15, "launch_cpu": 1.6,
                 "t0": 2.0},
        "power": {"gpu_busy": 1.15, "mem_busy": 1.1},
    },
    "lstm": {
        "base": "mobilenet_v3",
        "description": "recurrent (LSTM language model): many small sequential kernels, "
                       "launch-bound on one CPU core and memory-bound on the GPU side",
        "time": {"gpu": 0.6, "mem": 2.5, "load_cpu": 0.2, "load_mem": 0.2, "launch_cpu": 1.8,
                 "launch_mem": 1.5, "t0": 1.0},
        "power": {"gpu_busy": 0.6, "mem_busy": 1.0},
    },
}

# Hand-set inference profiles, derived from a calibrated inference profile like HANDSET derives
# training ones (the workload's training profile comes from HANDSET). Plausible, not measured.
HANDSET_INFERENCE = {
    "yolo_detect": {
        "base": "resnet18",
        "description": "detection-like (YOLO-style) serving, SIMULATED: heavier per-request "
                       "CPU work (resize, letterbox, NMS), 1.8x GPU work per request",
        "time": {"gpu0": 1.3, "gpu1": 1.8, "mem0": 1.2, "mem1": 1.5, "pre_cpu": 2.5,
                 "launch_cpu": 1.3, "t0": 1.3},
        "power": {"gpu_busy": 1.05, "core_busy": 1.1},
    },
    "bert_base": {
        "base": "resnet18",
        "description": "transformer-like (BERT-base) serving, SIMULATED: 4x GPU compute and 2x "
                       "memory traffic per request, light tokenization, more kernel launches",
        "time": {"gpu0": 2.0, "gpu1": 4.0, "mem0": 1.5, "mem1": 2.0, "pre_cpu": 0.3,
                 "launch_cpu": 1.6, "t0": 1.5},
        "power": {"gpu_busy": 1.15, "mem_busy": 1.1},
    },
}

# Devices relative to the AGX Orin the data was measured on (hand-set, see docs/simulator.md,
# "Other devices"; each device's factors are in its description in simdevices.py, "perf").
# *_time multiply the time terms of that domain, *_power the dynamic power of that domain;
# static_w replaces the fitted static power. Frequencies are normalized to each device's own
# table maximum in the voltage model. memory_gib: the memory a training process can use
# (SIMULATED estimate: CPU and GPU share the module's DRAM, the OS and desktop keep the rest).
DEVICES = {d: dict(simdevices.fact(d, "perf")) for d in simdevices.KINDS}

# Training at other batch sizes (issue 17): SIMULATED estimates, not measurements; the numbers
# and their rationale are in docs/simulator.md, "Batch size (training)". Written into each
# workload of profiles.json by every run (attach_training_batch), so a refit keeps them.
#   memory: a training process needs fixed_gib (CUDA context and libraries, weights, gradients,
#           optimizer state) + batch * per_sample_gib (activations kept for the backward pass)
#   convergence: samples to reach target_accuracy at batch b are
#           samples_min * (1 + b / critical_batch) (McCandlish et al. 2018), with the learning
#           rate base_lr * min(b, critical_batch) / base_lr_batch; dataset_samples: one epoch
TRAINING_BATCH = {
    "resnet18": {
        "memory": {"fixed_gib": 1.8, "per_sample_gib": 0.0385},
        "convergence": {"target_accuracy": 0.6, "samples_min": 1500000, "critical_batch": 256,
                        "dataset_samples": 50000, "base_lr": 0.1, "base_lr_batch": 256},
    },
    "mobilenet_v3": {
        "memory": {"fixed_gib": 1.6, "per_sample_gib": 0.045},
        "convergence": {"target_accuracy": 0.7, "samples_min": 692400, "critical_batch": 128,
                        "dataset_samples": 23080, "base_lr": 0.05, "base_lr_batch": 128},
    },
    "yolo_detect": {
        "memory": {"fixed_gib": 2.0, "per_sample_gib": 0.085},
        "convergence": {"target_accuracy": 0.45, "samples_min": 4690640, "critical_batch": 64,
                        "dataset_samples": 117266, "base_lr": 0.01, "base_lr_batch": 64},
    },
    "yolo_v8n": {
        "memory": {"fixed_gib": 1.7, "per_sample_gib": 0.06},
        "convergence": {"target_accuracy": 0.3, "samples_min": 7035960, "critical_batch": 128,
                        "dataset_samples": 117266, "base_lr": 0.01, "base_lr_batch": 64},
    },
    "bert_base": {
        "memory": {"fixed_gib": 3.3, "per_sample_gib": 0.11},
        "convergence": {"target_accuracy": 0.92, "samples_min": 134698, "critical_batch": 32,
                        "dataset_samples": 67349, "base_lr": 0.00002, "base_lr_batch": 32},
    },
    "lstm": {
        "memory": {"fixed_gib": 1.7, "per_sample_gib": 0.002},
        "convergence": {"target_accuracy": 0.24, "samples_min": 398160, "critical_batch": 64,
                        "dataset_samples": 26544, "base_lr": 1.0, "base_lr_batch": 20},
    },
}

TIME_INIT = {"t0": 10.0, "gpu": 50.0, "mem": 120.0, "p_dev": 3.0, "launch_cpu": 60.0,
             "launch_mem": 5.0, "load_cpu": 320.0, "load_mem": 100.0, "c0": 1.2, "n_sat": 5.0,
             "q": 4.0, "p": 4.0}
POWER_INIT = {"static": 8.0, "core_on": 0.2, "core_clk": 0.3, "core_busy": 1.0, "v0_cpu": 0.5,
              "gpu_clk": 3.0, "gpu_busy": 25.0, "v0_gpu": 0.5, "mem_clk": 2.0, "mem_busy": 6.0}


# -- parameter transforms (the fit works on unconstrained values) --------------------------

def _time_to_x(tp):
    x = []
    for k in perfmodel.TIME_PARAMS:
        v = tp[k]
        if k == "c0":
            s = min(max(v / 1.9, 1e-6), 1 - 1e-6)
            x.append(math.log(s / (1 - s)))
        elif k in ("p_dev", "p"):
            x.append(math.log(v - 1.0))
        elif k in ("n_sat", "q"):
            x.append(math.log(v - 0.5))
        else:
            x.append(math.log(v))
    return x


def _x_to_time(x):
    tp = {}
    for k, v in zip(perfmodel.TIME_PARAMS, x):
        v = max(min(v, 30.0), -30.0)
        if k == "c0":
            tp[k] = 1.9 / (1.0 + math.exp(-v))
        elif k in ("p_dev", "p"):
            tp[k] = 1.0 + math.exp(v)
        elif k in ("n_sat", "q"):
            tp[k] = 0.5 + math.exp(v)
        else:
            tp[k] = math.exp(v)
    return tp


def _power_to_x(pp):
    x = []
    for k in perfmodel.POWER_PARAMS:
        v = pp[k]
        if k.startswith("v0_"):
            s = min(max(v, 1e-6), 1 - 1e-6)
            x.append(math.log(s / (1 - s)))
        else:
            x.append(math.log(v))
    return x


def _x_to_power(x):
    pp = {}
    for k, v in zip(perfmodel.POWER_PARAMS, x):
        v = max(min(v, 30.0), -30.0)
        pp[k] = 1.0 / (1.0 + math.exp(-v)) if k.startswith("v0_") else math.exp(v)
    return pp


INFER_TIME_INIT = {"t0": 3.0, "gpu0": 3.0, "gpu1": 2.0, "g_small": 1.0, "b_fill": 6.0, "mem0": 5.0, "mem1": 10.0, "p_dev": 3.0,
                   "launch_cpu": 30.0, "launch_mem": 5.0, "pre_cpu": 5.0, "c0": 1.0,
                   "n_sat": 4.0, "q": 4.0, "p": 4.0}
INFER_POWER_INIT = dict(POWER_INIT, b_half=2.0)
B_HALF_MAX = 32.0   # the GPU's busy power reaches at least 2/3 of its saturated value at b = 64


def _x_to_inference_time(x):
    tp = {}
    for k, v in zip(perfmodel.INFER_TIME_PARAMS, x):
        v = max(min(v, 30.0), -30.0)
        if k == "c0":
            tp[k] = 1.9 / (1.0 + math.exp(-v))
        elif k in ("p_dev", "p"):
            tp[k] = 1.0 + math.exp(v)
        elif k in ("n_sat", "q"):
            tp[k] = 0.5 + math.exp(v)
        else:
            tp[k] = math.exp(v)
    return tp


def _inference_time_to_x(tp):
    x = []
    for k in perfmodel.INFER_TIME_PARAMS:
        v = tp[k]
        if k == "c0":
            s = min(max(v / 1.9, 1e-6), 1 - 1e-6)
            x.append(math.log(s / (1 - s)))
        elif k in ("p_dev", "p"):
            x.append(math.log(v - 1.0))
        elif k in ("n_sat", "q"):
            x.append(math.log(v - 0.5))
        else:
            x.append(math.log(v))
    return x


def _x_to_inference_power(x):
    pp = _x_to_power(x[:len(perfmodel.POWER_PARAMS)])
    pp["b_half"] = B_HALF_MAX / (1.0 + math.exp(-max(min(x[-1], 30.0), -30.0)))
    return pp


def _inference_power_to_x(pp):
    s = min(max(pp["b_half"] / B_HALF_MAX, 1e-6), 1 - 1e-6)
    return _power_to_x(pp) + [math.log(s / (1 - s))]


# -- data ------------------------------------------------------------------------------------

def read_csv(path):
    rows = []
    with open(path, "r", encoding="utf-8-sig", newline="") as f:
        for rec in csv.DictReader(f):
            rows.append((perfmodel.Mode(int(float(rec["cores"])), int(float(rec["cpu"])),
                                        int(float(rec["gpu"])), int(float(rec["mem"]))),
                         float(rec["observed_time"]), float(rec["observed_power"])))
    return rows


def read_inference_csv(path):
    """Rows (Mode, batch, time ms, power W) of a file in the public inference layout."""
    rows = []
    with open(path, "r", encoding="utf-8-sig", newline="") as f:
        for rec in csv.DictReader(f):
            rows.append((perfmodel.Mode(int(float(rec["cores"])), int(float(rec["cpu"])),
                                        int(float(rec["gpu"])), int(float(rec["mem"]))),
                         int(float(rec["bs"])), float(rec["observed_time"]),
                         float(rec["observed_power"])))
    return rows


# -- Levenberg-Marquardt ---------------------------------------------------------------------

def _solve(a, b):
    """Gaussian elimination with partial pivoting (a is n x n, small)."""
    n = len(b)
    m = [list(a[i]) + [b[i]] for i in range(n)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[piv][c]) < 1e-300:
            raise ZeroDivisionError("singular")
        m[c], m[piv] = m[piv], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            if f:
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        s = m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))
        x[r] = s / m[r][r]
    return x


def levenberg_marquardt(resid, x0, iters=80, verbose=False, label=""):
    x = list(x0)
    r = resid(x)
    cost = sum(v * v for v in r)
    lam = 1e-2
    n = len(x)
    for it in range(iters):
        h = 1e-6
        cols = []
        for j in range(n):
            xj = list(x)
            xj[j] += h
            rj = resid(xj)
            cols.append([(a - b) / h for a, b in zip(rj, r)])
        jtj = [[sum(ci * cj for ci, cj in zip(cols[i], cols[j])) for j in range(n)] for i in range(n)]
        jtr = [sum(ci * ri for ci, ri in zip(cols[i], r)) for i in range(n)]
        improved = False
        for _ in range(12):
            a = [[jtj[i][j] + (lam * (jtj[i][i] + 1e-9) if i == j else 0.0) for j in range(n)]
                 for i in range(n)]
            try:
                d = _solve(a, [-v for v in jtr])
            except ZeroDivisionError:
                lam *= 10
                continue
            xn = [xi + di for xi, di in zip(x, d)]
            try:
                rn = resid(xn)
                cn = sum(v * v for v in rn)
            except (ArithmeticError, ValueError):
                cn = float("inf")
            if cn < cost:
                rel = (cost - cn) / cost
                x, r, cost = xn, rn, cn
                lam = max(lam / 3.0, 1e-9)
                improved = True
                break
            lam *= 4.0
        if verbose:
            print("  %s iter %d cost %.5f lambda %.1e" % (label, it, cost, lam), file=sys.stderr)
        if not improved or rel < 1e-7:
            break
    return x, cost


# -- fit and check -----------------------------------------------------------------------------

def _ref_dev(table):
    dev = {"fmax": {"cpu_hz": max(table["cpu_khz"]) * 1e3, "gpu_hz": float(max(table["gpu_hz"])),
                    "emc_hz": float(max(table["emc_hz"]))}}
    return dev


def fit_workload(rows, table, verbose=False):
    dev = _ref_dev(table)

    def tres(x):
        tp = _x_to_time(x)
        return [math.log(perfmodel.time_terms(tp, dev, m)["total"] / t) for m, t, _ in rows]

    best = None
    for scale in (1.0, 0.5, 2.0):
        init = dict(TIME_INIT)
        for k in ("gpu", "mem", "load_cpu", "launch_cpu"):
            init[k] *= scale
        x, cost = levenberg_marquardt(tres, _time_to_x(init), verbose=verbose, label="time")
        if best is None or cost < best[1]:
            best = (x, cost)
    tp = _x_to_time(best[0])
    terms = [perfmodel.time_terms(tp, dev, m) for m, _, _ in rows]

    def pres(x):
        pp = _x_to_power(x)
        return [(perfmodel.power_terms(pp, dev, m, tt)["total"] - p) / p
                for (m, _, p), tt in zip(rows, terms)]

    xp, _ = levenberg_marquardt(pres, _power_to_x(POWER_INIT), verbose=verbose, label="power")
    pp = _x_to_power(xp)
    return ({k: round(v, 6) for k, v in tp.items()}, {k: round(v, 6) for k, v in pp.items()})


def _soft_l1(r, scale):
    """A residual whose square is the soft-L1 loss 2 s^2 (sqrt(1 + (r/s)^2) - 1): quadratic for
    small errors, linear for large ones, so a few outlying measurements (a mislabeled row, a run
    disturbed by something else) do not pull the fit."""
    z = r / scale
    return math.copysign(scale * math.sqrt(2.0 * (math.sqrt(1.0 + z * z) - 1.0)), r)


INFER_ROBUST_SCALE = 0.1    # relative error at which the soft-L1 loss turns linear


def fit_inference(rows, table, verbose=False):
    """Fit one inference profile on rows of read_inference_csv: the 13 time parameters on the
    log error (soft-L1), from three starting points; then the 11 power parameters on the
    relative error with the fitted time model's utilizations. Deterministic."""
    dev = _ref_dev(table)

    def tres(x):
        tp = _x_to_inference_time(x)
        return [_soft_l1(math.log(perfmodel.inference_time_terms(tp, dev, m, b)["total"] / t),
                         INFER_ROBUST_SCALE) for m, b, t, _ in rows]

    best = None
    for scale in (1.0, 0.4, 2.5):
        init = dict(INFER_TIME_INIT)
        for k in ("gpu0", "gpu1", "mem0", "mem1", "launch_cpu", "pre_cpu"):
            init[k] *= scale
        x, cost = levenberg_marquardt(tres, _inference_time_to_x(init), iters=150,
                                      verbose=verbose, label="inference time")
        if verbose:
            print("  start %.1f: cost %.4f" % (scale, cost), file=sys.stderr)
        if best is None or cost < best[1]:
            best = (x, cost)
    tp = _x_to_inference_time(best[0])
    terms = [perfmodel.inference_time_terms(tp, dev, m, b) for m, b, _, _ in rows]

    def pres(x):
        pp = _x_to_inference_power(x)
        return [_soft_l1((perfmodel.power_terms(pp, dev, m, tt)["total"] - p) / p,
                         INFER_ROBUST_SCALE)
                for (m, _, _, p), tt in zip(rows, terms)]

    xp, _ = levenberg_marquardt(pres, _inference_power_to_x(INFER_POWER_INIT), iters=150,
                                verbose=verbose, label="inference power")
    pp = _x_to_inference_power(xp)
    return ({k: round(v, 6) for k, v in tp.items()}, {k: round(v, 6) for k, v in pp.items()})


def inference_mape(rows, model, name):
    """Time and power MAPE (%) of an inference profile: overall and per batch size
    ({batch: (time, power, rows)})."""
    per = {}
    for m, b, t, p in rows:
        et = abs(model.inference_time_ms(name, m, b) - t) / t
        ep = abs(model.inference_power_w(name, m, b) - p) / p
        a = per.setdefault(b, [0.0, 0.0, 0])
        a[0] += et
        a[1] += ep
        a[2] += 1
    n = sum(a[2] for a in per.values())
    tm = 100.0 * sum(a[0] for a in per.values()) / n
    pm = 100.0 * sum(a[1] for a in per.values()) / n
    return tm, pm, {b: (100.0 * a[0] / a[2], 100.0 * a[1] / a[2], a[2])
                    for b, a in sorted(per.items())}


def mape(rows, model, name):
    et = ep = 0.0
    for m, t, p in rows:
        et += abs(model.time_ms(name, m) - t) / t
        ep += abs(model.power_w(name, m) - p) / p
    return 100.0 * et / len(rows), 100.0 * ep / len(rows)


def derive_handset(workloads):
    out = {}
    for name, spec in HANDSET.items():
        base = workloads[spec["base"]]
        tp = dict(base["time"])
        for k, f in spec["time"].items():
            tp[k] = round(tp[k] * f, 6)
        pp = dict(base["power"])
        for k, f in spec.get("power", {}).items():
            pp[k] = round(pp[k] * f, 6)
        out[name] = {"source": "hand-set from %s (multipliers in calibrate.py HANDSET)" % spec["base"],
                     "description": spec["description"], "batch_size": 16, "time": tp, "power": pp}
    return out


def attach_training_batch(workloads):
    """Write TRAINING_BATCH's memory and convergence entries into workloads (in place), so
    every run of calibrate.py writes them and none drops them."""
    for name, extra in TRAINING_BATCH.items():
        if name in workloads:
            workloads[name].update(json.loads(json.dumps(extra)))


def derive_handset_inference(workloads):
    """Attach HANDSET_INFERENCE profiles to their (hand-set) workloads, in place."""
    for name, spec in HANDSET_INFERENCE.items():
        base = workloads[spec["base"]]["inference"]
        tp = dict(base["time"])
        for k, f in spec["time"].items():
            tp[k] = round(tp[k] * f, 6)
        pp = dict(base["power"])
        for k, f in spec.get("power", {}).items():
            pp[k] = round(pp[k] * f, 6)
        workloads[name]["inference"] = {
            "source": "hand-set from %s inference (multipliers in calibrate.py HANDSET_INFERENCE);"
                      " SIMULATED, not measured" % spec["base"],
            "description": spec["description"], "batch_sizes": [1, 4, 16, 32, 64],
            "time": tp, "power": pp}


def fit_all_inference(workloads, data, table, verbose=False):
    """Fit CALIBRATED_INFERENCE into workloads (in place; training entries untouched)."""
    for name, (fname, desc) in sorted(CALIBRATED_INFERENCE.items()):
        path = os.path.join(data, "orin-agx", fname)
        rows = read_inference_csv(path)
        print("fitting %s inference on %d (mode, batch) rows ..." % (name, len(rows)), flush=True)
        tp, pp = fit_inference(rows, table, verbose=verbose)
        workloads[name]["inference"] = {
            "source": "calibrated on orin-agx/%s (%d rows)" % (fname, len(rows)),
            "description": desc, "batch_sizes": sorted({b for _, b, _, _ in rows}),
            "time": tp, "power": pp}
    derive_handset_inference(workloads)


def write_profiles(path, profiles):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(profiles, f, indent=1, sort_keys=True)
        f.write("\n")


def check_inference(data, model):
    """Print the inference MAPEs (overall and per batch size); False when a bound is missed."""
    ok = True
    for name, (fname, _) in sorted(CALIBRATED_INFERENCE.items()):
        path = os.path.join(data, "orin-agx", fname)
        if not os.path.exists(path):
            print("  %-13s %s missing; skipped" % (name, path))
            continue
        rows = read_inference_csv(path)
        tm, pm, per = inference_mape(rows, model, name)
        good = tm <= INFER_TIME_MAPE_BOUND and pm <= INFER_POWER_MAPE_BOUND
        ok = ok and good
        print("  %-13s inference rows %d  time MAPE %5.2f %% (<= %.0f)  power MAPE %5.2f %% "
              "(<= %.0f)  %s" % (name, len(rows), tm, INFER_TIME_MAPE_BOUND, pm,
                                 INFER_POWER_MAPE_BOUND, "ok" if good else "FAIL"))
        for b, (bt, bp, n) in per.items():
            print("  %-13s   bs %2d: rows %d  time MAPE %5.2f %%  power MAPE %5.2f %%"
                  % ("", b, n, bt, bp))
    return ok


def data_dir_or_none(path):
    if path and os.path.isdir(os.path.join(path, "orin-agx")):
        return path
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=DEFAULT_DATA, help="directory holding orin-agx/*.csv")
    ap.add_argument("--check", action="store_true", help="evaluate profiles.json, do not fit")
    ap.add_argument("--inference-only", action="store_true",
                    help="fit the inference profiles only; the training parameters stay as they are")
    ap.add_argument("--devices-only", action="store_true",
                    help="rewrite only the devices' scaling factors (DEVICES); needs no data and "
                         "leaves every workload parameter as it is")
    ap.add_argument("--profiles", default=perfmodel.PROFILES_PATH)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)

    if args.devices_only:
        # A new device or a changed factor must not refit (nor need) the measurements.
        profiles = perfmodel.load_profiles(args.profiles)
        profiles["devices"] = DEVICES
        write_profiles(args.profiles, profiles)
        print("wrote the devices of %s" % args.profiles)
        return 0
    data = data_dir_or_none(args.data)
    if data is None:
        print("calibrate: no measurements at %s (expected %s/orin-agx/*.csv); skipping"
              % (args.data, args.data))
        return 0
    table = perfmodel.load_device_table("orin-agx")

    if args.inference_only and not args.check:
        t_start = time.time()
        profiles = perfmodel.load_profiles(args.profiles)
        fit_all_inference(profiles["workloads"], data, table, verbose=args.verbose)
        attach_training_batch(profiles["workloads"])
        write_profiles(args.profiles, profiles)
        print("wrote %s in %.0f s" % (args.profiles, time.time() - t_start))
    elif not args.check:
        t_start = time.time()
        workloads = {}
        for name, (fname, desc) in sorted(CALIBRATED.items()):
            rows = read_csv(os.path.join(data, "orin-agx", fname))
            print("fitting %s on %d modes ..." % (name, len(rows)), flush=True)
            tp, pp = fit_workload(rows, table, verbose=args.verbose)
            workloads[name] = {"source": "calibrated on orin-agx/%s (%d modes)" % (fname, len(rows)),
                               "description": desc, "batch_size": 16, "time": tp, "power": pp}
        workloads.update(derive_handset(workloads))
        fit_all_inference(workloads, data, table, verbose=args.verbose)
        attach_training_batch(workloads)
        profiles = {
            "_comment": "Parameters of the simulated Jetson's performance model (remote/simulator/"
                        "perfmodel.py, docs/simulator.md). Written by calibrate.py; do not edit "
                        "the calibrated workloads by hand.",
            "reference_device": "orin-agx",
            "reference_workload": "resnet18",
            "devices": DEVICES,
            "workloads": workloads,
        }
        write_profiles(args.profiles, profiles)
        print("wrote %s in %.0f s" % (args.profiles, time.time() - t_start))

    profiles = perfmodel.load_profiles(args.profiles)
    model = perfmodel.PerfModel("orin-agx", profiles=profiles, table=table)
    ok = True
    print("calibration check: %s --check --data %s" % (os.path.relpath(__file__), args.data))
    for name, (fname, _) in sorted(CALIBRATED.items()):
        path = os.path.join(data, "orin-agx", fname)
        if not os.path.exists(path):
            print("  %-13s %s missing; skipped" % (name, path))
            continue
        rows = read_csv(path)
        tm, pm = mape(rows, model, name)
        good = tm <= TIME_MAPE_BOUND and pm <= POWER_MAPE_BOUND
        ok = ok and good
        print("  %-13s modes %d  time MAPE %5.2f %% (<= %.0f)  power MAPE %5.2f %% (<= %.0f)  %s"
              % (name, len(rows), tm, TIME_MAPE_BOUND, pm, POWER_MAPE_BOUND, "ok" if good else "FAIL"))
    ok = check_inference(data, model) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
