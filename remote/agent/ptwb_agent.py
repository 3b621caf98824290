#!/usr/bin/env python3
"""PowerTrain Workbench device agent.

Speaks JSON lines on stdin/stdout (see docs/device-protocol.md). Standard library only,
Python 3.8+. Uploaded to devices as this single file.

Threads: the main thread reads requests; `stop` and `confirm` are answered at once, every
other op runs in order on one worker thread. A revert timer thread restores an armed mode.

An armed revert lives in a file (STATE_DIR/revert.json), not only in this process: over SSH every
connection starts a new agent, and the `confirm` of the connection that verifies a mode must reach
the revert armed by the connection that applied it.
"""

import argparse
import bisect
import collections
import glob as _glob
import json
import math
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback

try:
    import fcntl
except ImportError:  # not on Linux: the rename-based claims still keep it consistent
    fcntl = None

AGENT_VERSION = "1.0.0"
PROTOCOL = 1
MAX_LINE = 1024 * 1024  # bytes, newline excluded
STDERR_KEEP = 20

CPU_DIR = "sys/devices/system/cpu"
DEVFREQ_DIR = "sys/class/devfreq"
EMC_DIR = "sys/kernel/debug/bpmp/debug/clk/emc"
HWMON_LABEL_GLOB = "sys/bus/i2c/drivers/ina3221/*/hwmon/hwmon*/in*_label"
THERMAL_DIR = "sys/class/thermal"

MODE_FIELDS = ("cores", "cpu_khz", "gpu_hz", "emc_hz")
STREAMING_OPS = ("sample_power", "profile", "run_concurrent")
ALL_OPS = ("hello", "get_mode", "apply_mode", "arm_revert", "confirm",
           "sample_power", "profile", "run_concurrent", "stop", "reboot")
BUILTIN_WORKLOADS = ("resnet18", "mobilenet_v3")

REVERT_FILE = "revert.json"        # the armed revert (see RevertStore)
REVERTED_FILE = "reverted.json"    # the last revert that fired (for not_armed messages)
CONFIRMED_PREFIX = "confirmed-"    # confirmed-<token>.json: a confirmation for the arming agent
REVERT_POLL_S = 0.25               # wall seconds between the arming agent's looks at the file
MARKER_MAX_AGE_S = 3600.0          # leftover markers and temp files older than this are swept

# The device's own configuration for the workbench (relative to --root, so it survives reboots
# and the simulator can serve it): {"mode_changes": "any" | "decreasing"}.
DEVICE_CONFIG = "etc/powertrain-workbench/agent.json"
MODE_CHANGES = ("any", "decreasing")  # "decreasing": clocks and cores may only go down without a reboot
REBOOT_TIMEOUT_S = 60.0               # wall seconds the reboot command may take to return

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
# Kernel file access (the simulator subclasses this)

class KernelFiles(object):
    """All device file access. Paths are relative to root ("sys/devices/system/cpu/present")."""

    def __init__(self, root):
        self.root = root

    def _abs(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def read(self, path):
        with open(self._abs(path), "rb") as f:
            data = f.read()
        return data.decode("utf-8", "replace").replace("\x00", "").strip()

    def write(self, path, text):
        with open(self._abs(path), "w") as f:
            f.write(text)

    def exists(self, path):
        return os.path.exists(self._abs(path))

    def glob(self, pattern):
        base = os.path.join(self.root, "")
        out = []
        for p in _glob.glob(self._abs(pattern)):
            out.append(os.path.relpath(p, base) if not p.startswith(base) else p[len(base):])
        return sorted(out)

    def reboot(self, command):
        """Reboots the machine by running `command` (argv; None: `systemctl reboot`, or `reboot`
        without systemd). Needs root, like every write. The simulator overrides this. Returns a
        function to call once the reply is written, or None (the shutdown ends this process)."""
        if command is None:
            if os.path.realpath(self.root) != os.path.realpath("/"):
                raise OpError("reboot_failed", "not rebooting: the agent runs against --root %s, "
                              "not this machine; give --reboot-command to say how to reboot it"
                              % self.root)
            systemctl = shutil.which("systemctl")
            command = [systemctl, "reboot"] if systemctl else [shutil.which("reboot") or "reboot"]
        shown = " ".join(command)
        try:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=REBOOT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise OpError("reboot_failed", "`%s` did not return within %d s" % (shown, REBOOT_TIMEOUT_S))
        except OSError as e:
            raise OpError("reboot_failed", "`%s` could not start: %s" % (shown, e.strerror or e))
        if done.returncode != 0:
            lines = [l for l in done.stderr.decode("utf-8", "replace").splitlines() if l.strip()]
            raise OpError("reboot_failed", "`%s` exited with status %d%s (rebooting needs root: "
                          "run the agent with sudo)" % (shown, done.returncode,
                                                         (": " + lines[-1].strip()) if lines else ""))
        return None


# --------------------------------------------------------------------------------------------
# Errors and validation

class OpError(Exception):
    def __init__(self, code, message, **extra):
        Exception.__init__(self, message)
        self.code = code
        self.message = message
        self.extra = extra


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


def nearest_allowed(table, value, n=2):
    """The allowed values closest to value: the neighbours below and above."""
    if not table:
        return []
    t = sorted(table)
    i = bisect.bisect_left(t, value)
    out = []
    if i > 0:
        out.append(t[i - 1])
    if i < len(t):
        out.append(t[i])
    if len(out) < n and i + 1 < len(t):
        out.append(t[i + 1])
    return out[:n] if len(out) > n else out


def validate_mode(obj, tables, name="mode"):
    """Check a wire mode against the live tables. Returns a clean dict or raises OpError."""
    if name not in obj:
        raise OpError("bad_field", "%s: missing; expected an object with %s"
                      % (name, ", ".join(MODE_FIELDS)))
    m = obj[name]
    if not isinstance(m, dict):
        raise OpError("bad_field", "%s: expected an object, got %s" % (name, _type_name(m)))
    out = {}
    for f in MODE_FIELDS:
        out[f] = req_int(m, f, "%s.%s" % (name, f))
    for f in MODE_FIELDS:
        table = tables.get(f) or []
        if out[f] not in table:
            near = nearest_allowed(table, out[f])
            if table:
                raise OpError("no_such_mode", "%s.%s: %d is not in the device's table; nearest allowed: %s"
                              % (name, f, out[f], ", ".join(str(x) for x in near)))
            raise OpError("no_such_mode", "%s.%s: the device reports no allowed values" % (name, f))
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


def parse_cpu_list(text):
    """'0-3,5' -> [0, 1, 2, 3, 5]."""
    out = []
    for part in text.replace("\n", ",").split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return sorted(set(out))


def parse_int_list(text):
    return sorted(set(int(x) for x in re.findall(r"\d+", text)))


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
# The device: tables, modes, apply, power

class Device(object):
    def __init__(self, files):
        self.f = files
        self.lock = threading.RLock()  # serializes mode changes (worker and revert timer)
        self._gpu_dir = None

    # --- discovery
    def _read(self, path, default=None):
        try:
            return self.f.read(path)
        except (OSError, IOError):
            return default

    def model(self):
        return self._read("proc/device-tree/model")

    def core_ids(self):
        return parse_cpu_list(self.f.read(CPU_DIR + "/present"))

    def gpu_dir(self):
        if self._gpu_dir is not None:
            return self._gpu_dir
        found = None
        for p in self.f.glob(DEVFREQ_DIR + "/*/device/of_node/name"):
            if self._read(p, "") == "gpu":
                found = p[:-len("/device/of_node/name")]
                break
        if found is None:
            for d in self.f.glob(DEVFREQ_DIR + "/*"):
                base = d.rsplit("/", 1)[-1]
                if "gpu" in base or base.endswith((".ga10b", ".gv11b", ".gp10b")):
                    found = d
                    break
        self._gpu_dir = found
        return found

    def tables(self):
        ids = self.core_ids()
        t = {"cores": list(range(1, len(ids) + 1))}
        try:
            t["cpu_khz"] = parse_int_list(self.f.read(
                "%s/cpu%d/cpufreq/scaling_available_frequencies" % (CPU_DIR, ids[0])))
        except (OSError, IOError, IndexError):
            t["cpu_khz"] = []
        g = self.gpu_dir()
        t["gpu_hz"] = parse_int_list(self._read(g + "/available_frequencies", "")) if g else []
        t["emc_hz"] = parse_int_list(self._read(EMC_DIR + "/possible_rates", ""))
        return t

    def is_online(self, n):
        if n == 0:
            return True
        v = self._read("%s/cpu%d/online" % (CPU_DIR, n))
        return v is None or v.strip() == "1"

    def online_cores(self):
        return [n for n in self.core_ids() if self.is_online(n)]

    def cpu_file(self, n, name):
        return "%s/cpu%d/cpufreq/%s" % (CPU_DIR, n, name)

    def read_mode(self, tables=None):
        """The current mode as read back from the kernel, plus per-core CPU readings."""
        online = self.online_cores()
        cpu = {}
        for n in online:
            v = self._read(self.cpu_file(n, "scaling_cur_freq"))
            if v is not None:
                try:
                    cpu[n] = int(v)
                except ValueError:
                    pass
        g = self.gpu_dir()
        gpu = self._read(g + "/cur_freq") if g else None
        emc = self._read(EMC_DIR + "/rate")
        mode = {
            "cores": len(online),
            "cpu_khz": cpu.get(0, cpu[min(cpu)] if cpu else None),
            "gpu_hz": _to_int(gpu),
            "emc_hz": _to_int(emc),
        }
        if tables:
            for f in ("cpu_khz", "gpu_hz", "emc_hz"):
                mode[f] = snap(mode[f], tables.get(f))
            cpu = dict((n, snap(v, tables.get("cpu_khz"))) for n, v in cpu.items())
        return mode, cpu

    def get_mode(self):
        return self.read_mode(self.tables())[0]

    def mode_changes(self):
        """Which mode changes the device accepts without a reboot, from DEVICE_CONFIG: "any" (the
        default, also when the file is missing or not understood) or "decreasing"."""
        text = self._read(DEVICE_CONFIG)
        if text is None:
            return "any"
        try:
            conf = json.loads(text)
        except ValueError as e:
            log("%s: not JSON (%s); reporting mode_changes \"any\"" % (DEVICE_CONFIG, e))
            return "any"
        value = conf.get("mode_changes", "any") if isinstance(conf, dict) else None
        if value not in MODE_CHANGES:
            log("%s: mode_changes must be \"any\" or \"decreasing\", got %s; reporting \"any\""
                % (DEVICE_CONFIG, json.dumps(value)))
            return "any"
        return value

    # --- apply
    def _write(self, path, value, field):
        """`field` (cores, cpu_khz, gpu_hz, emc_hz) leads the message: the person reading it
        thinks in mode fields, not sysfs paths."""
        try:
            self.f.write(path, str(value))
        except (OSError, IOError) as e:
            reason = e.strerror or (os.strerror(e.errno) if e.errno else str(e))
            raise OpError("write_failed", "%s: %s: write %s failed: %s"
                          % (field, path, value, reason), file=path, field=field)

    def _write_limits(self, min_path, max_path, value, field):
        try:
            cur_min = int(self.f.read(min_path))
        except (OSError, IOError, ValueError):
            cur_min = None
        if cur_min is not None and value < cur_min:
            # lowering: min first so that min <= max after every write
            self._write(min_path, value, field)
            self._write(max_path, value, field)
        else:
            # raising (or in between): max first
            self._write(max_path, value, field)
            self._write(min_path, value, field)

    def apply(self, mode, tables):
        """Apply a validated mode in the documented order, then read back.
        Returns the read-back mode; raises OpError(write_failed / readback_mismatch)."""
        with self.lock:
            try:
                self._apply_writes(mode)
            except OpError as e:
                try:
                    e.extra["readback"] = self.read_mode(tables)[0]
                except Exception:
                    pass
                raise
            readback, cpu = self.read_mode(tables)
            problems = []
            if readback["cores"] != mode["cores"]:
                problems.append("cores: wanted %d online, kernel reports %d"
                                % (mode["cores"], readback["cores"]))
            for n in sorted(cpu):
                if cpu[n] != mode["cpu_khz"]:
                    problems.append("cpu_khz: wrote %d, kernel reports %d (cpu%d)"
                                    % (mode["cpu_khz"], cpu[n], n))
                    readback["cpu_khz"] = cpu[n]
                    break
            for f in ("gpu_hz", "emc_hz"):
                if readback[f] != mode[f]:
                    problems.append("%s: wrote %d, kernel reports %s" % (f, mode[f], readback[f]))
            if problems:
                raise OpError("readback_mismatch", "; ".join(problems), readback=readback)
            return readback

    def _apply_writes(self, mode):
        ids = self.core_ids()
        want = set(ids[:mode["cores"]])
        # (1) online the cores the mode needs
        for n in ids:
            if n != 0 and n in want and not self.is_online(n):
                self._write("%s/cpu%d/online" % (CPU_DIR, n), 1, "cores")
        # (2) CPU on every online core, then GPU
        for n in ids:
            if not self.is_online(n):
                continue
            if not self.f.exists(self.cpu_file(n, "scaling_max_freq")):
                continue
            self._write_limits(self.cpu_file(n, "scaling_min_freq"),
                               self.cpu_file(n, "scaling_max_freq"), mode["cpu_khz"], "cpu_khz")
        g = self.gpu_dir()
        if g is None:
            raise OpError("write_failed", "%s: no GPU devfreq device found" % DEVFREQ_DIR,
                          file=DEVFREQ_DIR)
        self._write_limits(g + "/min_freq", g + "/max_freq", mode["gpu_hz"], "gpu_hz")
        # (3) EMC through the bpmp debugfs clock
        self._write(EMC_DIR + "/mrq_rate_locked", 1, "emc_hz")
        self._write(EMC_DIR + "/rate", mode["emc_hz"], "emc_hz")
        # (4) offline the extra cores, highest first
        for n in sorted(ids, reverse=True):
            if n != 0 and n not in want and self.is_online(n):
                self._write("%s/cpu%d/online" % (CPU_DIR, n), 0, "cores")

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


def _to_int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def snap(value, table, rel=0.01):
    """A reading within 1 % of a table value is reported as that value (real kernels report
    measured clocks slightly off the table)."""
    if value is None or not table:
        return value
    near = min(table, key=lambda x: abs(x - value))
    if abs(near - value) <= rel * max(abs(near), 1):
        return near
    return value


# --------------------------------------------------------------------------------------------
# The armed revert, shared by every agent process on the device (see docs/device-protocol.md)

def default_state_dir():
    """$XDG_RUNTIME_DIR/powertrain-workbench when XDG_RUNTIME_DIR is set and writable (a tmpfs
    that a reboot clears), else ~/.cache/powertrain-workbench/agent-state."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isabs(xdg) and os.path.isdir(xdg) and os.access(xdg, os.W_OK | os.X_OK):
        return os.path.join(xdg, "powertrain-workbench")
    return os.path.join(os.path.expanduser("~"), ".cache", "powertrain-workbench", "agent-state")


def _proc_start_time(pid):
    """A process's start time (clock ticks since boot, /proc/PID/stat field 22), or None. With
    the boot id it tells a live arming agent from an unrelated process that reuses its pid."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read().decode("ascii", "replace")
        return int(stat.rsplit(")", 1)[1].split()[19])
    except (OSError, IOError, ValueError, IndexError):
        return None


def _pid_alive(pid, start_time=None):
    """Whether the process that armed a revert still runs (a zombie does not count)."""
    if not _is_int(pid) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    except OSError:
        return False
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            state = f.read().decode("ascii", "replace").rsplit(")", 1)[1].split()[0]
        if state in ("Z", "X", "x"):
            return False
    except (OSError, IOError, IndexError):
        return True  # no /proc: trust kill(0)
    if _is_int(start_time):
        now_start = _proc_start_time(pid)
        if now_start is not None and now_start != start_time:
            return False  # the pid was reused
    return True


class _StoreLock(object):
    """Serializes revert.json changes between threads and processes (flock on DIR/lock)."""

    _threads = threading.Lock()

    def __init__(self, store):
        self.store = store
        self.fd = None

    def __enter__(self):
        _StoreLock._threads.acquire()
        try:
            self.store.ensure()
            if fcntl is not None:
                self.fd = os.open(self.store.file("lock"), os.O_RDWR | os.O_CREAT, 0o600)
                fcntl.flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None
            _StoreLock._threads.release()
            raise
        return self

    def __exit__(self, *exc):
        try:
            if self.fd is not None:
                os.close(self.fd)  # releases the flock
                self.fd = None
        finally:
            _StoreLock._threads.release()
        return False


class RevertStore(object):
    """STATE_DIR/revert.json: {"token", "previous", "deadline_epoch", "boot_id",
    "armed_by_pid", "armed_by_start"}. Written atomically (temp file + os.replace), so a reader
    never sees half a file and needs no lock; every change is made under locked()."""

    def __init__(self, path):
        self.path = os.path.abspath(path)

    def file(self, name):
        return os.path.join(self.path, name)

    def ensure(self):
        if not os.path.isdir(self.path):
            os.makedirs(self.path, 0o700, exist_ok=True)
            try:
                os.chmod(self.path, 0o700)
            except OSError:
                pass

    def locked(self):
        return _StoreLock(self)

    def read(self, name=REVERT_FILE):
        """The record, or None when there is none. Raises ValueError for an unreadable one."""
        try:
            with open(self.file(name), "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        except (OSError, IOError) as e:
            raise ValueError("%s: %s" % (name, e))
        try:
            rec = json.loads(data.decode("utf-8"))
        except ValueError as e:
            raise ValueError("%s: not JSON: %s" % (name, e))
        if not isinstance(rec, dict) or not isinstance(rec.get("token"), str) \
                or not _is_number(rec.get("deadline_epoch")):
            raise ValueError("%s: not a revert record" % name)
        return rec

    def write(self, rec, name=REVERT_FILE):
        self.ensure()
        tmp = self.file(".%s.%d.%s.tmp" % (name, os.getpid(), os.urandom(4).hex()))
        try:
            with open(tmp, "w") as f:
                json.dump(rec, f, sort_keys=True)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.file(name))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def move(self, name, to):
        """os.replace(name, to): True, or False when `name` is not there."""
        try:
            os.replace(self.file(name), self.file(to))
            return True
        except FileNotFoundError:
            return False

    def remove(self, name):
        try:
            os.unlink(self.file(name))
            return True
        except FileNotFoundError:
            return False

    def status(self, token):
        """How revert.json stands for the armed `token`: "ours" (still armed), "confirmed" (another
        agent confirmed it: its marker is there), "other" (re-armed with another token), "missing"
        (gone without a confirmation) or "bad" (unreadable)."""
        try:
            rec = self.read()
        except ValueError:
            return "bad"
        if rec is None:
            return "confirmed" if os.path.exists(self.file(CONFIRMED_PREFIX + token + ".json")) \
                else "missing"
        return "ours" if rec.get("token") == token else "other"

    def sweep(self):
        """Removes confirmation markers and temp files older than MARKER_MAX_AGE_S (their writer
        died before it could)."""
        try:
            names = os.listdir(self.path)
        except OSError:
            return
        now = time.time()
        for n in names:
            if not ((n.startswith(CONFIRMED_PREFIX) and n.endswith(".json")) or n.endswith(".tmp")):
                continue
            try:
                if now - os.path.getmtime(self.file(n)) > MARKER_MAX_AGE_S:
                    os.unlink(self.file(n))
            except OSError:
                pass


# --------------------------------------------------------------------------------------------
# The agent

class Clock(object):
    def __init__(self, scale):
        self.scale = float(scale)

    def real(self, device_seconds):
        return device_seconds / self.scale


class Agent(object):
    def __init__(self, files, out, time_scale=1.0, workload_runner=None, state_dir=None,
                 reboot_command=None):
        self.dev = Device(files)
        self.reboot_command = reboot_command
        self._after_reply = None  # set by `reboot`: run on the worker once its reply is written
        self.store = RevertStore(state_dir or default_state_dir())
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
        # revert
        self.revert_cv = threading.Condition()
        # this process's timer for the revert it armed (or adopted): dict(id, token, previous,
        # deadline (monotonic), thread, state: armed | firing | fired | confirmed | released)
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
    def op_hello(self, rid, req):
        d = self.dev
        model = d.model()
        tables = d.tables()
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
            "boot_id": d._read("proc/sys/kernel/random/boot_id"),
            "simulated": bool(model and "(simulated)" in model),
            "tables": tables,
            "presets": presets,
            "rails": rails,
            "thermal": thermal,
            "mode": d.read_mode(tables)[0],
            "mode_changes": d.mode_changes(),
        }

    def op_get_mode(self, rid, req):
        return {"mode": self.dev.get_mode()}

    def op_reboot(self, rid, req):
        """Reboots the device (to raise clocks on one that accepts decreasing changes only). The
        reply comes before the device goes down, when it can; the connection then drops."""
        boot = self.boot_id()
        if "boot_id" in req:
            want = req["boot_id"]
            if not isinstance(want, str) or not want.strip():
                raise OpError("bad_field", "boot_id: expected a non-empty string (the boot id "
                              "hello reported), got %s" % _type_name(want))
            if want.strip() != boot:
                raise OpError("boot_changed", "boot_id: the device booted since (boot id %s, "
                              "the request names %s); not rebooting it again" % (boot, want.strip()))
        log("reboot requested (boot id %s)" % boot)
        with self.dev.lock:  # not in the middle of a mode change or a revert
            self._after_reply = self.dev.f.reboot(self.reboot_command)
        return {"rebooting": True, "boot_id": boot}

    def op_apply_mode(self, rid, req):
        tables = self.dev.tables()
        mode = validate_mode(req, tables)
        with self.dev.lock:
            previous = self.dev.read_mode(tables)[0]
            try:
                readback = self.dev.apply(mode, tables)
            except OpError as e:
                if e.code == "write_failed":
                    self._restore_after_failed_write(e, previous, tables)
                raise
        return {"mode": readback, "previous": previous}

    def _restore_after_failed_write(self, error, previous, tables):
        """A refused write leaves the device part-way between two modes: put the previous mode
        back (best effort) and say whether that worked. A readback mismatch is left alone: the
        kernel chose those clocks (throttling, a cap) and they are safe by its own measure."""
        try:
            error.extra["readback"] = self.dev.apply(previous, tables)
            error.extra["restored"] = True
            error.message += "; the previous mode was restored"
        except OpError as again:
            error.extra["restored"] = False
            error.message += "; restoring the previous mode failed too: " + again.message
            if "readback" in again.extra:
                error.extra["readback"] = again.extra["readback"]

    def boot_id(self):
        return (self.dev._read("proc/sys/kernel/random/boot_id") or "").strip() or None

    def op_arm_revert(self, rid, req):
        seconds = req_number(req, "seconds", "seconds", lo=1, hi=3600)
        real = self.clock.real(seconds)
        boot = self.boot_id()
        with self.revert_cv:
            try:
                with self.store.locked():
                    try:
                        rec = self.store.read()
                    except ValueError as e:
                        log("revert: ignoring %s" % e)
                        rec = None
                    if rec is not None and rec.get("boot_id") == boot \
                            and isinstance(rec.get("previous"), dict):
                        # re-arming (by this agent or another one) keeps the mode recorded
                        # first: the last one known to be good
                        previous = rec["previous"]
                    else:
                        previous = self.dev.get_mode()
                    token = os.urandom(16).hex()
                    pid = os.getpid()
                    self.store.write({"token": token, "previous": previous,
                                      "deadline_epoch": time.time() + real, "boot_id": boot,
                                      "armed_by_pid": pid, "armed_by_start": _proc_start_time(pid)})
            except OSError as e:
                raise OpError("internal", "cannot record the revert in %s: %s"
                              % (self.store.path, e.strerror or e))
            r = self.revert
            deadline = time.monotonic() + real
            if r is not None and r["state"] == "armed":
                r.update(id=rid, token=token, previous=previous, deadline=deadline)
                self.revert_cv.notify_all()
            else:
                self._start_timer({"id": rid, "token": token, "previous": previous,
                                   "deadline": deadline, "state": "armed"})
        return {"previous": previous, "seconds": seconds, "token": token}

    def _start_timer(self, r):
        """Call with revert_cv held."""
        t = threading.Thread(target=self._revert_timer, args=(r,), name="ptwb-revert")
        t.daemon = True
        r["thread"] = t
        self.revert = r
        t.start()

    def _release(self, r, why):
        """Call with revert_cv held: this process no longer owns the revert."""
        r["state"] = "released"
        log("revert: %s" % why)
        if self.revert is r:
            self.revert = None
        self.revert_cv.notify_all()

    def _revert_timer(self, r):
        """Waits for the deadline, looking at revert.json every REVERT_POLL_S: once another agent
        confirmed (or re-armed) it, this process is done, and one that stays alive only for the
        revert exits at once. At the deadline, restores the recorded mode unless the file says it
        was confirmed or re-armed meanwhile (a missing or unreadable file does not cancel it)."""
        while True:
            with self.revert_cv:
                if r["state"] != "armed":
                    return
                left = r["deadline"] - time.monotonic()
                if left <= 0:
                    if not self._claim_for_revert(r):
                        return
                    break
                self.revert_cv.wait(min(left, REVERT_POLL_S))
                if r["state"] != "armed":
                    return
                token = r["token"]
            st = self.store.status(token)
            if st in ("confirmed", "other"):
                with self.revert_cv:
                    if r["state"] == "armed" and r["token"] == token:
                        if st == "confirmed":
                            self.store.remove(CONFIRMED_PREFIX + token + ".json")
                        self._release(r, "confirmed by another agent" if st == "confirmed"
                                      else "re-armed by another agent")
                        return
        self._do_revert(r)

    def _claim_for_revert(self, r):
        """Call with revert_cv held, at the deadline. True when this process must revert."""
        token = r["token"]
        try:
            with self.store.locked():
                st = self.store.status(token)
                if st == "ours":
                    self.store.move(REVERT_FILE, REVERTED_FILE)
                elif st == "bad":
                    self.store.remove(REVERT_FILE)
                elif st == "confirmed":
                    self.store.remove(CONFIRMED_PREFIX + token + ".json")
        except OSError as e:
            log("revert: state directory %s: %s; reverting anyway" % (self.store.path, e))
            st = "missing"
        if st in ("confirmed", "other"):
            self._release(r, "confirmed by another agent" if st == "confirmed"
                          else "re-armed by another agent")
            return False
        if st == "missing":
            log("revert: %s vanished without a confirmation; reverting"
                % self.store.file(REVERT_FILE))
        r["state"] = "firing"
        return True

    def _restore(self, mode):
        """Applies a recorded mode; returns the `reverted` event fields."""
        event = {}
        try:
            tables = self.dev.tables()
            clean = validate_mode({"previous": mode}, tables, "previous")
            readback = self.dev.apply(clean, tables)
            event["mode"] = readback
            log("revert: no confirm in time; restored %s" % json.dumps(readback))
        except OpError as e:
            event["mode"] = e.extra.get("readback")
            event["error"] = {"code": e.code, "message": e.message}
            log("revert: restoring %s failed: %s" % (json.dumps(mode), e.message))
        except Exception as e:
            event["mode"] = None
            event["error"] = {"code": "internal", "message": "%s: %s" % (type(e).__name__, e)}
            log("revert: internal error: %s" % traceback.format_exc())
        return event

    def _do_revert(self, r):
        event = {"id": r["id"], "event": "reverted"}
        event.update(self._restore(r["previous"]))
        if r["id"] is not None:  # an adopted revert has no request of this connection
            self.emit(event)
        with self.revert_cv:
            r["state"] = "fired"
            if self.revert is r:
                self.revert = None
            self.revert_cv.notify_all()

    def recover_at_startup(self):
        """A revert.json left by an agent that is gone: from an earlier boot it is removed (the
        reboot reset the mode); past its deadline it is reverted now; before its deadline this
        agent adopts it (confirm works as usual; unconfirmed, it reverts at the deadline, and
        this agent stays alive for that after stdin closes)."""
        boot = self.boot_id()
        fire = False
        with self.revert_cv:
            try:
                with self.store.locked():
                    self.store.sweep()
                    try:
                        rec = self.store.read()
                    except ValueError as e:
                        log("revert: removing unreadable %s" % e)
                        self.store.remove(REVERT_FILE)
                        return
                    if rec is None:
                        return
                    if rec.get("boot_id") != boot:
                        log("revert: removing %s armed before a reboot (boot id %s, now %s)"
                            % (self.store.file(REVERT_FILE), rec.get("boot_id"), boot))
                        self.store.remove(REVERT_FILE)
                        return
                    pid = rec.get("armed_by_pid")
                    if _pid_alive(pid, rec.get("armed_by_start")):
                        return  # its agent reverts it or is told of a confirmation
                    left = rec["deadline_epoch"] - time.time()
                    if left <= 0:
                        self.store.move(REVERT_FILE, REVERTED_FILE)
                        log("revert: the agent that armed it (pid %s) is gone and the deadline "
                            "passed %.1f s ago; restoring the previous mode" % (pid, -left))
                        fire = True
                    else:
                        me = os.getpid()
                        rec["armed_by_pid"] = me
                        rec["armed_by_start"] = _proc_start_time(me)
                        self.store.write(rec)
                        log("revert: the agent that armed it (pid %s) is gone; this agent "
                            "reverts it in %.1f s unless confirmed" % (pid, left))
                        self._start_timer({"id": None, "token": rec["token"],
                                           "previous": rec.get("previous"),
                                           "deadline": time.monotonic() + left,
                                           "state": "armed"})
                        return
            except OSError as e:
                log("revert: state directory %s: %s" % (self.store.path, e))
                return
        if fire:
            self._restore(rec.get("previous"))

    def revert_pending(self):
        with self.revert_cv:
            return self.revert is not None and self.revert["state"] in ("armed", "firing")

    def wait_revert(self):
        with self.revert_cv:
            r = self.revert
        if r is not None:
            r["thread"].join()

    def _nothing_armed(self, boot):
        why = "nothing is armed"
        try:
            last = self.store.read(REVERTED_FILE)
        except ValueError:
            last = None
        if last is not None and last.get("boot_id") == boot:
            why += " (the last revert passed its deadline %.0f s ago and restored the previous " \
                   "mode)" % max(0.0, time.time() - last["deadline_epoch"])
        return why

    def op_confirm(self, rid, req):
        token = req.get("token")
        if "token" in req and not isinstance(token, str):
            raise OpError("bad_field", "token: expected a string (arm_revert's token), got %s"
                          % _type_name(token))
        boot = self.boot_id()
        with self.revert_cv:
            try:
                with self.store.locked():
                    try:
                        rec = self.store.read()
                    except ValueError as e:
                        raise OpError("not_armed", "nothing is armed: %s is unreadable (%s)"
                                      % (self.store.file(REVERT_FILE), e))
                    if rec is None:
                        raise OpError("not_armed", self._nothing_armed(boot))
                    if rec.get("boot_id") != boot:
                        self.store.remove(REVERT_FILE)
                        raise OpError("not_armed", "the revert was armed before a reboot (boot id "
                                      "%s, now %s); the reboot reset the mode"
                                      % (rec.get("boot_id"), boot))
                    if token is not None and token != rec["token"]:
                        raise OpError("not_armed", "token %s does not match the armed revert's"
                                      % token)
                    late = time.time() - rec["deadline_epoch"]
                    if late >= 0:
                        raise OpError("not_armed", "the deadline passed %.1f s ago; the previous "
                                      "mode is being restored" % late)
                    armed = rec["token"]
                    r = self.revert
                    mine = r is not None and r["state"] == "armed" and r["token"] == armed
                    if mine:
                        self.store.remove(REVERT_FILE)
                    else:
                        self.store.move(REVERT_FILE, CONFIRMED_PREFIX + armed + ".json")
            except OSError as e:
                raise OpError("internal", "state directory %s: %s"
                              % (self.store.path, e.strerror or e))
            if mine:
                r["state"] = "confirmed"
                self.revert = None
                self.revert_cv.notify_all()
        self.reply_ok(rid, {"mode": self.dev.get_mode(), "token": armed})

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
        result["mode"] = self.dev.get_mode()
        result["boot_id"] = self.dev._read("proc/sys/kernel/random/boot_id")
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
            "mode": self.dev.get_mode(),
            "boot_id": self.dev._read("proc/sys/kernel/random/boot_id"),
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
        if self.revert_pending():
            log("stdin closed with a revert armed; waiting for its deadline")
            self.wait_revert()


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
    p.add_argument("--state-dir", default=None,
                   help="where an armed revert is recorded (default: $XDG_RUNTIME_DIR/"
                        "powertrain-workbench, else ~/.cache/powertrain-workbench/agent-state)")
    p.add_argument("--reboot-command", default=None,
                   help="JSON argv the reboot op runs (default: systemctl reboot, else reboot; "
                        "required with --root other than /)")
    p.add_argument("--run-builtin", default=None, help=argparse.SUPPRESS)
    p.add_argument("--batch-size", type=int, default=16, help=argparse.SUPPRESS)
    p.add_argument("--minibatches", type=int, default=40, help=argparse.SUPPRESS)
    p.add_argument("--inference", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--infer-name", default=None, help=argparse.SUPPRESS)
    p.add_argument("--infer-batch-size", type=int, default=16, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None, stdin=None, stdout=None, files=None):
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
    reboot_command = None
    if args.reboot_command:
        try:
            reboot_command = json.loads(args.reboot_command)
        except ValueError:
            reboot_command = None
        if not isinstance(reboot_command, list) or not reboot_command \
                or not all(isinstance(a, str) and a for a in reboot_command):
            log("--reboot-command must be a JSON array of non-empty strings")
            return 2
    if files is None:
        files = KernelFiles(args.root)
    if stdin is None:
        stdin = getattr(sys.stdin, "buffer", sys.stdin)
    if stdout is None:
        stdout = sys.stdout

    agent = Agent(files, stdout, args.time_scale, runner, state_dir=args.state_dir,
                  reboot_command=reboot_command)
    try:
        agent.recover_at_startup()
    except Exception:
        log("revert: startup check failed: %s" % traceback.format_exc())
    old_hup = None
    in_main = threading.current_thread() is threading.main_thread()
    if in_main and hasattr(signal, "SIGHUP"):
        def on_hup(signum, frame):
            if agent.revert_pending():
                log("SIGHUP ignored: a revert is armed")
                return
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
