#!/usr/bin/env python3
"""PowerTrain Workbench device agent.

Speaks JSON lines on stdin/stdout (see docs/device-protocol.md). Standard library only,
Python 3.8+. Uploaded to devices with its sibling ptwb_helper.py, and runs as the login user:
workloads, power and thermal sampling and profiling never run as root. What needs root (setting
and reading back clocks and cores, the armed revert, a reboot) is asked of the installed
privileged helper through `sudo -n` (see ptwb_helper.py and docs/ssh.md), after checking that
the installed helper is root-owned, writable by nobody else, and this agent's own copy.

Threads: the main thread reads requests; `stop` and `confirm` are answered at once, every
other op runs in order on one worker thread. A notice thread per armed revert reports the
helper's revert as a `reverted` event; the revert itself is the helper's watchdog's.
"""

import argparse
import bisect
import collections
import json
import math
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptwb_helper  # noqa: E402  (its uploaded copy: the reads, and the hash to check)
from ptwb_helper import KernelFiles, OpError, MODE_FIELDS  # noqa: E402,F401

AGENT_VERSION = "1.0.0"
PROTOCOL = 1
MAX_LINE = 1024 * 1024  # bytes, newline excluded
STDERR_KEEP = 20

HWMON_LABEL_GLOB = "sys/bus/i2c/drivers/ina3221/*/hwmon/hwmon*/in*_label"
THERMAL_DIR = "sys/class/thermal"

STREAMING_OPS = ("sample_power", "profile", "run_concurrent")
ALL_OPS = ("hello", "get_mode", "apply_mode", "arm_revert", "confirm",
           "sample_power", "profile", "run_concurrent", "stop", "reboot", "stage_mode",
           "unstage")
BUILTIN_WORKLOADS = ("resnet18", "mobilenet_v3")

REVERT_STATUS_POLL_S = 0.25  # wall seconds between looks at a revert past its deadline
REVERT_STATUS_TRIES = 40     # ... and how many (the watchdog restores within a poll)
HELPER_TIMEOUT_S = 90.0      # one helper call (a reboot command may take 60 s)
HELPER_OUTPUT_MAX = 1 << 20  # bytes of helper output read at most

INPUT_RAILS = {
    "orin-agx": ("VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"),
    "orin-nano": ("VDD_IN",),
    "xavier-agx": ("GPU", "CPU", "SOC", "CV", "VDDRQ", "SYS5V"),
}


def log(msg):
    try:
        sys.stderr.write("ptwb_agent: %s\n" % msg)
        sys.stderr.flush()
    except Exception:
        pass


def _natural_key(s):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s)]


# --------------------------------------------------------------------------------------------
# Errors and validation

def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    return math.isfinite(v)


def _type_name(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def req_int(obj, key, name, lo=None, hi=None, default=None, required=True):
    if key not in obj:
        if not required:
            return default
        raise OpError("bad_field", "%s: missing; expected an integer" % name)
    v = obj[key]
    if not _is_int(v):
        raise OpError("bad_field", "%s: expected an integer, got %s" % (name, _type_name(v)))
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise OpError("bad_field", "%s: %d out of range; expected %s..%s"
                      % (name, v, lo if lo is not None else "", hi if hi is not None else ""))
    return v


def req_number(obj, key, name, lo=None, hi=None, default=None, required=True, lo_open=False):
    if key not in obj:
        if not required:
            return default
        raise OpError("bad_field", "%s: missing; expected a number" % name)
    v = obj[key]
    if not _is_number(v):
        raise OpError("bad_field", "%s: expected a number, got %s" % (name, _type_name(v)))
    bad_lo = lo is not None and (v <= lo if lo_open else v < lo)
    if bad_lo or (hi is not None and v > hi):
        raise OpError("bad_field", "%s: %s out of range; expected %s%s..%s"
                      % (name, v, "> " if lo_open else "", lo if lo is not None else "",
                         hi if hi is not None else ""))
    return v


def validate_mode(obj, tables=None, name="mode"):
    """Check a wire mode's shape (and, given the tables, its values). Returns a clean dict or
    raises OpError. The helper checks the values against the device's tables again itself."""
    if name not in obj:
        raise OpError("bad_field", "%s: missing; expected an object with %s"
                      % (name, ", ".join(MODE_FIELDS)))
    m = obj[name]
    if not isinstance(m, dict):
        raise OpError("bad_field", "%s: expected an object, got %s" % (name, _type_name(m)))
    out = {}
    for f in MODE_FIELDS:
        # Given the tables, a whole number outside them (0, 13 cores) is no_such_mode with the
        # nearest allowed values (docs/device-protocol.md), not bad_field.
        out[f] = req_int(m, f, "%s.%s" % (name, f), lo=None if tables else 1,
                         hi=None if tables else 10 ** 12)
    if tables is not None:
        ptwb_helper.check_in_tables(out, tables, name)
    return out


def validate_settle(obj):
    s = obj.get("settle", {})
    if "settle" in obj and not isinstance(s, dict):
        raise OpError("bad_field", "settle: expected an object, got %s" % _type_name(s))
    return {
        "tolerance": req_number(s, "tolerance", "settle.tolerance", lo=0, hi=1, lo_open=True,
                                default=0.03, required=False),
        "window": req_int(s, "window", "settle.window", lo=2, hi=10000, default=5, required=False),
        "timeout_s": req_number(s, "timeout_s", "settle.timeout_s", lo=0, hi=86400, lo_open=True,
                                default=10.0, required=False),
    }


def validate_workload(obj, key="workload", builtin_only=False):
    """The workload object obj[key]: {"kind": "builtin", "name", "batch_size"[, "inference"]} or
    {"kind": "command", "argv", "cwd"}. Returns a clean dict or raises OpError naming the field."""
    if key not in obj:
        raise OpError("bad_field", "%s: missing; expected an object with kind builtin%s"
                      % (key, "" if builtin_only else " or command"))
    w = obj[key]
    if not isinstance(w, dict):
        raise OpError("bad_field", "%s: expected an object, got %s" % (key, _type_name(w)))
    kind = w.get("kind")
    if kind == "builtin":
        name = w.get("name")
        if not isinstance(name, str):
            raise OpError("bad_field", "%s.name: expected a string (%s), got %s"
                          % (key, " or ".join(BUILTIN_WORKLOADS), _type_name(name)))
        if name not in BUILTIN_WORKLOADS:
            # repr() of user text only ever reaches a message, never an argv or a shell
            raise OpError("bad_field", "%s.name: %r unknown; expected %s"
                          % (key, name[:64], " or ".join(BUILTIN_WORKLOADS)))
        b = req_int(w, "batch_size", "%s.batch_size" % key, lo=1, hi=4096)
        inference = w.get("inference", False)
        if not isinstance(inference, bool):
            raise OpError("bad_field", "%s.inference: expected a boolean, got %s"
                          % (key, _type_name(inference)))
        out = {"kind": "builtin", "name": name, "batch_size": b}
        if inference:
            out["inference"] = True
        return out
    if builtin_only and kind == "command":
        raise OpError("bad_field", "%s.kind: run_concurrent runs built-in workloads only (%s); "
                      "a command workload cannot take the agent's turns"
                      % (key, " or ".join(BUILTIN_WORKLOADS)))
    if kind == "command":
        argv = w.get("argv")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise OpError("bad_field", "workload.argv: expected a non-empty array of strings")
        if any("\x00" in a for a in argv):
            raise OpError("bad_field", "workload.argv: NUL character in an argument")
        cwd = w.get("cwd")
        if cwd is not None and (not isinstance(cwd, str) or not cwd or "\x00" in cwd):
            raise OpError("bad_field", "workload.cwd: expected a non-empty string or null")
        out = {"kind": "command", "argv": list(argv), "cwd": cwd}
        # A sweep over batch sizes tells the command its batch (and whether it is inference) in
        # its environment, as whole numbers only: nothing of the caller's text reaches it.
        if "batch_size" in w:
            out["batch_size"] = req_int(w, "batch_size", "workload.batch_size", lo=1, hi=4096)
        inference = w.get("inference", False)
        if not isinstance(inference, bool):
            raise OpError("bad_field", "workload.inference: expected a boolean, got %s"
                          % _type_name(inference))
        if inference:
            out["inference"] = True
        return out
    if kind is None and "kind" not in w:
        raise OpError("bad_field", "%s.kind: missing; expected \"builtin\" or \"command\"" % key)
    raise OpError("bad_field", "%s.kind: expected \"builtin\" or \"command\", got %s"
                  % (key, json.dumps(kind[:64]) if isinstance(kind, str) else _type_name(kind)))


# --------------------------------------------------------------------------------------------
# Statistics, settling and window selection (pure functions)

def quantile(sorted_vals, p):
    """Linear-interpolation quantile (numpy's default) of an already sorted list."""
    n = len(sorted_vals)
    if n == 0:
        return None
    pos = (n - 1) * p
    lo = int(math.floor(pos))
    hi = min(lo + 1, n - 1)
    frac = pos - lo
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * frac


def stats(values, ndigits=4):
    v = sorted(values)
    if not v:
        return {"median": None, "q1": None, "q3": None}
    return {"median": round(quantile(v, 0.5), ndigits), "q1": round(quantile(v, 0.25), ndigits),
            "q3": round(quantile(v, 0.75), ndigits)}


def stats_with_max(values, ndigits=4):
    """stats() plus "max", the largest value rounded alike (None without values): the peak a
    power cap must allow for, beside the median (and the slowest minibatch beside the typical)."""
    out = stats(values, ndigits)
    out["max"] = round(max(values), ndigits) if values else None
    return out


def window_settled(values, tolerance):
    """True when every value lies within tolerance (relative) of the values' median."""
    if not values:
        return False
    med = quantile(sorted(values), 0.5)
    if med == 0:
        return all(x == 0 for x in values)
    return all(abs(x - med) <= tolerance * abs(med) for x in values)


def find_settle(samples, tolerance, window, timeout_s, train_t):
    """samples: [(t_s, total_w)] in time order; train_t: when the workload started training
    (the end of its first, warm-up minibatch), None while it has not. Returns (t_settle, settled).

    Only training samples (t_s >= train_t) count: idle power settles within a fraction of a
    second of a mode change, long before the workload's first minibatch, and must not pass for
    settled training power. Settled at the time of the first training sample that completes a
    window of `window` training samples all within tolerance of their median. Otherwise, at
    train_t + timeout_s if a training sample reached it: (train_t + timeout_s, False).
    Otherwise (None, False), and always (None, False) while train_t is None.
    """
    if train_t is None:
        return (None, False)
    deadline = train_t + timeout_s
    training = [s for s in samples if s[0] >= train_t]
    for i in range(len(training)):
        t = training[i][0]
        if i + 1 >= window:
            vals = [w for (_, w) in training[i + 1 - window:i + 1]]
            if window_settled(vals, tolerance):
                if t > deadline:
                    return (deadline, False)
                return (t, True)
        if t >= deadline:
            return (deadline, False)
    return (None, False)


def clean_start(minibatches, settle_t):
    """Where the clean window starts: the later of the end of the first (warm-up) minibatch
    and settle_t (None: the run never settled). None when there is no minibatch."""
    if not minibatches:
        return None
    train_t = minibatches[0][2]
    return train_t if settle_t is None else max(train_t, settle_t)


def select_clean(minibatches, samples, settle_t):
    """minibatches: [(index, ms, t_end)] in arrival order; samples: [(t_s, total_w)].

    The first minibatch is warm-up. The clean window starts at clean_start(): the later of the
    end of the first minibatch and settle_t (settle_t None: the run never settled). A minibatch
    is clean when it is not the first and ended at or after that start. Power is the samples
    in [start, end of the last clean minibatch] (falling back to every sample from start on).
    Samples taken before the end of the first minibatch, when the workload was not training
    yet, are never used: with none left, power_w is null. Each has its median, quartiles and
    max (the largest clean minibatch time, the largest power sample of the same window).
    """
    start = clean_start(minibatches, settle_t)
    if start is None:
        clean, pw = [], []
    else:
        clean = [mb for mb in minibatches[1:] if mb[2] >= start]
        end = clean[-1][2] if clean else None
        pw = [w for (t, w) in samples if t >= start and (end is None or t <= end)]
        if not pw:
            pw = [w for (t, w) in samples if t >= start]
    return {
        "time_ms": stats_with_max([mb[1] for mb in clean], 3),
        "power_w": stats_with_max(pw, 4),
        "minibatches": len(clean),
        "discarded": len(minibatches) - len(clean),
    }


# --------------------------------------------------------------------------------------------
# Concurrent training and inference: the time-slicing schedule (pure; see run_concurrent)

CONCURRENT_MAX_REQUESTS = 200000   # arrival_rate x duration_s: bounds the latencies kept
CONCURRENT_MAX_RATE = 10000.0      # requests per second
CONCURRENT_MAX_DURATION_S = 3600.0
TRAIN_ESTIMATE_WINDOW = 5          # recent training minibatches whose median predicts the next


class TimeSlicer(object):
    """The device's schedule when it trains while it serves inference (Fulcrum), in device
    seconds of a timeline that starts when the first request arrives.

    Request k arrives at k/rate (deterministic spacing). Inference batch j holds requests
    j*b .. j*b+b-1 and is ready when its last request has arrived, at (j*b+b-1)/rate; it runs as
    soon as it is ready and the device is free. In between the device trains, one minibatch at a
    time, starting one only when it is expected (the median of the recent training minibatches)
    to end before the next batch is ready; otherwise it idles until then. A minibatch cannot be
    preempted: one that takes longer than expected delays the batch (an overrun), as real time
    slicing does. A request's latency is the end of its batch's inference minus its arrival; the
    first request of a batch waits (b-1)/rate for the batch to fill.

    Only complete batches of requests that arrive within duration_s are served; the run ends
    when the last of them has been answered.
    """

    def __init__(self, rate, batch, duration_s):
        self.rate = float(rate)
        self.b = int(batch)
        self.batches = int(math.floor(duration_s * self.rate / self.b + 1e-9))
        self.v = 0.0                 # device seconds on the timeline
        self.j = 0                   # next batch
        self.latencies = []          # seconds, one per answered request
        self.train_ms = []
        self.infer_ms = []
        self.idle_s = 0.0
        self.overruns = 0            # batches started late because training was still running
        self.max_overrun_s = 0.0
        self.backlog = 0             # batches started late because inference was still running
        self._last = None

    def ready_at(self, j):
        return (j * self.b + self.b - 1) / self.rate

    def done(self):
        return self.j >= self.batches

    def train_estimate_s(self, seed_ms):
        recent = self.train_ms[-TRAIN_ESTIMATE_WINDOW:] or [seed_ms]
        return quantile(sorted(recent), 0.5) / 1000.0

    def next_action(self, seed_train_ms):
        """("infer", start), ("train", start) or ("idle", until); None when done."""
        if self.done():
            return None
        ready = self.ready_at(self.j)
        if ready <= self.v + 1e-12:
            return ("infer", self.v)
        if self.v + self.train_estimate_s(seed_train_ms) <= ready:
            return ("train", self.v)
        return ("idle", ready)

    def idle(self, until):
        if until > self.v:
            self.idle_s += until - self.v
            self.v = until
        self._last = "idle"

    def trained(self, ms):
        self.train_ms.append(ms)
        self.v += ms / 1000.0
        self._last = "train"

    def inferred(self, ms):
        ready = self.ready_at(self.j)
        late = self.v - ready
        if late > 1e-9:
            if self._last == "train":
                self.overruns += 1
                self.max_overrun_s = max(self.max_overrun_s, late)
            else:
                self.backlog += 1
        self.infer_ms.append(ms)
        self.v += ms / 1000.0
        first = self.j * self.b
        for k in range(first, first + self.b):
            self.latencies.append(self.v - k / self.rate)
        self.j += 1
        self._last = "infer"

    def summary(self):
        """Latency percentiles (ms) over the requests answered so far, and the rates."""
        lat = sorted(self.latencies)
        span = self.v
        out = {
            "requests": len(lat),
            "latency_ms": None,
            "train_minibatches": len(self.train_ms),
            "infer_minibatches": len(self.infer_ms),
            "train_per_s": round(len(self.train_ms) / span, 4) if span > 0 else 0.0,
            "infer_per_s": round(len(self.infer_ms) / span, 4) if span > 0 else 0.0,
            "overruns": self.overruns,
        }
        if lat:
            out["latency_ms"] = dict((k, round(quantile(lat, p) * 1000.0, 3)) for k, p in
                                     (("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0)))
        return out


def parse_minibatch_line(line):
    """`PTWB_MINIBATCH <ms>` -> float ms, else None."""
    parts = line.strip().split()
    if len(parts) != 2 or parts[0] != "PTWB_MINIBATCH":
        return None
    try:
        ms = float(parts[1])
    except ValueError:
        return None
    if not math.isfinite(ms) or ms < 0:
        return None
    return ms


def parse_nvpmodel(text, tables):
    """Presets from nvpmodel.conf text. Skips what it cannot parse."""
    presets = []
    cur = None
    bad = False

    def table_value(field, v):
        t = tables.get(field) or []
        if v <= 0:
            return t[-1] if t else None
        if not t:
            return v
        i = bisect.bisect_right(t, v)
        return t[i - 1] if i > 0 else t[0]

    def finish():
        if cur is None or bad:
            return
        p = {"id": cur["id"], "name": cur["name"]}
        cores = cur["cores"]
        if cores is None:
            cores = tables["cores"][-1] if tables.get("cores") else None
        p["cores"] = cores
        p["cpu_khz_max"] = table_value("cpu_khz", max(cur["cpu"]) if cur["cpu"] else -1) \
            if (cur["cpu"] and min(cur["cpu"]) > 0) else table_value("cpu_khz", -1)
        p["gpu_hz_max"] = table_value("gpu_hz", cur["gpu"] if cur["gpu"] is not None else -1)
        p["emc_hz_max"] = table_value("emc_hz", cur["emc"] if cur["emc"] is not None else -1)
        presets.append(p)

    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("<"):
            if cur is not None:
                finish()
                cur = None
            if "POWER_MODEL" in line:
                bad = False
                m_id = re.search(r"\bID=(\S+?)\s*(?:>|\s)", line + " ")
                m_name = re.search(r"\bNAME=(.+?)\s*>", line)
                try:
                    pid = int(m_id.group(1))
                    name = m_name.group(1).strip()
                except Exception:
                    bad = True
                    pid, name = None, None
                cur = {"id": pid, "name": name, "cores": None, "cpu": [], "gpu": None, "emc": None,
                       "online": 0}
            continue
        if cur is None or bad:
            continue
        tok = line.split()
        try:
            if tok[0] == "CPU_ONLINE" and len(tok) >= 3:
                if int(tok[2]) == 1:
                    cur["cores"] = (cur["cores"] or 0) + 1
                elif cur["cores"] is None:
                    cur["cores"] = 0
            elif tok[0].startswith("CPU_") and len(tok) >= 3 and tok[1] == "MAX_FREQ":
                cur["cpu"].append(int(tok[2]))
            elif tok[0] == "GPU" and len(tok) >= 3 and tok[1] == "MAX_FREQ":
                cur["gpu"] = int(tok[2])
            elif tok[0] == "EMC" and len(tok) >= 3 and tok[1] == "MAX_FREQ":
                cur["emc"] = int(tok[2])
        except (ValueError, IndexError):
            bad = True
    if cur is not None:
        finish()
    return presets


def device_kind(model):
    if not model:
        return None
    if "AGX Orin" in model:
        return "orin-agx"
    if "Orin Nano" in model:
        return "orin-nano"
    # A real AGX Xavier's device tree says just "Jetson-AGX".
    if "AGX Xavier" in model or model.strip() == "Jetson-AGX":
        return "xavier-agx"
    return None


# --------------------------------------------------------------------------------------------
# The device as the login user sees it: model, power rails, thermal zones

class Device(object):
    def __init__(self, files):
        self.f = files

    def _read(self, path, default=None):
        try:
            return self.f.read(path)
        except (OSError, IOError):
            return default

    def boot_id(self):
        return (self._read(ptwb_helper.BOOT_ID_FILE) or "").strip() or None

    def model(self):
        return self._read("proc/device-tree/model")

    # --- power and thermal
    def rails(self):
        """[(label, in_path, curr_path)] for every rail that has a current reading."""
        out = []
        for lp in sorted(self.f.glob(HWMON_LABEL_GLOB), key=_natural_key):
            m = re.match(r"(.*)/in(\d+)_label$", lp)
            if not m:
                continue
            label = self._read(lp)
            if not label or label.startswith("Sum of"):
                continue
            d, k = m.group(1), m.group(2)
            inp, cur = "%s/in%s_input" % (d, k), "%s/curr%s_input" % (d, k)
            if not self.f.exists(cur) or not self.f.exists(inp):
                continue
            out.append((label, inp, cur))
        return out

    def read_power(self, rails, kind):
        """Returns (total_w, {label: watts})."""
        values = {}
        for label, inp, cur in rails:
            try:
                mv = float(self.f.read(inp))
                ma = float(self.f.read(cur))
            except (OSError, IOError, ValueError):
                continue
            values[label] = round(mv * ma / 1e6, 4)
        inputs = [r for r in INPUT_RAILS.get(kind, ()) if r in values]
        if inputs:
            total = sum(values[r] for r in inputs)
        else:
            total = sum(values.values())
        return round(total, 4), values

    def thermal(self):
        out = []
        for tp in sorted(self.f.glob(THERMAL_DIR + "/thermal_zone*/type"), key=_natural_key):
            d = tp[:-len("/type")]
            name = self._read(tp)
            temp = self._read(d + "/temp")
            try:
                out.append({"zone": name, "temp_c": round(int(temp) / 1000.0, 2)})
            except (TypeError, ValueError):
                continue
        return out


# --------------------------------------------------------------------------------------------
# The agent

# --------------------------------------------------------------------------------------------
# The privileged helper, as the agent calls it

SUDO = "/usr/bin/sudo"


def own_helper_sha256():
    """The hash of the helper this agent came with (its uploaded sibling): the installed one must
    be exactly this file."""
    return ptwb_helper.file_sha256(os.path.abspath(ptwb_helper.__file__))


def _reply_of(status, reply):
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        raise OpError("helper_failed", "the helper's reply is not understood (exit %s)" % status)
    if reply["ok"]:
        result = reply.get("result")
        return result if isinstance(result, dict) else {}
    err = reply.get("error") if isinstance(reply.get("error"), dict) else {}
    extra = dict((k, v) for k, v in err.items() if k not in ("code", "message"))
    raise OpError(str(err.get("code", "helper_failed")),
                  str(err.get("message", "the helper failed (exit %s)" % status)), **extra)


class HelperProcess(object):
    """Runs the helper as a child process, one verb per run: `sudo -n INSTALL_PATH VERB ...` on a
    device (after checking the installed file), or a given argv prefix (the simulated Jetson's
    helper, which runs the same code against its fake kernel). Only the verb and whole numbers,
    tokens or boot ids from ptwb_helper's interface are ever appended."""

    def __init__(self, prefix, installed=False, simulated=False):
        self.prefix = list(prefix)
        self.installed = installed
        self.simulated = simulated
        self._expected = own_helper_sha256() if installed else None

    @staticmethod
    def for_device():
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            return HelperProcess([ptwb_helper.INSTALL_PATH], installed=True)
        return HelperProcess([SUDO, "-n", ptwb_helper.INSTALL_PATH], installed=True)

    def problem(self):
        """(state, message) when the installed helper must not be used, else None."""
        if not self.installed:
            return None
        why = ptwb_helper.install_problem(ptwb_helper.INSTALL_PATH, None, 0)
        if why is not None:
            state = "missing" if why.endswith("is not installed") else "unsafe"
            how = "run `ptwb device setup` (or the Devices view's Set up) to install it" \
                if state == "missing" else "remove it and run `ptwb device setup` again"
            return state, "%s; %s" % (why, how)
        if ptwb_helper.file_sha256(ptwb_helper.INSTALL_PATH) == self._expected:
            return None
        theirs = ptwb_helper.installed_version(ptwb_helper.INSTALL_PATH)
        if theirs is not None and theirs < ptwb_helper.HELPER_VERSION:
            return "outdated", ("the installed helper %s is version %d; this workbench needs "
                                "version %d: run `ptwb device setup` to update it"
                                % (ptwb_helper.INSTALL_PATH, theirs, ptwb_helper.HELPER_VERSION))
        return "modified", ("%s is not this workbench's helper (its content differs); run "
                            "`ptwb device setup` to install this one" % ptwb_helper.INSTALL_PATH)

    def call(self, *args):
        bad = self.problem()
        if bad is not None:
            raise OpError("helper_" + bad[0], bad[1])
        argv = self.prefix + [str(a) for a in args]
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=HELPER_TIMEOUT_S,
                                  close_fds=True)
        except subprocess.TimeoutExpired:
            raise OpError("helper_failed", "the helper did not answer %s within %d s"
                          % (args[0], HELPER_TIMEOUT_S))
        except OSError as e:
            raise OpError("helper_failed", "cannot run %s: %s" % (argv[0], e.strerror or e))
        out = done.stdout[:HELPER_OUTPUT_MAX].decode("utf-8", "replace").strip().splitlines()
        try:
            reply = json.loads(out[-1]) if out else None
        except ValueError:
            reply = None
        if reply is None:
            err = done.stderr[:4096].decode("utf-8", "replace")
            if self.installed and "password is required" in err:
                raise OpError("helper_not_allowed", "sudo does not let this user run %s without a "
                              "password; run `ptwb device setup` to add the rule"
                              % ptwb_helper.INSTALL_PATH)
            lines = [l.strip() for l in err.splitlines() if l.strip()]
            raise OpError("helper_failed", "the helper exited with status %d%s"
                          % (done.returncode, (": " + lines[-1][:300]) if lines else ""))
        return _reply_of(done.returncode, reply)


class HelperInProcess(object):
    """The helper's code run in this process against a Config (the agent's unit tests)."""

    simulated = False

    def __init__(self, config):
        self.config = config

    def problem(self):
        return None

    def call(self, *args):
        status, reply = ptwb_helper.run([str(a) for a in args], self.config)
        return _reply_of(status, reply)


class Clock(object):
    def __init__(self, scale):
        self.scale = float(scale)

    def real(self, device_seconds):
        return device_seconds / self.scale


class Agent(object):
    def __init__(self, files, out, time_scale=1.0, workload_runner=None, helper=None,
                 on_reboot=None):
        """helper: HelperProcess or HelperInProcess (None: the installed one, through sudo);
        on_reboot: called once the reply to `reboot` is written (the simulator drops the
        connection there, as a real reboot would)."""
        self.dev = Device(files)
        self.helper = helper if helper is not None else HelperProcess.for_device()
        self.on_reboot = on_reboot
        self._after_reply = None  # set by `reboot`: run on the worker once its reply is written
        self._tables = None       # the device's tables, read once per connection
        self.out = out
        self.clock = Clock(time_scale)
        self.runner = workload_runner
        self.out_lock = threading.Lock()
        self.connected = True
        self.state_lock = threading.Lock()
        self.streaming = None  # (id, stop_event) of the queued or running streaming op
        self.jobs = queue.Queue()
        self.worker = threading.Thread(target=self._work, name="ptwb-worker")
        self.worker.daemon = True
        # the revert this connection armed: dict(id, token, deadline (monotonic), done (Event))
        self.revert_lock = threading.Lock()
        self.revert = None

    # --- output
    def emit(self, obj):
        line = json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n"
        with self.out_lock:
            if not self.connected:
                return
            try:
                self.out.write(line)
                self.out.flush()
            except (OSError, IOError, ValueError) as e:
                log("output lost (%s); treating the desktop as disconnected" % e)
                self.connected = False

    def reply_ok(self, rid, result):
        self.emit({"id": rid, "ok": True, "result": result})

    def reply_err(self, rid, code, message, **extra):
        err = {"code": code, "message": message}
        err.update(extra)
        self.emit({"id": rid, "ok": False, "error": err})

    # --- request entry point (reader thread)
    def handle_line(self, raw):
        """raw: bytes or str without the newline, already length-checked."""
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                self.reply_err(None, "bad_request", "request is not valid UTF-8")
                return
        if not raw.strip():
            return
        try:
            req = json.loads(raw)
        except ValueError as e:
            self.reply_err(None, "bad_request", "request is not JSON: %s" % e)
            return
        except RecursionError:
            self.reply_err(None, "bad_request", "request is nested too deeply")
            return
        if not isinstance(req, dict):
            self.reply_err(None, "bad_request", "request is not a JSON object")
            return
        rid = req.get("id")
        if "id" not in req or not (_is_int(rid) or isinstance(rid, str)):
            self.reply_err(None, "bad_field", "id: expected an integer or a string, got %s"
                           % ("nothing" if "id" not in req else _type_name(rid)))
            return
        op = req.get("op")
        if not isinstance(op, str):
            self.reply_err(rid, "bad_request", "op: missing; expected a string" if "op" not in req
                           else "op: expected a string, got %s" % _type_name(op))
            return
        if op not in ALL_OPS:
            self.reply_err(rid, "unknown_op", "unknown op %r; known: %s" % (op, ", ".join(ALL_OPS)))
            return
        try:
            if op == "stop":
                self.op_stop(rid, req)
                return
            if op == "confirm":
                self.op_confirm(rid, req)
                return
            stop_ev = None
            if op in STREAMING_OPS:
                with self.state_lock:
                    if self.streaming is not None:
                        self.reply_err(rid, "busy", "streaming request %s is still running"
                                       % json.dumps(self.streaming[0]))
                        return
                    stop_ev = threading.Event()
                    self.streaming = (rid, stop_ev)
            self.jobs.put((rid, op, req, stop_ev))
        except OpError as e:
            self.reply_err(rid, e.code, e.message, **e.extra)
        except Exception as e:
            log("internal error in %s: %s" % (op, traceback.format_exc()))
            self.reply_err(rid, "internal", "%s: %s" % (type(e).__name__, e))

    # --- worker
    def _work(self):
        while True:
            job = self.jobs.get()
            if job is None:
                return
            rid, op, req, stop_ev = job
            reply = None
            try:
                if stop_ev is not None and stop_ev.is_set():
                    raise OpError("stopped", "stopped before it started")
                result = getattr(self, "op_" + op)(rid, req, stop_ev) if op in STREAMING_OPS \
                    else getattr(self, "op_" + op)(rid, req)
                reply = (self.reply_ok, (rid, result), {})
            except OpError as e:
                reply = (self.reply_err, (rid, e.code, e.message), e.extra)
            except Exception as e:
                log("internal error in %s: %s" % (op, traceback.format_exc()))
                reply = (self.reply_err, (rid, "internal", "%s: %s" % (type(e).__name__, e)), {})
            finally:
                # Free the streaming slot before the reply goes out, on every path: a desktop
                # that sends its next streaming request the moment it reads this reply must
                # not get `busy`.
                if stop_ev is not None:
                    self._release_streaming(stop_ev)
            if reply is not None:
                fn, args, kw = reply
                try:
                    fn(*args, **kw)
                except Exception as e:  # e.g. a result that is not JSON
                    log("internal error replying to %s: %s" % (op, traceback.format_exc()))
                    self.reply_err(rid, "internal", "%s: %s" % (type(e).__name__, e))
            after, self._after_reply = self._after_reply, None
            if after is not None:
                after()

    def _release_streaming(self, stop_ev):
        with self.state_lock:
            if self.streaming is not None and self.streaming[1] is stop_ev:
                self.streaming = None

    # --- ops
    def _read_clocks(self):
        """The helper's `read`: {"tables", "mode", "mode_changes"}; the tables are kept."""
        r = self.helper.call("read")
        if isinstance(r.get("tables"), dict):
            self._tables = r["tables"]
        return r

    def helper_status(self):
        """How the helper stands, for hello: {"state": "ok" | "missing" | "unsafe" | "outdated" |
        "modified" | "not_allowed" | "failed", "message", "path", "version", "simulated"}."""
        return {"state": "ok", "message": None, "path": ptwb_helper.INSTALL_PATH,
                "version": ptwb_helper.HELPER_VERSION,
                "simulated": bool(getattr(self.helper, "simulated", False))}

    def op_hello(self, rid, req):
        d = self.dev
        model = d.model()
        helper = self.helper_status()
        try:
            clocks = self._read_clocks()
        except OpError as e:
            # Without the helper the device can still be looked at, not changed: the tables
            # and mode as the login user can read them (debugfs, hence EMC, is root's).
            helper["state"] = e.code[len("helper_"):] if e.code.startswith("helper_") \
                else "failed"
            helper["message"] = e.message
            c = ptwb_helper.Clocks(d.f)
            tables = c.tables()
            clocks = {"tables": tables, "mode": c.read_mode(tables)[0],
                      "mode_changes": c.mode_changes(), "revert": None, "staged": None}
        tables = clocks["tables"]
        presets = []
        try:
            conf = d._read("etc/nvpmodel.conf")
            if conf:
                presets = parse_nvpmodel(conf, tables)
        except Exception as e:
            log("nvpmodel.conf not understood: %s" % e)
        rails = []
        try:
            rails = [r[0] for r in d.rails()]
        except Exception as e:
            log("rails: %s" % e)
        thermal = []
        try:
            thermal = d.thermal()
        except Exception as e:
            log("thermal: %s" % e)
        return {
            "agent_version": AGENT_VERSION,
            "protocol": PROTOCOL,
            "model": model,
            "device": device_kind(model),
            "l4t": parse_l4t(d._read("etc/nv_tegra_release")),
            "boot_id": d.boot_id(),
            "simulated": bool(model and "(simulated)" in model),
            "tables": tables,
            "presets": presets,
            "rails": rails,
            "thermal": thermal,
            "mode": clocks["mode"],
            "mode_changes": clocks["mode_changes"],
            "helper": helper,
            "revert": self._adopt_revert(rid, clocks.get("revert")),
            "staged": clocks.get("staged"),
        }

    def _adopt_revert(self, rid, revert):
        """hello's `revert`: the armed revert the helper reports (any connection's, or the one
        the boot unit armed for an apply-by-reboot), or None. When this connection is not
        already watching it, its `reverted` event comes with hello's id."""
        if not isinstance(revert, dict) or not isinstance(revert.get("token"), str):
            return None
        left = revert.get("seconds_left")
        left = float(left) if _is_number(left) else 0.0
        with self.revert_lock:
            if self.revert is not None and self.revert["token"] == revert["token"]:
                return revert
            if self.revert is not None:
                self.revert["done"].set()
            r = {"id": rid, "token": revert["token"], "done": threading.Event(),
                 "deadline": time.monotonic() + self.clock.real(left)}
            self.revert = r
        t = threading.Thread(target=self._revert_notice, args=(r,), name="ptwb-revert")
        t.daemon = True
        t.start()
        return revert

    def current_mode(self):
        """The mode from the helper, or as the login user can read it when the helper cannot
        be used (a profile at the current mode needs no root)."""
        try:
            return self._read_clocks()["mode"]
        except OpError as e:
            if not e.code.startswith("helper_"):
                raise
            c = ptwb_helper.Clocks(self.dev.f)
            return c.read_mode(c.tables())[0]

    def op_get_mode(self, rid, req):
        return {"mode": self.current_mode()}

    def op_reboot(self, rid, req):
        """Reboots the device (to raise clocks on one that accepts decreasing changes only). The
        reply comes before the device goes down, when it can; the connection then drops."""
        boot = self.dev.boot_id()
        if "boot_id" in req:
            want = req["boot_id"]
            if not isinstance(want, str) or not want.strip():
                raise OpError("bad_field", "boot_id: expected a non-empty string (the boot id "
                              "hello reported), got %s" % _type_name(want))
            if want.strip() != boot:
                raise OpError("boot_changed", "boot_id: the device booted since (boot id %s, "
                              "the request names %s); not rebooting it again" % (boot, want.strip()))
        if boot is None or not ptwb_helper.BOOT_ID_RE.match(boot):
            raise OpError("reboot_failed", "the device reports no boot id; not rebooting it")
        log("reboot requested (boot id %s)" % boot)
        result = self.helper.call("reboot", boot)
        self._after_reply = self.on_reboot
        return {"rebooting": True, "boot_id": result.get("boot_id", boot)}

    def op_stage_mode(self, rid, req):
        """Apply-by-reboot: the helper records the mode to apply after the next reboot (the
        `reboot` op), with a revert to the current mode armed then for revert_after_s."""
        clocks = self._read_clocks()
        mode = validate_mode(req, self._tables)
        seconds = req_number(req, "revert_after_s", "revert_after_s", lo=1, hi=3600)
        whole = int(math.ceil(seconds))
        if clocks.get("mode_changes") != "decreasing":
            raise OpError("not_needed", "this device accepts any mode change without a reboot: "
                          "use apply_mode (with arm_revert)")
        current = clocks.get("mode") or {}
        if all(_is_int(current.get(f)) and mode[f] <= current[f] for f in MODE_FIELDS):
            raise OpError("not_needed", "the mode lowers or keeps every clock and the cores of "
                          "the current one, so the device accepts it without a reboot: use "
                          "apply_mode (with arm_revert)")
        boot = self.dev.boot_id()
        if boot is None or not ptwb_helper.BOOT_ID_RE.match(boot):
            raise OpError("reboot_failed", "the device reports no boot id; cannot stage a mode "
                          "for after a reboot")
        result = self.helper.call("stage", *([mode[f] for f in MODE_FIELDS] + [whole, boot]))
        token = result.get("token")
        if not isinstance(token, str):
            raise OpError("helper_failed", "the helper's stage reply has no token")
        return {"token": token, "previous": result.get("previous"), "boot_id": boot,
                "mode": mode, "revert_after_s": whole}

    def op_unstage(self, rid, req):
        token = req.get("token")
        if not isinstance(token, str) or not ptwb_helper.TOKEN_RE.match(token):
            raise OpError("bad_field", "token: expected the token stage_mode gave (32 hex "
                          "digits), got %s" % ("nothing" if "token" not in req
                                               else _type_name(token)))
        result = self.helper.call("unstage", token)
        return {"token": result.get("token", token), "unstaged": True}

    def op_apply_mode(self, rid, req):
        if self._tables is None:
            # A connection that sent no hello or get_mode yet: read the tables, so that a value
            # outside them is no_such_mode naming the nearest allowed ones, as after hello.
            self._read_clocks()
        mode = validate_mode(req, self._tables)
        result = self.helper.call("apply", *[mode[f] for f in MODE_FIELDS])
        return {"mode": result.get("mode"), "previous": result.get("previous")}

    def op_arm_revert(self, rid, req):
        seconds = req_number(req, "seconds", "seconds", lo=1, hi=3600)
        whole = int(math.ceil(seconds))
        result = self.helper.call("arm", whole)
        token = result.get("token")
        if not isinstance(token, str):
            raise OpError("helper_failed", "the helper's arm reply has no token")
        r = {"id": rid, "token": token, "deadline": time.monotonic() + self.clock.real(whole),
             "done": threading.Event()}
        with self.revert_lock:
            if self.revert is not None:
                self.revert["done"].set()  # re-armed: the new token's notice replaces it
            self.revert = r
        t = threading.Thread(target=self._revert_notice, args=(r,), name="ptwb-revert")
        t.daemon = True
        t.start()
        return {"previous": result.get("previous"), "seconds": seconds, "token": token}

    def _revert_notice(self, r):
        """Tells this connection when the helper's watchdog restored the armed mode: waits for
        the deadline, then asks the helper how the revert stands until it is settled."""
        left = r["deadline"] - time.monotonic()
        if left > 0 and r["done"].wait(left):
            return
        for _ in range(REVERT_STATUS_TRIES):
            if r["done"].is_set():
                return
            try:
                st = self.helper.call("status", r["token"])
            except OpError as e:
                log("revert: cannot ask the helper how the revert stands: %s" % e.message)
                st = {"state": "unknown"}
            if st.get("state") == "reverted":
                event = {"id": r["id"], "event": "reverted", "mode": st.get("mode")}
                if isinstance(st.get("error"), dict):
                    event["error"] = st["error"]
                self.emit(event)
                break
            if st.get("state") in ("confirmed", "other", "missing"):
                break
            r["done"].wait(REVERT_STATUS_POLL_S)
        with self.revert_lock:
            if self.revert is r:
                self.revert = None

    def op_confirm(self, rid, req):
        token = req.get("token")
        if "token" in req and not isinstance(token, str):
            raise OpError("bad_field", "token: expected a string (arm_revert's token), got %s"
                          % _type_name(token))
        if token is not None and not ptwb_helper.TOKEN_RE.match(token):
            raise OpError("not_armed", "token %s is not one arm_revert gives"
                          % json.dumps(token[:40]))
        result = self.helper.call("confirm", *([token] if token is not None else []))
        with self.revert_lock:
            r = self.revert
            if r is not None and r["token"] == result.get("token"):
                r["done"].set()
                self.revert = None
        self.reply_ok(rid, {"mode": result.get("mode"), "token": result.get("token")})

    def op_stop(self, rid, req):
        target = req.get("target")
        if "target" not in req or not (_is_int(target) or isinstance(target, str)):
            raise OpError("bad_field", "target: expected an integer or a string (a request id), got %s"
                          % ("nothing" if "target" not in req else _type_name(target)))
        stopped = False
        with self.state_lock:
            s = self.streaming
            if s is not None and type(s[0]) is type(target) and s[0] == target:
                s[1].set()
                stopped = True
        self.reply_ok(rid, {"stopped": stopped})

    def _sleep_until(self, real_deadline, stop_ev):
        left = real_deadline - time.monotonic()
        if left > 0:
            stop_ev.wait(left)
        return stop_ev.is_set()

    def op_sample_power(self, rid, req, stop_ev):
        interval = req_number(req, "interval_ms", "interval_ms", lo=100, hi=3600000)
        count = req_int(req, "count", "count", lo=1, hi=100000)
        kind = device_kind(self.dev.model())
        rails = self.dev.rails()
        if not rails:
            raise OpError("internal", "no power rails found under %s" % HWMON_LABEL_GLOB)
        t0 = time.monotonic()
        totals = []
        for k in range(count):
            if self._sleep_until(t0 + self.clock.real(k * interval / 1000.0), stop_ev):
                raise OpError("stopped", "sample_power stopped after %d samples" % len(totals))
            total, values = self.dev.read_power(rails, kind)
            t_s = (time.monotonic() - t0) * self.clock.scale
            totals.append(total)
            self.emit({"id": rid, "event": "power", "t_s": round(t_s, 3), "total_w": total,
                       "rails": values})
        return {"samples": len(totals), "total_w": stats(totals)}

    @staticmethod
    def _workload_env(w):
        """The environment of a command workload: the agent's, plus PTWB_BATCH_SIZE and
        PTWB_INFERENCE when the request set them (None: inherit unchanged)."""
        if w["kind"] != "command" or ("batch_size" not in w and not w.get("inference")):
            return None
        env = dict(os.environ)
        if "batch_size" in w:
            env["PTWB_BATCH_SIZE"] = str(w["batch_size"])
        env["PTWB_INFERENCE"] = "1" if w.get("inference") else "0"
        return env

    def _workload_argv(self, w, minibatches):
        if w["kind"] == "command":
            return w["argv"], w["cwd"]
        extra = ["--name", w["name"], "--batch-size", str(w["batch_size"]),
                 "--minibatches", str(minibatches)]
        if w.get("inference"):
            extra.append("--inference")
        if self.runner:
            return list(self.runner) + extra, None
        return [sys.executable or "python3", os.path.abspath(__file__), "--run-builtin",
                w["name"]] + extra[2:], None

    def op_profile(self, rid, req, stop_ev):
        w = validate_workload(req)
        n_mb = req_int(req, "minibatches", "minibatches", lo=2, hi=100000, default=40,
                       required=False)
        interval = req_number(req, "sample_interval_ms", "sample_interval_ms", lo=100, hi=60000,
                              default=100, required=False)
        settle = validate_settle(req)
        kind = device_kind(self.dev.model())
        rails = self.dev.rails()
        argv, cwd = self._workload_argv(w, n_mb)
        events = queue.Queue()
        err_tail = collections.deque(maxlen=STDERR_KEEP)
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=self._workload_env(w),
                                    stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    close_fds=True, preexec_fn=_die_with_parent)
        except (OSError, ValueError) as e:
            raise OpError("workload_failed", "could not start %s: %s" % (argv[0], e), stderr=[])
        t0 = time.monotonic()

        def read_out():
            try:
                for bline in iter(proc.stdout.readline, b""):
                    ms = parse_minibatch_line(bline.decode("utf-8", "replace"))
                    if ms is not None:
                        events.put(("mb", ms, (time.monotonic() - t0) * self.clock.scale))
            except Exception as e:
                log("workload stdout: %s" % e)
            events.put(("eof",))

        def read_err():
            try:
                for bline in iter(proc.stderr.readline, b""):
                    err_tail.append(bline.decode("utf-8", "replace").rstrip("\r\n")[:1000])
            except Exception:
                pass

        to = threading.Thread(target=read_out, name="ptwb-wl-out")
        te = threading.Thread(target=read_err, name="ptwb-wl-err")
        to.daemon = te.daemon = True
        to.start()
        te.start()

        samples = []   # (t_s, total_w)
        mbs = []       # (index, ms, t_end)
        settle_t = None
        settled = False
        settle_done = False
        scan_from = train_from = None  # sample indices: next window end to check, first training
        terminated_by_us = False
        stopped = False
        k = 0
        next_tick = t0
        try:
            while True:
                if stop_ev.is_set():
                    stopped = True
                    break
                now = time.monotonic()
                if now >= next_tick:
                    if rails:
                        total, values = self.dev.read_power(rails, kind)
                        t_s = (now - t0) * self.clock.scale
                        samples.append((t_s, total))
                        self.emit({"id": rid, "event": "power", "t_s": round(t_s, 3),
                                   "total_w": total, "rails": values})
                    k += 1
                    next_tick = t0 + self.clock.real(k * interval / 1000.0)
                    # Behind schedule (a loaded machine, or a time scale at which one sample
                    # takes longer than the interval): skip the ticks already missed. Sampling
                    # them back to back never reached events.get below, so the workload's end
                    # was never seen and the profile ran forever (found by scripts/soak at
                    # simulator speed 1000 on a busy 2-core machine).
                    late = time.monotonic()
                    if next_tick <= late:
                        k = int((late - t0) / self.clock.real(interval / 1000.0)) + 1
                        next_tick = t0 + self.clock.real(k * interval / 1000.0)
                    if not settle_done and mbs:
                        # Settling is judged on training samples only: from the end of the
                        # first (warm-up) minibatch on (see find_settle).
                        train_t = mbs[0][2]
                        if scan_from is None:
                            train_from = len(samples)
                            while train_from > 0 and samples[train_from - 1][0] >= train_t:
                                train_from -= 1
                            scan_from = train_from
                        # only the windows ending at the samples not checked yet
                        lo = max(train_from, scan_from - settle["window"] + 1)
                        st, ok = find_settle(samples[lo:], settle["tolerance"], settle["window"],
                                             settle["timeout_s"], train_t)
                        scan_from = len(samples)
                        t_now = (time.monotonic() - t0) * self.clock.scale
                        if st is not None:
                            settle_t, settled, settle_done = st, ok, True
                        elif t_now >= train_t + settle["timeout_s"]:
                            settle_t, settled, settle_done = train_t + settle["timeout_s"], False, True
                        if settle_done:
                            self.emit({"id": rid, "event": "settled", "t_s": round(settle_t, 3)})
                    continue
                try:
                    item = events.get(timeout=max(0.0, min(next_tick - now, 0.25)))
                except queue.Empty:
                    continue
                if item[0] == "eof":
                    break
                _, ms, t_end = item
                mbs.append((len(mbs), ms, t_end))
                self.emit({"id": rid, "event": "minibatch", "index": len(mbs) - 1,
                           "ms": round(ms, 3), "t_s": round(t_end, 3)})
                if w["kind"] == "command" and len(mbs) >= n_mb:
                    terminated_by_us = True
                    break
        finally:
            if proc.poll() is None and not (stopped or terminated_by_us):
                # stdout closed (or we are failing): give the workload a moment to exit by itself
                try:
                    proc.wait(timeout=self.clock.real(10.0))
                except subprocess.TimeoutExpired:
                    terminated_by_us = True
            if proc.poll() is None:
                _terminate(proc)
            rc = proc.wait()
            to.join(2.0)
            te.join(2.0)
            for p in (proc.stdout, proc.stderr):
                try:
                    p.close()
                except Exception:
                    pass
        if stopped:
            raise OpError("stopped", "profile stopped after %d minibatches" % len(mbs))
        if rc != 0 and not terminated_by_us:
            raise OpError("workload_failed", "workload exited with status %d" % rc,
                          stderr=list(err_tail))
        if not mbs:
            raise OpError("workload_failed", "workload printed no PTWB_MINIBATCH line",
                          stderr=list(err_tail))
        sel = select_clean(mbs, samples, settle_t if settle_done else None)
        result = dict(sel)
        result["settle_s"] = round(settle_t, 3) if settle_t is not None else None
        result["settled"] = settled
        result["samples"] = len(samples)
        result["mode"] = self.current_mode()
        result["boot_id"] = self.dev.boot_id()
        return result

    # --- concurrent training and inference
    def _serve_argv(self, train, infer):
        """The process that runs one minibatch per order on its stdin (`train`, `infer`, `idle`)
        and answers each `train`/`infer` with a PTWB_MINIBATCH line."""
        extra = ["--name", train["name"], "--batch-size", str(train["batch_size"]),
                 "--infer-name", infer["name"], "--infer-batch-size", str(infer["batch_size"]),
                 "--serve"]
        if self.runner:
            return list(self.runner) + extra
        return [sys.executable or "python3", os.path.abspath(__file__), "--run-builtin",
                train["name"]] + extra[2:]

    def op_run_concurrent(self, rid, req, stop_ev):
        train = validate_workload(req, "train", builtin_only=True)
        infer = validate_workload(req, "infer", builtin_only=True)
        if train.get("inference"):
            raise OpError("bad_field", "train.inference: the training workload trains; "
                          "expected false or nothing")
        rate = req_number(req, "arrival_rate", "arrival_rate", lo=0, hi=CONCURRENT_MAX_RATE,
                          lo_open=True)
        duration = req_number(req, "duration_s", "duration_s", lo=0,
                              hi=CONCURRENT_MAX_DURATION_S, lo_open=True)
        b = infer["batch_size"]
        if rate * duration > CONCURRENT_MAX_REQUESTS:
            raise OpError("bad_field", "duration_s: %g s at %g requests/s is %d requests; at most "
                          "%d per run" % (duration, rate, int(rate * duration),
                                          CONCURRENT_MAX_REQUESTS))
        if rate * duration < b:
            raise OpError("bad_field", "duration_s: %g s at %g requests/s is less than one "
                          "inference batch of %d" % (duration, rate, b))
        interval = req_number(req, "sample_interval_ms", "sample_interval_ms", lo=100, hi=60000,
                              default=100, required=False)
        every = req_number(req, "progress_every_s", "progress_every_s", lo=0.2, hi=60,
                           default=1.0, required=False)
        kind = device_kind(self.dev.model())
        rails = self.dev.rails()
        argv = self._serve_argv(train, infer)
        replies = queue.Queue()
        err_tail = collections.deque(maxlen=STDERR_KEEP)
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, close_fds=True,
                                    preexec_fn=_die_with_parent)
        except (OSError, ValueError) as e:
            raise OpError("workload_failed", "could not start %s: %s" % (argv[0], e), stderr=[])
        t0 = time.monotonic()

        def read_out():
            try:
                for bline in iter(proc.stdout.readline, b""):
                    ms = parse_minibatch_line(bline.decode("utf-8", "replace"))
                    if ms is not None:
                        replies.put(ms)
            except Exception as e:
                log("workload stdout: %s" % e)
            replies.put(None)

        def read_err():
            try:
                for bline in iter(proc.stderr.readline, b""):
                    err_tail.append(bline.decode("utf-8", "replace").rstrip("\n")[:1000])
            except Exception:
                pass

        to = threading.Thread(target=read_out, daemon=True)
        te = threading.Thread(target=read_err, daemon=True)
        to.start()
        te.start()
        state = {"turns": 0}

        def order(what):
            try:
                proc.stdin.write((what + "\n").encode("ascii"))
                proc.stdin.flush()
            except (OSError, ValueError):
                pass  # it died: the reply queue says so

        def turn(what):
            """One minibatch on the workload process; its time in ms."""
            order(what)
            while True:
                if stop_ev.is_set():
                    raise OpError("stopped", "run_concurrent stopped after %d minibatches"
                                  % state["turns"])
                try:
                    ms = replies.get(timeout=0.25)
                except queue.Empty:
                    continue
                if ms is None:
                    try:
                        rc = proc.wait(timeout=2.0)
                    except subprocess.TimeoutExpired:
                        rc = None
                    raise OpError("workload_failed", "workload %s after %d minibatches"
                                  % ("exited with status %s" % rc if rc is not None
                                     else "closed its output", state["turns"]),
                                  stderr=list(err_tail))
                state["turns"] += 1
                return ms

        samples = []
        sampling = threading.Event()
        t_run = [None]

        def sample():
            k = 0
            while not sampling.wait(max(0.0, t_run[0] + self.clock.real(k * interval / 1000.0)
                                        - time.monotonic())):
                try:
                    total, _ = self.dev.read_power(rails, kind)
                except Exception as e:
                    log("power: %s" % e)
                    return
                samples.append(((time.monotonic() - t0) * self.clock.scale, total))
                k += 1

        ts = None
        try:
            # Warm-up, before the first request arrives: two training minibatches (the second
            # one's time is the first estimate) and two inference minibatches, not counted.
            turn("train")
            seed_ms = turn("train")
            turn("infer")
            warm_infer = turn("infer")
            sched = TimeSlicer(rate, b, duration)
            t_run[0] = time.monotonic()
            run_t_s = (t_run[0] - t0) * self.clock.scale
            self.emit({"id": rid, "event": "warmed_up", "t_s": round(run_t_s, 3),
                       "train_ms": round(seed_ms, 3), "infer_ms": round(warm_infer, 3)})
            if rails:
                ts = threading.Thread(target=sample, daemon=True)
                ts.start()
            next_progress = time.monotonic() + every
            idle = False
            while True:
                act = sched.next_action(seed_ms)
                if act is None:
                    break
                what, at = act
                if what == "idle" and not idle:
                    order("idle")
                idle = what == "idle"
                # The device never runs ahead of the timeline (requests have not arrived yet).
                if self._sleep_until(t_run[0] + self.clock.real(at), stop_ev):
                    raise OpError("stopped", "run_concurrent stopped after %d minibatches"
                                  % state["turns"])
                if what == "idle":
                    sched.idle(at)
                elif what == "train":
                    sched.trained(turn("train"))
                else:
                    sched.inferred(turn("infer"))
                if time.monotonic() >= next_progress:
                    next_progress = time.monotonic() + every
                    ev = {"id": rid, "event": "progress",
                          "t_s": round((time.monotonic() - t0) * self.clock.scale, 3),
                          "run_s": round(sched.v, 3)}
                    ev.update(sched.summary())
                    pw = sorted(w for (t, w) in list(samples))
                    ev["power_w"] = round(quantile(pw, 0.5), 4) if pw else None
                    self.emit(ev)
        finally:
            sampling.set()
            if ts is not None:
                ts.join(2.0)
            try:
                proc.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                proc.wait(timeout=self.clock.real(5.0) + 1.0)
            except subprocess.TimeoutExpired:
                pass
            if proc.poll() is None:
                _terminate(proc)
            proc.wait()
            to.join(2.0)
            te.join(2.0)
            for p in (proc.stdout, proc.stderr):
                try:
                    p.close()
                except Exception:
                    pass
        result = sched.summary()
        lat = sorted(sched.latencies)
        result["latency_ms"]["mean"] = round(sum(lat) / len(lat) * 1000.0, 3)
        pw = [w for (_, w) in samples]
        result.update({
            "arrivals": "uniform",
            "arrival_rate": rate,
            "batch": b,
            "batches": sched.batches,
            "run_s": round(sched.v, 4),
            "idle_s": round(sched.idle_s, 4),
            "max_overrun_ms": round(sched.max_overrun_s * 1000.0, 3),
            "backlog": sched.backlog,
            "train_ms": stats(sched.train_ms, 3),
            "infer_ms": stats(sched.infer_ms, 3),
            "power_w": stats_with_max(pw, 4),
            "samples": len(pw),
            "mode": self.current_mode(),
            "boot_id": self.dev.boot_id(),
        })
        return result

    # --- shutdown
    def shutdown_on_eof(self):
        with self.state_lock:
            s = self.streaming
            if s is not None:
                s[1].set()
        self.jobs.put(None)
        self.worker.join()
        with self.out_lock:
            self.connected = False


def _load_prctl():
    try:
        import ctypes
        return ctypes.CDLL(None).prctl
    except Exception:
        return None


# Looked up once, here: the function below runs between fork and exec, where importing (or
# taking any lock another thread may hold) could deadlock.
_PRCTL = _load_prctl()


def _die_with_parent():
    """In the workload's process, before exec: if the agent dies (even by SIGKILL), the kernel
    sends the workload SIGTERM, so no orphan keeps loading the device and skews the next
    measurement. Linux only (prctl PR_SET_PDEATHSIG); elsewhere nothing happens."""
    if _PRCTL is not None:
        _PRCTL(1, 15, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGTERM


def _terminate(proc):
    try:
        proc.terminate()
        try:
            proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            proc.kill()
    except OSError:
        pass


def parse_l4t(text):
    if not text:
        return None
    first = text.splitlines()[0]
    m = re.search(r"R(\d+)\s*\(release\),\s*REVISION:\s*([\d.]+)", first)
    if m:
        return "%s.%s" % (m.group(1), m.group(2).rstrip("."))
    return first.lstrip("# ").strip() or None


# --------------------------------------------------------------------------------------------
# Reading requests

class _Hangup(Exception):
    pass


class LineReader(object):
    """Reads request lines from a binary or text stream, enforcing MAX_LINE.
    Yields bytes/str without the newline, or the marker TOO_LONG."""

    TOO_LONG = object()

    def __init__(self, stream):
        self.s = stream
        self.sized = True
        self._it = None

    def _readline(self, n):
        if not hasattr(self.s, "readline"):  # a bare iterable of lines
            if self._it is None:
                self._it = iter(self.s)
            return next(self._it, "")
        if self.sized:
            try:
                return self.s.readline(n)
            except TypeError:
                self.sized = False
        return self.s.readline()

    def next(self):
        """Returns a line, TOO_LONG, or None at EOF."""
        try:
            line = self._readline(MAX_LINE + 2)
        except UnicodeDecodeError:
            return b"\xff"  # reported as invalid UTF-8
        if not line:
            return None
        nl = "\n" if isinstance(line, str) else b"\n"
        if line.endswith(nl):
            body = line[:-1]
            if body.endswith("\r" if isinstance(line, str) else b"\r"):
                body = body[:-1]
            return LineReader.TOO_LONG if _len_bytes(body) > MAX_LINE else body
        if _len_bytes(line) <= MAX_LINE:
            return line  # last line without newline
        # too long: discard up to the next newline
        while True:
            try:
                chunk = self._readline(MAX_LINE)
            except UnicodeDecodeError:
                continue
            if not chunk or chunk.endswith(nl):
                return LineReader.TOO_LONG


def _len_bytes(s):
    if isinstance(s, bytes):
        return len(s)
    if len(s) * 4 <= MAX_LINE:
        return len(s)
    return len(s.encode("utf-8", "surrogatepass"))


# --------------------------------------------------------------------------------------------
# Built-in PyTorch workloads (run as a separate process: --run-builtin)

def _resnet18(nn):
    """ResNet-18 (He et al. 2016) as torchvision builds it: 2-2-2-2 basic blocks, 1000 classes."""
    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            nn.Module.__init__(self)
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + (self.down(x) if self.down is not None else x))

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
    return nn.Sequential(*layers)


def _builtin_models(torch, nn):
    """{name: constructor} of the built-in networks this PyTorch can build (stderr says why not)."""
    try:
        import torchvision
        return {"resnet18": lambda: torchvision.models.resnet18(num_classes=1000),
                "mobilenet_v3": lambda: torchvision.models.mobilenet_v3_large(num_classes=1000)}
    except Exception as e:
        # Without torchvision: ResNet-18 is built here, layer for layer the same network;
        # MobileNet v3 is not, and no other network is measured in its place.
        sys.stderr.write("torchvision not available (%s)\n" % e)
        return {"resnet18": lambda: _resnet18(nn)}


class _BuiltinStep(object):
    """One built-in network on synthetic 224x224 data, 1000 classes: a training step (SGD) or,
    with inference=True, a forward pass in eval mode under no_grad. step() returns its ms."""

    IMAGE = 224

    def __init__(self, torch, nn, make, batch_size, inference, dev):
        self.torch = torch
        self.dev = dev
        self.inference = inference
        self.model = make().to(dev)
        self.x = torch.randn(batch_size, 3, self.IMAGE, self.IMAGE, device=dev)
        if inference:
            self.model.eval()
        else:
            self.model.train()
            self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)
            self.loss_fn = nn.CrossEntropyLoss()
            self.y = torch.randint(0, 1000, (batch_size,), device=dev)

    def step(self):
        torch = self.torch
        if self.dev.type == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        if self.inference:
            with torch.no_grad():
                self.model(self.x)
        else:
            self.opt.zero_grad()
            loss = self.loss_fn(self.model(self.x), self.y)
            loss.backward()
            self.opt.step()
        if self.dev.type == "cuda":
            torch.cuda.synchronize()
        return (time.perf_counter() - t) * 1000.0


def run_builtin(name, batch_size, minibatches, inference=False, serve=None):
    """A built-in workload: `minibatches` training steps (or inference minibatches), one
    PTWB_MINIBATCH line each. With serve=(infer_name, infer_batch): the training network and the
    inference network in this one process, one minibatch per order read from stdin (`train`,
    `infer`; `idle` and unknown lines do nothing) until stdin closes: run_concurrent's turns."""
    try:
        import torch
        import torch.nn as nn
    except Exception as e:
        sys.stderr.write("PyTorch is not available: %s\n" % e)
        return 2
    models = _builtin_models(torch, nn)
    wanted = [name] + ([serve[0]] if serve else [])
    for n in wanted:
        if n not in models:
            sys.stderr.write("built-in workload %r needs torchvision (python3-torchvision); "
                             "available here: %s\n" % (n, ", ".join(sorted(models))))
            return 2
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if serve is None:
        step = _BuiltinStep(torch, nn, models[name], batch_size, inference, dev)
        for _ in range(minibatches):
            sys.stdout.write("PTWB_MINIBATCH %.3f\n" % step.step())
            sys.stdout.flush()
        return 0
    steps = {"train": _BuiltinStep(torch, nn, models[name], batch_size, False, dev),
             "infer": _BuiltinStep(torch, nn, models[serve[0]], serve[1], True, dev)}
    for line in sys.stdin:
        step = steps.get(line.strip())
        if step is None:
            continue
        sys.stdout.write("PTWB_MINIBATCH %.3f\n" % step.step())
        sys.stdout.flush()
    return 0


# --------------------------------------------------------------------------------------------
# main

def _parse_args(argv):
    p = argparse.ArgumentParser(prog="ptwb_agent.py", description="PowerTrain Workbench device agent")
    p.add_argument("--root", default="/")
    p.add_argument("--time-scale", type=float, default=1.0)
    p.add_argument("--workload-runner", default=None)
    p.add_argument("--helper-command", default=None,
                   help="JSON argv prefix of the privileged helper to run as is (the simulated "
                        "Jetson's; default: the installed helper through sudo -n, checked first)")
    p.add_argument("--run-builtin", default=None, help=argparse.SUPPRESS)
    p.add_argument("--batch-size", type=int, default=16, help=argparse.SUPPRESS)
    p.add_argument("--minibatches", type=int, default=40, help=argparse.SUPPRESS)
    p.add_argument("--inference", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--infer-name", default=None, help=argparse.SUPPRESS)
    p.add_argument("--infer-batch-size", type=int, default=16, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None, stdin=None, stdout=None, files=None, helper=None, on_reboot=None):
    try:
        args = _parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    if args.run_builtin:
        if args.serve and not args.infer_name:
            log("--serve needs --infer-name")
            return 2
        return run_builtin(args.run_builtin, args.batch_size, args.minibatches, args.inference,
                           (args.infer_name, args.infer_batch_size) if args.serve else None)
    if not (args.time_scale > 0 and math.isfinite(args.time_scale)):
        log("--time-scale must be a positive number")
        return 2
    runner = None
    if args.workload_runner:
        try:
            runner = json.loads(args.workload_runner)
        except ValueError:
            runner = None
        if not isinstance(runner, list) or not runner or not all(isinstance(a, str) for a in runner):
            log("--workload-runner must be a JSON array of strings")
            return 2
    if helper is None and args.helper_command:
        try:
            prefix = json.loads(args.helper_command)
        except ValueError:
            prefix = None
        if not isinstance(prefix, list) or not prefix \
                or not all(isinstance(a, str) and a for a in prefix):
            log("--helper-command must be a JSON array of non-empty strings")
            return 2
        helper = HelperProcess(prefix, simulated=True)
    if files is None:
        files = KernelFiles(args.root)
    if stdin is None:
        stdin = getattr(sys.stdin, "buffer", sys.stdin)
    if stdout is None:
        stdout = sys.stdout

    agent = Agent(files, stdout, args.time_scale, runner, helper=helper, on_reboot=on_reboot)
    old_hup = None
    in_main = threading.current_thread() is threading.main_thread()
    if in_main and hasattr(signal, "SIGHUP"):
        def on_hup(signum, frame):
            raise _Hangup()
        try:
            old_hup = signal.signal(signal.SIGHUP, on_hup)
        except (ValueError, OSError):
            old_hup = None
    agent.worker.start()
    reader = LineReader(stdin)
    try:
        while True:
            try:
                line = reader.next()
            except _Hangup:
                log("SIGHUP: closing")
                break
            except (OSError, IOError) as e:
                log("stdin: %s" % e)
                break
            if line is None:
                break
            try:
                if line is LineReader.TOO_LONG:
                    agent.reply_err(None, "bad_request", "request line longer than 1 MiB")
                else:
                    agent.handle_line(line)
            except _Hangup:
                log("SIGHUP: closing")
                break
            except Exception as e:
                log("internal error: %s" % traceback.format_exc())
                agent.reply_err(None, "internal", "%s: %s" % (type(e).__name__, e))
        while True:
            try:
                agent.shutdown_on_eof()
                break
            except _Hangup:
                continue
    finally:
        if old_hup is not None:
            try:
                signal.signal(signal.SIGHUP, old_hup)
            except (ValueError, OSError):
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
