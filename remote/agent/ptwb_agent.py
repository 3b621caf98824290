#!/usr/bin/env python3
"""PowerTrain Workbench device agent.

Speaks JSON lines on stdin/stdout (see docs/device-protocol.md). Standard library only,
Python 3.8+. Uploaded to devices with its siblings ptwb_helper.py and ptwb_launch.py (the
launcher of command workloads recognised by optimizer steps), and runs as the login user:
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

# Power monitors: the INA3221 driver's hwmon devices (where the simulator and older kernels put
# them), and any hwmon device whose `name` is a power monitor (AGX Thor, some carrier boards).
INA3221_HWMON_GLOB = "sys/bus/i2c/drivers/ina3221/*/hwmon/hwmon*"
CLASS_HWMON_GLOB = "sys/class/hwmon/hwmon*"
THERMAL_DIR = "sys/class/thermal"

STREAMING_OPS = ("sample_power", "profile", "run_concurrent", "test_workload",
                 "proxy_convergence")
ALL_OPS = ("hello", "get_mode", "apply_mode", "arm_revert", "confirm",
           "sample_power", "profile", "run_concurrent", "stop", "reboot", "stage_mode",
           "unstage", "test_workload", "proxy_convergence")
BUILTIN_WORKLOADS = ("resnet18", "mobilenet_v3")

REVERT_STATUS_POLL_S = 0.25  # wall seconds between looks at a revert past its deadline
REVERT_STATUS_TRIES = 40     # ... and how many (the watchdog restores within a poll)
HELPER_TIMEOUT_S = 90.0      # one helper call (a reboot command may take 60 s)
HELPER_OUTPUT_MAX = 1 << 20  # bytes of helper output read at most

# The rails whose sum is the module's input power, per device kind (other rails are sub-rails).
INPUT_RAILS = {
    "orin-agx": ("VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"),
    "orin-nano": ("VDD_IN",),
    "orin-nano-super": ("VDD_IN",),
    "orin-nx": ("VDD_IN",),
    "xavier-agx": ("GPU", "CPU", "SOC", "CV", "VDDRQ", "SYS5V"),
    "xavier-nx": ("VDD_IN",),
    "agx-thor": ("VDD_GPU", "VDD_CPU_SOC_MSS", "VIN_SYS_5V0"),
}
# The original Orin Nano's GPU top; the Super clocks (JetPack 6.1+) reach about 1020 MHz on the
# same module, which may report the same model string.
ORIN_NANO_TOP_GPU_HZ = 624750000


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


def validate_mode(obj, tables=None, name="mode", fixed=None):
    """Check a wire mode's shape (and, given the tables, its values; fixed: the fields the
    device cannot control, ptwb_helper.fixed_fields()). Returns a clean dict or raises
    OpError. The helper checks the values against the device's tables again itself."""
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
        ptwb_helper.check_in_tables(out, tables, name, fixed)
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
        return _validate_command(w)
    if kind is None and "kind" not in w:
        raise OpError("bad_field", "%s.kind: missing; expected \"builtin\" or \"command\"" % key)
    raise OpError("bad_field", "%s.kind: expected \"builtin\" or \"command\", got %s"
                  % (key, json.dumps(kind[:64]) if isinstance(kind, str) else _type_name(kind)))


# --------------------------------------------------------------------------------------------
# Command workloads: the researcher's own script (docs/device-protocol.md, "Command workloads")

WORKLOAD_TIMEOUT_S = 120         # device s without a recognised minibatch before a command fails
ENV_MAX = 64                     # entries of workload.env
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
ENV_NAME_MAX = 128
ENV_VALUE_MAX = 4096
PATTERN_MAX = 500                # characters of a recognise.pattern
RATE_UNITS = ("ms", "s", "per_s")
RECOGNISERS = ("marker", "regex", "launcher")
LAUNCHER = "ptwb_launch.py"      # uploaded beside this file
# A Python interpreter by its file name: python, python3, python3.8, pypy3 (a venv's bin/python).
PYTHON_NAME = re.compile(r"(python|pypy)[0-9.]*\Z")


def _validate_env(w):
    env = w.get("env", {})
    if env is None:
        return {}
    if not isinstance(env, dict):
        raise OpError("bad_field", "workload.env: expected an object of strings, got %s"
                      % _type_name(env))
    if len(env) > ENV_MAX:
        raise OpError("bad_field", "workload.env: %d entries; at most %d" % (len(env), ENV_MAX))
    out = {}
    for name, value in env.items():
        shown = json.dumps(name[:64])
        if len(name) > ENV_NAME_MAX or not ENV_NAME.match(name):
            raise OpError("bad_field", "workload.env: %s is not a variable name; expected "
                          "letters, digits and _ (not first a digit), at most %d characters"
                          % (shown, ENV_NAME_MAX))
        # The agent tells the workload its batch and where to send launcher events in PTWB_*
        # variables: a definition must not be able to redirect those.
        if name.upper().startswith("PTWB_"):
            raise OpError("bad_field", "workload.env.%s: PTWB_* variables are the agent's own"
                          % name)
        if not isinstance(value, str):
            raise OpError("bad_field", "workload.env.%s: expected a string, got %s"
                          % (name, _type_name(value)))
        if "\x00" in value or len(value) > ENV_VALUE_MAX:
            raise OpError("bad_field", "workload.env.%s: expected at most %d characters and no "
                          "NUL" % (name, ENV_VALUE_MAX))
        out[name] = value
    return out


def _validate_recognise(w, argv):
    r = w.get("recognise")
    if r is None:
        return {"by": "marker"}
    if not isinstance(r, dict):
        raise OpError("bad_field", "workload.recognise: expected an object, got %s"
                      % _type_name(r))
    by = r.get("by", "marker")
    if by not in RECOGNISERS:
        raise OpError("bad_field", "workload.recognise.by: expected %s, got %s"
                      % (", ".join('"%s"' % x for x in RECOGNISERS),
                         json.dumps(by[:64]) if isinstance(by, str) else _type_name(by)))
    if by == "marker":
        return {"by": "marker"}
    if by == "launcher":
        # The launcher runs in the script's own interpreter (its venv, its torch).
        if not PYTHON_NAME.match(os.path.basename(argv[0])):
            raise OpError("bad_field", "workload.argv: the launcher recogniser runs the script "
                          "with its own Python, so argv[0] must be a python interpreter "
                          "(python3, /path/to/venv/bin/python), got %s" % json.dumps(argv[0][:200]))
        if len(argv) < 2 or argv[1] in ("-c", "-"):
            raise OpError("bad_field", "workload.argv: the launcher recogniser needs a script "
                          "(python3 train.py ...) or a module (python3 -m package.train ...)")
        return {"by": "launcher"}
    pattern = r.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise OpError("bad_field", "workload.recognise.pattern: expected a non-empty string, got %s"
                      % _type_name(pattern))
    if len(pattern) > PATTERN_MAX:
        raise OpError("bad_field", "workload.recognise.pattern: %d characters; at most %d"
                      % (len(pattern), PATTERN_MAX))
    try:
        rx = re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as e:
        raise OpError("bad_field", "workload.recognise.pattern: not a regular expression: %s" % e)
    if len(rx.groupindex) != 1:
        raise OpError("bad_field", "workload.recognise.pattern: expected exactly one named group "
                      "(?P<name>...), found %d" % len(rx.groupindex))
    unit = r.get("unit")
    if unit not in RATE_UNITS:
        raise OpError("bad_field", "workload.recognise.unit: expected %s, got %s"
                      % (", ".join('"%s"' % x for x in RATE_UNITS),
                         json.dumps(unit[:16]) if isinstance(unit, str) else _type_name(unit)))
    return {"by": "regex", "pattern": pattern, "unit": unit}


def _validate_command(w):
    argv = w.get("argv")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise OpError("bad_field", "workload.argv: expected a non-empty array of strings")
    if any("\x00" in a for a in argv) or not argv[0]:
        raise OpError("bad_field", "workload.argv: an empty program or a NUL character")
    cwd = w.get("cwd")
    if cwd is not None and (not isinstance(cwd, str) or not cwd or "\x00" in cwd):
        raise OpError("bad_field", "workload.cwd: expected a non-empty string or null")
    if cwd is not None and not (cwd == "~" or cwd.startswith("~/") or os.path.isabs(cwd)):
        raise OpError("bad_field", "workload.cwd: %s is relative; expected an absolute directory "
                      "or one under ~/ (the agent's home)" % json.dumps(cwd[:200]))
    out = {"kind": "command", "argv": list(argv), "cwd": cwd, "env": _validate_env(w),
           "recognise": _validate_recognise(w, argv),
           "skip": req_int(w, "skip", "workload.skip", lo=0, hi=100000, default=0,
                           required=False),
           "timeout_s": req_number(w, "timeout_s", "workload.timeout_s", lo=0, hi=86400,
                                   lo_open=True, default=WORKLOAD_TIMEOUT_S, required=False)}
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


def expand_cwd(cwd, home=None):
    """A command's working directory: "~/..." under the agent's $HOME; None stays None."""
    if cwd is None:
        return None
    if cwd == "~" or cwd.startswith("~/"):
        home = home if home is not None else os.environ.get("HOME") or os.path.expanduser("~")
        return os.path.join(home, cwd[2:]) if cwd != "~" else home
    return cwd


# Interpreter options that stay before the launcher (python3 -u train.py): flag clusters, and
# -X/-W with their value. Everything from the script (or -m) on is the launcher's.
_PY_FLAGS = re.compile(r"-[bBdEhiIOqsSuvx]+\Z")


def launcher_argv(argv, here=None):
    """argv of a launcher workload: the script's own interpreter and its options, then
    ptwb_launch.py (beside this file), then the script (or -m module) and its arguments."""
    here = here or os.path.dirname(os.path.abspath(__file__))
    i = 1
    while i < len(argv):
        if argv[i] in ("-X", "-W") and i + 1 < len(argv):
            i += 2
        elif _PY_FLAGS.match(argv[i]):
            i += 1
        else:
            break
    return argv[:i] + [os.path.join(here, LAUNCHER)] + argv[i:]


# --- output lines

OUTPUT_LINE_MAX = 1000   # characters of one output line kept and matched
OUTPUT_FAIL_KEEP = 20    # lines of output a failure carries
OUTPUT_TEST_KEEP = 40    # lines of output test_workload returns
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")
# Control characters (C0 but tab, DEL, C1): a line is shown in the window and stored; none
# of the script's terminal control may reach either.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def sanitise_line(text):
    """One output line as it is matched and reported: colour codes and control characters
    removed, tabs as spaces, surrounding blanks trimmed, at most OUTPUT_LINE_MAX characters."""
    text = _ANSI.sub("", text[:4 * OUTPUT_LINE_MAX])
    text = _CONTROL.sub("", text).replace("\t", " ")
    return text.strip()[:OUTPUT_LINE_MAX]


class LineSplitter(object):
    """Bytes of one stream in, lines out: UTF-8 decoded incrementally (a character split across
    reads is joined), lines end at \\n or \\r (a progress bar redrawn with \\r gives a line per
    redraw), a line split across reads is joined, and a line longer than OUTPUT_LINE_MAX keeps
    only its start (the rest up to its end is dropped, so memory stays bounded)."""

    def __init__(self):
        import codecs
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._part = []
        self._size = 0

    def feed(self, data, final=False):
        text = self._decoder.decode(data, final)
        lines = []
        for piece in re.split(r"([\r\n])", text):
            if piece in ("\r", "\n"):
                lines.append("".join(self._part))
                self._part, self._size = [], 0
            elif piece and self._size < 4 * OUTPUT_LINE_MAX:
                piece = piece[:4 * OUTPUT_LINE_MAX - self._size]
                self._part.append(piece)
                self._size += len(piece)
        if final and self._part:
            lines.append("".join(self._part))
            self._part, self._size = [], 0
        return [l for l in (sanitise_line(x) for x in lines) if l]


class Recogniser(object):
    """How a command's minibatches are recognised in its output lines (marker or regex); the
    launcher's minibatches come on their own pipe (see WorkloadProcess), not from lines."""

    def __init__(self, spec):
        self.by = spec["by"]
        self.rx = re.compile(spec["pattern"]) if self.by == "regex" else None
        self.unit = spec.get("unit")
        self.group = list(self.rx.groupindex)[0] if self.rx is not None else None
        self.matched = 0        # lines the pattern matched
        self.bad_value = None   # the first match whose group was not a positive number

    def ms_of(self, line):
        """The minibatch time (ms) a line reports, else None."""
        if self.by == "marker":
            return parse_minibatch_line(line)
        if self.by != "regex":
            return None
        m = self.rx.search(line)
        if m is None:
            return None
        self.matched += 1
        text = m.group(self.group) or ""
        try:
            v = float(text.strip().replace(",", ""))
        except ValueError:
            v = float("nan")
        if not (math.isfinite(v) and v > 0):
            # e.g. tqdm's first draw "0.00it/s": not a minibatch, and the reason if none is
            if self.bad_value is None:
                self.bad_value = m.group(0)[:200]
            return None
        ms = v if self.unit == "ms" else v * 1000.0 if self.unit == "s" else 1000.0 / v
        return ms if math.isfinite(ms) else None

    def why_none(self):
        """Why no minibatch was recognised, for the failure's reason."""
        if self.by == "marker":
            return "no PTWB_MINIBATCH line"
        if self.by == "launcher":
            return "optimizer.step() was never called"
        if self.bad_value is not None:
            return "the pattern matched %s but its group \"%s\" is not a positive number" \
                % (json.dumps(self.bad_value), self.group)
        return "no line matched the pattern %s" % json.dumps(self.rx.pattern)


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


def clean_start(minibatches, settle_t, warmup=1):
    """Where the clean window starts: the later of the end of the warm-up minibatches (the
    first, or a command's skipped ones) and settle_t (None: the run never settled). None while
    the warm-up minibatches have not all ended."""
    if len(minibatches) < max(1, warmup):
        return None
    train_t = minibatches[max(1, warmup) - 1][2]
    return train_t if settle_t is None else max(train_t, settle_t)


def select_clean(minibatches, samples, settle_t, warmup=1):
    """minibatches: [(index, ms, t_end)] in arrival order; samples: [(t_s, total_w)].

    The first `warmup` minibatches (at least one; a command's skipped ones) are warm-up. The
    clean window starts at clean_start(): the later of the end of the last warm-up minibatch
    and settle_t (settle_t None: the run never settled). A minibatch
    is clean when it is not warm-up and ended at or after that start. Power is the samples
    in [start, end of the last clean minibatch] (falling back to every sample from start on).
    Samples taken before the end of the first minibatch, when the workload was not training
    yet, are never used: with none left, power_w is null. Each has its median, quartiles and
    max (the largest clean minibatch time, the largest power sample of the same window).
    """
    warmup = max(1, warmup)
    start = clean_start(minibatches, settle_t, warmup)
    if start is None:
        clean, pw = [], []
    else:
        clean = [mb for mb in minibatches[warmup:] if mb[2] >= start]
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


def device_kind(model, gpu_hz=None):
    """The Jetson family of a device-tree model, as core/modes/jetsonfamily.cpp's jetsonFamilyOf
    tells it (same order, case-insensitive), or None. gpu_hz, the GPU's frequency table, tells
    an Orin Nano running the Super clocks from one that does not when the model does not say
    "Super". The model is the device's text: only looked for words, never used otherwise."""
    if not isinstance(model, str) or not model:
        return None
    low = model.lower()
    if "agx orin" in low:
        return "orin-agx"
    if "orin nx" in low:
        return "orin-nx"
    if "orin nano" in low:
        top = max([f for f in (gpu_hz or ()) if isinstance(f, int)] or [0])
        return "orin-nano-super" if "super" in low or top > ORIN_NANO_TOP_GPU_HZ else "orin-nano"
    if "xavier nx" in low:
        return "xavier-nx"
    # A real AGX Xavier's device tree says just "Jetson-AGX".
    if "agx xavier" in low or model.strip() == "Jetson-AGX":
        return "xavier-agx"
    if "thor" in low:
        return "agx-thor"
    return None


# --------------------------------------------------------------------------------------------
# The device as the login user sees it: model, power rails, thermal zones

# One power rail: read as volt_path (mV) x curr_path (mA), or as power_path (uW).
Rail = collections.namedtuple("Rail", "label volt_path curr_path power_path")


def power_monitor_family(name):
    """"ina3221", "ina2xx" (INA219/226/228/238 and the other ina* monitors) or None."""
    if name == "ina3221":
        return "ina3221"
    if name.startswith("ina"):
        return "ina2xx"
    return None


def unnamed_rail_label(name, hwmon_dir, k, taken):
    """"<name>_<k>" ("ina238_1"); two monitors of one type would share it, and one rail would
    hide the other in read_power's values, so a repeat also names its hwmon directory."""
    label = "%s_%d" % (name, k)
    if label in taken:
        label = "%s_%s_%d" % (name, hwmon_dir.rsplit("/", 1)[-1], k)
    return label


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
    def power_monitors(self):
        """[(hwmon_dir, name)] of every power monitor, each hwmon device once."""
        out, seen = [], set()
        # The same hwmon directory may show under both globs (sys/class/hwmon/hwmonN is a link
        # to the device's); its last component, unique in the kernel, tells them apart.
        for d in sorted(self.f.glob(INA3221_HWMON_GLOB), key=_natural_key):
            out.append((d, "ina3221"))   # the driver says what it is; no `name` file is needed
            seen.add(d.rsplit("/", 1)[-1])
        for d in sorted(self.f.glob(CLASS_HWMON_GLOB), key=_natural_key):
            if d.rsplit("/", 1)[-1] in seen:
                continue
            name = (self._read(d + "/name") or "").strip()
            if power_monitor_family(name):
                out.append((d, name))
        return out

    def _channels(self, d):
        """The channel numbers k that have an in<k>_, curr<k>_ or power<k>_input in d, sorted."""
        ks = set()
        for p in self.f.glob(d + "/*_input"):
            m = re.match(r"(?:in|curr|power)(\d+)_input$", p.rsplit("/", 1)[-1])
            if m:
                ks.add(int(m.group(1)))
        return sorted(ks)

    def _channel_label(self, d, k):
        for prefix in ("in", "power", "curr"):
            label = self._read("%s/%s%d_label" % (d, prefix, k))
            if label:
                return label
        return None

    def _channel_rail(self, d, name, k):
        """The Rail of channel k of monitor d (label None when it has none), or None when the
        channel measures no power."""
        label = self._channel_label(d, k)
        power = "%s/power%d_input" % (d, k)
        # An ina2xx computes power itself (its in<k> is the bus voltage, so volts x amps would
        # agree); the INA3221 has no power register.
        if power_monitor_family(name) == "ina2xx" and self.f.exists(power):
            return Rail(label, None, None, power)
        volt, curr = "%s/in%d_input" % (d, k), "%s/curr%d_input" % (d, k)
        if self.f.exists(volt) and self.f.exists(curr):
            return Rail(label, volt, curr, None)
        return None

    def rails(self):
        """[Rail] for every channel of a power monitor that measures power."""
        out, labels = [], set()
        for d, name in self.power_monitors():
            family = power_monitor_family(name)
            for k in self._channels(d):
                rail = self._channel_rail(d, name, k)
                if rail is None or (rail.label or "").startswith("Sum of"):
                    continue
                if rail.label is None:
                    # The INA3221 driver hides the label of a channel the device tree does not
                    # name (one not wired, or disabled): not a rail, as before. The ina2xx
                    # drivers have no labels at all.
                    if family == "ina3221":
                        continue
                    rail = rail._replace(label=unnamed_rail_label(name, d, k, labels))
                labels.add(rail.label)
                out.append(rail)
        return out

    def rail_watts(self, rail):
        """The rail's power in watts; OSError, IOError or ValueError when it cannot be read
        (a reading that is not a finite number, "nan" or "inf" included)."""
        if rail.power_path:
            watts = float(self.f.read(rail.power_path)) / 1e6          # uW
        else:
            watts = float(self.f.read(rail.volt_path)) * float(self.f.read(rail.curr_path)) / 1e6
        if not math.isfinite(watts):
            raise ValueError("not a finite reading")
        return watts

    def read_power(self, rails, kind):
        """Returns (total_w, {label: watts})."""
        values = {}
        for rail in rails:
            try:
                values[rail.label] = round(self.rail_watts(rail), 4)
            except (OSError, IOError, ValueError):
                continue
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
        self._fixed = {}          # with them: the fields it cannot control, at their values
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
        """The helper's `read`: {"tables", "mode", "mode_changes"}; the tables are kept, with
        the fields the device cannot control at the values the mode reports."""
        r = self.helper.call("read")
        if isinstance(r.get("tables"), dict):
            self._tables = r["tables"]
            mode = r.get("mode")
            self._fixed = ptwb_helper.fixed_fields(self._tables,
                                                   mode if isinstance(mode, dict) else None)
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
            rails = [r.label for r in d.rails()]
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
            "device": device_kind(model, tables.get("gpu_hz") if isinstance(tables, dict) else None),
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
        mode = validate_mode(req, self._tables, fixed=self._fixed)
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
        mode = validate_mode(req, self._tables, fixed=self._fixed)
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
            raise OpError("internal", "no power rails found (no INA3221 or ina2xx hwmon channel "
                          "under %s or %s)" % (INA3221_HWMON_GLOB, CLASS_HWMON_GLOB))
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
        """The environment of a command workload: the agent's, with the definition's variables
        over it, plus PTWB_BATCH_SIZE and PTWB_INFERENCE when the request set them (None:
        inherit unchanged)."""
        if w["kind"] != "command" or ("batch_size" not in w and not w.get("inference")
                                      and not w.get("env")):
            return None
        env = dict(os.environ)
        env.update(w.get("env") or {})
        if "batch_size" in w:
            env["PTWB_BATCH_SIZE"] = str(w["batch_size"])
        if "batch_size" in w or w.get("inference"):
            env["PTWB_INFERENCE"] = "1" if w.get("inference") else "0"
        return env

    def _workload_argv(self, w, minibatches):
        if w["kind"] == "command":
            argv = w["argv"]
            if w["recognise"]["by"] == "launcher":
                argv = launcher_argv(argv)
            return argv, expand_cwd(w["cwd"])
        extra = ["--name", w["name"], "--batch-size", str(w["batch_size"]),
                 "--minibatches", str(minibatches)]
        if w.get("inference"):
            extra.append("--inference")
        if self.runner:
            return list(self.runner) + extra, None
        return [sys.executable or "python3", os.path.abspath(__file__), "--run-builtin",
                w["name"]] + extra[2:], None

    def _workload_process(self, w, minibatches, keep):
        argv, cwd = self._workload_argv(w, minibatches)
        return WorkloadProcess(argv, cwd, self._workload_env(w),
                               w.get("recognise") or {"by": "marker"}, self.clock, keep=keep)

    def _drive(self, rid, wp, rails, kind, interval, stop_ev, wanted, until_s=None,
               timeout_s=None, on_sample=None):
        """Samples power every `interval` ms and takes wp's minibatches (emitting both as
        events) until the run ends. Returns (samples [(t_s, total_w)], minibatches
        [(index, ms, t_end)], ending): "stopped", "enough" (wanted minibatches recognised),
        "ended" (the process and its output are done), "silent" (none recognised for
        timeout_s device s) or "time" (until_s device s passed). on_sample(samples, mbs) runs
        after each sample (profile's settling)."""
        samples, mbs = [], []
        t0 = wp.t0
        k = 0
        next_tick = t0
        while True:
            if stop_ev.is_set():
                return samples, mbs, "stopped"
            now = time.monotonic()
            if timeout_s is not None and wp.silent_for(timeout_s):
                return samples, mbs, "silent"
            if until_s is not None and (now - t0) * self.clock.scale >= until_s:
                return samples, mbs, "time"
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
                # them back to back never reached next_event below, so the workload's end
                # was never seen and the profile ran forever (found by scripts/soak at
                # simulator speed 1000 on a busy 2-core machine).
                late = time.monotonic()
                if next_tick <= late:
                    k = int((late - t0) / self.clock.real(interval / 1000.0)) + 1
                    next_tick = t0 + self.clock.real(k * interval / 1000.0)
                if on_sample is not None:
                    on_sample(samples, mbs)
                # and the workload's output gets its turn after every sample: when sampling
                # cannot keep up (a loaded machine, a time scale at which the interval is a
                # microsecond) the next tick is always due, and a `continue` here starved the
                # minibatch lines until the run was judged silent (seen on a loaded CI machine)
                now = time.monotonic()
            item = wp.next_event(max(0.0, min(next_tick - now, 0.25)))
            if item is None or item[0] == "other":
                continue
            if item[0] == "end":
                return samples, mbs, "ended"
            _, ms, t_end = item
            mbs.append((len(mbs), ms, t_end))
            self.emit({"id": rid, "event": "minibatch", "index": len(mbs) - 1,
                       "ms": round(ms, 3), "t_s": round(t_end, 3)})
            if wanted is not None and len(mbs) >= wanted:
                return samples, mbs, "enough"

    def op_profile(self, rid, req, stop_ev):
        w = validate_workload(req)
        n_mb = req_int(req, "minibatches", "minibatches", lo=2, hi=100000, default=40,
                       required=False)
        interval = req_number(req, "sample_interval_ms", "sample_interval_ms", lo=100, hi=60000,
                              default=100, required=False)
        settle = validate_settle(req)
        kind = device_kind(self.dev.model())
        rails = self.dev.rails()
        command = w["kind"] == "command"
        # The first minibatch is always warm-up; a command's skipped ones all are.
        warm = max(1, w.get("skip", 0))
        wp = self._workload_process(w, n_mb, OUTPUT_FAIL_KEEP)
        wp.start()
        st = {"t": None, "settled": False, "done": False, "scan_from": None, "train_from": None}

        def on_sample(samples, mbs):
            if st["done"] or len(mbs) < warm:
                return
            # Settling is judged on training samples only: from the end of the warm-up
            # minibatches on (see find_settle).
            train_t = mbs[warm - 1][2]
            if st["scan_from"] is None:
                train_from = len(samples)
                while train_from > 0 and samples[train_from - 1][0] >= train_t:
                    train_from -= 1
                st["train_from"] = st["scan_from"] = train_from
            # only the windows ending at the samples not checked yet
            lo = max(st["train_from"], st["scan_from"] - settle["window"] + 1)
            t_settle, ok = find_settle(samples[lo:], settle["tolerance"], settle["window"],
                                       settle["timeout_s"], train_t)
            st["scan_from"] = len(samples)
            t_now = wp.now()
            if t_settle is not None:
                st["t"], st["settled"], st["done"] = t_settle, ok, True
            elif t_now >= train_t + settle["timeout_s"]:
                st["t"], st["settled"], st["done"] = train_t + settle["timeout_s"], False, True
            if st["done"]:
                self.emit({"id": rid, "event": "settled", "t_s": round(st["t"], 3)})

        ending = "stopped"
        try:
            samples, mbs, ending = self._drive(
                rid, wp, rails, kind, interval, stop_ev, n_mb if command else None,
                timeout_s=w["timeout_s"] if command else None, on_sample=on_sample)
        finally:
            # a command is cut at its minibatches; a built-in stops by itself
            rc, killed = wp.finish(kill=ending != "ended")
        if ending == "stopped":
            raise OpError("stopped", "profile stopped after %d minibatches" % len(mbs))
        if killed and ending == "ended":
            ending = "enough"  # it closed its output but had to be terminated: as before
        why = wp.reason(ending, rc, n_mb, w.get("timeout_s"))
        if why is None and command and 0 < len(mbs) <= w.get("skip", 0):
            why = "workload %s after %d of %d minibatches, all of them skipped" \
                % (_status_text(rc), len(mbs), n_mb)
        if why is not None:
            raise wp.failure(why, retry=not wp.cannot_run())
        sel = select_clean(mbs, samples, st["t"] if st["done"] else None, warm)
        result = dict(sel)
        result["settle_s"] = round(st["t"], 3) if st["t"] is not None else None
        result["settled"] = st["settled"]
        result["samples"] = len(samples)
        result["mode"] = self.current_mode()
        result["boot_id"] = self.dev.boot_id()
        return result

    def op_test_workload(self, rid, req, stop_ev):
        """Runs a workload in the current mode for up to `seconds` device s (or until
        `minibatches` are recognised) and reports what it wrote and what was recognised: a
        workload that fails is a result with its reason, not an error."""
        w = validate_workload(req)
        seconds = req_number(req, "seconds", "seconds", lo=1, hi=600, default=30,
                             required=False)
        wanted = req_int(req, "minibatches", "minibatches", lo=2, hi=100000, default=20,
                         required=False)
        interval = req_number(req, "sample_interval_ms", "sample_interval_ms", lo=100, hi=60000,
                              default=100, required=False)
        kind = device_kind(self.dev.model())
        rails = self.dev.rails()
        skip = w.get("skip", 0)
        wp = self._workload_process(w, wanted, OUTPUT_TEST_KEEP)
        result = {"lines": [], "minibatches": 0, "time_ms": None, "power_w": None,
                  "exit_status": None, "reason": None, "mode": self.current_mode(),
                  "seconds": 0.0}
        try:
            wp.start()
        except OpError as e:
            result["reason"] = e.message
            return result
        ending = "stopped"
        try:
            timeout = w["timeout_s"] if w["kind"] == "command" else None
            if timeout is not None and timeout >= seconds:
                timeout = None  # the run ends first: its reason says "within `seconds`"
            samples, mbs, ending = self._drive(rid, wp, rails, kind, interval, stop_ev, wanted,
                                               until_s=seconds, timeout_s=timeout)
        finally:
            rc, killed = wp.finish(kill=ending != "ended")
        if ending == "stopped":
            raise OpError("stopped", "test_workload stopped after %d minibatches" % len(mbs))
        if killed and ending == "ended":
            ending = "enough"  # it closed its output but had to be terminated
        result["seconds"] = round(wp.now(), 3)
        result["lines"] = wp.output(OUTPUT_TEST_KEEP)
        result["minibatches"] = len(mbs)
        result["exit_status"] = None if killed else rc
        result["reason"] = wp.reason(ending, None if killed else rc, wanted,
                                     timeout if ending == "silent" else seconds)
        measured = mbs[skip:]
        if mbs and not measured and result["reason"] is None:
            result["reason"] = "all %d minibatches recognised were skipped (skip %d): run " \
                "longer or skip fewer" % (len(mbs), skip)
        if measured:
            result["time_ms"] = stats_with_max([m[1] for m in measured], 3)
            # power while it trained: from the end of the skipped minibatches (without any,
            # from the start of the first, by its own time) to the end of the last
            start = mbs[skip - 1][2] if skip else mbs[0][2] - mbs[0][1] / 1000.0
            pw = [p for (t, p) in samples if start <= t <= measured[-1][2]]
            result["power_w"] = stats_with_max(pw, 4) if pw else None
        return result

    # --- samples to accuracy by a proxy run (issue 17)
    def op_proxy_convergence(self, rid, req, stop_ev):
        """Trains with each batch size until the target accuracy (docs/device-protocol.md,
        "Samples to accuracy by a proxy run"): one run of the command per batch size, told its
        batch and linearly scaled learning rate; a batch that fails or does not reach the
        target is a result with its reason, not an error."""
        p = validate_proxy(req)
        w = p["workload"]
        results = []
        for index, batch in enumerate(p["batch_sizes"]):
            lr = proxy_learning_rate(p["base_lr"], p["base_batch"], batch)
            self.emit({"id": rid, "event": "proxy_batch", "batch_size": batch, "index": index,
                       "count": len(p["batch_sizes"]), "learning_rate": lr})
            one = self._proxy_batch(rid, w, batch, lr, p, stop_ev)
            if one is None:
                raise OpError("stopped", "proxy_convergence stopped at batch %d after %d of %d "
                              "batch sizes" % (batch, index, len(p["batch_sizes"])))
            results.append(one)
            self.emit({"id": rid, "event": "proxy_result", "result": one})
        return {"target_accuracy": p["target_accuracy"], "batches": results}

    def _proxy_batch(self, rid, w, batch, lr, p, stop_ev):
        """One batch size's run: its result dict, or None when stopped."""
        env = dict(os.environ)
        env.update(w.get("env") or {})
        env.update({"PTWB_BATCH_SIZE": str(batch), "PTWB_LEARNING_RATE": "%.8g" % lr,
                    "PTWB_TARGET_ACCURACY": "%.8g" % p["target_accuracy"],
                    "PTWB_MAX_SAMPLES": str(p["max_samples"])})
        wp = ProxyProcess(w["argv"], expand_cwd(w["cwd"]), env, self.clock)
        one = {"batch_size": batch, "learning_rate": lr, "status": "failed", "samples": None,
               "accuracy": None, "seconds": 0.0, "reason": None, "output": []}
        try:
            wp.start()
        except OpError as e:
            one["reason"] = e.message
            return one
        ending, last, beat = "stopped", None, time.monotonic()
        try:
            while True:
                if stop_ev.is_set():
                    ending = "stopped"
                    break
                item = wp.next_event(0.25)
                if item is not None and item[0] == "end":
                    ending = "ended"
                    break
                if item is not None and item[0] == "progress":
                    last = item[1:]
                    self.emit({"id": rid, "event": "proxy_progress", "batch_size": batch,
                               "samples": last[0], "accuracy": last[1],
                               "t_s": round(last[2], 3)})
                    beat = time.monotonic()
                    if last[0] > p["max_samples"]:
                        ending = "cap"  # past the cap counts as not reached, even at the target
                        break
                    if last[1] >= p["target_accuracy"]:
                        ending = "reached"
                        break
                if wp.now() >= p["timeout_s"] and \
                        time.monotonic() - wp.t0 >= SILENT_MIN_REAL_S:
                    ending = "timeout"
                    break
                if time.monotonic() - beat >= PROXY_HEARTBEAT_S:
                    # keeps the desktop's inactivity timeout at bay through a long epoch
                    self.emit({"id": rid, "event": "proxy_progress", "batch_size": batch,
                               "samples": None, "accuracy": None, "t_s": round(wp.now(), 3)})
                    beat = time.monotonic()
        finally:
            rc, killed = wp.finish(kill=ending != "ended")
        if ending == "stopped":
            return None
        one["seconds"] = round(wp.now(), 3)
        if last is not None:
            one["samples"], one["accuracy"] = last[0], last[1]
        one["status"], one["reason"] = proxy_outcome(ending, last, None if killed else rc, p,
                                                     wp.bad_progress)
        if one["status"] != "reached":
            one["output"] = wp.output(OUTPUT_FAIL_KEEP)
        return one

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


# --------------------------------------------------------------------------------------------
# A workload's process: its output read, its minibatches recognised (profile, test_workload)

LAUNCHER_EVENT_MAX = 4096   # bytes of one launcher event line
SILENT_MIN_REAL_S = 3.0     # wall s: the least a workload is given to recognise a minibatch
# (Python and the simulated train.py's imports start in 0.15 s on an idle 2-core machine; 3 s
# leaves room for a busy one at a simulator speed where 120 device s are 0.3 s of wall time)
READ_QUEUE_MAX = 4096       # lines and events read but not taken yet
EXITED_GRACE_S = 1.0        # wall s to wait for output after the process exited (children of
                            # its own may keep its pipes open)


def _status_text(rc):
    if rc is not None and rc < 0:
        return "was killed by signal %d" % -rc
    return "exited with status %s" % rc


class WorkloadProcess(object):
    """Runs one workload process and turns what it writes into events, on the caller's thread:
    next_event() returns ("mb", ms, t_end) for each recognised minibatch (t_end in device
    seconds from the start), ("end",) once the process and its output are done, or None.

    stdout and stderr are read by a thread each and split into lines (LineSplitter); both are
    recognised and kept, in arrival order, in `tail` ({"stream", "text", "ms"}). With the
    launcher, minibatches come from the launcher's own pipe (PTWB_EVENTS_FD) instead: one
    `step T` line per optimizer step (T: the launcher's time.monotonic() at the step's return,
    the same clock as ours), a minibatch being the interval between two steps, in device
    time (times the clock's scale). Nothing read is executed or used as a path.
    """

    def __init__(self, argv, cwd, env, recognise, clock, keep=OUTPUT_TEST_KEEP):
        self.argv, self.cwd, self.env = list(argv), cwd, env
        self.rec = Recogniser(recognise)
        self.launcher = recognise["by"] == "launcher"
        self.clock = clock
        # Bounded: a workload that writes faster than it is read is held back by its own pipe
        # (its writes block) instead of growing the agent's memory.
        self.q = queue.Queue(maxsize=READ_QUEUE_MAX)
        self._closing = threading.Event()  # readers drop what they cannot queue any more
        self.tail = collections.deque(maxlen=keep)
        self.err_tail = collections.deque(maxlen=STDERR_KEEP)  # the legacy `stderr` list
        self.launcher_error = None
        self.count = 0             # minibatches recognised
        self.last_t = 0.0          # device s of the start, then of the last minibatch
        self.proc = None
        self._threads = []
        self._open = 0             # readers still reading
        self._last_step = None
        self._exited_at = None

    # --- starting and stopping
    def start(self):
        """Starts the process; OpError workload_failed (with an empty output) if it cannot."""
        if self.cwd is not None and not os.path.isdir(self.cwd):
            raise self.failure("could not start %s: the working directory %s does not exist"
                               % (os.path.basename(self.argv[0]), self.cwd), retry=False)
        env, pass_fds, rfd = self.env, (), None
        if self.launcher:
            rfd, wfd = os.pipe()
            env = dict(env if env is not None else os.environ)
            env["PTWB_EVENTS_FD"] = str(wfd)
            pass_fds = (wfd,)
        try:
            self.proc = subprocess.Popen(self.argv, cwd=self.cwd, env=env,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, close_fds=True,
                                         pass_fds=pass_fds, preexec_fn=_die_with_parent)
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            if rfd is not None:
                os.close(rfd)
            raise self.failure("could not start %s: %s" % (self.argv[0], e), retry=False)
        finally:
            if pass_fds:
                os.close(pass_fds[0])  # the child's end: EOF once the child (and its own) exit
        self.t0 = time.monotonic()
        self._reader(self._read_stream, self.proc.stdout, "out")
        self._reader(self._read_stream, self.proc.stderr, "err")
        if rfd is not None:
            self._reader(self._read_events, os.fdopen(rfd, "rb"), "events")

    def _reader(self, fn, stream, name):
        t = threading.Thread(target=fn, args=(stream, name), name="ptwb-wl-" + name)
        t.daemon = True
        self._open += 1
        self._threads.append((t, stream))
        t.start()

    def finish(self, kill):
        """Ends the process: at once when kill, else after up to 10 device s for it to exit by
        itself. Returns (exit status, killed by us)."""
        proc = self.proc
        killed = kill and proc.poll() is None
        if proc.poll() is None and not kill:
            try:
                proc.wait(timeout=self.clock.real(10.0))
            except subprocess.TimeoutExpired:
                killed = True
        if proc.poll() is None:
            _terminate(proc)
        rc = proc.wait()
        # The last lines (a traceback) belong in the output even when they came after the end:
        # take them while the readers finish (up to 2 wall s: a child of the workload may keep
        # a pipe open), then stop them.
        deadline = time.monotonic() + 2.0
        while any(t.is_alive() for t, _ in self._threads) and time.monotonic() < deadline:
            self._drain(0.05)
        self._closing.set()
        for t, stream in self._threads:
            t.join(0.1)
            try:
                stream.close()
            except Exception:
                pass
        self._drain(0.0)
        return rc, killed

    def _drain(self, wait):
        """Takes what the readers queued (waiting up to `wait` s for the first), not counting
        minibatches any more."""
        try:
            self._take(self.q.get(timeout=wait) if wait > 0 else self.q.get_nowait(),
                       counting=False)
        except queue.Empty:
            return
        while True:
            try:
                self._take(self.q.get_nowait(), counting=False)
            except queue.Empty:
                return

    def _put(self, item):
        while not self._closing.is_set():
            try:
                self.q.put(item, timeout=0.25)
                return
            except queue.Full:
                continue

    # --- reading (reader threads)
    def now(self):
        return (time.monotonic() - self.t0) * self.clock.scale

    def _read_stream(self, stream, name):
        split = LineSplitter()
        fd = stream.fileno()
        try:
            while True:
                data = os.read(fd, 65536)
                for line in split.feed(data, final=not data):
                    self._put(("line", name, line, self.now()))
                if not data:
                    break
        except (OSError, ValueError) as e:
            log("workload %s: %s" % (name, e))
        self._put(("eof",))

    def _read_events(self, stream, name):
        """The launcher's pipe: `step T` or `error TEXT` lines; anything else is ignored."""
        try:
            while True:
                raw = stream.readline(LAUNCHER_EVENT_MAX)
                if not raw:
                    break
                word, _, rest = raw.decode("utf-8", "replace").strip().partition(" ")
                if word == "step":
                    try:
                        t = float(rest)
                    except ValueError:
                        continue
                    if math.isfinite(t):
                        self._put(("step", t))
                elif word == "error":
                    self._put(("error", sanitise_line(rest)[:500]))
        except (OSError, ValueError) as e:
            log("workload events: %s" % e)
        self._put(("eof",))

    # --- events (caller's thread)
    def next_event(self, timeout):
        try:
            item = self.q.get(timeout=timeout) if timeout > 0 else self.q.get_nowait()
        except queue.Empty:
            return self._ended_quietly()
        return self._take(item)

    def _take(self, item, counting=True):
        """One item of the readers: the output kept, a minibatch recognised (when counting)."""
        kind = item[0]
        if kind == "line":
            _, stream, text, t = item
            ms = self.rec.ms_of(text)
            self.tail.append({"stream": stream, "text": text,
                              "ms": round(ms, 3) if ms is not None else None})
            if stream == "err":
                self.err_tail.append(text)
            if ms is not None and counting:
                return self._minibatch(ms, t)
        elif kind == "step":
            t = item[1]
            prev, self._last_step = self._last_step, t
            if prev is not None and t > prev and counting:
                return self._minibatch((t - prev) * 1000.0 * self.clock.scale,
                                       max(0.0, (t - self.t0) * self.clock.scale))
        elif kind == "error":
            self.launcher_error = item[1]
        elif kind == "eof":
            self._open -= 1
            if self._open == 0:
                return ("end",)
        return ("other",)

    def _ended_quietly(self):
        """("end",) when the process exited a while ago but something of its own keeps a pipe
        open (a daemonised child): its output is not waited for any longer."""
        if self.proc is None or self.proc.poll() is None:
            return None
        now = time.monotonic()
        if self._exited_at is None:
            self._exited_at = now
        return ("end",) if now - self._exited_at >= EXITED_GRACE_S else None

    def _minibatch(self, ms, t):
        self.count += 1
        self.last_t = t
        return ("mb", ms, t)

    def silent_for(self, timeout_s):
        """True when no minibatch was recognised for timeout_s device seconds since the start
        or the last one, and for at least SILENT_MIN_REAL_S wall seconds: an interpreter does
        not start faster at a simulator's time scale (120 device s are 1.2 ms at 1e5)."""
        silent = self.now() - self.last_t
        return silent >= timeout_s and silent / self.clock.scale >= SILENT_MIN_REAL_S

    # --- failures
    def output(self, n=OUTPUT_FAIL_KEEP):
        return list(self.tail)[-n:]

    def failure(self, reason, retry=True):
        """retry=False: the same run fails the same way in any mode (it cannot start, or the
        launcher cannot import torch), so a sweep does not try it again."""
        extra = {} if retry else {"retry": False}
        return OpError("workload_failed", reason, stderr=list(self.err_tail),
                       output=self.output(), **extra)

    def cannot_run(self):
        """True when the run failed before the workload itself ran: the launcher could not
        import torch.optim."""
        return self.launcher_error is not None and self.count == 0

    def why_none(self, within_s=None):
        """The reason no minibatch was recognised."""
        why = self.launcher_error or self.rec.why_none()
        if self.launcher and self.launcher_error is None and self._last_step is not None:
            why = "optimizer.step() returned only once (a minibatch is the time between two)"
        if within_s is None:
            return "no minibatch recognised: %s" % why
        return "no minibatch recognised within %g s: %s" % (within_s, why)

    def reason(self, ending, rc, wanted, within_s):
        """The failure's reason for how the run ended, or None when it did not fail: ending is
        "silent" (nothing recognised for within_s device s), "ended" (exited by itself) or
        another ending that is not a failure ("enough", "time")."""
        if ending == "silent":
            if self.count == 0:
                return self.why_none(within_s)
            return "no minibatch recognised for %g s after %d of %d minibatches" \
                % (within_s, self.count, wanted)
        if ending == "ended" and rc != 0 and self.count < wanted:
            if self.launcher_error is not None and self.count == 0:
                return self.launcher_error
            return "workload %s after %d of %d minibatches" % (_status_text(rc), self.count, wanted)
        if self.count == 0:
            if ending == "ended":
                return "%s (the workload %s)" % (self.why_none(), _status_text(rc))
            return self.why_none(within_s)
        return None


# --------------------------------------------------------------------------------------------
# Samples to accuracy by a proxy run (issue 17): the command trains at one batch size and
# prints progress lines {"samples": N, "accuracy": A} on stdout.

PROXY_MAX_BATCHES = 32
PROXY_TIMEOUT_S = 3600.0          # device s a batch size may train, by default
PROXY_MAX_SAMPLES = 100000000     # samples a batch size may train, by default
PROXY_HEARTBEAT_S = 2.0           # wall s between events while the script prints nothing
PROGRESS_KEYS = ("samples", "accuracy")


def validate_proxy(req):
    """The fields of a proxy_convergence request, checked; OpError bad_field naming the field."""
    w = validate_workload(req)
    if w["kind"] != "command":
        raise OpError("bad_field", "workload.kind: a proxy run is the researcher's training "
                      "command; expected \"command\"")
    if "batch_size" in w:
        raise OpError("bad_field", "workload.batch_size: a proxy run sets the batch from "
                      "batch_sizes; leave it out")
    sizes = req.get("batch_sizes")
    if not isinstance(sizes, list) or not 1 <= len(sizes) <= PROXY_MAX_BATCHES \
            or not all(_is_int(b) and 1 <= b <= 4096 for b in sizes):
        raise OpError("bad_field", "batch_sizes: expected an array of 1 to %d whole numbers "
                      "1..4096" % PROXY_MAX_BATCHES)
    if len(set(sizes)) != len(sizes):
        raise OpError("bad_field", "batch_sizes: each batch size once")
    return {"workload": w, "batch_sizes": list(sizes),
            "target_accuracy": req_number(req, "target_accuracy", "target_accuracy", lo=0, hi=1,
                                          lo_open=True),
            "base_lr": req_number(req, "base_lr", "base_lr", lo=0, hi=1e6, lo_open=True),
            "base_batch": req_int(req, "base_batch", "base_batch", lo=1, hi=4096),
            "timeout_s": req_number(req, "timeout_s", "timeout_s", lo=0, hi=7 * 86400,
                                    lo_open=True, default=PROXY_TIMEOUT_S, required=False),
            "max_samples": req_int(req, "max_samples", "max_samples", lo=1, hi=10 ** 12,
                                   default=PROXY_MAX_SAMPLES, required=False)}


def proxy_learning_rate(base_lr, base_batch, batch):
    """The linear scaling rule (Goyal et al. 2017): the learning rate grows with the batch."""
    return float("%.8g" % (base_lr * batch / float(base_batch)))


def parse_progress_line(line):
    """A progress line -> (samples, accuracy); ("bad", why) for a progress-like object with an
    unusable value; None for any other line."""
    if not line.startswith("{") or "accuracy" not in line:
        return None
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or not all(k in obj for k in PROGRESS_KEYS):
        return None
    s, a = obj["samples"], obj["accuracy"]
    if not (_is_number(s) and math.isfinite(s) and s >= 0):
        return ("bad", "samples %s is not a number of samples" % json.dumps(s)[:40])
    if not (_is_number(a) and math.isfinite(a) and 0 <= a <= 1):
        return ("bad", "accuracy %s is not between 0 and 1 (a fraction, not a percent)"
                % json.dumps(a)[:40])
    return (int(s) if float(s).is_integer() else float(s), float(a))


def proxy_outcome(ending, last, rc, p, bad):
    """(status, reason) of one batch size's run: "reached", "not_reached" (it trained but
    stopped short of the target) or "failed" (it could not train: no progress line, or it
    exited with an error)."""
    if ending == "reached":
        return "reached", None
    target = p["target_accuracy"]
    if last is None:
        why = ("no progress line {\"samples\": N, \"accuracy\": A} on stdout" if bad is None
               else "no usable progress line: %s" % bad)
        if ending == "timeout":
            return "failed", "%s within %g s" % (why, p["timeout_s"])
        return "failed", "%s (the script %s)" % (why, _status_text(rc))
    short = "did not reach accuracy %g: last %g at %s samples" % (target, last[1], last[0])
    if bad is not None:
        return "failed", "a progress line was unusable: %s; %s" % (bad, short)
    if ending == "ended" and rc not in (0, None):
        return "failed", "the script %s; %s" % (_status_text(rc), short)
    if ending == "cap":
        return "not_reached", "%s, over the cap of %d samples" % (short, p["max_samples"])
    if ending == "timeout":
        return "not_reached", "%s within %g s" % (short, p["timeout_s"])
    return "not_reached", "%s when the script ended" % short


class ProxyProcess(WorkloadProcess):
    """A proxy training run: next_event() also returns ("progress", samples, accuracy, t) for
    each progress line on stdout; every line is kept in the output tail as for a workload."""

    def __init__(self, argv, cwd, env, clock):
        WorkloadProcess.__init__(self, argv, cwd, env, {"by": "marker"}, clock,
                                 keep=OUTPUT_FAIL_KEEP)
        self.bad_progress = None   # why the first progress-like line was refused

    def _take(self, item, counting=True):
        got = WorkloadProcess._take(self, item, counting)
        if item[0] != "line" or item[1] != "out" or not counting:
            return got
        p = parse_progress_line(item[2])
        if p is None:
            return got
        if p[0] == "bad":
            if self.bad_progress is None:
                self.bad_progress = p[1]
            return got
        return ("progress", p[0], p[1], item[3])


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
