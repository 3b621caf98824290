"""End to end on the simulated Jetson (issue 20): its train.py run as a `command` workload with
each recogniser (the example definitions sim-marker, sim-tqdm, sim-launcher of
docs/simulator.md), times from the perf model that follow the mode, and failures."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import simpaths
import perfmodel
import simclient

LOW = {"cores": 8, "cpu_khz": 1497600, "gpu_hz": 624750000, "emc_hz": 2133000000}
MAXN = {"cores": 12, "cpu_khz": 2201600, "gpu_hz": 1300500000, "emc_hz": 3199000000}

# The example definitions, as the desktop sends them (docs/simulator.md).
SIM_MARKER = {"kind": "command", "argv": ["python3", "train.py", "--log", "marker"],
              "recognise": {"by": "marker"}, "skip": 1}
SIM_TQDM = {"kind": "command", "argv": ["python3", "train.py", "--log", "tqdm"],
            "recognise": {"by": "regex", "pattern": "(?P<rate>[0-9.]+)it/s", "unit": "per_s"},
            "skip": 1}
SIM_LAUNCHER = {"kind": "command", "argv": ["python3", "train.py", "--log", "none"],
                "recognise": {"by": "launcher"}, "skip": 1}


class SimTrainTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simtrain-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        # speed 10: a minibatch is a few wall ms, so the launcher's wall-clock intervals are
        # not dominated by the host's scheduling (the marker and regex would do at any speed)
        self.sim = simclient.SimProcess(self.dir, speed=10)
        self.addCleanup(self.sim.dispose)
        r, _ = self.sim.request("hello")
        self.assertTrue(r["ok"], r)

    def profile(self, workload, n=100):
        # 100: on a loaded host power settles later and discards more (53 of 60 seen with two
        # CI runs on two cores), and at least 10 clean ones must remain
        r, ev = self.sim.request("profile", workload=workload, minibatches=n, timeout=120)
        self.assertTrue(r["ok"], r)
        return r["result"], ev

    def test_the_three_examples_in_two_modes(self):
        model = perfmodel.PerfModel("orin-agx")
        self.assertTrue(os.path.isfile(os.path.join(self.dir, "home", "train.py")))
        medians = {}
        for mode in (MAXN, LOW):
            r, _ = self.sim.request("apply_mode", mode=mode)
            self.assertTrue(r["ok"], r)
            expected = model.time_ms("resnet18", perfmodel.Mode(**mode), 16)
            for name, w in (("sim-marker", SIM_MARKER), ("sim-tqdm", SIM_TQDM),
                            ("sim-launcher", SIM_LAUNCHER)):
                res, ev = self.profile(w)
                got = medians[name, mode["gpu_hz"]] = res["time_ms"]["median"]
                # the model's time, with the run's noise (1.5 %); the launcher times wall-clock
                # intervals between steps, which a busy host lengthens (+25 % seen with three
                # test processes on two cores)
                tolerance = 0.35 if name == "sim-launcher" else 0.06
                self.assertLess(abs(got - expected) / expected, tolerance,
                                (name, mode, got, expected))
                self.assertEqual(res["mode"], mode)
                self.assertGreaterEqual(res["minibatches"], 10, (name, res))
                self.assertIsNotNone(res["power_w"]["median"])
        # the low mode is slower (1.8x in the model), so a sweep sees different times
        for name in ("sim-marker", "sim-tqdm", "sim-launcher"):
            self.assertGreater(medians[name, LOW["gpu_hz"]], 1.3 * medians[name, MAXN["gpu_hz"]],
                               (name, medians))

    def test_steps_regex_and_test_workload(self):
        w = {"kind": "command", "argv": ["python3", "train.py", "--log", "steps"], "cwd": "~",
             "recognise": {"by": "regex", "pattern": r"(?P<ms>[0-9.]+) ms$", "unit": "ms"}}
        r, ev = self.sim.request("test_workload", workload=w, seconds=120, minibatches=15,
                                 timeout=120)
        self.assertTrue(r["ok"], r)
        res = r["result"]
        self.assertIsNone(res["reason"], res)
        self.assertEqual(res["minibatches"], 15)
        self.assertIsNone(res["exit_status"])  # stopped by the agent at 15 of 200
        self.assertTrue(all(l["text"].startswith("step ") and l["ms"] > 0 for l in res["lines"]),
                        res["lines"])
        self.assertEqual(len([e for e in ev if e["event"] == "minibatch"]), 15)
        self.assertEqual(res["mode"], MAXN)

    def test_failure_after_some_minibatches(self):
        w = dict(SIM_MARKER, argv=SIM_MARKER["argv"] + ["--fail-after", "3", "--exit-status", "7"])
        r, _ = self.sim.request("profile", workload=w, minibatches=40, timeout=60)
        self.assertFalse(r["ok"], r)
        e = r["error"]
        self.assertEqual(e["code"], "workload_failed")
        self.assertEqual(e["message"], "workload exited with status 7 after 3 of 40 minibatches")
        # each stream in its order (the two are read apart, so not interleaved exactly)
        err = [l for l in e["output"] if l["stream"] == "err"]
        out = [l for l in e["output"] if l["stream"] == "out"]
        self.assertEqual(err[-1], {"stream": "err", "ms": None,
                                   "text": "RuntimeError: simulated failure after 3 minibatches"})
        self.assertEqual(len(err), 3)
        self.assertEqual([l["text"].split()[0] for l in out], ["PTWB_MINIBATCH"] * 3)
        self.assertTrue(all(l["ms"] > 0 for l in out))

    def test_a_regex_matching_nothing_is_a_clear_reason(self):
        # the regex of sim-tqdm on the marker output: nothing matches
        w = dict(SIM_TQDM, argv=["python3", "train.py", "--log", "marker", "--minibatches", "5"])
        r, _ = self.sim.request("profile", workload=w, minibatches=40, timeout=60)
        self.assertIn("no line matched the pattern", r["error"]["message"])
        self.assertEqual(len(r["error"]["output"]), 5)


class TrainScriptTest(unittest.TestCase):
    """sim_train.py on its own: what each --log writes."""

    def run_train(self, *args):
        state = tempfile.mkdtemp(prefix="ptwb-simtrain-")
        self.addCleanup(shutil.rmtree, state, True)
        import simkernel
        simkernel.ensure_state(state, "orin-agx", perfmodel.load_device_table("orin-agx"))
        env = dict(os.environ, PTWB_SIM_STATE=state, PTWB_SIM_SPEED="1000", PTWB_SIM_DIR=
                   simpaths.SIM_DIR, PYTHONPATH=os.path.join(simpaths.SIM_DIR, "standin"))
        return subprocess.run([sys.executable, os.path.join(simpaths.SIM_DIR, "sim_train.py")]
                              + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env, timeout=60)

    def test_logs(self):
        p = self.run_train("--log", "steps", "--minibatches", "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.decode().splitlines()
        self.assertEqual(len(lines), 3)
        self.assertRegex(lines[2], r"^step 3/3 loss [0-9.]+ [0-9.]+ ms$")
        p = self.run_train("--log", "tqdm", "--minibatches", "3")
        bars = p.stderr.decode().split("\r")
        self.assertEqual(p.stdout, b"")
        self.assertRegex(bars[-1], r"^100%\|#*\S* *\| 3/3 \[.*, [0-9.]+it/s\]\n$")
        p = self.run_train("--log", "none", "--minibatches", "3", "--exit-status", "4")
        self.assertEqual(p.returncode, 4)
        self.assertEqual(p.stdout.decode(), "epoch 1: training 3 minibatches\n")

    def test_needs_the_simulator(self):
        p = subprocess.run([sys.executable, os.path.join(simpaths.SIM_DIR, "sim_train.py")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                           env=dict((k, v) for k, v in os.environ.items()
                                    if not k.startswith("PTWB_")))
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"not on a simulated Jetson", p.stderr)


if __name__ == "__main__":
    unittest.main()
