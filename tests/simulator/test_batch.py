"""Training at other batch sizes (issue 17), all SIMULATED: time per sample, the power swing
within a minibatch (peak above the median), the memory limit."""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

import simpaths
import perfmodel
import simkernel
import simclient
import calibrate

DEVICES = ("orin-agx", "xavier-agx", "orin-nano")
SIM_WORKLOAD = os.path.join(simpaths.SIM_DIR, "sim_workload.py")


def max_mode(table):
    return perfmodel.Mode(table["cores"]["max"], max(table["cpu_khz"]), max(table["gpu_hz"]),
                          max(table["emc_hz"]))


class FakeClock(object):
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


class TimeVsBatchTest(unittest.TestCase):
    def test_time_per_sample_falls_with_the_batch_and_flattens(self):
        # the fixed GPU share and the fixed launch term: a small batch underfills the GPU
        for d in DEVICES:
            m = perfmodel.PerfModel(d)
            slow = perfmodel.Mode(4, sorted(m.table["cpu_khz"])[len(m.table["cpu_khz"]) // 2],
                                  sorted(m.table["gpu_hz"])[2], sorted(m.table["emc_hz"])[1])
            for md in (max_mode(m.table), slow):
                for w in m.workloads():
                    per = [m.time_ms(w, md, b) / b for b in (4, 8, 16, 32, 64, 128, 256)]
                    for a, b in zip(per, per[1:]):
                        self.assertLessEqual(b, a * (1 + 1e-9), (d, md, w, per))
                    self.assertGreater(per[0], 1.15 * per[-1], (d, md, w, per))   # b=4 underfills
                    self.assertGreater(per[-1], 0.95 * per[-2], (d, md, w, per))  # flat at 128..256

    def test_reference_batch_is_the_calibrated_model(self):
        m = perfmodel.PerfModel("orin-agx")
        md = max_mode(m.table)
        for w in m.workloads():
            self.assertEqual(m.time_ms(w, md, 16), m.time_ms(w, md))
            self.assertEqual(m.power_w(w, md, 16), m.power_w(w, md))


class SwingModelTest(unittest.TestCase):
    def test_swing_grows_with_the_batch_and_the_gpu_clock(self):
        m = perfmodel.PerfModel("orin-agx")
        hi = max_mode(m.table)
        lo = perfmodel.Mode(12, 2201600, 624750000, 3199000000)
        for w in ("resnet18", "mobilenet_v3", "bert_base"):
            s = [m.training_swing_w(w, hi, b) for b in (4, 16, 64, 256)]
            for a, b in zip(s, s[1:]):
                self.assertGreater(b, a, (w, s))
            self.assertGreater(m.training_swing_w(w, hi, 64), 2 * m.training_swing_w(w, lo, 64))
        # the numbers docs/simulator.md gives for ResNet-18 at MAXN
        self.assertAlmostEqual(m.training_swing_w("resnet18", hi, 16), 3.7, delta=0.1)
        self.assertAlmostEqual(m.training_swing_w("resnet18", hi, 256), 7.1, delta=0.1)
        self.assertAlmostEqual(m.training_peak_w("resnet18", hi, 16),
                               m.power_w("resnet18", hi, 16) + 3.7, delta=0.1)

    def test_phases(self):
        share = perfmodel.SWING_SHARE
        self.assertEqual(perfmodel.swing_phase(0.0), 1)
        self.assertEqual(perfmodel.swing_phase(share * 1.5), -1)
        self.assertEqual(perfmodel.swing_phase(2 * share + 1e-9), 0)
        self.assertEqual(perfmodel.swing_phase(0.999), 0)


class KernelSwingTest(unittest.TestCase):
    """Readings of the fake kernel while a training workload runs (fake clock, no thread)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simswing-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def readings(self, batch, kind=None, seed=3, n=3000):
        """n readings of the total (W), 0.1 device s apart, once the transient has settled."""
        state = tempfile.mkdtemp(dir=self.dir)         # a fresh device: starts idle
        k = simkernel.SimKernel(state, "orin-agx", speed=1.0, seed=seed, clock=FakeClock())
        load = {"pid": os.getpid(), "name": "resnet18", "batch_size": batch}
        if kind:
            load["kind"] = kind
        with open(os.path.join(state, "load.json"), "w") as f:
            json.dump(load, f)
        k.refresh(force=True)
        k.clock.t += 10.0
        out = []
        for _ in range(n):
            k.clock.t += 0.1
            out.append(k.total_power())
        return k, out

    def test_peak_above_the_median_which_stays_the_model_power(self):
        k, r = self.readings(16)
        m = k.model
        p = m.power_w("resnet18", k.mode(), 16)
        swing = m.training_swing_w("resnet18", k.mode(), 16)
        med = statistics.median(r)
        self.assertLess(abs(med - p) / p, 0.003, (med, p))
        self.assertLess(abs(statistics.mean(r) - p) / p, 0.003)   # the dip mirrors the peak
        # the peak phase: about SWING_SHARE of the readings sit near p + swing
        high = [x for x in r if x > p + swing / 2]
        self.assertAlmostEqual(len(high) / float(len(r)), perfmodel.SWING_SHARE, delta=0.015)
        self.assertAlmostEqual(statistics.median(high), p + swing, delta=0.01 * p)
        self.assertGreater(max(r), p + swing)

    def test_gap_grows_with_the_batch(self):
        gaps = {}
        for b in (4, 16, 128):
            _, r = self.readings(b, n=2000)
            med = statistics.median(r)
            gaps[b] = sorted(r)[int(0.99 * len(r))] - med   # a robust "peak": the 99th percentile
        self.assertLess(gaps[4] + 1.0, gaps[16], gaps)
        self.assertLess(gaps[16] + 2.0, gaps[128], gaps)

    def test_no_swing_for_inference_or_idle(self):
        k, r = self.readings(16, kind="inference")
        med = statistics.median(r)
        self.assertLess(max(r) - med, 0.1 * med)
        self.assertLess(sorted(r)[int(0.99 * len(r))] - med, 0.05 * med)
        self.assertEqual(k._swing, 0.0)

    def test_deterministic_given_the_seed(self):
        _, a = self.readings(32, seed=5, n=300)
        _, b = self.readings(32, seed=5, n=300)
        _, c = self.readings(32, seed=6, n=300)
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)


class MemoryTest(unittest.TestCase):
    def test_numbers(self):
        agx, nano = perfmodel.PerfModel("orin-agx"), perfmodel.PerfModel("orin-nano")
        self.assertEqual(agx.memory_gib(), 28.0)
        self.assertEqual(nano.memory_gib(), 6.0)
        self.assertEqual(perfmodel.PerfModel("xavier-agx").memory_gib(), 28.0)
        self.assertAlmostEqual(agx.training_memory_gib("resnet18", 1024), 41.224, places=3)
        for w in ("resnet18", "mobilenet_v3"):
            self.assertIsNone(agx.out_of_memory(w, 256), w)
            self.assertIsNone(nano.out_of_memory(w, 96), w)
            self.assertIsNotNone(nano.out_of_memory(w, 128), w)
        for w in agx.workloads():
            self.assertIsNone(nano.out_of_memory(w, 16), w)      # the reference batch fits
        self.assertEqual(agx.out_of_memory("resnet18", 1024),
                         "CUDA out of memory: training batch 1024 of resnet18 needs about "
                         "41.2 GiB, the device has 28.0 GiB")

    def run_workload(self, device, batch, *extra):
        state = tempfile.mkdtemp(prefix="ptwb-simoom-")
        self.addCleanup(shutil.rmtree, state, True)
        simkernel.ensure_state(state, device, perfmodel.load_device_table(device))
        return subprocess.run([sys.executable, SIM_WORKLOAD, "--state", state, "--speed", "1000",
                               "--name", "resnet18", "--batch-size", str(batch),
                               "--minibatches", "2"] + list(extra),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60)

    def test_a_batch_that_does_not_fit_fails_before_any_minibatch(self):
        p = self.run_workload("orin-nano", 128)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr.strip(), "CUDA out of memory: training batch 128 of resnet18 "
                         "needs about 6.7 GiB, the device has 6.0 GiB")
        p = self.run_workload("orin-nano", 96)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("PTWB_MINIBATCH"), 2)

    def test_inference_has_no_training_memory_limit(self):
        p = self.run_workload("orin-nano", 128, "--inference")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("PTWB_MINIBATCH"), 2)


@unittest.skipUnless(os.path.exists(os.path.join(simpaths.AGENT_DIR, "ptwb_agent.py")),
                     "remote/agent/ptwb_agent.py is not there")
class ProfileEndToEndTest(unittest.TestCase):
    """Through ptwb_simjetson.py and the real agent, at the default mode (MAXN)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simbatch-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.sim = simclient.SimProcess(self.dir)
        self.addCleanup(self.sim.dispose)

    def profile(self, batch, minibatches):
        r, events = self.sim.request("profile", timeout=120, minibatches=minibatches,
                                     workload={"kind": "builtin", "name": "resnet18",
                                               "batch_size": batch})
        return r, events

    def test_peak_sits_above_the_median_and_more_so_at_a_larger_batch(self):
        m = perfmodel.PerfModel("orin-agx")
        md = max_mode(m.table)
        gaps = {}
        for batch, n in ((8, 200), (128, 100)):
            r, _ = self.profile(batch, n)
            self.assertTrue(r["ok"], r)
            pw = r["result"]["power_w"]
            p = m.power_w("resnet18", md, batch)
            self.assertLess(abs(pw["median"] - p) / p, 0.05, (batch, pw, p))
            self.assertGreater(pw["max"], pw["q3"], (batch, pw))
            gaps[batch] = pw["max"] - pw["median"]
            self.assertGreater(r["result"]["time_ms"]["max"], r["result"]["time_ms"]["median"])
        # at batch 128 the peak phase (6.7 W above the median, ~5 % of ~340 readings) shows
        self.assertGreater(gaps[128], 0.7 * m.training_swing_w("resnet18", md, 128), gaps)
        self.assertGreater(gaps[128], gaps[8] + 1.5, gaps)
        self.assertEqual(self.sim.close(), 0)

    def test_a_batch_that_does_not_fit_is_workload_failed_with_the_message(self):
        r, events = self.profile(1024, 40)
        self.assertFalse(r["ok"], r)
        self.assertEqual(r["error"]["code"], "workload_failed", r)
        self.assertIn("CUDA out of memory: training batch 1024 of resnet18 needs about 41.2 GiB, "
                      "the device has 28.0 GiB", r["error"]["stderr"], r)
        self.assertEqual([e for e in events if e["event"] == "minibatch"], [])
        # the device is still usable: a batch that fits profiles
        r, _ = self.profile(256, 4)
        self.assertTrue(r["ok"], r)
        self.assertEqual(self.sim.close(), 0)


class ProfilesTest(unittest.TestCase):
    def test_calibrate_writes_what_profiles_json_holds(self):
        # a refit (calibrate.py) writes the memory and convergence entries from TRAINING_BATCH
        # and DEVICES: they must be what profiles.json holds, so the refit keeps the file
        profiles = perfmodel.load_profiles()
        for name, extra in calibrate.TRAINING_BATCH.items():
            for key, value in extra.items():
                self.assertEqual(profiles["workloads"][name][key], value, (name, key))
        self.assertEqual(set(calibrate.TRAINING_BATCH), set(profiles["workloads"]))
        self.assertEqual(profiles["devices"], calibrate.DEVICES)
        workloads = json.loads(json.dumps(profiles["workloads"]))
        for w in workloads.values():
            del w["memory"], w["convergence"]
        calibrate.attach_training_batch(workloads)
        self.assertEqual(workloads, profiles["workloads"])


if __name__ == "__main__":
    unittest.main()
