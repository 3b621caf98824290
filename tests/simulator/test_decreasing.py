"""A simulated device that accepts decreasing mode changes only (the decreasing-only fault): its
kernel refuses raises, its agent says so in hello, and the agent's reboot op reboots it."""

import errno
import json
import os
import shutil
import tempfile
import time
import unittest

import simpaths
import simclient
import simkernel

from test_kernel import KernelCase

HAVE_AGENT = os.path.exists(os.path.join(simpaths.AGENT_DIR, "ptwb_agent.py"))
MAXN = {"cores": 12, "cpu_khz": 2201600, "gpu_hz": 1300500000, "emc_hz": 3199000000}
LOW = {"cores": 8, "cpu_khz": 1497600, "gpu_hz": 624750000, "emc_hz": 2133000000}
LOWER = {"cores": 4, "cpu_khz": 729600, "gpu_hz": 318750000, "emc_hz": 665600000}
# Below LOW in every clock but with more cores: a raise.
MORE_CORES = {"cores": 10, "cpu_khz": 729600, "gpu_hz": 318750000, "emc_hz": 665600000}
CPU = "sys/devices/system/cpu"
EMC = simkernel.EMC_DIR


class DecreasingKernelTest(KernelCase):
    def test_parse(self):
        self.assertEqual(simkernel.parse_fault("decreasing-only"), ("decreasing-only",))
        self.assertEqual(simkernel.parse_fault(" decreasing-only "), ("decreasing-only",))
        for bad in ("decreasing-only:1", "decreasing", "increasing-only"):
            with self.assertRaises(simkernel.FaultError):
                simkernel.parse_fault(bad)

    def assert_refused(self, f, path, value):
        with self.assertRaises(OSError) as cm:
            f.write(path, value)
        self.assertEqual(cm.exception.errno, errno.EPERM)
        self.assertIn("needs a reboot", cm.exception.strerror)

    def test_lowering_is_accepted_raising_refused(self):
        k = self.kernel(faults=["decreasing-only"])
        f = self.files(k)
        g = simkernel.gpu_dir("orin-agx") + "/"
        cpu0 = CPU + "/cpu0/cpufreq/"
        # lower everything (min first, then max), as the agent does
        f.write(g + "min_freq", "114750000")
        f.write(g + "max_freq", "624750000")
        f.write(cpu0 + "scaling_max_freq", "1497600")
        f.write(EMC + "/mrq_rate_locked", "1")
        f.write(EMC + "/rate", "2133000000")
        f.write(CPU + "/cpu11/online", "0")
        f.write(g + "max_freq", "624750000")  # keeping a value is no raise
        md = k.mode()
        self.assertEqual((md.cores, md.cpu_khz, md.gpu_hz, md.emc_hz),
                         (11, 1497600, 624750000, 2133000000))
        self.assert_refused(f, g + "max_freq", "726750000")
        self.assert_refused(f, cpu0 + "scaling_max_freq", "1574400")
        self.assert_refused(f, EMC + "/rate", "3199000000")
        self.assert_refused(f, CPU + "/cpu11/online", "1")
        # nothing was written by the refused writes
        self.assertEqual(f.read(g + "max_freq"), "624750000")
        self.assertEqual(f.read(EMC + "/rate"), "2133000000")
        self.assertEqual(f.read(CPU + "/cpu11/online"), "0")
        # a reboot brings the device back to MAXN
        k.reboot()
        md = k.mode()
        self.assertEqual((md.cores, md.gpu_hz, md.emc_hz), (12, 1300500000, 3199000000))

    def test_raising_is_accepted_without_the_fault(self):
        k = self.kernel()
        f = self.files(k)
        g = simkernel.gpu_dir("orin-agx") + "/"
        f.write(g + "max_freq", "624750000")
        f.write(g + "max_freq", "1300500000")
        self.assertEqual(k.mode().gpu_hz, 1300500000)

    def test_the_configuration_follows_the_fault(self):
        k = self.kernel()
        f = self.files(k)
        with self.assertRaises(OSError):
            f.read(simkernel.DEVICE_CONFIG)  # no configuration: the agent reports "any"
        with open(os.path.join(self.dir, "faults.json"), "w") as fh:
            json.dump(["decreasing-only"], fh)
        k.faults.reload()
        self.assertEqual(json.loads(f.read(simkernel.DEVICE_CONFIG)), {"mode_changes": "decreasing"})


@unittest.skipUnless(HAVE_AGENT, "remote/agent/ptwb_agent.py is not there yet")
class DecreasingEndToEndTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simdec-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def start(self, **kw):
        s = simclient.SimProcess(self.dir, speed=200, faults=["decreasing-only"], **kw)
        self.addCleanup(s.dispose)
        return s

    def test_hello_apply_refused_raise_and_reboot(self):
        s = self.start()
        r, _ = s.request("hello")
        self.assertEqual(r["result"]["mode_changes"], "decreasing")
        self.assertEqual(r["result"]["mode"], MAXN)
        boot = r["result"]["boot_id"]
        for mode in (LOW, LOWER):
            r, _ = s.request("apply_mode", mode=mode)
            self.assertTrue(r["ok"], r)
        r, _ = s.request("apply_mode", mode=LOW)  # a raise: the kernel refuses it
        self.assertFalse(r["ok"], r)
        self.assertEqual(r["error"]["code"], "write_failed")
        self.assertIn("needs a reboot", r["error"]["message"])
        self.assertTrue(r["error"]["restored"], r)  # the first write was refused: nothing moved
        self.assertEqual(s.request("get_mode")[0]["result"]["mode"], LOWER)
        r, _ = s.request("apply_mode", mode=MORE_CORES)  # more cores is a raise too
        self.assertEqual(r["error"]["code"], "write_failed", r)
        self.assertTrue(r["error"]["message"].startswith("cores: "), r)

        r, _ = s.request("reboot", boot_id=boot)
        self.assertEqual(r["result"], {"rebooting": True, "boot_id": boot})
        self.assertEqual(s.wait(), 76)  # the connection drops, as a real reboot's would

        s2 = self.start()
        r, _ = s2.request("hello")
        self.assertNotEqual(r["result"]["boot_id"], boot)
        self.assertEqual(r["result"]["mode"], MAXN)
        self.assertEqual(r["result"]["mode_changes"], "decreasing")
        r, _ = s2.request("apply_mode", mode=LOW)  # reachable again from MAXN
        self.assertTrue(r["ok"], r)
        r, _ = s2.request("reboot", boot_id=boot)  # a repeated request: that boot is over
        self.assertEqual(r["error"]["code"], "boot_changed", r)
        self.assertEqual(s2.close(), 0)

    def test_the_plain_simulator_accepts_any_change(self):
        s = simclient.SimProcess(self.dir, speed=200)
        self.addCleanup(s.dispose)
        r, _ = s.request("hello")
        self.assertEqual(r["result"]["mode_changes"], "any")
        for mode in (LOWER, LOW):
            r, _ = s.request("apply_mode", mode=mode)
            self.assertTrue(r["ok"], r)
        self.assertEqual(s.close(), 0)


# Apply-by-reboot of a raise whose way back raises the GPU clock (a second reboot restores it).
MIXED_PREV = {"cores": 4, "cpu_khz": 729600, "gpu_hz": 624750000, "emc_hz": 665600000}
MIXED_TARGET = {"cores": 8, "cpu_khz": 729600, "gpu_hz": 318750000, "emc_hz": 665600000}


@unittest.skipUnless(HAVE_AGENT, "remote/agent/ptwb_agent.py is not there yet")
class ApplyByRebootTest(unittest.TestCase):
    """Issue 18: a raise on the decreasing-only simulated AGX Orin is staged (stage_mode), the
    device reboots (reboot), its boot runs the helper's `boot` (as the boot unit would), and on
    reconnecting hello shows the staged mode applied with its revert armed; confirmed it stays,
    unconfirmed the previous mode comes back."""

    SPEED = 200
    REVERT_S = 400  # device seconds: 2 s wall, from the boot (the reconnect must come first)

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simstage-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def start(self):
        s = simclient.SimProcess(self.dir, speed=self.SPEED, faults=["decreasing-only"])
        self.addCleanup(s.dispose)
        return s

    def ok(self, s, op, **fields):
        r, _ = s.request(op, **fields)
        self.assertTrue(r and r["ok"], r)
        return r["result"]

    def stage_and_reboot(self, previous, target):
        s = self.start()
        boot = self.ok(s, "hello")["boot_id"]
        self.ok(s, "apply_mode", mode=previous)
        r, _ = s.request("apply_mode", mode=target)
        self.assertEqual(r["error"]["code"], "write_failed", r)  # a raise: refused
        staged = self.ok(s, "stage_mode", mode=target, revert_after_s=self.REVERT_S)
        self.assertEqual(staged["previous"], previous)
        self.assertEqual(staged["boot_id"], boot)
        self.assertEqual(self.ok(s, "get_mode")["mode"], previous)  # nothing applied yet
        self.ok(s, "reboot", boot_id=boot)
        self.assertEqual(s.wait(), 76)
        s2 = self.start()
        hello = self.ok(s2, "hello")
        self.assertNotEqual(hello["boot_id"], boot)
        self.assertEqual(hello["mode"], target)
        rev = hello["revert"]
        self.assertEqual(rev["token"], staged["token"])
        self.assertEqual(rev["previous"], previous)
        self.assertEqual(rev["target"], target)
        self.assertTrue(rev["by_reboot"])
        self.assertTrue(0 < rev["seconds_left"] <= self.REVERT_S, rev)
        self.assertIsNone(hello["staged"])
        return s2, staged

    def wait_mode(self, s, want, timeout=15.0):
        end = time.time() + timeout
        while time.time() < end:
            mode = self.ok(s, "get_mode")["mode"]
            if mode == want:
                return
            time.sleep(0.1)
        self.fail("the mode is %r, not %r, after %s s" % (mode, want, timeout))

    def test_confirmed_the_staged_mode_stays(self):
        s, staged = self.stage_and_reboot(LOWER, LOW)
        r = self.ok(s, "confirm", token=staged["token"])
        self.assertEqual(r, {"mode": LOW, "token": staged["token"]})
        time.sleep(self.REVERT_S / self.SPEED + 0.5)
        self.assertEqual(self.ok(s, "get_mode")["mode"], LOW)
        self.assertIsNone(self.ok(s, "hello")["revert"])
        self.assertEqual(s.close(), 0)

    def test_unconfirmed_the_previous_mode_comes_back(self):
        s, staged = self.stage_and_reboot(LOWER, LOW)
        self.wait_mode(s, LOWER)
        r, _ = s.request("confirm", token=staged["token"])
        self.assertEqual(r["error"]["code"], "not_armed", r)
        self.assertEqual(s.close(), 0)

    def test_unconfirmed_a_way_back_that_raises_reboots_again(self):
        s, staged = self.stage_and_reboot(MIXED_PREV, MIXED_TARGET)
        boot = self.ok(s, "hello")["boot_id"]
        self.wait_mode(s, MIXED_PREV)   # the watchdog rebooted the device to restore it
        hello = self.ok(s, "hello")
        self.assertNotEqual(hello["boot_id"], boot)
        self.assertIsNone(hello["revert"])
        self.assertIsNone(hello["staged"])
        s.close()
