"""The simulated Jetson's kernel: the fake sysfs/procfs/debugfs tree, its write semantics, power
and thermal readings, and fault injection. Used by ptwb_simjetson.py (in-process, with the agent)
and sim_workload.py (reads the clocks). Standard library only, Python 3.8+.

Layout of the state directory DIR:
  DIR/root/        the fake tree (docs/device-protocol.md, "The fake kernel tree")
  DIR/sim.json     {"device": ...}: which device the tree is
  DIR/load.json    written by a running sim workload: {"pid", "name", "batch_size"[, "kind":
                   "inference"]}
  DIR/faults.json  optional JSON list of fault strings, read at run time
"""

import errno
import json
import math
import os
import random
import shutil
import sys
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perfmodel  # noqa: E402
import simdevices  # noqa: E402

# Each device's facts live in simdevices.py, one description per device; these views keep the
# names the rest of the simulator and the tests use.
DEVICES = simdevices.KINDS
MODEL_STRINGS = {d: simdevices.fact(d, "model") for d in DEVICES}
L4T = {d: simdevices.fact(d, "l4t") for d in DEVICES}
GPU_DEVFREQ = {d: simdevices.fact(d, "gpu_devfreq") for d in DEVICES}
# A second devfreq device that is not the GPU: the agent must pick the GPU by its of_node name.
OTHER_DEVFREQ = ("15480000.nvdec", "nvdec", [115200000, 268800000, 460800000, 716800000])
CPU_CLUSTER = {d: simdevices.fact(d, "cpu_cluster") for d in DEVICES}
# INA3221 chips: (i2c address, hwmon name, [(label, share)]) (simdevices.py says what a share is)
RAILS = {d: simdevices.fact(d, "rails") for d in DEVICES}
RAIL_MV = 5000.0

# Thermal zones: (type, degrees C per watt of module power at steady state)
THERMAL = {d: simdevices.fact(d, "thermal") for d in DEVICES}
AMBIENT_C = 28.0
THERMAL_TAU_S = 20.0      # device seconds
THROTTLE_HOT_C = 42.0     # added to every zone while throttling
POWER_TAU_S = 0.6         # device seconds: first-order settling after a change (95 % in ~1.8 s)
POWER_NOISE = 0.006       # relative, per reading
TRAIN_NOISE = 0.012       # relative, extra per reading while a workload runs
READING_S = 0.03          # device seconds: reads this close share a minibatch phase (one sample's
                          # rails); the agent samples at least 0.1 s apart
CPU_BASE = "sys/devices/system/cpu"
EMC_DIR = "sys/kernel/debug/bpmp/debug/clk/emc"
EMC_POSSIBLE_RATES = EMC_DIR + "/possible_rates"
DEVICE_CONFIG = "etc/powertrain-workbench/agent.json"  # the helper's DEVICE_CONFIG
MODE_STAMP = "mode.stamp"  # STATE/mode.stamp: rewritten on every mode change (see SimKernel.mode)
DECREASING_ONLY = "decreasing-only"
EMC_LOCKED = "emc-locked"
BARE_FAULTS = (DECREASING_ONLY, EMC_LOCKED)  # faults without an argument


def log(msg):
    sys.stderr.write("ptwb-simjetson: %s\n" % msg)
    sys.stderr.flush()


# --------------------------------------------------------------------------------------------
# Faults

class FaultError(ValueError):
    pass


def parse_fault(spec):
    """'reject:gpu_hz=1300500000' | 'drop-after:3' | 'reboot-after:2' | 'throttle:0.8' |
    'decreasing-only' | 'emc-locked' -> tuple."""
    if isinstance(spec, str) and spec.strip() in BARE_FAULTS:
        return (spec.strip(),)
    if not isinstance(spec, str) or ":" not in spec:
        raise FaultError("bad fault %r: expected KIND:ARG" % (spec,))
    kind, arg = spec.split(":", 1)
    kind = kind.strip()
    arg = arg.strip()
    if kind == "reject":
        field, _, value = arg.partition("=")
        field = field.strip()
        if field not in ("cores", "cpu_khz", "gpu_hz", "emc_hz"):
            raise FaultError("bad fault %r: field must be cores, cpu_khz, gpu_hz or emc_hz" % spec)
        try:
            v = int(value)
        except ValueError:
            raise FaultError("bad fault %r: value must be an integer" % spec)
        return ("reject", field, v)
    if kind in ("drop-after", "reboot-after"):
        try:
            n = int(arg)
        except ValueError:
            n = 0
        if n < 1:
            raise FaultError("bad fault %r: N must be an integer >= 1" % spec)
        return (kind, n)
    if kind == "throttle":
        try:
            f = float(arg)
        except ValueError:
            f = -1.0
        if not (0.0 < f <= 1.0):
            raise FaultError("bad fault %r: factor must be in (0, 1]" % spec)
        return ("throttle", f)
    raise FaultError("unknown fault %r: expected reject:, drop-after:, reboot-after:, throttle:, "
                     "decreasing-only or emc-locked" % spec)


class Faults(object):
    """Faults from the command line plus DIR/faults.json (re-read when it changes)."""

    def __init__(self, cli_specs, path):
        self.cli = [parse_fault(s) for s in (cli_specs or [])]
        self.path = path
        self._file = []
        self._stamp = None
        self._lock = threading.Lock()
        self.reload()

    def reload(self):
        try:
            st = os.stat(self.path)
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        with self._lock:
            if stamp == self._stamp:
                return False
            self._stamp = stamp
            parsed = []
            if stamp is not None:
                try:
                    with open(self.path, "r", encoding="utf-8") as f:
                        specs = json.load(f)
                    if not isinstance(specs, list):
                        raise FaultError("not a JSON list")
                    for s in specs:
                        try:
                            parsed.append(parse_fault(s))
                        except FaultError as e:
                            log("%s: %s (ignored)" % (self.path, e))
                except (ValueError, OSError, FaultError) as e:
                    log("%s: %s (ignored)" % (self.path, e))
            self._file = parsed
            return True

    def all(self):
        with self._lock:
            return self.cli + self._file

    def rejected(self, field, value):
        return any(f[0] == "reject" and f[1] == field and f[2] == value for f in self.all())

    def throttle(self):
        fs = [f[1] for f in self.all() if f[0] == "throttle"]
        return min(fs) if fs else None

    def decreasing_only(self):
        """The device accepts only changes that lower (or keep) clocks and cores; raising needs
        a reboot."""
        return any(f[0] == DECREASING_ONLY for f in self.all())

    def emc_locked(self):
        """The memory clock cannot be controlled: no possible_rates, its rate fixed at the
        default preset's EMC and writes to it refused (issue 22)."""
        return any(f[0] == EMC_LOCKED for f in self.all())

    def connection_fault(self, count):
        """('reboot-after'|'drop-after', from_file) when request number `count` triggers one."""
        for src, lst in (("cli", self.cli), ("file", self._file)):
            for f in lst:
                if f[0] in ("reboot-after", "drop-after") and count >= f[1]:
                    return f, src == "file"
        return None

    def consume_file_fault(self, fault):
        """A fired drop/reboot from faults.json is one-shot: remove it from the file."""
        try:
            with open(self.path, "r", encoding="utf-8") as f:
                specs = json.load(f)
            keep = []
            for s in specs:
                try:
                    if parse_fault(s) == fault:
                        continue
                except FaultError:
                    pass
                keep.append(s)
            atomic_write(self.path, json.dumps(keep) + "\n")
        except (OSError, ValueError):
            pass


# --------------------------------------------------------------------------------------------
# The tree

def atomic_write(path, text):
    tmp = "%s.tmp%d.%d" % (path, os.getpid(), threading.get_ident())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def snap_down(value, table):
    """Largest table value <= value (the table minimum when value is below it)."""
    best = None
    for t in table:
        if t <= value and (best is None or t > best):
            best = t
    return best if best is not None else min(table)


def preset_mode(table, preset):
    def cap(v, lst):
        return max(lst) if v in (None, 0, -1) else snap_down(v, lst)
    return perfmodel.Mode(preset["cores"], cap(preset.get("cpu_max_khz"), table["cpu_khz"]),
                          cap(preset.get("gpu_max_hz"), table["gpu_hz"]),
                          cap(preset.get("emc_max_hz"), table["emc_hz"]))


def default_preset(table):
    name = table.get("default_preset")
    for p in table["presets"]:
        if p["name"] == name:
            return p
    return table["presets"][0]


def nvpmodel_conf(device, table):
    cluster = CPU_CLUSTER[device]
    lines = ["# nvpmodel.conf of the simulated %s (generated by ptwb_simjetson.py)" % device, ""]
    ncores = table["cores"]["max"]
    for p in table["presets"]:
        lines.append("< POWER_MODEL ID=%d NAME=%s >" % (p["id"], p["name"]))
        for c in range(ncores):
            lines.append("CPU_ONLINE CORE_%d %d" % (c, 1 if c < p["cores"] else 0))
        for c in range(0, ncores, 4):
            lines.append("%s_%d MAX_FREQ %d" % (cluster, c // 4, p["cpu_max_khz"]))
        lines.append("GPU MAX_FREQ %d" % p["gpu_max_hz"])
        lines.append("EMC MAX_FREQ %d" % (0 if p["emc_max_hz"] == max(table["emc_hz"])
                                          else p["emc_max_hz"]))
        lines.append("")
    lines.append("< PM_CONFIG DEFAULT=%d >" % default_preset(table)["id"])
    return "\n".join(lines) + "\n"


def gpu_dir(device):
    return "sys/class/devfreq/" + GPU_DEVFREQ[device]


def hwmon_dirs(device):
    return [("sys/bus/i2c/drivers/ina3221/%s/hwmon/%s" % (addr, hw), rails)
            for addr, hw, rails in RAILS[device]]


def _w(root, rel, text):
    path = os.path.join(root, rel)
    d = os.path.dirname(path)
    if not os.path.isdir(d):
        os.makedirs(d)
    atomic_write(path, text if text.endswith("\n") else text + "\n")


def build_tree(root, device, table):
    """Create the fake tree for `device` in `root` (which must not exist yet), in the default mode."""
    os.makedirs(root)
    _w(root, "proc/device-tree/model", MODEL_STRINGS[device] + "\x00")
    _w(root, "etc/nv_tegra_release", L4T[device])
    _w(root, "etc/nvpmodel.conf", nvpmodel_conf(device, table))
    _w(root, "proc/sys/kernel/random/boot_id", str(uuid.uuid4()))
    n = table["cores"]["max"]
    _w(root, CPU_BASE + "/present", "0-%d" % (n - 1))
    cpus = " ".join(str(v) for v in table["cpu_khz"])
    for c in range(n):
        base = "%s/cpu%d" % (CPU_BASE, c)
        if c > 0:
            _w(root, base + "/online", "1")
        _w(root, base + "/cpufreq/scaling_available_frequencies", cpus)
        for f in ("scaling_min_freq", "scaling_max_freq", "scaling_cur_freq"):
            _w(root, base + "/cpufreq/" + f, str(max(table["cpu_khz"])))
    for name, node, freqs in ((GPU_DEVFREQ[device], "gpu", table["gpu_hz"]),
                              (OTHER_DEVFREQ[0], OTHER_DEVFREQ[1], OTHER_DEVFREQ[2])):
        base = "sys/class/devfreq/" + name
        _w(root, base + "/device/of_node/name", node + "\x00")
        _w(root, base + "/available_frequencies", " ".join(str(v) for v in freqs))
        for f in ("min_freq", "max_freq", "cur_freq"):
            _w(root, base + "/" + f, str(max(freqs)))
    _w(root, EMC_DIR + "/possible_rates", " ".join(str(v) for v in table["emc_hz"]))
    _w(root, EMC_DIR + "/mrq_rate_locked", "0")
    _w(root, EMC_DIR + "/rate", str(max(table["emc_hz"])))
    for d, rails in hwmon_dirs(device):
        for i, (label, _) in enumerate(rails, 1):
            _w(root, "%s/in%d_label" % (d, i), label)
            _w(root, "%s/in%d_input" % (d, i), "%d" % RAIL_MV)
            _w(root, "%s/curr%d_input" % (d, i), "0")
    for i, (zone, _) in enumerate(THERMAL[device]):
        _w(root, "sys/class/thermal/thermal_zone%d/type" % i, zone)
        _w(root, "sys/class/thermal/thermal_zone%d/temp" % i, "%d" % (AMBIENT_C * 1000))
    set_mode_files(root, device, table, preset_mode(table, default_preset(table)), None)


def set_mode_files(root, device, table, mode, throttle):
    """Put the tree in `mode` directly (creation and reboot): cores, limits, current clocks."""
    for c in range(1, table["cores"]["max"]):
        _w(root, "%s/cpu%d/online" % (CPU_BASE, c), "1" if c < mode.cores else "0")
    for c in range(table["cores"]["max"]):
        base = "%s/cpu%d/cpufreq/" % (CPU_BASE, c)
        _w(root, base + "scaling_min_freq", str(min(table["cpu_khz"])))
        _w(root, base + "scaling_max_freq", str(mode.cpu_khz))
    g = gpu_dir(device) + "/"
    _w(root, g + "min_freq", str(min(table["gpu_hz"])))
    _w(root, g + "max_freq", str(mode.gpu_hz))
    _w(root, EMC_DIR + "/rate", str(mode.emc_hz))
    update_cur_freqs(root, device, table, throttle)


def _read(root, rel):
    with open(os.path.join(root, rel), "rb") as f:
        return f.read().decode("utf-8", "replace").replace("\x00", "").strip()


def _cur(limit, table, throttle):
    target = limit if throttle is None else limit * throttle
    return snap_down(target, table)


def update_cur_freqs(root, device, table, throttle):
    """What the kernel does after a limit changes: current = max limit, throttled, snapped down."""
    for c in range(table["cores"]["max"]):
        base = "%s/cpu%d/cpufreq/" % (CPU_BASE, c)
        cur = _cur(int(_read(root, base + "scaling_max_freq")), table["cpu_khz"], throttle)
        if _read(root, base + "scaling_cur_freq") != str(cur):
            _w(root, base + "scaling_cur_freq", str(cur))
    g = gpu_dir(device) + "/"
    cur = _cur(int(_read(root, g + "max_freq")), table["gpu_hz"], throttle)
    if _read(root, g + "cur_freq") != str(cur):
        _w(root, g + "cur_freq", str(cur))


def read_mode(root, device):
    """The mode the device runs now (as a workload sees it): online cores and current clocks."""
    n = 1
    c = 1
    while os.path.exists(os.path.join(root, "%s/cpu%d/online" % (CPU_BASE, c))):
        if _read(root, "%s/cpu%d/online" % (CPU_BASE, c)) == "1":
            n += 1
        c += 1
    return perfmodel.Mode(n, int(_read(root, CPU_BASE + "/cpu0/cpufreq/scaling_cur_freq")),
                          int(_read(root, gpu_dir(device) + "/cur_freq")),
                          int(_read(root, EMC_DIR + "/rate")))


def ensure_state(state_dir, device, table):
    """Create DIR/root for `device`, or reuse it when it already is that device's tree."""
    root = os.path.join(state_dir, "root")
    info_path = os.path.join(state_dir, "sim.json")
    info = None
    try:
        with open(info_path, "r", encoding="utf-8") as f:
            info = json.load(f)
    except (OSError, ValueError):
        info = None
    if info and info.get("device") == device and os.path.isdir(root):
        return root, False
    if os.path.isdir(root):
        shutil.rmtree(root)
    if not os.path.isdir(state_dir):
        os.makedirs(state_dir)
    build_tree(root, device, table)
    atomic_write(info_path, json.dumps({"device": device, "created": time.time()}) + "\n")
    return root, True


def read_load(state_dir):
    """The announced workload ({"name", "batch_size", "pid"}) or None (also when its process died)."""
    try:
        with open(os.path.join(state_dir, "load.json"), "r", encoding="utf-8") as f:
            load = json.load(f)
        pid = int(load.get("pid", 0))
        if pid > 0:
            os.kill(pid, 0)
        return load
    except (OSError, ValueError, TypeError, AttributeError):
        return None


# --------------------------------------------------------------------------------------------
# The kernel: write semantics, power, temperatures

class SimKernel(object):
    """State of the simulated device: clocks (in the tree), power with settling, temperatures."""

    def __init__(self, state_dir, device, table=None, speed=50.0, seed=0, faults=None,
                 model=None, clock=time.monotonic):
        self.state_dir = state_dir
        self.device = device
        self.table = table or perfmodel.load_device_table(device)
        self.root, self.created = ensure_state(state_dir, device, self.table)
        self.speed = float(speed)
        self.clock = clock
        self.t_wall0 = clock()
        self.rng = random.Random(seed)
        self.faults = faults or Faults([], os.path.join(state_dir, "faults.json"))
        self.model = model or perfmodel.PerfModel(device, table=self.table)
        self.lock = threading.RLock()
        self._throttle = self.faults.throttle()
        self._mode = None
        self._stamp = None
        self._load_key = None
        self._load_stamp = None
        self._last_refresh = -1.0
        self._target = None       # dict of power parts
        self._start = None        # parts at the anchor
        self._anchor = 0.0        # device seconds
        self._swing = 0.0         # W: the training swing within a minibatch (target)
        self._swing_start = 0.0   # W: the swing at the anchor
        self._phase_rng = random.Random("%s/phase" % (seed,))
        self._phase = (None, 0)   # (device s of the reading group, its minibatch phase)
        self._temps = None
        self._temp_t = 0.0
        self._ticker = None
        self._stop = threading.Event()
        with self.lock:
            update_cur_freqs(self.root, device, self.table, self._throttle)
            if self.faults.emc_locked():
                self._lock_emc()
            self.refresh(force=True)

    # -- time -------------------------------------------------------------------------------
    def now(self):
        """Device seconds since this kernel started."""
        return (self.clock() - self.t_wall0) * self.speed

    # -- mode and load ----------------------------------------------------------------------
    def mode(self):
        with self.lock:
            stamp = self._mode_stamp()
            if stamp != self._stamp:
                self._stamp = stamp
                self._mode = None
            if self._mode is None:
                self._mode = read_mode(self.root, self.device)
            return self._mode

    def _mode_stamp(self):
        """The mode's change stamp: the helper changes the mode from a process of its own, and
        the agent's kernel must see it (and so must every other reader of this device)."""
        try:
            st = os.stat(os.path.join(self.state_dir, MODE_STAMP))
            return (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            return None

    def _mode_changed(self):
        """Call with the lock held, after changing the mode files."""
        atomic_write(os.path.join(self.state_dir, MODE_STAMP), uuid.uuid4().hex + "\n")
        self._mode = None

    def _lock_emc(self):
        """emc-locked: the rate the clock is locked at is the default preset's (a tree reused
        from a run without the fault may have another)."""
        rate = str(preset_mode(self.table, default_preset(self.table)).emc_hz)
        if _read(self.root, EMC_DIR + "/rate") != rate:
            _w(self.root, EMC_DIR + "/rate", rate)
            self._mode_changed()

    def invalidate_mode(self):
        with self.lock:
            self._mode = None

    def _read_load_key(self):
        path = os.path.join(self.state_dir, "load.json")
        try:
            st = os.stat(path)
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if stamp is None:
            self._load_stamp = None
            self._load_key = None
            return None
        if stamp != self._load_stamp or self._load_key is not None:
            load = read_load(self.state_dir)   # checks the pid is still alive
            self._load_stamp = stamp
            inference = bool(load) and load.get("kind") == "inference"
            if load and self.model.has_workload(str(load.get("name"))) and (
                    not inference or self.model.has_inference(str(load["name"]))):
                self._load_key = (str(load["name"]), int(load.get("batch_size") or 16), inference)
            else:
                self._load_key = None
        return self._load_key

    def _parts_at(self, t):
        """The power parts' minibatch average at device time t (the settling transient)."""
        if self._start is None:
            return dict(self._target)
        a = math.exp(-max(t - self._anchor, 0.0) / POWER_TAU_S)
        return {k: self._target[k] + (self._start[k] - self._target[k]) * a for k in self._target}

    def _swing_at(self, t):
        """The training swing (W) at device time t: it settles with the parts it belongs to."""
        if self._start is None:
            return self._swing
        a = math.exp(-max(t - self._anchor, 0.0) / POWER_TAU_S)
        return self._swing + (self._swing_start - self._swing) * a

    def _reading_phase(self, t):
        """+1 (peak), -1 (dip) or 0 (neither): where in a training minibatch a reading at device
        time t lands. Random (a sampler does not follow the minibatches), from a generator of
        its own seeded by --seed; reads within READING_S of a group's first (the rails of one
        sample) share its phase, so the rails of a sample agree."""
        first, phase = self._phase
        if first is None or abs(t - first) > READING_S:
            phase = perfmodel.swing_phase(self._phase_rng.random())
            self._phase = (t, phase)
        return phase

    def refresh(self, force=False):
        """Recompute the power target from the mode and the load; re-anchor the transient."""
        with self.lock:
            wall = self.clock()
            if not force and wall - self._last_refresh < 0.001:
                return
            self._last_refresh = wall
            th = self.faults.throttle()
            if th != self._throttle:
                self._throttle = th
                update_cur_freqs(self.root, self.device, self.table, th)
                self._mode = None
            load = self._read_load_key()
            mode = self.mode()
            if load is None:
                split = self.model.power_split(None, mode)
            elif load[2]:
                split = self.model.inference_power_split(load[0], mode, load[1])
            else:
                split = self.model.power_split(load[0], mode, load[1])
            target = {k: split[k] for k in ("cpu", "gpu", "mem", "static")}
            swing = 0.0
            if load is not None and not load[2]:      # training: power varies in a minibatch
                swing = perfmodel.training_swing_w(split["gpu"], load[1])
            t = self.now()
            if self._target is None:
                self._target = target
                self._swing = swing
                self._start = None
                self._anchor = t
            elif any(abs(target[k] - self._target[k]) > 1e-9 for k in target) or \
                    abs(swing - self._swing) > 1e-9:
                self._start = self._parts_at(t)
                self._swing_start = self._swing_at(t)
                self._target = target
                self._swing = swing
                self._anchor = t
            self._loaded = load is not None

    # -- readings ---------------------------------------------------------------------------
    def power_parts(self):
        """One reading of the power parts (W): the minibatch average, plus or minus the training
        swing when the reading lands in a peak or dip phase, times the reading noise."""
        with self.lock:
            self.refresh()
            t = self.now()
            parts = self._parts_at(t)
            swing = self._swing_at(t)
            if swing > 0.0:
                parts["gpu"] += swing * self._reading_phase(t)
            noise = POWER_NOISE + (TRAIN_NOISE if self._loaded else 0.0)
            f = 1.0 + self.rng.gauss(0.0, noise)
            return {k: max(v * f, 0.0) for k, v in parts.items()}

    def rail_powers(self, parts=None):
        parts = parts or self.power_parts()
        out = {}
        for _, rails in hwmon_dirs(self.device):
            for label, share in rails:
                out[label] = sum(parts[k] * s for k, s in share.items())
        return out

    def total_power(self):
        return sum(self.power_parts().values())

    def temperatures(self):
        """Zone temperatures (C): first-order towards ambient + k * power, hot when throttling."""
        with self.lock:
            t = self.now()
            parts = self._parts_at(t)
            total = sum(parts.values())
            targets = [AMBIENT_C + k * total for _, k in THERMAL[self.device]]
            if self._temps is None:
                self._temps = list(targets)
            else:
                a = math.exp(-max(t - self._temp_t, 0.0) / THERMAL_TAU_S)
                self._temps = [tg + (cur - tg) * a for cur, tg in zip(self._temps, targets)]
            self._temp_t = t
            hot = THROTTLE_HOT_C if self._throttle is not None else 0.0
            return [v + hot for v in self._temps]

    def hwmon_value(self, rel):
        """Live value of an hwmon input file (mV or mA), or None when rel is not one."""
        for d, rails in hwmon_dirs(self.device):
            if rel.startswith(d + "/"):
                name = rel[len(d) + 1:]
                for i, (label, _) in enumerate(rails, 1):
                    if name == "in%d_input" % i:
                        return "%d" % round(RAIL_MV + self.rng.gauss(0.0, 4.0))
                    if name == "curr%d_input" % i:
                        return "%d" % round(self.rail_powers()[label] * 1e6 / RAIL_MV)
        return None

    def thermal_value(self, rel):
        if rel.startswith("sys/class/thermal/thermal_zone") and rel.endswith("/temp"):
            try:
                i = int(rel[len("sys/class/thermal/thermal_zone"):-len("/temp")])
            except ValueError:
                return None
            temps = self.temperatures()
            if 0 <= i < len(temps):
                return "%d" % round(temps[i] * 1000)
        return None

    def write_readings(self):
        """Write current power and temperatures into the tree (for readers outside the process)."""
        parts = self.power_parts()
        powers = self.rail_powers(parts)
        for d, rails in hwmon_dirs(self.device):
            for i, (label, _) in enumerate(rails, 1):
                _w(self.root, "%s/curr%d_input" % (d, i), "%d" % round(powers[label] * 1e6 / RAIL_MV))
        for i, v in enumerate(self.temperatures()):
            _w(self.root, "sys/class/thermal/thermal_zone%d/temp" % i, "%d" % round(v * 1000))

    # -- the kernel thread -------------------------------------------------------------------
    def start(self, interval=0.02):
        def run():
            while not self._stop.wait(interval):
                try:
                    self.faults.reload()
                    self.refresh(force=True)
                    self.write_readings()
                except Exception as e:   # keep the device alive; say what went wrong
                    log("kernel thread: %s: %s" % (type(e).__name__, e))
        self._ticker = threading.Thread(target=run, name="sim-kernel", daemon=True)
        self._ticker.start()

    def stop(self):
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(1.0)

    # -- writes (the kernel's side of KernelFiles.write) ------------------------------------
    def kernel_write(self, rel, text):
        """Apply a write as the kernel would; raises OSError(EINVAL) and writes nothing when refused."""
        rel = rel.lstrip("/")
        path = os.path.join(self.root, rel)
        value = text.strip()
        with self.lock:
            self.faults.reload()
            if not os.path.exists(path):
                raise OSError(errno.ENOENT, "No such file or directory", path)
            parts = rel.split("/")
            if rel.startswith(EMC_DIR + "/") and self.faults.emc_locked():
                raise OSError(errno.EPERM, "Operation not permitted (simulated emc-locked "
                              "device: the memory clock cannot be controlled)", path)
            if rel.startswith(CPU_BASE + "/cpu") and parts[-1] == "online":
                self._write_online(rel, path, value)
            elif rel.startswith(CPU_BASE + "/cpu") and parts[-1] in ("scaling_min_freq", "scaling_max_freq"):
                self._write_limit(rel, path, value, "cpu_khz", self.table["cpu_khz"],
                                  "scaling_min_freq", "scaling_max_freq")
            elif rel.startswith("sys/class/devfreq/") and parts[-1] in ("min_freq", "max_freq"):
                if not rel.startswith(gpu_dir(self.device) + "/"):
                    self._write_limit(rel, path, value, None, OTHER_DEVFREQ[2], "min_freq", "max_freq")
                else:
                    self._write_limit(rel, path, value, "gpu_hz", self.table["gpu_hz"],
                                      "min_freq", "max_freq")
            elif rel == EMC_DIR + "/mrq_rate_locked":
                if value not in ("0", "1"):
                    raise OSError(errno.EINVAL, "Invalid argument", path)
                _w(self.root, rel, value)
            elif rel == EMC_DIR + "/rate":
                v = self._int(value, path)
                if self.faults.rejected("emc_hz", v):
                    raise OSError(errno.EINVAL, "Invalid argument (simulated fault)", path)
                if self.faults.decreasing_only() and \
                        snap_down(v, self.table["emc_hz"]) > int(_read(self.root, rel)):
                    self._refuse_raise(path, "emc_hz")
                _w(self.root, rel, str(snap_down(v, self.table["emc_hz"])))
            else:
                raise OSError(errno.EACCES, "Permission denied", path)
            self._mode_changed()
            self.refresh(force=True)

    @staticmethod
    def _int(value, path):
        try:
            v = int(value)
        except ValueError:
            raise OSError(errno.EINVAL, "Invalid argument", path)
        if v <= 0:
            raise OSError(errno.EINVAL, "Invalid argument", path)
        return v

    def _refuse_raise(self, path, field):
        raise OSError(errno.EPERM, "Operation not permitted (simulated decreasing-only device: "
                      "raising %s needs a reboot)" % field, path)

    def _write_online(self, rel, path, value):
        if value not in ("0", "1"):
            raise OSError(errno.EINVAL, "Invalid argument", path)
        old = _read(self.root, rel)
        if value == "1" and old != "1" and self.faults.decreasing_only():
            self._refuse_raise(path, "cores")
        if value != old:
            mode = read_mode(self.root, self.device)
            after = mode.cores + (1 if value == "1" else -1)
            if self.faults.rejected("cores", after):
                raise OSError(errno.EINVAL, "Invalid argument (simulated fault)", path)
        _w(self.root, rel, value)

    def _write_limit(self, rel, path, value, field, table, min_name, max_name):
        v = self._int(value, path)
        if field and self.faults.rejected(field, v):
            raise OSError(errno.EINVAL, "Invalid argument (simulated fault)", path)
        d = rel.rsplit("/", 1)[0]
        lo = int(_read(self.root, d + "/" + min_name))
        hi = int(_read(self.root, d + "/" + max_name))
        if rel.endswith("/" + min_name) and v > hi:
            raise OSError(errno.EINVAL, "Invalid argument (min above max)", path)
        if rel.endswith("/" + max_name) and v < lo:
            raise OSError(errno.EINVAL, "Invalid argument (max below min)", path)
        if field and rel.endswith("/" + max_name) and v > hi and self.faults.decreasing_only():
            self._refuse_raise(path, field)
        _w(self.root, rel, str(v))
        if field:
            update_cur_freqs(self.root, self.device, self.table, self._throttle)
        else:
            _w(self.root, d + "/cur_freq", str(snap_down(int(_read(self.root, d + "/" + max_name)), table)))

    # -- reboot ------------------------------------------------------------------------------
    def reboot(self):
        """New boot id, default mode, no workload."""
        with self.lock:
            _w(self.root, "proc/sys/kernel/random/boot_id", str(uuid.uuid4()))
            _w(self.root, EMC_DIR + "/mrq_rate_locked", "0")
            set_mode_files(self.root, self.device, self.table,
                           preset_mode(self.table, default_preset(self.table)), self._throttle)
            try:
                os.remove(os.path.join(self.state_dir, "load.json"))
            except OSError:
                pass
            self._mode_changed()


def make_kernel_files(base_cls):
    """A KernelFiles subclass (of the agent's class) whose writes and live reads go to a SimKernel."""

    class SimKernelFiles(base_cls):
        def __init__(self, root, kernel):
            base_cls.__init__(self, root)
            self.kernel = kernel

        def read(self, path):
            rel = path.lstrip("/")
            if rel == DEVICE_CONFIG and self.kernel.faults.decreasing_only():
                return json.dumps({"mode_changes": "decreasing"})
            if self._hidden(rel):
                raise OSError(errno.ENOENT, "No such file or directory", path)
            v = self.kernel.hwmon_value(rel)
            if v is None:
                v = self.kernel.thermal_value(rel)
            if v is not None:
                return v
            return base_cls.read(self, path)

        def exists(self, path):
            return not self._hidden(path.lstrip("/")) and base_cls.exists(self, path)

        def _hidden(self, rel):
            """emc-locked: the device lists no EMC rates (no possible_rates)."""
            return rel == EMC_POSSIBLE_RATES and self.kernel.faults.emc_locked()

        def write(self, path, text):
            self.kernel.kernel_write(path, text)

    return SimKernelFiles
