"""Analytical performance model of DNN training and inference on a Jetson (simulated device only).

Given a power mode (cores online, CPU kHz, GPU Hz, EMC Hz), a workload profile and a device
description, it returns the minibatch time (ms) and the module power (W) of training, and, for a
workload with an inference profile, the time and power of one inference minibatch of b requests.
The equations are documented in docs/simulator.md; the parameters live in profiles.json, written
by calibrate.py (ResNet-18 and MobileNet v3 fitted on real AGX Orin measurements, training and
inference; the other workloads hand-set).

Standard library only, Python 3.8+.
"""

import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILES_PATH = os.path.join(HERE, "profiles.json")
DEVICES_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "resources", "devices"))

# Parameter names, in the order the calibration fits them.
TIME_PARAMS = ("t0", "gpu", "mem", "p_dev", "launch_cpu", "launch_mem", "load_cpu", "load_mem",
               "c0", "n_sat", "q", "p")
POWER_PARAMS = ("static", "core_on", "core_clk", "core_busy", "v0_cpu", "gpu_clk", "gpu_busy",
                "v0_gpu", "mem_clk", "mem_busy")

# Inference: a fixed per-minibatch cost (t0; launch on the CPU and memory; the fixed GPU and
# memory work gpu0, mem0) plus per-request work that grows with the batch (gpu1, mem1 on the GPU
# side, pre_cpu: preprocessing spread over the cores). b_half: the batch at which the GPU's busy
# power is half its saturated value (small batches do not fill the GPU).
# A small batch does not fill the GPU: its per-request GPU work is (1 + g_small e^(-b/b_fill))
# times the large-batch value.
INFER_TIME_PARAMS = ("t0", "gpu0", "gpu1", "g_small", "b_fill", "mem0", "mem1", "p_dev",
                     "launch_cpu", "launch_mem", "pre_cpu", "c0", "n_sat", "q", "p")
INFER_POWER_PARAMS = POWER_PARAMS + ("b_half",)

# Share of the GPU compute and memory terms that does not grow with the minibatch size
# (per-kernel fixed costs); the data-loading terms grow linearly, the launch term not at all.
# This fixed share and the fixed launch term are why the time per sample falls with the batch
# and flattens (a small batch underfills the GPU): no separate underfill term is needed.
GPU_FIXED_SHARE = 0.25

# Training power within a minibatch (SIMULATED; docs/simulator.md, "Batch size (training)").
# The model's power is a minibatch average; a reading lands at a random point of a minibatch.
# For SWING_SHARE of a minibatch (the backward pass's large kernels) the GPU draws more than its
# average, for as long (the optimizer step, the wait for the next batch) as much less: the
# readings' median and mean stay at the model's power while their maximum rises above it. The
# swing is SWING_GPU times the GPU's average power (so it grows with the GPU clock and busy
# share) times b / (b + SWING_BATCH_HALF) (a small batch runs small kernels that never fill the
# GPU, so its power varies little within a minibatch).
SWING_SHARE = 0.05
SWING_GPU = 0.8
SWING_BATCH_HALF = 16.0


class Mode(object):
    __slots__ = ("cores", "cpu_khz", "gpu_hz", "emc_hz")

    def __init__(self, cores, cpu_khz, gpu_hz, emc_hz):
        self.cores = int(cores)
        self.cpu_khz = int(cpu_khz)
        self.gpu_hz = int(gpu_hz)
        self.emc_hz = int(emc_hz)

    def as_dict(self):
        return {"cores": self.cores, "cpu_khz": self.cpu_khz, "gpu_hz": self.gpu_hz,
                "emc_hz": self.emc_hz}

    def __repr__(self):
        return "Mode(%d, %d, %d, %d)" % (self.cores, self.cpu_khz, self.gpu_hz, self.emc_hz)


def load_profiles(path=None):
    with open(path or PROFILES_PATH, "r", encoding="utf-8") as f:
        return json.load(f)


def load_device_table(device, devices_dir=None):
    """The device's JSON table from resources/devices (cores, cpu_khz, gpu_hz, emc_hz, presets)."""
    path = os.path.join(devices_dir or DEVICES_DIR, device + ".json")
    with open(path, "r", encoding="utf-8") as f:
        return json.load(f)


def _pnorm(values, p):
    """Smooth maximum: (sum v^p)^(1/p); tends to max(values) as p grows."""
    m = max(values)
    if m <= 0.0:
        return 0.0
    s = 0.0
    for v in values:
        s += (v / m) ** p
    return m * s ** (1.0 / p)


def effective_cores(n, c0, n_sat, q):
    """Cores that do data loading: n - c0 (the main training thread takes part of one core),
    at least n/2 (a single core still loads half the time), saturating smoothly at n_sat (the
    loader stops scaling: worker count, memory bandwidth)."""
    a = max(float(n) - c0, 0.5 * n)
    m = min(a, n_sat)
    return m * ((a / m) ** -q + (n_sat / m) ** -q) ** (-1.0 / q)


def time_terms(tp, dev, mode, batch_size=16, ref_batch=16):
    """The model's component times (ms) for one minibatch; see docs/simulator.md."""
    fc = mode.cpu_khz / 1e6      # GHz
    fg = mode.gpu_hz / 1e9       # GHz
    fe = mode.emc_hz / 1e9       # GHz
    b = float(batch_size) / float(ref_batch)
    gscale = GPU_FIXED_SHARE + (1.0 - GPU_FIXED_SHARE) * b
    t_gpu = tp["gpu"] * dev.get("gpu_time", 1.0) * gscale / fg
    t_mem = tp["mem"] * dev.get("mem_time", 1.0) * gscale / fe
    t_dev = _pnorm((t_gpu, t_mem), tp["p_dev"])
    cpu_f = dev.get("cpu_time", 1.0)
    t_launch = (tp["launch_cpu"] * cpu_f / fc + tp["launch_mem"] * dev.get("mem_time", 1.0) / fe)
    eff = effective_cores(mode.cores, tp["c0"], tp["n_sat"], tp["q"])
    t_load = b * (tp["load_cpu"] * cpu_f / fc
                  + tp["load_mem"] * dev.get("mem_time", 1.0) / fe) / eff
    total = tp["t0"] + _pnorm((t_dev, t_launch, t_load), tp["p"])
    return {"gpu": t_gpu, "mem": t_mem, "dev": t_dev, "launch": t_launch, "load": t_load,
            "eff_cores": eff, "total": total}


def inference_time_terms(tp, dev, mode, batch):
    """Component times (ms) of one inference minibatch of `batch` requests; see docs/simulator.md.

    The same keys as time_terms (so power_terms applies): "launch" is the fixed CPU side (kernel
    launches, framework), "load" the per-request preprocessing on the cores, "gpu"/"mem" the GPU
    side's compute and memory traffic, each a fixed part plus a part per request."""
    fc = mode.cpu_khz / 1e6      # GHz
    fg = mode.gpu_hz / 1e9       # GHz
    fe = mode.emc_hz / 1e9       # GHz
    b = float(batch)
    mem_f = dev.get("mem_time", 1.0)
    cpu_f = dev.get("cpu_time", 1.0)
    per_req = tp["gpu1"] * (1.0 + tp["g_small"] * math.exp(-b / tp["b_fill"]))
    t_gpu = (tp["gpu0"] + per_req * b) * dev.get("gpu_time", 1.0) / fg
    t_mem = (tp["mem0"] + tp["mem1"] * b) * mem_f / fe
    t_dev = _pnorm((t_gpu, t_mem), tp["p_dev"])
    t_launch = tp["launch_cpu"] * cpu_f / fc + tp["launch_mem"] * mem_f / fe
    eff = effective_cores(mode.cores, tp["c0"], tp["n_sat"], tp["q"])
    t_pre = b * tp["pre_cpu"] * cpu_f / fc / eff
    total = tp["t0"] + _pnorm((t_dev, t_launch, t_pre), tp["p"])
    return {"gpu": t_gpu, "mem": t_mem, "dev": t_dev, "launch": t_launch, "load": t_pre,
            "eff_cores": eff, "total": total, "batch": b}


def _vf2(f, fmax, v0):
    """Dynamic power relative to the table maximum: x * V(x)^2, x = f/fmax, with the voltage
    linear in frequency, V(x)/V(fmax) = v0 + (1 - v0) x (v0: relative voltage at zero clock)."""
    x = f / fmax
    v = v0 + (1.0 - v0) * x
    return x * v * v


def power_terms(pp, dev, mode, terms=None):
    """Module power (W) split into the CPU, GPU, memory and static parts.

    terms: the time terms of a running workload (utilizations follow from them), or None for an
    idle device (clocks running, nothing to do)."""
    fmax = dev["fmax"]
    n = mode.cores
    xc = _vf2(mode.cpu_khz * 1e3, fmax["cpu_hz"], pp["v0_cpu"])
    xg = _vf2(mode.gpu_hz, fmax["gpu_hz"], pp["v0_gpu"])
    xe = mode.emc_hz / float(fmax["emc_hz"])
    if terms is None:
        u_gpu = u_mem = busy_cores = 0.0
    else:
        t = terms["total"]
        if "b_half" in pp and "batch" in terms:
            # inference: the GPU is busy for T_dev of each minibatch, but a small batch does not
            # fill it: its busy power saturates with the batch, b / (b + b_half)
            u_gpu = min(terms["dev"] / t, 1.0) * terms["batch"] / (terms["batch"] + pp["b_half"])
        else:
            u_gpu = min(terms["dev"] / t, 1.0) * terms["gpu"] / (terms["gpu"] + terms["mem"])
        u_mem = min(terms["mem"] / t, 1.0)
        busy_cores = min(float(n), min(terms["launch"] / t, 1.0)
                         + min(terms["load"] / t, 1.0) * terms["eff_cores"])
    cpu = dev.get("cpu_power", 1.0) * (pp["core_on"] * n + pp["core_clk"] * n * xc
                                       + pp["core_busy"] * busy_cores * xc)
    gpu = dev.get("gpu_power", 1.0) * (pp["gpu_clk"] * xg + pp["gpu_busy"] * u_gpu * xg)
    mem = dev.get("mem_power", 1.0) * (pp["mem_clk"] * xe + pp["mem_busy"] * u_mem * xe)
    static = dev.get("static_w", pp["static"])
    return {"cpu": cpu, "gpu": gpu, "mem": mem, "static": static,
            "total": cpu + gpu + mem + static}


def training_swing_w(gpu_w, batch):
    """How far (W) the power rises above (and falls below) its minibatch average during the
    peak (dip) phase of a training minibatch of `batch` samples, given the GPU's average power
    gpu_w: SWING_GPU * gpu_w * b / (b + SWING_BATCH_HALF). See SWING_SHARE."""
    b = float(batch)
    return SWING_GPU * gpu_w * b / (b + SWING_BATCH_HALF)


def swing_phase(u):
    """The phase of a reading that lands at fraction u (0 <= u < 1) of a minibatch: +1 in the
    peak phase, -1 in the dip phase, 0 otherwise (the peak and dip take SWING_SHARE each)."""
    if u < SWING_SHARE:
        return 1
    if u < 2.0 * SWING_SHARE:
        return -1
    return 0


class PerfModel(object):
    """Minibatch time and power for one device, all workloads of profiles.json."""

    def __init__(self, device, profiles=None, table=None):
        self.profiles = profiles if profiles is not None else load_profiles()
        self.table = table if table is not None else load_device_table(device)
        self.device = device
        dev = dict(self.profiles["devices"].get(device, {}))
        dev["fmax"] = {"cpu_hz": max(self.table["cpu_khz"]) * 1e3,
                       "gpu_hz": float(max(self.table["gpu_hz"])),
                       "emc_hz": float(max(self.table["emc_hz"]))}
        self.dev = dev
        # Idle power uses the reference workload's power coefficients (they describe the chip).
        self.idle_params = self.profiles["workloads"][self.profiles["reference_workload"]]["power"]

    def workloads(self):
        return sorted(self.profiles["workloads"].keys())

    def has_workload(self, name):
        return name in self.profiles["workloads"]

    def _wl(self, name):
        try:
            return self.profiles["workloads"][name]
        except KeyError:
            raise KeyError("unknown workload %r (known: %s)" % (name, ", ".join(self.workloads())))

    def time_terms(self, name, mode, batch_size=None):
        wl = self._wl(name)
        return time_terms(wl["time"], self.dev, mode,
                          batch_size if batch_size else wl.get("batch_size", 16),
                          wl.get("batch_size", 16))

    def time_ms(self, name, mode, batch_size=None):
        return self.time_terms(name, mode, batch_size)["total"]

    def power_w(self, name, mode, batch_size=None):
        wl = self._wl(name)
        return power_terms(wl["power"], self.dev, mode, self.time_terms(name, mode, batch_size))["total"]

    def power_split(self, name, mode, batch_size=None):
        """Power parts for a running workload, or for an idle device when name is None."""
        if name is None:
            return power_terms(self.idle_params, self.dev, mode, None)
        wl = self._wl(name)
        return power_terms(wl["power"], self.dev, mode, self.time_terms(name, mode, batch_size))

    # -- inference ----------------------------------------------------------------------------
    def has_inference(self, name):
        return "inference" in self.profiles["workloads"].get(name, {})

    def inference_workloads(self):
        return sorted(n for n in self.profiles["workloads"] if self.has_inference(n))

    def _inf(self, name):
        wl = self._wl(name)
        try:
            return wl["inference"]
        except KeyError:
            raise KeyError("workload %r has no inference profile (with one: %s)"
                           % (name, ", ".join(self.inference_workloads())))

    def inference_time_terms(self, name, mode, batch):
        if batch < 1:
            raise ValueError("inference batch size must be >= 1, got %r" % (batch,))
        return inference_time_terms(self._inf(name)["time"], self.dev, mode, batch)

    def inference_time_ms(self, name, mode, batch):
        """Time (ms) of one inference minibatch of `batch` requests."""
        return self.inference_time_terms(name, mode, batch)["total"]

    def inference_power_split(self, name, mode, batch):
        return power_terms(self._inf(name)["power"], self.dev, mode,
                           self.inference_time_terms(name, mode, batch))

    def inference_power_w(self, name, mode, batch):
        """Module power (W) while inference minibatches of `batch` requests run back to back."""
        return self.inference_power_split(name, mode, batch)["total"]

    def idle_power_w(self, mode):
        return self.power_split(None, mode)["total"]

    # -- training at other batch sizes (SIMULATED: docs/simulator.md, "Batch size (training)") --
    def training_swing_w(self, name, mode, batch_size=None):
        """Within-minibatch power swing (W) of training: the peak phase reads this much above
        power_w, the dip phase as much below (see SWING_SHARE)."""
        b = batch_size if batch_size else self._wl(name).get("batch_size", 16)
        return training_swing_w(self.power_split(name, mode, b)["gpu"], b)

    def training_peak_w(self, name, mode, batch_size=None):
        """The power of the peak phase (W, before reading noise): power_w + training_swing_w."""
        return self.power_w(name, mode, batch_size) + self.training_swing_w(name, mode, batch_size)

    def training_memory_gib(self, name, batch_size):
        """GiB a training process of `batch_size` samples needs: fixed (CUDA context, weights,
        gradients, optimizer state) plus activations per sample."""
        mem = self._wl(name)["memory"]
        return mem["fixed_gib"] + batch_size * mem["per_sample_gib"]

    def memory_gib(self):
        """GiB of the device's memory a training process can use (the OS keeps the rest)."""
        return self.dev["memory_gib"]

    def out_of_memory(self, name, batch_size):
        """The CUDA out-of-memory message of a training batch that does not fit, else None (also
        when the workload or the device has no memory model)."""
        if "memory" not in self._wl(name) or "memory_gib" not in self.dev:
            return None
        need = self.training_memory_gib(name, batch_size)
        if need <= self.memory_gib():
            return None
        return ("CUDA out of memory: training batch %d of %s needs about %.1f GiB, the device "
                "has %.1f GiB" % (batch_size, name, need, self.memory_gib()))
