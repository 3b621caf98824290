"""A small fake kernel tree (AGX Orin) for the agent tests, and a KernelFiles subclass that
plays the kernel: it records every write, keeps min <= max (EINVAL otherwise), refuses values
that are not in the tables or are listed in `reject`, and updates the current clocks."""

import errno
import os
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "remote", "agent"))
if AGENT_DIR not in sys.path:
    sys.path.insert(0, AGENT_DIR)

import ptwb_agent  # noqa: E402
import ptwb_helper  # noqa: E402

CPU_KHZ = [115200, 192000, 268800, 345600, 422400, 499200, 576000, 652800, 729600, 806400,
           883200, 960000, 1036800, 1113600, 1190400, 1267200, 1344000, 1420800, 1497600,
           1574400, 1651200, 1728000, 1804800, 1881600, 1958400, 2035200, 2112000, 2188800,
           2201600]
GPU_HZ = [306000000, 408000000, 510000000, 612000000, 714000000, 816000000, 918000000,
          1020000000, 1122000000, 1224000000, 1300500000]
EMC_HZ = [204000000, 665600000, 2133000000, 3199000000]
NCORES = 12
GPU = "sys/class/devfreq/17000000.ga10b"
EMC = "sys/kernel/debug/bpmp/debug/clk/emc"
HW1 = "sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon3"
HW2 = "sys/bus/i2c/drivers/ina3221/1-0041/hwmon/hwmon4"
BOOT_ID = "0b6f4b7e-5d8c-4a57-9a3a-0d2c1e7f7a11"

MAXN = {"cores": 12, "cpu_khz": 2201600, "gpu_hz": 1300500000, "emc_hz": 3199000000}

NVPMODEL = """\
# test nvpmodel.conf
< PARAM TYPE=FILE NAME=CPU_ONLINE >
CORE_0 /sys/devices/system/cpu/cpu0/online
< POWER_MODEL ID=0 NAME=MAXN >
CPU_ONLINE CORE_0 1
CPU_ONLINE CORE_1 1
CPU_ONLINE CORE_2 1
CPU_ONLINE CORE_3 1
CPU_ONLINE CORE_4 1
CPU_ONLINE CORE_5 1
CPU_ONLINE CORE_6 1
CPU_ONLINE CORE_7 1
CPU_ONLINE CORE_8 1
CPU_ONLINE CORE_9 1
CPU_ONLINE CORE_10 1
CPU_ONLINE CORE_11 1
CPU_A78_0 MAX_FREQ -1
CPU_A78_1 MAX_FREQ -1
GPU MAX_FREQ -1
EMC MAX_FREQ 0
< POWER_MODEL ID=1 NAME=MODE_15W >
CPU_ONLINE CORE_0 1
CPU_ONLINE CORE_1 1
CPU_ONLINE CORE_2 1
CPU_ONLINE CORE_3 1
CPU_ONLINE CORE_4 0
CPU_A78_0 MAX_FREQ 1113600
GPU MAX_FREQ 420000000
EMC MAX_FREQ 2133000000
< POWER_MODEL ID=oops NAME=BROKEN >
CPU_ONLINE CORE_0 1
< POWER_MODEL ID=3 NAME=ALSO_BROKEN >
GPU MAX_FREQ lots
< PM_CONFIG DEFAULT=0 >
"""


def _w(root, rel, text):
    p = os.path.join(root, rel)
    d = os.path.dirname(p)
    if not os.path.isdir(d):
        os.makedirs(d)
    with open(p, "w") as f:
        f.write(text)


def build_orin_agx(root, model="NVIDIA Jetson AGX Orin Developer Kit (simulated)"):
    """Creates the tree in root at MAXN; returns root."""
    _w(root, "proc/device-tree/model", model + "\x00")
    _w(root, "etc/nv_tegra_release",
       "# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64\n")
    _w(root, "proc/sys/kernel/random/boot_id", BOOT_ID + "\n")
    _w(root, "etc/nvpmodel.conf", NVPMODEL)
    _w(root, "sys/devices/system/cpu/present", "0-%d\n" % (NCORES - 1))
    table = " ".join(str(x) for x in CPU_KHZ) + " \n"
    for n in range(NCORES):
        c = "sys/devices/system/cpu/cpu%d" % n
        if n:
            _w(root, c + "/online", "1\n")
        _w(root, c + "/cpufreq/scaling_available_frequencies", table)
        _w(root, c + "/cpufreq/scaling_min_freq", "%d\n" % CPU_KHZ[-1])
        _w(root, c + "/cpufreq/scaling_max_freq", "%d\n" % CPU_KHZ[-1])
        _w(root, c + "/cpufreq/scaling_cur_freq", "%d\n" % CPU_KHZ[-1])
    _w(root, "sys/class/devfreq/15340000.vic/device/of_node/name", "vic\x00")
    _w(root, "sys/class/devfreq/15340000.vic/available_frequencies", "115200000 729600000\n")
    _w(root, GPU + "/device/of_node/name", "gpu\x00")
    _w(root, GPU + "/available_frequencies", " ".join(str(x) for x in GPU_HZ) + "\n")
    for f in ("min_freq", "max_freq", "cur_freq"):
        _w(root, GPU + "/" + f, "%d\n" % GPU_HZ[-1])
    _w(root, EMC + "/possible_rates", " ".join(str(x) for x in EMC_HZ) + "\n")
    _w(root, EMC + "/mrq_rate_locked", "0\n")
    _w(root, EMC + "/rate", "%d\n" % EMC_HZ[-1])
    # power: 5000 mV x 2000 mA = 10 W, 5000 x 1000 = 5 W, 5000 x 1600 = 8 W; + a 1 W non-input rail
    for i, (label, mv, ma) in enumerate([("VDD_GPU_SOC", 5000, 2000), ("VDD_CPU_CV", 5000, 1000),
                                         ("VIN_SYS_5V0", 5000, 1600)], 1):
        _w(root, HW1 + "/in%d_label" % i, label + "\n")
        _w(root, HW1 + "/in%d_input" % i, "%d\n" % mv)
        _w(root, HW1 + "/curr%d_input" % i, "%d\n" % ma)
    _w(root, HW1 + "/in7_label", "Sum of shunt voltages\n")
    _w(root, HW1 + "/in7_input", "20\n")
    _w(root, HW2 + "/in1_label", "VDDQ_VDD2_1V8AO\n")
    _w(root, HW2 + "/in1_input", "1000\n")
    _w(root, HW2 + "/curr1_input", "1000\n")
    for i, (name, temp) in enumerate([("cpu-thermal", 45500), ("gpu-thermal", 43000)]):
        _w(root, "sys/class/thermal/thermal_zone%d/type" % i, name + "\n")
        _w(root, "sys/class/thermal/thermal_zone%d/temp" % i, "%d\n" % temp)
    return root


class FakeKernel(ptwb_agent.KernelFiles):
    """Plays the kernel on write. `writes` is the list of (path, text) in order."""

    def __init__(self, root, reject=None, gpu_cap=None):
        ptwb_agent.KernelFiles.__init__(self, root)
        self.writes = []
        self.reject = dict(reject or {})  # path suffix -> value refused
        self.gpu_cap = gpu_cap            # GPU cur_freq never above this (readback mismatch)
        self.lock = threading.Lock()

    def _raw(self, path, text):
        with open(self._abs(path), "w") as f:
            f.write(text + "\n")

    def _einval(self, path):
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), path)

    def write(self, path, text):
        with self.lock:
            self.writes.append((path, text))
            for suffix, value in self.reject.items():
                if path.endswith(suffix) and str(value) == text:
                    self._einval(path)
            d, name = path.rsplit("/", 1)
            if name in ("scaling_min_freq", "scaling_max_freq", "min_freq", "max_freq"):
                cpu = name.startswith("scaling_")
                cpu_dir = d[:-len("/cpufreq")] if cpu else None
                if cpu and cpu_dir != "sys/devices/system/cpu/cpu0" and \
                        self.read(cpu_dir + "/online") != "1":
                    self._einval(path)  # an offline core has no cpufreq policy
                table = CPU_KHZ if cpu else GPU_HZ
                v = int(text)
                if v not in table:
                    self._einval(path)
                lo_name = "scaling_min_freq" if cpu else "min_freq"
                hi_name = "scaling_max_freq" if cpu else "max_freq"
                lo = v if name == lo_name else int(self.read(d + "/" + lo_name))
                hi = v if name == hi_name else int(self.read(d + "/" + hi_name))
                if lo > hi:
                    self._einval(path)
                self._raw(path, text)
                cur = hi
                if not cpu and self.gpu_cap is not None:
                    cur = max(x for x in GPU_HZ if x <= min(hi, self.gpu_cap))
                self._raw(d + ("/scaling_cur_freq" if cpu else "/cur_freq"), str(cur))
                return
            if path == EMC + "/rate":
                if self.read(EMC + "/mrq_rate_locked") != "1":
                    self._einval(path)
                if int(text) not in EMC_HZ:
                    self._einval(path)
            if name == "online" and text not in ("0", "1"):
                self._einval(path)
            self._raw(path, text)


def lock_emc(root, possible_rates=None):
    """Makes the tree's memory clock one that cannot be controlled (issue 22): no
    possible_rates file (possible_rates: write that text instead, e.g. "" for an empty one).
    Use with EmcLockedKernel."""
    path = os.path.join(root, EMC, "possible_rates")
    os.remove(path)
    if possible_rates is not None:
        _w(root, EMC + "/possible_rates", possible_rates)


class EmcLockedKernel(FakeKernel):
    """FakeKernel whose memory clock is locked: every write under EMC is recorded, then refused
    with EPERM, as a real locked clock refuses it."""

    def write(self, path, text):
        if path.startswith(EMC + "/"):
            with self.lock:
                self.writes.append((path, text))
            raise OSError(errno.EPERM, os.strerror(errno.EPERM), path)
        FakeKernel.write(self, path, text)


def emc_writes(files):
    """The writes `files` (a FakeKernel) saw under EMC."""
    return [w for w in files.writes if w[0].startswith(EMC + "/")]


def state_dir(root):
    """The helper's state directory for the fake device in root (the device's
    /var/lib/powertrain-workbench)."""
    return os.path.join(root, ".helper-state")


def make_state_dir(root):
    """Creates state_dir(root) as StateDir demands: a real directory, owned by this process's
    euid (the helper's owner_uid in the tests), mode 0700. Returns its path."""
    path = state_dir(root)
    if not os.path.isdir(path):
        os.mkdir(path, 0o700)
    os.chmod(path, 0o700)
    return path


def read_mode(root):
    """The mode the fake tree in root is at, as the helper reads it back."""
    return ptwb_helper.Clocks(ptwb_helper.KernelFiles(root)).get_mode()


def write_boot_id(root, boot_id):
    _w(root, "proc/sys/kernel/random/boot_id", boot_id + "\n")


class FakeHelper(object):
    """The root helper of the fake device, run in this process: a ptwb_helper.Config over `files`
    whose watchdog (`watch TOKEN`) is a daemon thread and whose reboot is recorded.

    watch=False: arm starts no watchdog (as if it had been killed). reboot: a callable run as
    the device's reboot (default: record it and give the tree a new boot id, back at MAXN, then
    run `boot` in a thread as the boot unit would; boot_unit=False: no boot unit), or None: the
    helper cannot reboot."""

    DEFAULT = object()

    def __init__(self, files, time_scale=1.0, watch=True, reboot=DEFAULT, boot_unit=True):
        self.files = files
        self.watches = []   # (token, thread, result dict filled when it ends)
        self.reboots = []   # boot ids rebooted
        self.boots = []     # (thread, result dict) of each `boot` the boot unit ran
        self.boot_unit = boot_unit
        self.calls = []     # every argv the agent asked of the helper
        if reboot is FakeHelper.DEFAULT:
            reboot = self.reboot
        self.config = ptwb_helper.Config(files, make_state_dir(files.root), os.geteuid(),
                                         time_scale, spawn_watch=self.spawn_watch if watch
                                         else None, reboot=reboot)
        helper = self

        class Recording(ptwb_agent.HelperInProcess):
            def call(self, *args):
                helper.calls.append([str(a) for a in args])
                return ptwb_agent.HelperInProcess.call(self, *args)

        self.agent_side = Recording(self.config)

    def spawn_watch(self, token):
        result = {}

        def run():
            result["status"], result["reply"] = ptwb_helper.run(["watch", token], self.config)

        t = threading.Thread(target=run, name="fake-watch-" + token[:6])
        t.daemon = True
        self.watches.append((token, t, result))
        t.start()

    def watch_result(self, token, timeout=10.0):
        """The reply of the watchdog started for token, once it ended (AssertionError if it has
        not ended within timeout)."""
        for tok, t, result in self.watches:
            if tok == token:
                t.join(timeout)
                if t.is_alive():
                    raise AssertionError("the watchdog of %s still runs" % token)
                return result["reply"]
        raise AssertionError("no watchdog was started for %s" % token)

    def reboot(self):
        """A device reboot: a new boot id, and the kernel's default mode (MAXN) again."""
        old = self.files.read(BOOT_ID_FILE)
        self.reboots.append(old)
        build_orin_agx(self.files.root)
        write_boot_id(self.files.root, "%08d-0000-4000-8000-000000000000" % len(self.reboots))
        if self.boot_unit:
            # systemd's powertrain-workbench-boot.service; it waits for the helper's lock, which
            # the verb that rebooted (reboot, or a watchdog's restore) still holds
            result = {}

            def run():
                result["status"], result["reply"] = ptwb_helper.run(["boot"], self.config)

            t = threading.Thread(target=run, name="fake-boot-%d" % len(self.reboots))
            t.daemon = True
            self.boots.append((t, result))
            t.start()

    def boot_result(self, index=-1, timeout=10.0):
        """The reply of a boot unit's `boot` (the last one by default), once it ended."""
        t, result = self.boots[index]
        t.join(timeout)
        if t.is_alive():
            raise AssertionError("the boot unit's `boot` still runs")
        return result["reply"]

    def status(self, token):
        """`status TOKEN` as any later session would ask it."""
        return ptwb_agent.HelperInProcess(self.config).call("status", token)["state"]


BOOT_ID_FILE = "proc/sys/kernel/random/boot_id"


def scale_of(args):
    args = list(args or [])
    if "--time-scale" in args:
        return float(args[args.index("--time-scale") + 1])
    return 1.0


class AgentHarness(object):
    """Runs ptwb_agent.main() in a thread against `files`, over a real pipe for stdin."""

    def __init__(self, files, args=None, reply_write_delay=0.0, helper=None, on_reboot=None):
        """reply_write_delay: seconds the agent's stdout write of a reply line takes after the
        line has been delivered (like a slow pipe); it widens any race between the agent
        writing a reply and its bookkeeping after that. helper: a FakeHelper (default: one at
        the agent's --time-scale over files); on_reboot: passed to main()."""
        import json
        import queue
        import time
        self._json = json
        self.lines = queue.Queue()
        self.seen = []
        rfd, wfd = os.pipe()
        self._in_r = os.fdopen(rfd, "rb")
        self._in_w = os.fdopen(wfd, "wb")
        harness = self

        class Out(object):
            def write(self, s):
                replied = False
                for ln in s.splitlines():
                    obj = json.loads(ln)
                    replied = replied or "ok" in obj
                    harness.lines.put(obj)
                if replied and reply_write_delay:
                    time.sleep(reply_write_delay)

            def flush(self):
                pass

        self.exit_code = None
        argv = ["--root", files.root] + list(args or [])
        # the helper's deadlines run at the agent's time scale (as the simulator's do)
        self.helper = helper if helper is not None else FakeHelper(files, scale_of(args))

        def run():
            self.exit_code = ptwb_agent.main(argv, stdin=self._in_r, stdout=Out(), files=files,
                                             helper=self.helper.agent_side, on_reboot=on_reboot)

        self.thread = threading.Thread(target=run)
        self.thread.daemon = True
        self.thread.start()

    def send_raw(self, data):
        self._in_w.write(data)
        self._in_w.flush()

    def send(self, obj):
        self.send_raw((self._json.dumps(obj) + "\n").encode("utf-8"))

    def next_line(self, timeout=10.0):
        import queue
        try:
            ln = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("agent wrote nothing within %s s; seen: %r" % (timeout, self.seen))
        self.seen.append(ln)
        return ln

    def reply(self, rid, timeout=10.0):
        """Waits for the reply to rid; returns (reply, [events for rid]) and keeps other lines."""
        events = []
        held = []
        while True:
            ln = self.next_line(timeout)
            if ln.get("id") == rid and "event" in ln:
                events.append(ln)
            elif ln.get("id") == rid and type(ln.get("id")) is type(rid) and "ok" in ln:
                for h in held:
                    self.lines.put(h)
                return ln, events
            else:
                held.append(ln)

    def request(self, obj, timeout=10.0):
        self.send(obj)
        return self.reply(obj.get("id"), timeout)

    def close(self, timeout=10.0):
        try:
            self._in_w.close()
        except OSError:
            pass
        self.thread.join(timeout)
        if self.thread.is_alive():
            raise AssertionError("agent did not exit after stdin closed")
        self._in_r.close()
        return self.exit_code
