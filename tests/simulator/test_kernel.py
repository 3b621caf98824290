"""The fake kernel: tree layout, write semantics, faults, power settling, temperatures."""

import errno
import json
import math
import os
import shutil
import tempfile
import unittest
from unittest import mock

import simpaths  # noqa: F401
import perfmodel
import simkernel
import ptwb_helper  # remote/agent, on the path by simpaths

DEVICES = simkernel.DEVICES  # every simulated device, the issue 22 families included


class FakeClock(object):
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


class KernelCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simtest-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def kernel(self, device="orin-agx", faults=(), clock=None, speed=1.0):
        f = simkernel.Faults(list(faults), os.path.join(self.dir, "faults.json"))
        return simkernel.SimKernel(self.dir, device, speed=speed, seed=3, faults=f,
                                   clock=clock or FakeClock())

    def files(self, k):
        return simkernel.make_kernel_files(ptwb_helper.KernelFiles)(k.root, k)


class TreeTest(KernelCase):
    def test_layout_per_device(self):
        for d in DEVICES:
            sub = os.path.join(self.dir, d)
            k = simkernel.SimKernel(sub, d, clock=FakeClock())
            f = self.files(k)
            t = k.table
            n = t["cores"]["max"]
            self.assertIn("(simulated)", f.read("proc/device-tree/model"))
            self.assertTrue(f.read("etc/nv_tegra_release").startswith("# R3"))
            self.assertEqual(len(f.read("proc/sys/kernel/random/boot_id")), 36)
            self.assertEqual(f.read("sys/devices/system/cpu/present"), "0-%d" % (n - 1))
            self.assertFalse(f.exists("sys/devices/system/cpu/cpu0/online"))
            for c in range(1, n):
                self.assertEqual(f.read("sys/devices/system/cpu/cpu%d/online" % c), "1")
            self.assertEqual(f.read("sys/devices/system/cpu/cpu3/cpufreq/scaling_available_frequencies"),
                             " ".join(map(str, t["cpu_khz"])))
            gpus = [p for p in f.glob("sys/class/devfreq/*/device/of_node/name") if f.read(p) == "gpu"]
            self.assertEqual(len(gpus), 1)
            g = gpus[0].split("/device/")[0]
            self.assertEqual(f.read(g + "/available_frequencies"), " ".join(map(str, t["gpu_hz"])))
            emc = "sys/kernel/debug/bpmp/debug/clk/emc/"
            self.assertEqual(f.read(emc + "possible_rates"), " ".join(map(str, t["emc_hz"])))
            conf = f.read("etc/nvpmodel.conf")
            for p in t["presets"]:
                self.assertIn("< POWER_MODEL ID=%d NAME=%s >" % (p["id"], p["name"]), conf)
            self.assertIn("GPU MAX_FREQ", conf)
            labels = [f.read(p) for p in f.glob("sys/bus/i2c/drivers/ina3221/*/hwmon/hwmon*/in*_label")]
            for rail in t["power_rails"]:
                self.assertIn(rail, labels)
            for p in f.glob("sys/bus/i2c/drivers/ina3221/*/hwmon/hwmon*/curr*_input"):
                self.assertGreaterEqual(int(f.read(p)), 0)
            zones = f.glob("sys/class/thermal/thermal_zone*/type")
            self.assertGreaterEqual(len(zones), 3)
            temp = int(f.read(zones[0].replace("/type", "/temp")))
            self.assertTrue(20000 < temp < 80000)
            # default mode: the default preset (MAXN on the AGX devices and Orin NX, every clock
            # at its top on the first three; 15W on the Orin Nano Super, MODE_15W_6CORE on the
            # Xavier NX, 120W on the AGX Thor)
            md = simkernel.read_mode(k.root, d)
            want = simkernel.preset_mode(t, simkernel.default_preset(t))
            self.assertEqual(md.as_dict(), want.as_dict(), d)
            if d in ("orin-agx", "xavier-agx", "orin-nano"):
                self.assertEqual(md.cores, n)
                self.assertEqual(md.gpu_hz, max(t["gpu_hz"]))
                self.assertEqual(md.emc_hz, max(t["emc_hz"]))

    def test_state_is_reused_and_rebuilt_for_another_device(self):
        k = self.kernel()
        boot = self.files(k).read("proc/sys/kernel/random/boot_id")
        self.files(k).write("sys/devices/system/cpu/cpu11/online", "0")
        k2 = self.kernel()
        self.assertFalse(k2.created)
        self.assertEqual(self.files(k2).read("proc/sys/kernel/random/boot_id"), boot)
        self.assertEqual(k2.mode().cores, 11)
        k3 = self.kernel("orin-nano")
        self.assertTrue(k3.created)
        self.assertIn("Orin Nano", self.files(k3).read("proc/device-tree/model"))


class WriteTest(KernelCase):
    def test_limits_update_current_clocks(self):
        k = self.kernel()
        f = self.files(k)
        cpu = "sys/devices/system/cpu/cpu0/cpufreq/"
        f.write(cpu + "scaling_min_freq", "115200")
        f.write(cpu + "scaling_max_freq", "1497600")
        self.assertEqual(f.read(cpu + "scaling_cur_freq"), "1497600")
        f.write(cpu + "scaling_max_freq", "1500000")   # not a table value: snapped down
        self.assertEqual(f.read(cpu + "scaling_cur_freq"), "1497600")
        g = simkernel.gpu_dir("orin-agx") + "/"
        f.write(g + "min_freq", "114750000")
        f.write(g + "max_freq", "408000000")
        self.assertEqual(f.read(g + "cur_freq"), "318750000")
        emc = simkernel.EMC_DIR + "/"
        f.write(emc + "mrq_rate_locked", "1")
        f.write(emc + "rate", "2133000000")
        self.assertEqual(f.read(emc + "rate"), "2133000000")
        f.write("sys/devices/system/cpu/cpu7/online", "0")
        md = k.mode()
        self.assertEqual((md.cores, md.cpu_khz, md.gpu_hz, md.emc_hz), (11, 1497600, 318750000, 2133000000))

    def test_min_above_max_and_garbage_are_refused(self):
        k = self.kernel()
        f = self.files(k)
        g = simkernel.gpu_dir("orin-agx") + "/"
        f.write(g + "min_freq", "114750000")
        f.write(g + "max_freq", "420750000")
        for path, value in ((g + "min_freq", "624750000"), (g + "max_freq", "abc"),
                            ("sys/devices/system/cpu/cpu1/online", "2")):
            with self.assertRaises(OSError) as cm:
                f.write(path, value)
            self.assertEqual(cm.exception.errno, errno.EINVAL)
        with self.assertRaises(OSError) as cm:
            f.write("proc/device-tree/model", "x")
        self.assertEqual(cm.exception.errno, errno.EACCES)
        with self.assertRaises(OSError) as cm:
            f.write("sys/devices/system/cpu/cpu0/online", "0")
        self.assertEqual(cm.exception.errno, errno.ENOENT)

    def test_reject_fault_raises_einval_and_writes_nothing(self):
        k = self.kernel(faults=["reject:gpu_hz=624750000", "reject:cpu_khz=1497600",
                                "reject:emc_hz=665600000", "reject:cores=6"])
        f = self.files(k)
        g = simkernel.gpu_dir("orin-agx") + "/"
        cases = [(g + "max_freq", "624750000"),
                 ("sys/devices/system/cpu/cpu2/cpufreq/scaling_max_freq", "1497600"),
                 (simkernel.EMC_DIR + "/rate", "665600000")]
        for path, value in cases:
            before = f.read(path)
            with self.assertRaises(OSError) as cm:
                f.write(path, value)
            self.assertEqual(cm.exception.errno, errno.EINVAL)
            self.assertEqual(f.read(path), before)
        for c in range(11, 6, -1):   # 12 -> 7 cores is fine, 6 is refused
            f.write("sys/devices/system/cpu/cpu%d/online" % c, "0")
        with self.assertRaises(OSError):
            f.write("sys/devices/system/cpu/cpu6/online", "0")
        self.assertEqual(k.mode().cores, 7)
        f.write(g + "max_freq", "522750000")   # other values still work
        self.assertEqual(f.read(g + "cur_freq"), "522750000")

    def test_throttle_clamps_clocks_and_heats_zones(self):
        k = self.kernel(faults=["throttle:0.8"])
        f = self.files(k)
        md = k.mode()
        self.assertEqual(md.gpu_hz, simkernel.snap_down(0.8 * 1300500000, k.table["gpu_hz"]))
        self.assertEqual(md.cpu_khz, simkernel.snap_down(0.8 * 2201600, k.table["cpu_khz"]))
        self.assertEqual(md.emc_hz, 3199000000)
        g = simkernel.gpu_dir("orin-agx") + "/"
        f.write(g + "min_freq", "114750000")
        f.write(g + "max_freq", "624750000")
        self.assertEqual(int(f.read(g + "cur_freq")), 420750000)
        temps = [int(f.read(p.replace("type", "temp"))) for p in f.glob("sys/class/thermal/thermal_zone*/type")]
        self.assertGreaterEqual(max(temps), 70000)

    def test_throttle_injected_at_run_time_through_faults_json(self):
        k = self.kernel()
        self.assertEqual(k.mode().gpu_hz, 1300500000)
        with open(os.path.join(self.dir, "faults.json"), "w") as fh:
            json.dump(["throttle:0.5"], fh)
        k.faults.reload()
        k.clock.t += 1
        k.refresh(force=True)
        self.assertEqual(k.mode().gpu_hz, simkernel.snap_down(0.5 * 1300500000, k.table["gpu_hz"]))
        with open(os.path.join(self.dir, "faults.json"), "w") as fh:
            json.dump([], fh)
        k.faults.reload()
        k.refresh(force=True)
        self.assertEqual(k.mode().gpu_hz, 1300500000)

    def test_reboot_resets_mode_and_boot_id(self):
        k = self.kernel()
        f = self.files(k)
        boot = f.read("proc/sys/kernel/random/boot_id")
        g = simkernel.gpu_dir("orin-agx") + "/"
        f.write(g + "min_freq", "114750000")
        f.write(g + "max_freq", "216750000")
        f.write("sys/devices/system/cpu/cpu11/online", "0")
        k.reboot()
        self.assertNotEqual(f.read("proc/sys/kernel/random/boot_id"), boot)
        md = k.mode()
        self.assertEqual((md.cores, md.gpu_hz), (12, 1300500000))

    def test_emc_locked_fault_hides_the_rates_and_refuses_emc_writes(self):
        k = self.kernel(faults=["emc-locked"])
        f = self.files(k)
        rates = simkernel.EMC_DIR + "/possible_rates"
        with self.assertRaises(OSError) as cm:
            f.read(rates)
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertFalse(f.exists(rates))
        default = simkernel.preset_mode(k.table, simkernel.default_preset(k.table)).emc_hz
        self.assertEqual(f.read(simkernel.EMC_DIR + "/rate"), str(default))
        for name, value in (("mrq_rate_locked", "1"), ("rate", "665600000")):
            before = f.read(simkernel.EMC_DIR + "/" + name)
            with self.assertRaises(OSError) as cm:
                f.write(simkernel.EMC_DIR + "/" + name, value)
            self.assertEqual(cm.exception.errno, errno.EPERM)
            self.assertEqual(f.read(simkernel.EMC_DIR + "/" + name), before)
        self.assertEqual(k.mode().emc_hz, default)

    def test_emc_locked_fault_locks_a_reused_tree_at_the_default_presets_emc(self):
        k = self.kernel()
        self.files(k).write(simkernel.EMC_DIR + "/rate", "665600000")
        self.assertEqual(k.mode().emc_hz, 665600000)
        k = self.kernel(faults=["emc-locked"])
        default = simkernel.preset_mode(k.table, simkernel.default_preset(k.table)).emc_hz
        self.assertEqual(k.mode().emc_hz, default)


class FaultSpecTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(simkernel.parse_fault("reject:gpu_hz=1300500000"), ("reject", "gpu_hz", 1300500000))
        self.assertEqual(simkernel.parse_fault("emc-locked"), ("emc-locked",))
        self.assertEqual(simkernel.parse_fault("drop-after:3"), ("drop-after", 3))
        self.assertEqual(simkernel.parse_fault("reboot-after:1"), ("reboot-after", 1))
        self.assertEqual(simkernel.parse_fault("throttle:0.8"), ("throttle", 0.8))
        for bad in ("reject:fan=1", "drop-after:0", "throttle:1.5", "explode:1", "nonsense"):
            with self.assertRaises(simkernel.FaultError):
                simkernel.parse_fault(bad)

    def test_file_faults_are_one_shot(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, True)
        path = os.path.join(d, "faults.json")
        with open(path, "w") as fh:
            json.dump(["drop-after:2", "throttle:0.9"], fh)
        fs = simkernel.Faults([], path)
        self.assertIsNone(fs.connection_fault(1))
        hit = fs.connection_fault(2)
        self.assertEqual(hit, (("drop-after", 2), True))
        fs.consume_file_fault(hit[0])
        with open(path) as fh:
            self.assertEqual(json.load(fh), ["throttle:0.9"])


class PowerTest(KernelCase):
    def total(self, k):
        return sum(k._parts_at(k.now()).values())

    def test_idle_power_matches_model_and_rails_sum(self):
        k = self.kernel()
        model = perfmodel.PerfModel("orin-agx")
        with mock.patch.object(simkernel, "POWER_NOISE", 0.0):
            parts = k.power_parts()
        rails = k.rail_powers(parts)
        total = rails["VDD_GPU_SOC"] + rails["VDD_CPU_CV"] + rails["VIN_SYS_5V0"]
        self.assertAlmostEqual(total, model.idle_power_w(k.mode()), places=6)
        f = self.files(k)
        mw = 0
        for d, rl in simkernel.hwmon_dirs("orin-agx"):
            for i, (label, _) in enumerate(rl, 1):
                if label in ("VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"):
                    mw += int(f.read("%s/in%d_input" % (d, i))) * int(f.read("%s/curr%d_input" % (d, i))) / 1000.0
        self.assertAlmostEqual(mw / 1000.0, total, delta=0.05 * total)

    def test_settling_transient_after_load_and_mode_change(self):
        k = self.kernel()
        clock = k.clock
        model = perfmodel.PerfModel("orin-agx")
        idle = self.total(k)
        with open(os.path.join(self.dir, "load.json"), "w") as fh:
            json.dump({"pid": os.getpid(), "name": "resnet18", "batch_size": 16}, fh)
        k.refresh(force=True)
        train = model.power_w("resnet18", k.mode())
        self.assertAlmostEqual(self.total(k), idle, places=6)   # continuous at the change
        seen = [idle]
        for _ in range(40):                  # 4 device seconds in 0.1 s steps
            clock.t += 0.1
            seen.append(self.total(k))
        for a, b in zip(seen, seen[1:]):
            self.assertGreaterEqual(b, a - 1e-9)                # monotone approach
        # first-order: after one time constant 63 % of the step, after 3 s within 1 %
        at_tau = seen[int(round(simkernel.POWER_TAU_S / 0.1))]
        self.assertAlmostEqual((at_tau - idle) / (train - idle), 1 - math.exp(-1), delta=0.03)
        self.assertLess(abs(seen[30] - train) / train, 0.01)
        self.assertGreater(abs(seen[5] - train) / train, 0.03)  # not settled after 0.5 s
        # lowering the GPU clock: power falls towards the new target
        f = self.files(k)
        g = simkernel.gpu_dir("orin-agx") + "/"
        f.write(g + "min_freq", "114750000")
        f.write(g + "max_freq", "420750000")
        low = model.power_w("resnet18", k.mode())
        self.assertLess(low, train - 5)
        clock.t += 3.5
        self.assertLess(abs(self.total(k) - low) / low, 0.01)
        # the workload ends: back to idle power
        os.remove(os.path.join(self.dir, "load.json"))
        k.refresh(force=True)
        clock.t += 4
        self.assertAlmostEqual(self.total(k), model.idle_power_w(k.mode()), delta=0.05)

    def test_dead_workload_does_not_keep_the_load(self):
        k = self.kernel()
        idle = self.total(k)
        with open(os.path.join(self.dir, "load.json"), "w") as fh:
            json.dump({"pid": 2 ** 22 + 12345, "name": "resnet18", "batch_size": 16}, fh)
        k.refresh(force=True)
        k.clock.t += 5
        self.assertAlmostEqual(self.total(k), idle, places=6)

    def test_temperatures_rise_under_load(self):
        k = self.kernel()
        t0 = k.temperatures()
        with open(os.path.join(self.dir, "load.json"), "w") as fh:
            json.dump({"pid": os.getpid(), "name": "resnet18", "batch_size": 16}, fh)
        k.refresh(force=True)
        k.clock.t += 60
        t1 = k.temperatures()
        self.assertGreater(max(t1), max(t0) + 10)
        self.assertLess(max(t1), 95)


if __name__ == "__main__":
    unittest.main()
