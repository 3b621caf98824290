"""End to end: ptwb_simjetson.py as a subprocess with the real agent, JSON lines on its stdio."""

import json
import os
import shutil
import sys
import tempfile
import time
import unittest

import simpaths
import perfmodel
import simclient

HAVE_AGENT = os.path.exists(os.path.join(simpaths.AGENT_DIR, "ptwb_agent.py"))
MODE = {"cores": 8, "cpu_khz": 1497600, "gpu_hz": 624750000, "emc_hz": 2133000000}
# The revert armed by the apply tests: 300 device s, 3 s of wall time at speed 100.
REVERT_S = 300
REVERT_WALL_S = REVERT_S / 100.0
BUILTIN = {"kind": "builtin", "name": "resnet18", "batch_size": 16}


@unittest.skipUnless(HAVE_AGENT, "remote/agent/ptwb_agent.py is not there yet")
class EndToEndTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-sime2e-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def start(self, **kw):
        s = simclient.SimProcess(self.dir, **kw)
        self.addCleanup(s.dispose)
        return s

    def test_hello_apply_profile(self):
        s = self.start()
        r, _ = s.request("hello")
        res = r["result"]
        self.assertTrue(res["simulated"])
        self.assertIn("(simulated)", res["model"])
        self.assertEqual(res["device"], "orin-agx")
        self.assertEqual(res["mode"], {"cores": 12, "cpu_khz": 2201600, "gpu_hz": 1300500000,
                                       "emc_hz": 3199000000})
        self.assertIn("VDD_GPU_SOC", res["rails"])
        r, _ = s.request("apply_mode", mode=MODE)
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["result"]["mode"], MODE)
        r, _ = s.request("get_mode")
        self.assertEqual(r["result"]["mode"], MODE)
        # 40 minibatches (the protocol default): the clean window starts only once training
        # power has settled, 1-2 device s after the first minibatch, and should still hold 20
        r, events = s.request("profile", workload=BUILTIN, minibatches=40)
        self.assertTrue(r["ok"], r)
        res = r["result"]
        m = perfmodel.PerfModel("orin-agx")
        md = perfmodel.Mode(**MODE)
        t, p = m.time_ms("resnet18", md), m.power_w("resnet18", md)
        self.assertLess(abs(res["time_ms"]["median"] - t) / t, 0.06, res)
        # The simulated kernel reports the model's training power (27.3 W here; idle is 13.8 W)
        # with 1.8 % Gaussian noise per reading, after a 0.6 s first-order transient from idle
        # that starts with the workload. Settled = 5 samples within 3 % of their median, so the
        # clean window may open a few % below the plateau; over its 30+ samples the median is
        # within ~2 % (observed -1 %), the quartiles within ~3 %. Idle samples in the window
        # (the bug) pull q1 to ~14 W and the median 5-8 % low.
        pw = res["power_w"]
        self.assertLess(abs(pw["median"] - p) / p, 0.05, (res, p))
        for q in ("q1", "q3"):
            self.assertLess(abs(pw[q] - p) / p, 0.08, (q, res, p))
        self.assertTrue(res["settled"], res)
        self.assertGreaterEqual(res["minibatches"], 20)
        self.assertEqual(res["mode"], MODE)
        kinds = set(e["event"] for e in events)
        self.assertTrue({"power", "minibatch"} <= kinds, kinds)
        # sent the moment the profile reply was read: the streaming slot is already free
        r, _ = s.request("sample_power", interval_ms=100, count=3)
        self.assertTrue(r["ok"], r)
        self.assertEqual(len(r["result"]["samples"]) if isinstance(r["result"]["samples"], list)
                         else r["result"]["samples"], 3)
        self.assertEqual(s.close(), 0)

    def test_profile_of_a_simulated_inference_workload(self):
        # The protocol needs no change: sim_workload.py --inference runs as a command workload,
        # one PTWB_MINIBATCH line per inference minibatch of --batch-size requests.
        s = self.start()
        r, _ = s.request("apply_mode", mode=MODE)
        self.assertTrue(r["ok"], r)
        argv = [sys.executable,
                os.path.join(simpaths.SIM_DIR, "sim_workload.py"), "--state", self.dir,
                "--speed", "50", "--seed", "1", "--inference", "--name", "resnet18",
                "--batch-size", "16", "--minibatches", "80"]
        r, _ = s.request("profile", workload={"kind": "command", "argv": argv}, minibatches=80)
        self.assertTrue(r["ok"], r)
        res = r["result"]
        m = perfmodel.PerfModel("orin-agx")
        md = perfmodel.Mode(**MODE)
        t, p = m.inference_time_ms("resnet18", md, 16), m.inference_power_w("resnet18", md, 16)
        self.assertLess(abs(res["time_ms"]["median"] - t) / t, 0.06, (res, t))
        self.assertLess(abs(res["power_w"]["median"] - p) / p, 0.05, (res, p))
        self.assertTrue(res["settled"], res)
        self.assertEqual(s.close(), 0)

    def test_bad_builtin_workload_is_refused(self):
        s = self.start()
        r, _ = s.request("profile", workload={"kind": "builtin", "name": "resnet18", "batch_size": 0},
                         minibatches=5)
        self.assertFalse(r["ok"])
        s.close()

    def test_rejected_value_is_an_error_and_touches_nothing(self):
        s = self.start(faults=["reject:gpu_hz=624750000"])
        r, _ = s.request("apply_mode", mode=MODE)
        self.assertFalse(r["ok"])
        self.assertIn(r["error"]["code"], ("write_failed", "readback_mismatch"))
        s.close()

    def test_throttle_shows_in_readback(self):
        s = self.start(faults=["throttle:0.8"])
        r, _ = s.request("apply_mode", mode=MODE)
        self.assertFalse(r["ok"])
        self.assertEqual(r["error"]["code"], "readback_mismatch")
        self.assertLess(r["error"]["readback"]["gpu_hz"], MODE["gpu_hz"])
        r, _ = s.request("hello")
        self.assertGreater(max(z["temp_c"] for z in r["result"]["thermal"]), 60)
        s.close()

    def test_drop_after_exits_without_reply(self):
        s = self.start(faults=["drop-after:2"])
        r, _ = s.request("hello")
        self.assertTrue(r["ok"])
        r, _ = s.request("get_mode")
        self.assertIsNone(r)          # stdout closed without a reply
        self.assertEqual(s.wait(), 75)

    def test_reboot_changes_boot_id_and_resets_mode(self):
        s = self.start()
        r, _ = s.request("hello")
        boot = r["result"]["boot_id"]
        r, _ = s.request("apply_mode", mode=MODE)
        self.assertTrue(r["ok"])
        with open(os.path.join(self.dir, "faults.json"), "w") as fh:
            json.dump(["reboot-after:3"], fh)          # injected into the running simulator
        r, _ = s.request("get_mode")
        self.assertIsNone(r)
        self.assertEqual(s.wait(), 76)
        s2 = self.start()
        r, _ = s2.request("hello")
        self.assertNotEqual(r["result"]["boot_id"], boot)
        self.assertEqual(r["result"]["mode"]["cores"], 12)
        self.assertEqual(r["result"]["mode"]["gpu_hz"], 1300500000)
        r, _ = s2.request("get_mode")                 # the fired fault was one-shot
        self.assertTrue(r["ok"])
        self.assertEqual(s2.close(), 0)

    def test_state_persists_between_runs(self):
        s = self.start()
        s.request("apply_mode", mode=MODE)
        boot = s.request("hello")[0]["result"]["boot_id"]
        s.close()
        s2 = self.start()
        r, _ = s2.request("hello")
        self.assertEqual(r["result"]["boot_id"], boot)
        self.assertEqual(r["result"]["mode"], MODE)
        s2.close()

    def _arm_apply_close(self):
        """Connection 1 of `ptwb apply`: arm a revert (REVERT_S device s, 3 s wall at speed
        100: a second agent starts well within it even on a busy 2-core machine), apply, close.
        The process stays alive for the revert."""
        s1 = self.start(speed=100)
        r, _ = s1.request("hello")
        previous = r["result"]["mode"]
        self.assertNotEqual(previous, MODE)
        r, _ = s1.request("arm_revert", seconds=REVERT_S)
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["result"]["previous"], previous)
        token = r["result"]["token"]
        r, _ = s1.request("apply_mode", mode=MODE)
        self.assertTrue(r["ok"], r)
        t0 = time.monotonic()
        s1.proc.stdin.close()
        return s1, previous, token, t0

    def _s1_lines(self, s1):
        out = []
        while not s1.lines.empty():
            out.append(s1.lines.get())
        return out

    def test_apply_confirmed_on_a_second_connection(self):
        s1, previous, token, t0 = self._arm_apply_close()
        s2 = self.start(speed=100)              # connection 2: a new agent process
        r, _ = s2.request("get_mode")
        self.assertEqual(r["result"]["mode"], MODE)
        r, _ = s2.request("confirm", token=token)
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["result"], {"mode": MODE, "token": token})
        self.assertLess(time.monotonic() - t0, REVERT_WALL_S, "confirmed after the deadline")
        self.assertEqual(s1.wait(timeout=10), 0)  # process 1 ended with its connection
        self.assertNotIn("reverted", json.dumps(self._s1_lines(s1)))
        time.sleep(max(0.0, REVERT_WALL_S + 1.0 - (time.monotonic() - t0)))
        r, _ = s2.request("get_mode")
        self.assertEqual(r["result"]["mode"], MODE)
        self.assertEqual(s2.close(), 0)

    def test_apply_unconfirmed_on_a_second_connection_reverts(self):
        s1, previous, token, t0 = self._arm_apply_close()
        s2 = self.start(speed=100)
        r, _ = s2.request("get_mode")
        self.assertEqual(r["result"]["mode"], MODE)   # verified, but never confirmed
        # The agent that armed it ends with its connection: the revert is the helper's
        # watchdog's (root on a device), which outlives every agent.
        self.assertEqual(s1.wait(timeout=10), 0)
        self.assertLess(time.monotonic() - t0, REVERT_WALL_S - 0.1,
                        "the arming agent waited for the deadline")
        time.sleep(max(0.0, REVERT_WALL_S + 1.0 - (time.monotonic() - t0)))
        r, _ = s2.request("get_mode")
        self.assertEqual(r["result"]["mode"], previous)
        r, _ = s2.request("confirm", token=token)
        self.assertEqual(r["error"]["code"], "not_armed", r)
        self.assertIn("restored the previous mode", r["error"]["message"])
        self.assertEqual(s2.close(), 0)

    def test_other_devices(self):
        for device in ("xavier-agx", "orin-nano"):
            d = os.path.join(self.dir, device)
            s = simclient.SimProcess(d, device=device)
            self.addCleanup(s.dispose)
            r, _ = s.request("hello")
            self.assertEqual(r["result"]["device"], device)
            self.assertTrue(r["result"]["simulated"])
            r, _ = s.request("profile", workload={"kind": "builtin", "name": "mobilenet_v3",
                                                  "batch_size": 16}, minibatches=10)
            self.assertTrue(r["ok"], r)
            self.assertGreater(r["result"]["time_ms"]["median"], 100)
            self.assertEqual(s.close(), 0)


if __name__ == "__main__":
    unittest.main()
