"""Training at other batch sizes (issue 17), all SIMULATED: time per sample, the power swing
within a minibatch (peak above the median), the memory limit, the convergence model and
convergence.py."""

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
import convergence

DEVICES = ("orin-agx", "xavier-agx", "orin-nano")
CONVERGENCE = os.path.join(simpaths.SIM_DIR, "convergence.py")
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


class ConvergenceModelTest(unittest.TestCase):
    def conv(self, name):
        return perfmodel.load_profiles()["workloads"][name]["convergence"]

    def test_flat_below_the_critical_batch_then_growing(self):
        for name in perfmodel.PerfModel("orin-agx").workloads():
            c = self.conv(name)
            bc = c["critical_batch"]
            s = lambda b: convergence.samples_to_target(c, b)   # noqa: E731
            batches = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
            for a, b in zip(batches, batches[1:]):
                self.assertGreater(s(b), s(a), name)           # never fewer samples
                self.assertLess(s(b) / b, s(a) / a, name)      # always fewer steps
            # flat-ish: at B_crit/8 at most 12.5 % more samples than the minimum
            self.assertLessEqual(s(bc / 8.0), 1.125 * c["samples_min"] + 1e-6, name)
            self.assertAlmostEqual(s(bc), 2 * c["samples_min"], places=6)
            # above B_crit: doubling the batch costs at least 1.3x the samples
            self.assertGreater(s(4 * bc), 1.3 * s(2 * bc), name)
            self.assertGreater(s(2 * bc), 1.3 * s(bc), name)

    def test_learning_rate_scales_linearly_up_to_the_critical_batch(self):
        c = self.conv("resnet18")
        self.assertAlmostEqual(convergence.learning_rate(c, 256), 0.1)
        self.assertAlmostEqual(convergence.learning_rate(c, 64), 0.025)
        self.assertAlmostEqual(convergence.learning_rate(c, 1024), 0.1)   # capped at B_crit

    def test_parameters_are_plausible(self):
        for name in perfmodel.PerfModel("orin-agx").workloads():
            c = self.conv(name)
            self.assertTrue(0 < c["target_accuracy"] < 1, name)
            epochs = c["samples_min"] / float(c["dataset_samples"])
            self.assertTrue(1 <= epochs <= 100, (name, epochs))
            self.assertTrue(16 <= c["critical_batch"] <= 1024, name)


class ConvergenceCliTest(unittest.TestCase):
    def run_cli(self, *args):
        return subprocess.run([sys.executable, CONVERGENCE] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60)

    def parse(self, out):
        lines = out.splitlines()
        self.assertEqual(lines[0], "batch_size,samples_to_target,epochs_to_target")
        return [(int(b), int(s), float(e)) for b, s, e in (l.split(",") for l in lines[1:])]

    def test_csv(self):
        p = self.run_cli("--workload", "resnet18", "--batch-sizes", "64,8,32,16,16", "--seed", "4")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        rows = self.parse(p.stdout)
        self.assertEqual([r[0] for r in rows], [8, 16, 32, 64])      # ascending, once each
        c = perfmodel.load_profiles()["workloads"]["resnet18"]["convergence"]
        for b, s, e in rows:
            model = convergence.samples_to_target(c, b)
            self.assertLessEqual(abs(s - model), 0.03 * model + 1, (b, s, model))
            self.assertAlmostEqual(e, s / 50000.0, delta=0.0005)
        # seeded: the same seed gives the same rows (a row does not depend on the others asked
        # for), another seed other values
        again = self.parse(self.run_cli("--workload", "resnet18", "--batch-sizes", "32",
                                        "--seed", "4").stdout)
        self.assertEqual(again, [rows[2]])
        other = self.parse(self.run_cli("--workload", "resnet18", "--batch-sizes",
                                        "64,8,32,16", "--seed", "5").stdout)
        self.assertNotEqual(other, rows)
        # the noise is +-3 %: well above B_crit the growth shows through it
        far = self.parse(self.run_cli("--workload", "resnet18", "--batch-sizes",
                                      "16,256,1024").stdout)
        self.assertLess(far[0][1] * 1.5, far[1][1])
        self.assertLess(far[1][1] * 1.5, far[2][1])

    def test_device_names_batches_that_do_not_fit(self):
        p = self.run_cli("--workload", "resnet18", "--batch-sizes", "64,128", "--device",
                         "orin-nano")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(self.parse(p.stdout)), 2)
        self.assertIn("batch 128 of resnet18 does not fit orin-nano", p.stderr)
        self.assertNotIn("batch 64 ", p.stderr)

    def test_bad_arguments_exit_2_naming_the_argument(self):
        cases = [
            (["--workload", "resnet18", "--batch-sizes", "8,x"], "--batch-sizes"),
            (["--workload", "resnet18", "--batch-sizes", "0,8"], "--batch-sizes"),
            (["--workload", "resnet18", "--batch-sizes", ""], "--batch-sizes"),
            (["--workload", "resnet18", "--batch-sizes", "8", "--device", "tx2"], "--device"),
            (["--workload", "vgg", "--batch-sizes", "8"], "--workload"),
            (["--batch-sizes", "8"], "--workload"),
            (["--workload", "lstm", "--batch-sizes", "8", "--seed", "one"], "--seed"),
        ]
        for args, name in cases:
            p = self.run_cli(*args)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertIn(name, p.stderr, args)
            self.assertEqual(p.stdout, "", args)

    def test_help_says_simulated(self):
        p = self.run_cli("--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("SIMULATED", p.stdout)
        self.assertIn("batch_size,samples_to_target,epochs_to_target", p.stdout)


if __name__ == "__main__":
    unittest.main()
