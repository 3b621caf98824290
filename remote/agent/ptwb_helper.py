#!/usr/bin/python3 -I
"""PowerTrain Workbench privileged helper: the only part of the workbench that runs as root.

Installed root-owned as /usr/lib/powertrain-workbench/ptwb-helper (by `ptwb device setup` or the
powertrain-workbench-device package) and run by the unprivileged agent through
`sudo -n /usr/lib/powertrain-workbench/ptwb-helper VERB ARGS...`. Its interface is these verbs,
with whole numbers, a hex token or a boot id as arguments; nothing else (no paths, commands or
code) is accepted from the caller:

  version                              the helper's version
  read                                 the clock tables, the current mode, mode_changes
  apply CORES CPU_KHZ GPU_HZ EMC_HZ    set a mode from the device's own tables; read it back
  arm SECONDS                          record the mode to come back to and start the watchdog
  confirm [TOKEN]                      keep the mode armed by `arm` (TOKEN: that arm's)
  status TOKEN                         armed | confirmed | reverted | other | missing
  reboot BOOT_ID                       reboot, if the device still runs that boot
  watch TOKEN                          (started by `arm`) restore the mode at the deadline
  stage CORES CPU_KHZ GPU_HZ EMC_HZ SECONDS BOOT_ID
                                       record a mode to apply after the next reboot, with a
                                       revert armed for SECONDS (apply-by-reboot); no write
  unstage TOKEN                        forget that staged mode (before the reboot)
  boot                                 (run once per boot by powertrain-workbench-boot.service)
                                       apply the staged mode and arm its revert

One JSON object is printed on stdout: {"ok": true, "result": {...}} or {"ok": false, "error":
{"code", "message", ...}}. Exit status 0, 1 (the operation failed) or 2 (not this interface).
Its state (the armed revert) lives in /var/lib/powertrain-workbench, root-owned, never in a
user-writable place. Standard library only, Python 3.8+. See docs/device-protocol.md.

The agent imports this file (its uploaded copy) for the unprivileged reads, and the workbench's
setup step feeds it to `sudo -S python3` to install it (see install()).
"""

import bisect
import glob as _glob
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time

try:
    import fcntl
except ImportError:  # not Linux: only the in-process test configurations run there
    fcntl = None

HELPER_VERSION = 3

INSTALL_DIR = "/usr/lib/powertrain-workbench"
INSTALL_PATH = INSTALL_DIR + "/ptwb-helper"
STATE_DIR = "/var/lib/powertrain-workbench"
SUDOERS_FILE = "/etc/sudoers.d/powertrain-workbench"
BOOT_UNIT = "powertrain-workbench-boot.service"
BOOT_UNIT_DIR = "/etc/systemd/system"          # `ptwb device setup` (the package: /lib/...)
BOOT_UNIT_TEXT = """\
# PowerTrain Workbench: once per boot, applies a power mode staged for after a reboot (an
# apply-by-reboot on a device that lowers clocks only until a reboot) and arms its revert, or
# restores the mode a revert needed a reboot for. Installed by `ptwb device setup` or the
# powertrain-workbench-device package; see docs/device-protocol.md.
[Unit]
Description=PowerTrain Workbench: apply the power mode staged for this boot
Documentation=file:/usr/lib/powertrain-workbench/ptwb-helper
ConditionPathExists=/usr/lib/powertrain-workbench/ptwb-helper
After=local-fs.target nvpmodel.service

[Service]
Type=oneshot
ExecStart=/usr/lib/powertrain-workbench/ptwb-helper boot
# The revert's watchdog (`ptwb-helper watch TOKEN`) outlives this oneshot: only the main
# process belongs to the unit's life.
KillMode=process
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
"""

CPU_DIR = "sys/devices/system/cpu"
DEVFREQ_DIR = "sys/class/devfreq"
EMC_DIR = "sys/kernel/debug/bpmp/debug/clk/emc"
BOOT_ID_FILE = "proc/sys/kernel/random/boot_id"
MODE_FIELDS = ("cores", "cpu_khz", "gpu_hz", "emc_hz")

# The device's own configuration for the workbench (relative to the root, so it survives reboots
# and the simulator can serve it): {"mode_changes": "any" | "decreasing"}.
DEVICE_CONFIG = "etc/powertrain-workbench/agent.json"
MODE_CHANGES = ("any", "decreasing")  # "decreasing": clocks and cores may only go down without a reboot

REVERT_FILE = "revert.json"        # the armed revert
CONFIRMED_FILE = "confirmed.json"  # the last confirmed one
REVERTED_FILE = "reverted.json"    # the last one the watchdog restored
STAGED_FILE = "staged.json"        # a mode to apply after the next reboot (apply-by-reboot)
WATCH_POLL_S = 0.25                # wall seconds between the watchdog's looks at revert.json
OVERDUE_GRACE_S = 2.0              # past this, any helper call performs a revert the watchdog missed
MAX_ARM_S = 3600
REBOOT_TIMEOUT_S = 60.0

# \Z, not $: `$` also matches before a trailing newline, which would let "4\n" through as 4
TOKEN_RE = re.compile(r"^[0-9a-f]{32}\Z")
BOOT_ID_RE = re.compile(r"^[0-9a-fA-F-]{8,64}\Z")
INT_RE = re.compile(r"^[0-9]{1,12}\Z")


def log(msg):
    try:
        sys.stderr.write("ptwb-helper: %s\n" % msg)
        sys.stderr.flush()
    except Exception:
        pass


class OpError(Exception):
    def __init__(self, code, message, **extra):
        Exception.__init__(self, message)
        self.code = code
        self.message = message
        self.extra = extra


# --------------------------------------------------------------------------------------------
# Kernel file access (the simulator and the tests subclass this)

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


def to_int(v):
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


def recorded_mode(value):
    """A mode read back from the state directory, checked to be one (ints in every field)."""
    if not isinstance(value, dict) or not all(
            isinstance(value.get(f), int) and not isinstance(value.get(f), bool)
            for f in MODE_FIELDS):
        raise OpError("internal", "the recorded mode is not a mode")
    return dict((f, value[f]) for f in MODE_FIELDS)


def fixed_fields(tables, current):
    """The mode fields the device cannot control, each at the value it runs at: EMC when the
    device reports no allowed rates (no or an empty possible_rates: a locked memory clock) but
    a current one. A mode must keep such a field at that value (issue 22)."""
    emc = (current or {}).get("emc_hz")
    if not (tables.get("emc_hz") or []) and isinstance(emc, int) and not isinstance(emc, bool):
        return {"emc_hz": emc}
    return {}


def check_fixed(mode, fixed, name="mode"):
    """Every field in fixed (fixed_fields()) must be at the value the device runs it at."""
    for f, value in sorted(fixed.items()):
        if mode[f] != value:
            raise OpError("no_such_mode", "%s.%s: %d: the memory clock (EMC) cannot be "
                          "controlled on this device; it runs at %d Hz, the only value a mode "
                          "can have" % (name, f, mode[f], value))


def check_in_tables(mode, tables, name="mode", fixed=None):
    """Every field of mode (ints) must be in the device's own table, or, for a field the device
    cannot control (fixed: fixed_fields()), at the value it runs at."""
    fixed = fixed or {}
    check_fixed(mode, fixed, name)
    for f in MODE_FIELDS:
        if f in fixed:
            continue
        table = tables.get(f) or []
        if mode[f] not in table:
            if table:
                raise OpError("no_such_mode", "%s.%s: %d is not in the device's table; nearest "
                              "allowed: %s" % (name, f, mode[f], ", ".join(
                                  str(x) for x in nearest_allowed(table, mode[f]))))
            raise OpError("no_such_mode", "%s.%s: the device reports no allowed values" % (name, f))
    return mode


# --------------------------------------------------------------------------------------------
# Clocks and cores: the tables, the current mode, applying a mode

class Clocks(object):
    def __init__(self, files):
        self.f = files
        self._gpu_dir = None

    def read_file(self, path, default=None):
        try:
            return self.f.read(path)
        except (OSError, IOError):
            return default

    def boot_id(self):
        return (self.read_file(BOOT_ID_FILE) or "").strip() or None

    def core_ids(self):
        return parse_cpu_list(self.f.read(CPU_DIR + "/present"))

    def gpu_dir(self):
        if self._gpu_dir is not None:
            return self._gpu_dir
        found = None
        for p in self.f.glob(DEVFREQ_DIR + "/*/device/of_node/name"):
            if self.read_file(p, "") == "gpu":
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
        t["gpu_hz"] = parse_int_list(self.read_file(g + "/available_frequencies", "")) if g else []
        t["emc_hz"] = parse_int_list(self.read_file(EMC_DIR + "/possible_rates", ""))
        return t

    def emc_rate(self):
        """The rate EMC runs at (Hz), or None when it cannot be read."""
        return to_int(self.read_file(EMC_DIR + "/rate"))

    def fixed(self, tables):
        """fixed_fields() of this device; the EMC rate is read only when there is no EMC table."""
        if (tables or {}).get("emc_hz"):
            return {}
        return fixed_fields(tables or {}, {"emc_hz": self.emc_rate()})

    def check_mode(self, mode, tables, name="mode"):
        """check_in_tables() with the fields this device cannot control fixed where they run."""
        return check_in_tables(mode, tables, name, self.fixed(tables))

    def is_online(self, n):
        if n == 0:
            return True
        v = self.read_file("%s/cpu%d/online" % (CPU_DIR, n))
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
            v = self.read_file(self.cpu_file(n, "scaling_cur_freq"))
            if v is not None:
                try:
                    cpu[n] = int(v)
                except ValueError:
                    pass
        g = self.gpu_dir()
        gpu = self.read_file(g + "/cur_freq") if g else None
        emc = self.read_file(EMC_DIR + "/rate")
        mode = {
            "cores": len(online),
            "cpu_khz": cpu.get(0, cpu[min(cpu)] if cpu else None),
            "gpu_hz": to_int(gpu),
            "emc_hz": to_int(emc),
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
        text = self.read_file(DEVICE_CONFIG)
        if text is None:
            return "any"
        try:
            conf = json.loads(text)
        except ValueError as e:
            log("%s: not JSON (%s); reporting mode_changes \"any\"" % (DEVICE_CONFIG, e))
            return "any"
        value = conf.get("mode_changes", "any") if isinstance(conf, dict) else None
        if value not in MODE_CHANGES:
            log("%s: mode_changes must be \"any\" or \"decreasing\"; reporting \"any\""
                % DEVICE_CONFIG)
            return "any"
        return value

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
        """Apply a mode from the tables in the documented order, then read back.
        Returns the read-back mode; raises OpError(write_failed / readback_mismatch)."""
        try:
            self._apply_writes(mode, self.fixed(tables))
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

    def _apply_writes(self, mode, fixed):
        """fixed: fixed_fields(); a field in it is not written (the mode keeps its value)."""
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
        # (3) EMC through the bpmp debugfs clock, unless it cannot be controlled (a locked
        # clock refuses the write, and the mode was checked to keep its rate)
        if "emc_hz" not in fixed:
            self._write(EMC_DIR + "/mrq_rate_locked", 1, "emc_hz")
            self._write(EMC_DIR + "/rate", mode["emc_hz"], "emc_hz")
        # (4) offline the extra cores, highest first
        for n in sorted(ids, reverse=True):
            if n != 0 and n not in want and self.is_online(n):
                self._write("%s/cpu%d/online" % (CPU_DIR, n), 0, "cores")

    def apply_or_restore(self, mode, tables):
        """apply(); a refused write leaves the device part-way between two modes, so the
        previous mode is put back (best effort) and the error says whether that worked. A
        readback mismatch is left alone: the kernel chose those clocks (throttling, a cap) and
        they are safe by its own measure. Returns (readback, previous)."""
        previous = self.read_mode(tables)[0]
        try:
            return self.apply(mode, tables), previous
        except OpError as e:
            if e.code != "write_failed":
                raise
            try:
                e.extra["readback"] = self.apply(self.check_mode(dict(previous), tables,
                                                                 "previous"), tables)
                e.extra["restored"] = True
                e.message += "; the previous mode was restored"
            except OpError as again:
                e.extra["restored"] = False
                e.message += "; restoring the previous mode failed too: " + again.message
                if "readback" in again.extra:
                    e.extra["readback"] = again.extra["readback"]
            raise e


# --------------------------------------------------------------------------------------------
# The state directory: root-owned, never a symlink, never writable by anyone else

class StateDir(object):
    def __init__(self, path, owner_uid):
        self.path = path
        self.owner_uid = owner_uid

    def file(self, name):
        return os.path.join(self.path, name)

    def problem(self):
        """Why the directory must not be used, or None."""
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return None
        except OSError as e:
            return "%s: %s" % (self.path, e.strerror or e)
        if stat.S_ISLNK(st.st_mode):
            return "%s is a symbolic link; the helper's state must be a real directory owned by " \
                   "root (remove the link and run `ptwb device setup` again)" % self.path
        if not stat.S_ISDIR(st.st_mode):
            return "%s is not a directory" % self.path
        if st.st_uid != self.owner_uid:
            return "%s is owned by uid %d, not %d; remove it and run `ptwb device setup` again" \
                   % (self.path, st.st_uid, self.owner_uid)
        if st.st_mode & 0o022:
            return "%s is writable by others (mode %o); it must be 0700" \
                   % (self.path, stat.S_IMODE(st.st_mode))
        return None

    def ensure(self):
        why = self.problem()
        if why is not None:
            raise OpError("unsafe_state", why)
        if not os.path.isdir(self.path):
            try:
                os.makedirs(self.path, 0o700)
            except FileExistsError:
                pass
            except OSError as e:
                raise OpError("internal", "cannot create %s: %s" % (self.path, e.strerror or e))
            why = self.problem()
            if why is not None:
                raise OpError("unsafe_state", why)

    def lock(self):
        return _Lock(self)

    def read(self, name):
        """The JSON object in name, or None (missing or unreadable: a partial file cannot exist,
        every write is a rename)."""
        try:
            fd = os.open(self.file(name), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            with os.fdopen(fd, "rb") as f:
                data = f.read(65536)
            rec = json.loads(data.decode("utf-8"))
        except (OSError, ValueError):
            return None
        return rec if isinstance(rec, dict) else None

    def write(self, name, rec):
        tmp = self.file(".%s.%d.%s.tmp" % (name, os.getpid(), os.urandom(4).hex()))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(tmp, flags, 0o600)
        try:
            with os.fdopen(fd, "w") as f:
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

    def remove(self, name):
        try:
            os.unlink(self.file(name))
        except FileNotFoundError:
            pass


class _Lock(object):
    """flock on STATE/lock: one state change or mode change at a time, across processes."""

    def __init__(self, state):
        self.state = state
        self.fd = None

    def __enter__(self):
        self.state.ensure()
        if fcntl is not None:
            flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
            self.fd = os.open(self.state.file("lock"), flags, 0o600)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        return False


# --------------------------------------------------------------------------------------------
# Configuration: the installed helper's, or a test's / the simulator's

class Config(object):
    """files: KernelFiles; state_dir/owner_uid: where the revert is kept and who must own it;
    time_scale: device seconds per wall second (the simulator's speed); spawn_watch(token):
    starts `watch TOKEN` detached; reboot(): reboots (returns when the command returned)."""

    def __init__(self, files, state_dir, owner_uid, time_scale=1.0, spawn_watch=None,
                 reboot=None):
        self.files = files
        self.state = StateDir(state_dir, owner_uid)
        self.time_scale = float(time_scale)
        self.spawn_watch = spawn_watch
        self.reboot = reboot


def _spawn_installed_watch(token):
    # A session of its own: it outlives sudo and the agent that armed it. Only constant tokens
    # and the validated hex token reach its argv.
    subprocess.Popen([sys.executable, "-I", INSTALL_PATH, "watch", token],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True, cwd="/")


def _system_reboot():
    systemctl = shutil.which("systemctl", path="/usr/bin:/bin:/usr/sbin:/sbin")
    command = [systemctl, "reboot"] if systemctl else ["/sbin/reboot"]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=REBOOT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise OpError("reboot_failed", "`%s` did not return within %d s"
                      % (" ".join(command), REBOOT_TIMEOUT_S))
    except OSError as e:
        raise OpError("reboot_failed", "`%s` could not start: %s"
                      % (" ".join(command), e.strerror or e))
    if done.returncode != 0:
        lines = [l for l in done.stderr.decode("utf-8", "replace").splitlines() if l.strip()]
        raise OpError("reboot_failed", "`%s` exited with status %d%s"
                      % (" ".join(command), done.returncode,
                         (": " + lines[-1].strip()[:200]) if lines else ""))


def installed_config():
    return Config(KernelFiles("/"), STATE_DIR, 0, 1.0, _spawn_installed_watch, _system_reboot)


# --------------------------------------------------------------------------------------------
# The verbs

class Helper(object):
    def __init__(self, config):
        self.c = config
        self.clocks = Clocks(config.files)
        self.state = config.state

    # --- the armed revert
    def _drop_stale(self, boot):
        """Call under the lock. A mode staged before a reboot is applied now, if `boot` (the
        boot unit) has not done it yet (_boot_staged). A revert armed before a reboot is void
        (the reboot reset the mode); one past its deadline whose watchdog did not fire (killed)
        is performed now."""
        staged = self.state.read(STAGED_FILE)
        if staged is not None and staged.get("boot_id") != boot:
            self._boot_staged(staged, boot)
        rec = self.state.read(REVERT_FILE)
        if rec is None:
            return
        if rec.get("boot_id") != boot:
            self.state.remove(REVERT_FILE)
            return
        deadline = rec.get("deadline_epoch")
        if isinstance(deadline, (int, float)) and time.time() > deadline + OVERDUE_GRACE_S:
            log("revert %s is overdue (its watchdog is gone); restoring now" % rec.get("token"))
            self._fire(rec, boot)

    def _fire(self, rec, boot):
        """Call under the lock: restore rec's previous mode; record how it went. On a device
        that lowers clocks only until a reboot, a previous mode above the current one in any
        field is restored through a reboot (_restore_by_reboot)."""
        out = {"token": rec.get("token"), "boot_id": boot, "at": time.time()}
        try:
            tables = self.clocks.tables()
            clean = self.clocks.check_mode(recorded_mode(rec.get("previous")), tables,
                                           "previous")
            if self.c.reboot is not None and self.clocks.mode_changes() == "decreasing":
                current = self.clocks.read_mode(tables)[0]
                if any(current.get(f) is None or clean[f] > current[f] for f in MODE_FIELDS):
                    return self._restore_by_reboot(rec, boot, clean)
            out["mode"] = self.clocks.apply(clean, tables)
        except OpError as e:
            out["mode"] = e.extra.get("readback")
            out["error"] = {"code": e.code, "message": e.message}
        self.state.write(REVERTED_FILE, out)
        self.state.remove(REVERT_FILE)
        log("revert %s: %s" % (out["token"], "restored" if "error" not in out
                               else out["error"]["message"]))
        return out

    def _restore_by_reboot(self, rec, boot, previous):
        """Call under the lock: the previous mode needs a raise the device refuses until a
        reboot. Stage it restore-only (the next boot applies it and arms nothing) and reboot."""
        token = rec.get("token")
        self.state.write(STAGED_FILE, {"token": token, "boot_id": boot, "target": previous,
                                       "previous": previous, "restore_only": True,
                                       "at": time.time()})
        self.state.remove(REVERT_FILE)
        log("revert %s: the previous mode needs a reboot on this device; rebooting" % token)
        out = {"token": token, "boot_id": boot, "at": time.time(), "mode": None,
               "by_reboot": True}
        try:
            self.c.reboot()
        except OpError as e:
            # the staged restore stays: the next reboot, whenever it comes, restores the mode
            out["error"] = {"code": e.code, "message": "restoring the previous mode needs a "
                            "reboot, and the reboot failed: %s; the next boot restores it"
                            % e.message}
            self.state.write(REVERTED_FILE, out)
            log("revert %s: %s" % (token, out["error"]["message"]))
        return out

    def _boot_staged(self, staged, boot):
        """Call under the lock, in a boot other than the staged entry's (the reboot happened):
        apply its target; unless restore-only, arm the revert to its previous mode with its
        token, deadline revert_after_s from now, and start the watchdog. A target that cannot be
        applied is reported as reverted (status TOKEN), with the previous mode put back as well
        as the device allows, and nothing armed. Returns what happened."""
        token = staged.get("token")
        restore_only = bool(staged.get("restore_only"))
        out = {"token": token, "boot_id": boot, "at": time.time()}
        tables = self.clocks.tables()
        try:
            target = self.clocks.check_mode(recorded_mode(staged.get("target")), tables,
                                            "target")
            previous = self.clocks.check_mode(recorded_mode(staged.get("previous")), tables,
                                              "previous")
            seconds = staged.get("revert_after_s")
            if not restore_only and not (isinstance(seconds, int) and
                                         1 <= seconds <= MAX_ARM_S):
                raise OpError("internal", "the staged revert_after_s is not 1..%d" % MAX_ARM_S)
        except OpError as e:
            out.update(mode=None, error={"code": e.code, "message": "the staged mode: "
                                         + e.message})
            self.state.write(REVERTED_FILE, out)
            self.state.remove(STAGED_FILE)
            log("boot: staged %s not applied: %s" % (token, e.message))
            return dict(out, state="failed")
        if not restore_only:
            self.state.remove(REVERT_FILE)  # from the boot before: void
        try:
            readback = self.clocks.apply(target, tables)
        except OpError as e:
            if restore_only or e.code != "readback_mismatch":
                return self._boot_failed(staged, boot, out, previous, tables, e)
            readback = e.extra.get("readback")  # the kernel chose those clocks: still armed
        if restore_only:
            out["mode"] = readback
            out["by_reboot"] = True
            self.state.write(REVERTED_FILE, out)
            self.state.remove(STAGED_FILE)
            log("boot: restored the previous mode of revert %s" % token)
            return dict(out, state="restored")
        deadline = time.time() + seconds / self.c.time_scale
        self.state.write(REVERT_FILE, {"token": token, "previous": previous,
                                       "deadline_epoch": deadline, "boot_id": boot,
                                       "target": target, "by_reboot": True})
        self.state.remove(STAGED_FILE)
        if self.c.spawn_watch is not None:
            self.c.spawn_watch(token)
        log("boot: applied the staged mode; revert %s armed for %d s" % (token, seconds))
        return {"state": "armed", "token": token, "mode": readback, "previous": previous,
                "seconds": seconds, "deadline_epoch": deadline, "boot_id": boot}

    def _boot_failed(self, staged, boot, out, previous, tables, e):
        """The staged target could not be applied: put the previous mode back as well as the
        device allows, record it as reverted (with the error), arm nothing."""
        out["error"] = {"code": e.code, "message": "applying the staged mode after the reboot "
                        "failed: " + e.message}
        try:
            out["mode"] = self.clocks.apply(previous, tables)
            out["error"]["message"] += "; the previous mode was restored"
        except OpError as again:
            out["mode"] = again.extra.get("readback")
            out["error"]["message"] += "; restoring the previous mode failed too: " + \
                again.message
        self.state.write(REVERTED_FILE, out)
        self.state.remove(STAGED_FILE)
        log("boot: %s" % out["error"]["message"])
        return dict(out, state="failed")

    def op_stage(self, mode, seconds, boot_id):
        boot = self.clocks.boot_id()
        if boot_id != boot:
            raise OpError("boot_changed", "boot_id: the device booted since (boot id %s, the "
                          "request names %s); not staging for it" % (boot, boot_id))
        tables = self.clocks.tables()
        self.clocks.check_mode(mode, tables)
        with self.state.lock():
            self._drop_stale(boot)
            old = self.state.read(STAGED_FILE)
            if old is not None and old.get("restore_only"):
                raise OpError("restore_pending", "a revert waits for a reboot to restore the "
                              "previous mode; reboot the device first")
            rec = self.state.read(REVERT_FILE)
            if rec is not None and isinstance(rec.get("previous"), dict):
                previous = rec["previous"]  # as re-arming: the last mode known to be good
            else:
                previous = self.clocks.get_mode()
            token = os.urandom(16).hex()
            self.state.write(STAGED_FILE, {"token": token, "boot_id": boot, "target": mode,
                                           "previous": previous, "revert_after_s": seconds,
                                           "at": time.time()})
        return {"token": token, "previous": previous}

    def op_unstage(self, token):
        with self.state.lock():
            self._drop_stale(self.clocks.boot_id())
            rec = self.state.read(STAGED_FILE)
            if rec is None or rec.get("token") != token or rec.get("restore_only"):
                why = "nothing is staged" if rec is None else "token %s is not the staged " \
                    "mode's" % token
                raise OpError("not_staged", why)
            self.state.remove(STAGED_FILE)
        return {"token": token, "unstaged": True}

    def op_boot(self):
        boot = self.clocks.boot_id()
        with self.state.lock():
            staged = self.state.read(STAGED_FILE)
            result = {"state": "nothing"}
            if staged is not None and staged.get("boot_id") != boot:
                result = self._boot_staged(staged, boot)
            self._drop_stale(boot)
        return result

    def armed_and_staged(self):
        """For `read`: the armed revert and the staged mode, as a client may see them."""
        rec = self.state.read(REVERT_FILE)
        revert = None
        if rec is not None:
            left = float(rec.get("deadline_epoch", 0)) - time.time()
            revert = {"token": rec.get("token"), "previous": rec.get("previous"),
                      "deadline_epoch": rec.get("deadline_epoch"),
                      "seconds_left": round(max(0.0, left) * self.c.time_scale, 1),
                      "by_reboot": bool(rec.get("by_reboot"))}
            if rec.get("by_reboot"):
                revert["target"] = rec.get("target")
        rec = self.state.read(STAGED_FILE)
        staged = None
        if rec is not None:
            staged = dict((k, rec.get(k)) for k in ("token", "target", "previous", "boot_id",
                                                    "revert_after_s"))
            staged["restore_only"] = bool(rec.get("restore_only"))
        return revert, staged

    def op_arm(self, seconds):
        boot = self.clocks.boot_id()
        real = seconds / self.c.time_scale
        with self.state.lock():
            self._drop_stale(boot)
            rec = self.state.read(REVERT_FILE)
            if rec is not None and isinstance(rec.get("previous"), dict):
                # re-arming keeps the mode recorded first: the last one known to be good
                previous = rec["previous"]
            else:
                previous = self.clocks.get_mode()
            token = os.urandom(16).hex()
            deadline = time.time() + real
            self.state.write(REVERT_FILE, {"token": token, "previous": previous,
                                           "deadline_epoch": deadline, "boot_id": boot})
        if self.c.spawn_watch is not None:
            self.c.spawn_watch(token)
        return {"token": token, "previous": previous, "seconds": seconds,
                "deadline_epoch": deadline}

    def op_confirm(self, token):
        boot = self.clocks.boot_id()
        with self.state.lock():
            self._drop_stale(boot)
            rec = self.state.read(REVERT_FILE)
            if rec is None:
                last = self.state.read(REVERTED_FILE)
                why = "nothing is armed"
                if last is not None and last.get("boot_id") == boot and \
                        (token is None or last.get("token") == token):
                    why += " (the revert passed its deadline %.0f s ago and restored the " \
                           "previous mode)" % max(0.0, time.time() - float(last.get("at", 0)))
                raise OpError("not_armed", why)
            if token is not None and token != rec.get("token"):
                raise OpError("not_armed", "token %s does not match the armed revert's" % token)
            late = time.time() - float(rec.get("deadline_epoch", 0))
            if late >= 0:
                raise OpError("not_armed", "the deadline passed %.1f s ago; the previous mode is "
                              "being restored" % late)
            self.state.write(CONFIRMED_FILE, {"token": rec["token"], "boot_id": boot,
                                              "at": time.time()})
            self.state.remove(REVERT_FILE)
        return {"token": rec["token"], "mode": self.clocks.get_mode()}

    def op_status(self, token):
        boot = self.clocks.boot_id()
        with self.state.lock():
            self._drop_stale(boot)
            rec = self.state.read(REVERT_FILE)
            if rec is not None and rec.get("token") == token:
                return {"state": "armed"}
            rec = self.state.read(STAGED_FILE)
            if rec is not None and rec.get("token") == token:
                return {"state": "reverting" if rec.get("restore_only") else "staged"}
            if self.state.read(REVERT_FILE) is not None:
                return {"state": "other"}
            for name, state in ((CONFIRMED_FILE, "confirmed"), (REVERTED_FILE, "reverted")):
                rec = self.state.read(name)
                if rec is not None and rec.get("token") == token:
                    out = {"state": state}
                    if state == "reverted":
                        out["mode"] = rec.get("mode")
                        if "error" in rec:
                            out["error"] = rec["error"]
                    return out
        return {"state": "missing"}

    def op_watch(self, token):
        """The watchdog: sleeps until the deadline of the revert armed with `token`, then
        restores its mode unless it was confirmed or re-armed (or the device rebooted)."""
        boot = self.clocks.boot_id()
        while True:
            if self.clocks.boot_id() != boot:
                return {"state": "rebooted"}
            rec = self.state.read(REVERT_FILE)
            if rec is None or rec.get("token") != token:
                return {"state": "done"}
            left = float(rec.get("deadline_epoch", 0)) - time.time()
            if left > 0:
                time.sleep(min(left, WATCH_POLL_S))
                continue
            with self.state.lock():
                rec = self.state.read(REVERT_FILE)
                if rec is None or rec.get("token") != token:
                    return {"state": "done"}
                out = self._fire(rec, boot)
                return dict(out, state="rebooting" if out.get("by_reboot") else "reverted")

    # --- clocks
    def op_read(self):
        tables = self.clocks.tables()
        with self.state.lock():
            self._drop_stale(self.clocks.boot_id())
            revert, staged = self.armed_and_staged()
        mode, cpu = self.clocks.read_mode(tables)
        return {"tables": tables, "mode": mode, "mode_changes": self.clocks.mode_changes(),
                "revert": revert, "staged": staged}

    def op_apply(self, mode):
        tables = self.clocks.tables()
        self.clocks.check_mode(mode, tables)
        with self.state.lock():
            self._drop_stale(self.clocks.boot_id())
            readback, previous = self.clocks.apply_or_restore(mode, tables)
        return {"mode": readback, "previous": previous}

    def op_reboot(self, boot_id):
        boot = self.clocks.boot_id()
        if boot_id != boot:
            raise OpError("boot_changed", "boot_id: the device booted since (boot id %s, the "
                          "request names %s); not rebooting it again" % (boot, boot_id))
        if self.c.reboot is None:
            raise OpError("reboot_failed", "this helper cannot reboot the device")
        with self.state.lock():  # not in the middle of a mode change or a revert
            self.c.reboot()
        return {"rebooting": True, "boot_id": boot}


# --------------------------------------------------------------------------------------------
# The command line: the whole interface

USAGE = ("usage: ptwb-helper version | read | apply CORES CPU_KHZ GPU_HZ EMC_HZ | arm SECONDS "
         "| confirm [TOKEN] | status TOKEN | reboot BOOT_ID | watch TOKEN "
         "| stage CORES CPU_KHZ GPU_HZ EMC_HZ SECONDS BOOT_ID | unstage TOKEN | boot")


class UsageError(Exception):
    pass


def _int_arg(text, name, lo, hi):
    if not isinstance(text, str) or not INT_RE.match(text):
        raise UsageError("%s: expected a whole number, got %s" % (name, json.dumps(text)[:80]))
    v = int(text)
    if v < lo or v > hi:
        raise UsageError("%s: %d out of range; expected %d..%d" % (name, v, lo, hi))
    return v


def _token_arg(text):
    if not TOKEN_RE.match(text):
        raise UsageError("TOKEN: expected 32 lowercase hex digits (arm's token), got %s"
                         % json.dumps(text)[:80])
    return text


def _boot_arg(text):
    if not BOOT_ID_RE.match(text):
        raise UsageError("BOOT_ID: expected the boot id hello reported, got %s"
                         % json.dumps(text)[:80])
    return text


def parse(argv):
    """argv -> (verb, arguments). Raises UsageError for anything outside the interface."""
    if not argv:
        raise UsageError("no verb")
    verb, args = argv[0], argv[1:]
    counts = {"version": (0, 0), "read": (0, 0), "apply": (4, 4), "arm": (1, 1),
              "confirm": (0, 1), "status": (1, 1), "reboot": (1, 1), "watch": (1, 1),
              "stage": (6, 6), "unstage": (1, 1), "boot": (0, 0)}
    if verb not in counts:
        raise UsageError("unknown verb %s" % json.dumps(verb)[:80])
    lo, hi = counts[verb]
    if not lo <= len(args) <= hi:
        raise UsageError("%s takes %s argument%s, got %d" % (
            verb, lo if lo == hi else "%d or %d" % (lo, hi), "" if lo == hi == 1 else "s",
            len(args)))  # "0 or 1 arguments", "1 argument"
    if verb == "apply":
        mode = {}
        for f, text in zip(MODE_FIELDS, args):
            mode[f] = _int_arg(text, f, 1, 10 ** 12)
        return verb, (mode,)
    if verb == "stage":
        mode = {}
        for f, text in zip(MODE_FIELDS, args):
            mode[f] = _int_arg(text, f, 1, 10 ** 12)
        return verb, (mode, _int_arg(args[4], "SECONDS", 1, MAX_ARM_S), _boot_arg(args[5]))
    if verb == "arm":
        return verb, (_int_arg(args[0], "SECONDS", 1, MAX_ARM_S),)
    if verb in ("status", "watch", "unstage") or (verb == "confirm" and args):
        return verb, (_token_arg(args[0]),)
    if verb == "confirm":
        return verb, (None,)
    if verb == "reboot":
        return verb, (_boot_arg(args[0]),)
    return verb, ()


def run(argv, config):
    """Runs one verb. Returns (exit status, reply object)."""
    try:
        verb, args = parse(list(argv))
    except UsageError as e:
        return 2, {"ok": False, "error": {"code": "bad_request", "message": "%s; %s"
                                          % (e, USAGE)}}
    helper = Helper(config)
    try:
        if verb == "version":
            result = {"helper_version": HELPER_VERSION}
        else:
            result = getattr(helper, "op_" + verb)(*args)
        return 0, {"ok": True, "result": result}
    except OpError as e:
        err = {"code": e.code, "message": e.message}
        err.update(e.extra)
        return 1, {"ok": False, "error": err}
    except OSError as e:
        return 1, {"ok": False, "error": {"code": "internal", "message": "%s: %s" % (
            getattr(e, "filename", None) or verb, e.strerror or e)}}


def main(argv, config=None, out=None):
    if config is None:
        if hasattr(os, "geteuid") and os.geteuid() != 0:
            sys.stderr.write("ptwb-helper: must run as root, through `sudo -n %s`\n" % INSTALL_PATH)
            return 2
        config = installed_config()
    status, reply = run(argv, config)
    out = out or sys.stdout
    out.write(json.dumps(reply, separators=(",", ":"), sort_keys=True) + "\n")
    out.flush()
    return status


# --------------------------------------------------------------------------------------------
# Installing (the setup step runs this as root with the file's own bytes; see docs/ssh.md)

USER_RE = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def sudoers_line(user):
    return "%s ALL=(root) NOPASSWD: %s\n" % (user, INSTALL_PATH)


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(65536), b""):
            h.update(chunk)
    return h.hexdigest()


def install_problem(path=INSTALL_PATH, expected_sha256=None, owner_uid=0, top="/"):
    """Why the installed helper at path must not be run through sudo, or None. Checks that the
    file and every directory above it (up to `top`) are owned by owner_uid (root) and writable by
    nobody else, that none is a symbolic link, and (when given) the content hash."""
    if not os.path.isabs(path):
        return "%s is not an absolute path" % path
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "%s is not installed" % path
    except OSError as e:
        return "%s: %s" % (path, e.strerror or e)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        return "%s is not a regular file (a link or something else)" % path
    if st.st_uid != owner_uid:
        return "%s is owned by uid %d, not root: anyone who can write it gets root through " \
               "sudo" % (path, st.st_uid)
    if st.st_mode & 0o022:
        return "%s is writable by group or others (mode %o)" % (path, stat.S_IMODE(st.st_mode))
    d = os.path.dirname(path)
    while True:
        try:
            dst = os.lstat(d)
        except OSError as e:
            return "%s: %s" % (d, e.strerror or e)
        if stat.S_ISLNK(dst.st_mode):
            return "%s (above the helper) is a symbolic link" % d
        if dst.st_uid != owner_uid:
            return "%s (above the helper) is owned by uid %d, not root" % (d, dst.st_uid)
        if dst.st_mode & 0o022:
            return "%s (above the helper) is writable by group or others (mode %o)" \
                   % (d, stat.S_IMODE(dst.st_mode))
        up = os.path.dirname(d)
        if up == d or d == top:
            break
        d = up
    if expected_sha256 is not None:
        try:
            digest = file_sha256(path)
        except OSError as e:
            return "%s: %s" % (path, e.strerror or e)
        if digest != expected_sha256:
            return "%s differs from this workbench's helper (sha256 %s, expected %s)" \
                   % (path, digest[:12], expected_sha256[:12])
    return None


def installed_version(path=INSTALL_PATH):
    """HELPER_VERSION of the file at path, or None."""
    try:
        with open(path, "rb") as f:
            m = re.search(rb"^HELPER_VERSION = (\d+)$", f.read(65536), re.M)
    except OSError:
        return None
    return int(m.group(1)) if m else None


class Layout(object):
    """Where install() puts things. prefix is "" on a device; the setup test (with a stand-in
    sudo that is not root) installs under a temporary directory instead."""

    def __init__(self, prefix=""):
        self.prefix = prefix

    def at(self, path):
        return self.prefix + path if self.prefix else path


def install_boot_unit(layout, say, is_root):
    """Writes BOOT_UNIT (BOOT_UNIT_TEXT) into BOOT_UNIT_DIR and enables it with `systemctl
    enable` (`--root=PREFIX` under a Layout prefix). Without systemd, or when enabling fails,
    says so and goes on: the first helper call after a reboot does what the unit would."""
    path = layout.at(BOOT_UNIT_DIR + "/" + BOOT_UNIT)
    os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
    tmp = path + ".ptwb-new"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "w") as f:
        f.write(BOOT_UNIT_TEXT)
    os.chmod(tmp, 0o644)
    if is_root:
        os.chown(tmp, 0, 0)
    os.replace(tmp, path)
    say("boot unit %s/%s (applies a mode staged for after a reboot, once per boot)"
        % (BOOT_UNIT_DIR, BOOT_UNIT))
    fallback = "a mode staged for after a reboot is applied by the first helper call after " \
               "the reboot instead"
    systemctl = shutil.which("systemctl", path=SYSTEM_PATH)
    if systemctl is None:
        say("systemctl not found (no systemd): %s is not enabled; %s" % (BOOT_UNIT, fallback))
        return
    command = [systemctl] + (["--root=" + layout.prefix] if layout.prefix else [])
    try:
        if not layout.prefix and os.path.isdir("/run/systemd/system"):
            subprocess.run(command + ["daemon-reload"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        done = subprocess.run(command + ["enable", BOOT_UNIT], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        say("warning: systemctl enable %s did not run (%s); %s" % (BOOT_UNIT, e, fallback))
        return
    if done.returncode != 0:
        lines = [l for l in done.stdout.decode("utf-8", "replace").splitlines() if l.strip()]
        say("warning: systemctl enable %s exited with status %d%s; %s" % (
            BOOT_UNIT, done.returncode, (": " + lines[-1].strip()[:200]) if lines else "",
            fallback))
        return
    say("enabled %s (systemctl enable)" % BOOT_UNIT)


def install(source, layout=None, user=None, out=None):
    """Installs `source` (this file's bytes, as the workbench sent them) as INSTALL_PATH, creates
    STATE_DIR, installs and enables BOOT_UNIT, and writes a sudoers drop-in that lets `user`
    (sudo's SUDO_USER) run exactly that file, checked with `visudo -c` before it is put in place.
    Prints each step. Returns 0 or 1."""
    out = out or sys.stdout
    layout = layout or Layout(os.environ.get("PTWB_SETUP_PREFIX", ""))
    user = user if user is not None else os.environ.get("SUDO_USER", "")

    def say(text):
        out.write(text + "\n")
        out.flush()

    if not USER_RE.match(user or ""):
        say("error: cannot tell which user to allow (SUDO_USER is %s); run the setup through sudo "
            "as the user who runs the workbench" % json.dumps(user)[:40])
        return 1
    if user == "root":
        say("error: the setup runs for a login user, not root")
        return 1
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    uid = 0 if is_root else os.geteuid()
    digest = hashlib.sha256(source).hexdigest()
    try:
        target_dir = layout.at(INSTALL_DIR)
        os.makedirs(target_dir, 0o755, exist_ok=True)
        os.chmod(target_dir, 0o755)
        if is_root:
            os.chown(target_dir, 0, 0)
        target = layout.at(INSTALL_PATH)
        tmp = target + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o755)
        with os.fdopen(fd, "wb") as f:
            f.write(source)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o755)
        if is_root:
            os.chown(tmp, 0, 0)
        os.replace(tmp, target)
        say("installed %s (sha256 %s, owner root, mode 0755)" % (INSTALL_PATH, digest))
        problem = install_problem(target, digest, uid, layout.at(INSTALL_DIR).rsplit(
            INSTALL_DIR, 1)[0] or "/")
        if problem:
            say("error: " + problem)
            return 1
        state = layout.at(STATE_DIR)
        if os.path.islink(state):
            os.unlink(state)
        os.makedirs(state, 0o700, exist_ok=True)
        os.chmod(state, 0o700)
        if is_root:
            os.chown(state, 0, 0)
        say("state directory %s (owner root, mode 0700)" % STATE_DIR)
        install_boot_unit(layout, say, is_root)
        sudoers = layout.at(SUDOERS_FILE)
        os.makedirs(os.path.dirname(sudoers), 0o755, exist_ok=True)
        # sudo ignores drop-in names with a dot, so the unchecked file is never read by sudo
        pending = sudoers + ".ptwb-new"
        with open(pending, "w") as f:
            f.write("# Written by `ptwb device setup`: lets %s run the PowerTrain Workbench helper "
                    "(and nothing else) as root.\n" % user)
            f.write(sudoers_line(user))
        os.chmod(pending, 0o440)
        visudo = shutil.which("visudo", path=SYSTEM_PATH)
        if visudo is None:
            os.unlink(pending)
            say("error: visudo not found (is sudo installed?); nothing was added to sudoers")
            return 1
        check = subprocess.run([visudo, "-c", "-q", "-f", pending], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
        if check.returncode != 0:
            os.unlink(pending)
            say("error: visudo -c rejected the drop-in: %s"
                % check.stdout.decode("utf-8", "replace").strip()[:300])
            return 1
        os.replace(pending, sudoers)
        say("sudoers drop-in %s: %s" % (SUDOERS_FILE, sudoers_line(user).strip()))
        say("checked with visudo -c: ok")
    except OSError as e:
        say("error: %s: %s" % (getattr(e, "filename", None) or "install", e.strerror or e))
        return 1
    return 0


if __name__ == "ptwb_setup":
    # Run by the setup step as `sudo -S python3 -I -c <loader> setup`, the loader having read
    # this file's bytes from stdin into PTWB_SOURCE (globals given to exec).
    sys.exit(install(globals()["PTWB_SOURCE"]))  # looked up so that pyflakes sees no undefined name
elif __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
