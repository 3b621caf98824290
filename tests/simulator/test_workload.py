"""sim_workload.py: minibatch lines from the model, noise, warm-up, load announcement."""

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
import ptwb_helper  # remote/agent, on the path by simpaths

RUNNER = os.path.join(simpaths.SIM_DIR, "sim_workload.py")


class WorkloadTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simwl-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.kernel = simkernel.SimKernel(self.dir, "orin-agx")

    def run_wl(self, *extra):
        argv = [sys.executable, RUNNER, "--state", self.dir, "--speed", "1000", "--seed", "4"] + list(extra)
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)

    def times(self, proc):
        out = proc.stdout.decode().split("\n")
        return [float(l.split()[1]) for l in out if l.startswith("PTWB_MINIBATCH ")]

    def test_minibatches_follow_the_model(self):
        p = self.run_wl("--name", "resnet18", "--batch-size", "16", "--minibatches", "30")
        self.assertEqual(p.returncode, 0, p.stderr)
        t = self.times(p)
        self.assertEqual(len(t), 30)
        expect = perfmodel.PerfModel("orin-agx").time_ms("resnet18", self.kernel.mode())
        med = statistics.median(t[1:])
        self.assertLess(abs(med - expect) / expect, 0.06)
        self.assertGreater(t[0], 1.4 * med)                          # warm-up
        self.assertGreater(statistics.pstdev(t[1:]) / med, 0.005)    # noisy
        self.assertLess(statistics.pstdev(t[1:]) / med, 0.08)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "load.json")))

    def test_follows_the_clocks_and_batch_size(self):
        f = simkernel.make_kernel_files(ptwb_helper.KernelFiles)(self.kernel.root, self.kernel)
        g = simkernel.gpu_dir("orin-agx") + "/"
        f.write(g + "min_freq", "114750000")
        f.write(g + "max_freq", "216750000")
        slow = statistics.median(self.times(self.run_wl("--name", "resnet18", "--minibatches", "9"))[1:])
        big = statistics.median(self.times(self.run_wl("--name", "resnet18", "--batch-size", "32",
                                                       "--minibatches", "9"))[1:])
        m = perfmodel.PerfModel("orin-agx")
        md = self.kernel.mode()
        self.assertLess(abs(slow - m.time_ms("resnet18", md)) / slow, 0.08)
        self.assertGreater(big, 1.4 * slow)

    def test_inference_minibatches_follow_the_inference_model(self):
        m = perfmodel.PerfModel("orin-agx")
        md = self.kernel.mode()
        meds = {}
        for b in (1, 16, 64):
            p = self.run_wl("--inference", "--name", "mobilenet_v3", "--batch-size", str(b),
                            "--minibatches", "15")
            self.assertEqual(p.returncode, 0, p.stderr)
            t = self.times(p)
            self.assertEqual(len(t), 15)
            meds[b] = statistics.median(t[1:])
            expect = m.inference_time_ms("mobilenet_v3", md, b)
            self.assertLess(abs(meds[b] - expect) / expect, 0.06, (b, meds[b], expect))
            self.assertGreater(t[0], 1.4 * meds[b])                  # warm-up
        self.assertLess(meds[1], meds[16])
        self.assertLess(meds[16], meds[64])
        # not the training model's time at the same batch size
        self.assertGreater(abs(meds[16] - m.time_ms("mobilenet_v3", md, 16)) / meds[16], 0.3)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "load.json")))

    def test_inference_without_a_profile_exits_2(self):
        p = self.run_wl("--inference", "--name", "lstm", "--minibatches", "3")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no inference profile", p.stderr.decode())
        self.assertEqual(self.times(p), [])

    def test_unknown_workload_exits_2(self):
        p = self.run_wl("--name", "no_such_net", "--minibatches", "3")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown workload", p.stderr.decode())
        self.assertEqual(self.times(p), [])

    def test_announces_the_load_while_running(self):
        argv = [sys.executable, RUNNER, "--state", self.dir, "--speed", "20", "--name", "bert_base",
                "--minibatches", "40"]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            proc.stdout.readline()   # the first minibatch is out: the load is announced
            load = simkernel.read_load(self.dir)
            self.assertEqual(load["name"], "bert_base")
            self.assertEqual(load["pid"], proc.pid)
        finally:
            proc.terminate()
            proc.communicate(timeout=10)
        self.assertIsNone(simkernel.read_load(self.dir))

    def test_announces_an_inference_load(self):
        argv = [sys.executable, RUNNER, "--state", self.dir, "--speed", "20", "--inference",
                "--name", "bert_base", "--batch-size", "4", "--minibatches", "200"]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            proc.stdout.readline()
            load = simkernel.read_load(self.dir)
            self.assertEqual((load["name"], load["batch_size"], load["kind"]),
                             ("bert_base", 4, "inference"))
            self.kernel.refresh(force=True)
            m = perfmodel.PerfModel("orin-agx")
            self.assertAlmostEqual(sum(self.kernel._target.values()),
                                   m.inference_power_w("bert_base", self.kernel.mode(), 4), places=6)
        finally:
            proc.terminate()
            proc.communicate(timeout=10)
        self.assertIsNone(simkernel.read_load(self.dir))


if __name__ == "__main__":
    unittest.main()
