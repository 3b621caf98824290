"""Samples to accuracy by a proxy run on the simulated Jetson (issue 17): the agent's
proxy_convergence op runs the simulator's proxy_train.py once per batch size, which follows the
convergence model (SIMULATED) with its noise; a batch that does not fit, a diverging learning
rate and a failing script are reported per batch, never as samples."""

import os
import shutil
import tempfile
import unittest

import simpaths
import convergence
import perfmodel
import simclient

PROXY = {"kind": "command", "argv": ["python3", "proxy_train.py", "--model", "resnet18"],
         "cwd": "~"}


class SimProxyTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simproxy-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        # speed 20000: a proxy run of ~100,000 samples at a few ms each is ~0.1 s wall
        self.sim = simclient.SimProcess(self.dir, speed=20000)
        self.addCleanup(self.sim.dispose)
        r, _ = self.sim.request("hello")
        self.assertTrue(r["ok"], r)
        self.conv = perfmodel.PerfModel("orin-agx").profiles["workloads"]["resnet18"][
            "convergence"]

    def run_proxy(self, workload=PROXY, sizes=(16, 64, 256), base_lr=0.1, base_batch=256,
                  **fields):
        r, ev = self.sim.request("proxy_convergence", timeout=180, workload=workload,
                                 batch_sizes=list(sizes), target_accuracy=0.6, base_lr=base_lr,
                                 base_batch=base_batch, **fields)
        self.assertTrue(r["ok"], r)
        return r["result"], ev

    def test_follows_the_convergence_model_within_its_noise(self):
        with open(os.path.join(self.dir, "home", "proxy_train.py")) as copy, \
                open(os.path.join(simpaths.SIM_DIR, "sim_proxy_train.py")) as source:
            self.assertEqual(copy.read(), source.read())
        res, ev = self.run_proxy()
        self.assertEqual([b["status"] for b in res["batches"]], ["reached"] * 3, res)
        self.assertEqual([b["learning_rate"] for b in res["batches"]], [0.00625, 0.025, 0.1])
        for b in res["batches"]:
            truth = convergence.samples_to_target(self.conv, b["batch_size"]) * 0.05
            # +-3 % noise, plus up to one evaluation interval (a quarter epoch: 625 samples)
            self.assertLess(abs(b["samples"] - truth) / truth, 0.04, (b, truth))
            self.assertGreaterEqual(b["accuracy"], 0.6)
        # the relation's shape: more samples at 256 (the critical batch) than at 16
        self.assertGreater(res["batches"][2]["samples"], 1.7 * res["batches"][0]["samples"])
        kinds = [e["event"] for e in ev]
        self.assertEqual(kinds.count("proxy_batch"), 3)
        self.assertEqual(kinds.count("proxy_result"), 3)
        self.assertGreater(kinds.count("proxy_progress"), 10)

    def test_too_high_a_rate_does_not_reach_and_a_batch_too_large_fails(self):
        # base 0.1 at 16: 16x the model's rate at every batch: diverges
        res, _ = self.run_proxy(sizes=(16, 1024), base_lr=1.7, base_batch=16,
                                workload=dict(PROXY, argv=PROXY["argv"] + ["--max-epochs",
                                                                           "2"]))
        first, second = res["batches"]
        self.assertEqual(first["status"], "not_reached", first)
        self.assertIn("did not reach accuracy 0.6", first["reason"])
        self.assertLess(first["accuracy"], 0.1)
        self.assertEqual(second["status"], "failed", second)
        self.assertIsNone(second["samples"])
        self.assertTrue(any("out of memory" in l["text"] for l in second["output"]), second)


if __name__ == "__main__":
    unittest.main()
