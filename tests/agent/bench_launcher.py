"""Benchmark (not a test): does the launcher time an unmodified PyTorch script as the script
would time itself? One real training script, profiled twice by the agent on a fake Orin tree at
time scale 1: once printing its own per-minibatch time (marker: perf_counter around data,
forward, backward and optimizer.step()), once unmodified under the launcher (time between
step() returns). Prints both medians and their difference (docs/benchmarks.md).

  cd tests/agent && python3 bench_launcher.py [--minibatches 60] [--repeats 3]
"""

import argparse
import os
import sys
import unittest

from test_command import TORCH_PYTHON
from test_ops import AgentTestCase

SCRIPT = r'''
import os, time, torch, torch.nn as nn
torch.manual_seed(0)
torch.set_num_threads(1)
net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1),
                    nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
mark = os.environ.get("MARK") == "1"
for i in range(int(os.environ.get("STEPS", "60"))):
    t0 = time.perf_counter()
    x, y = torch.randn(16, 3, 64, 64), torch.randint(0, 10, (16,))
    loss = nn.functional.cross_entropy(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if mark:
        print("PTWB_MINIBATCH %.3f" % ((time.perf_counter() - t0) * 1000), flush=True)
'''


class Bench(AgentTestCase):
    args = ["--time-scale", "1"]
    n = 60

    def median_ms(self, recognise, env):
        path = os.path.join(self.tmp, "train.py")
        with open(path, "w") as f:
            f.write(SCRIPT)
        w = {"kind": "command", "argv": [TORCH_PYTHON, path], "recognise": {"by": recognise},
             "env": dict(env, STEPS=str(self.n + 1)), "skip": 3}
        r, _ = self.ok("test_workload", workload=w, seconds=600, minibatches=self.n,
                       timeout=600)
        self.assertIsNone(r["reason"], r)
        return r["time_ms"]["median"], r["minibatches"]

    def test_launcher_against_the_scripts_own_timing(self):
        marker, n1 = self.median_ms("marker", {"MARK": "1"})
        launcher, n2 = self.median_ms("launcher", {})
        print("\nmarker (script's own timing): median %.2f ms over %d minibatches" % (marker, n1))
        print("launcher (unmodified script): median %.2f ms over %d minibatches" % (launcher, n2))
        print("difference: %+.1f %%" % ((launcher - marker) / marker * 100))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minibatches", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if not TORCH_PYTHON:
        print("skipped: PyTorch is not installed (install python3-torch)")
        return 0
    Bench.n = args.minibatches
    for _ in range(args.repeats):
        result = unittest.TextTestRunner(verbosity=0).run(
            unittest.defaultTestLoader.loadTestsFromTestCase(Bench))
        if not result.wasSuccessful():
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
