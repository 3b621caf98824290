"""Concurrent training and inference on the simulated Jetson: sim_workload.py --serve and the
agent's run_concurrent against the performance model."""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import simpaths
import perfmodel
import simkernel
from simclient import SimProcess

RUNNER = os.path.join(simpaths.SIM_DIR, "sim_workload.py")
TRAIN = {"kind": "builtin", "name": "resnet18", "batch_size": 16}


class ServeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simserve-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.kernel = simkernel.SimKernel(self.dir, "orin-agx")

    def test_orders_and_load(self):
        argv = [sys.executable, RUNNER, "--state", self.dir, "--speed", "1000", "--seed", "2",
                "--name", "resnet18", "--batch-size", "16", "--infer-name", "mobilenet_v3",
                "--infer-batch-size", "8", "--serve"]
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        load = os.path.join(self.dir, "load.json")

        def turn(what):
            p.stdin.write((what + "\n").encode())
            p.stdin.flush()
            line = p.stdout.readline().decode().split()
            self.assertEqual(line[0], "PTWB_MINIBATCH")
            with open(load) as f:
                return float(line[1]), json.load(f)

        model = perfmodel.PerfModel("orin-agx")
        mode = self.kernel.mode()
        turn("train")
        turn("infer")
        train = [turn("train") for _ in range(8)]
        infer = [turn("infer") for _ in range(8)]
        self.assertEqual(train[0][1]["name"], "resnet18")
        self.assertNotIn("kind", train[0][1])
        self.assertEqual(infer[0][1], {"pid": p.pid, "name": "mobilenet_v3", "batch_size": 8,
                                       "kind": "inference"})
        t_train = sorted(t for t, _ in train)[4]
        t_infer = sorted(t for t, _ in infer)[4]
        self.assertLess(abs(t_train / model.time_ms("resnet18", mode, 16) - 1), 0.08)
        self.assertLess(abs(t_infer / model.inference_time_ms("mobilenet_v3", mode, 8) - 1), 0.08)
        p.stdin.write(b"idle\n")
        p.stdin.flush()
        deadline = time.time() + 5
        while os.path.exists(load) and time.time() < deadline:
            time.sleep(0.01)
        self.assertFalse(os.path.exists(load))
        p.stdin.close()
        self.assertEqual(p.wait(10), 0)
        p.stdout.close()
        p.stderr.close()

    def test_serve_needs_an_inference_profile(self):
        p = subprocess.run([sys.executable, RUNNER, "--state", self.dir, "--name", "resnet18",
                            "--infer-name", "lstm", "--serve"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"inference profile", p.stderr)


class RunConcurrentTest(unittest.TestCase):
    def test_measured_latency_and_throughput_follow_the_formulas(self):
        state = tempfile.mkdtemp(prefix="ptwb-simconc-")
        self.addCleanup(shutil.rmtree, state, True)
        sim = SimProcess(state, speed=50, seed=3)
        self.addCleanup(sim.close)
        mode = {"cores": 8, "cpu_khz": 1497600, "gpu_hz": 930750000, "emc_hz": 3199000000}
        rep, _ = sim.request("apply_mode", mode=mode)
        self.assertTrue(rep["ok"], rep)
        rate, b = 40.0, 12
        rep, ev = sim.request("run_concurrent", timeout=120, train=TRAIN,
                              infer={"kind": "builtin", "name": "mobilenet_v3", "batch_size": b},
                              arrival_rate=rate, duration_s=60)
        self.assertTrue(rep["ok"], rep)
        r = rep["result"]
        model = perfmodel.PerfModel("orin-agx")
        m = perfmodel.Mode(**mode)
        t_train = model.time_ms("resnet18", m, 16) / 1000.0
        t_infer = model.inference_time_ms("mobilenet_v3", m, b) / 1000.0
        n = math.floor((b / rate - t_infer) / t_train)
        self.assertGreater(n, 0)
        self.assertLess(abs(r["train_per_s"] / (n * rate / b) - 1), 0.10, (r, n))
        self.assertLess(abs(r["infer_per_s"] / (rate / b) - 1), 0.02, r)
        self.assertLessEqual(r["latency_ms"]["p99"] / 1000.0, b / rate + t_infer + t_train)
        # the first request of a batch waits (b-1)/rate, then the inference
        self.assertLess(abs(r["latency_ms"]["p99"] / 1000.0 / ((b - 1) / rate + t_infer) - 1),
                        0.10, r)
        p_max = max(model.power_w("resnet18", m, 16),
                    model.inference_power_w("mobilenet_v3", m, b))
        self.assertLessEqual(r["power_w"]["median"], p_max * 1.05)
        self.assertGreater(r["power_w"]["median"], model.idle_power_w(m))
        self.assertEqual(r["mode"], mode)
        self.assertTrue(any(e["event"] == "progress" for e in ev))


if __name__ == "__main__":
    unittest.main()
