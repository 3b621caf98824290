"""run_concurrent: validation, the time-slicing schedule (pure) and the op through a fake runner;
built-in inference through the runner."""

import json
import math
import os
import sys
import textwrap
import unittest

from test_ops import AgentTestCase

import ptwb_agent as A

# A workload runner: records its argv; with --serve, answers `train` with the training times in
# TRAIN_MS (cycling) and `infer` with INFER_MS; without, prints --minibatches lines.
RUNNER = textwrap.dedent("""\
    import json, sys
    with open(sys.argv[1], "a") as f:
        f.write(json.dumps(sys.argv[2:]) + "\\n")
    args = sys.argv[2:]
    if "--serve" not in args:
        for i in range(int(args[args.index("--minibatches") + 1])):
            print("PTWB_MINIBATCH 100", flush=True)
        sys.exit(0)
    if "--fail" in sys.argv[1]:
        sys.stderr.write("RuntimeError: CUDA out of memory\\n")
        sys.exit(3)
    train = [float(x) for x in sys.argv[2 + args.index("--train-ms") + 1].split(",")] \\
        if "--train-ms" in args else [100.0]
    k = 0
    for line in sys.stdin:
        what = line.strip()
        if what == "train":
            print("PTWB_MINIBATCH %s" % train[k % len(train)], flush=True)
            k += 1
        elif what == "infer":
            print("noise", flush=True)
            print("PTWB_MINIBATCH 50", flush=True)
""")

TRAIN = {"kind": "builtin", "name": "resnet18", "batch_size": 16}
INFER = {"kind": "builtin", "name": "mobilenet_v3", "batch_size": 5}


class TimeSlicerTest(unittest.TestCase):
    def run_schedule(self, rate, b, duration, train_ms, infer_ms):
        s = A.TimeSlicer(rate, b, duration)
        k = 0
        while True:
            act = s.next_action(train_ms[0])
            if act is None:
                return s
            if act[0] == "idle":
                s.idle(act[1])
            elif act[0] == "train":
                s.trained(train_ms[k % len(train_ms)])
                k += 1
            else:
                s.inferred(infer_ms)

    def test_minibatches_per_cycle_follow_the_formula(self):
        for rate, b, t_train, t_infer in ((10.0, 5, 100.0, 50.0), (60.0, 16, 56.7, 33.7),
                                          (30.0, 4, 45.0, 20.0), (100.0, 8, 90.0, 40.0)):
            s = self.run_schedule(rate, b, 100.0, [t_train], t_infer)
            n = math.floor((b / rate - t_infer / 1000.0) / (t_train / 1000.0))
            self.assertEqual(s.batches, int(100.0 * rate / b))
            self.assertEqual(len(s.infer_ms), s.batches)
            self.assertEqual(s.overruns, 0)
            self.assertEqual(s.backlog, 0)
            # n per cycle (the first cycle is 1/rate shorter: at most one fewer)
            self.assertIn(len(s.train_ms), (n * s.batches, n * s.batches - 1), (rate, b))
            summary = s.summary()
            self.assertAlmostEqual(summary["train_per_s"], n * rate / b,
                                   delta=0.01 * n * rate / b + 0.02)
            # the first request of a batch waits (b-1)/rate, then the inference
            worst = ((b - 1) / rate + t_infer / 1000.0) * 1000.0
            self.assertAlmostEqual(summary["latency_ms"]["max"], worst, places=3)
            self.assertLessEqual(summary["latency_ms"]["max"], (b / rate + t_infer / 1000.0) * 1000)
            # the last request of a batch waits only for the inference
            self.assertAlmostEqual(min(s.latencies) * 1000.0, t_infer, places=6)

    def test_a_training_overrun_delays_the_batch(self):
        # cycle 0.5 s, slack 0.45 s: four 100 ms minibatches fit; every fourth one takes 180 ms
        s = self.run_schedule(10.0, 5, 50.0, [100.0, 100.0, 100.0, 180.0], 50.0)
        self.assertGreater(s.overruns, 0)
        self.assertEqual(s.backlog, 0)
        self.assertGreater(s.max_overrun_s, 0.0)
        self.assertLessEqual(s.max_overrun_s, 0.180 + 1e-9)
        worst = max(s.latencies)
        self.assertGreater(worst, 0.45 + 1e-6)                # later than an undisturbed cycle
        self.assertLessEqual(worst, 0.5 + 0.05 + 0.180 + 1e-9)  # b/rate + tI + tT at most

    def test_inference_that_cannot_keep_up_builds_a_backlog(self):
        s = self.run_schedule(100.0, 2, 2.0, [10.0], 40.0)  # tI 40 ms > b/rate 20 ms
        self.assertEqual(s.train_ms, [10.0])               # trained only before the first batch
        self.assertGreater(s.backlog, 50)
        self.assertGreater(max(s.latencies), 1.0)           # the queue grows all run long

    def test_no_training_when_none_fits(self):
        s = self.run_schedule(10.0, 5, 20.0, [460.0], 50.0)  # slack 0.45 s < 0.46 s
        self.assertEqual(s.train_ms, [])
        self.assertEqual(s.summary()["train_per_s"], 0.0)


class ConcurrentOpTest(AgentTestCase):
    def setUp(self):
        AgentTestCase.setUp(self)
        self.h.close()
        self.argfile = os.path.join(self.tmp, "args.jsonl")
        runner = os.path.join(self.tmp, "runner.py")
        with open(runner, "w") as f:
            f.write(RUNNER)
        import faketree
        self.h = faketree.AgentHarness(self.files, [
            "--time-scale", "50", "--workload-runner",
            json.dumps([sys.executable, runner, self.argfile])])

    def runner_args(self):
        with open(self.argfile) as f:
            return [json.loads(line) for line in f]

    def test_validation(self):
        ok = {"train": TRAIN, "infer": INFER, "arrival_rate": 10, "duration_s": 10}

        def without(key, **changes):
            out = dict(ok)
            out.pop(key, None)
            out.update(changes)
            return out

        cases = [
            (without("train"), "train"),
            (without("infer"), "infer"),
            (without("arrival_rate"), "arrival_rate"),
            (without("duration_s"), "duration_s"),
            (dict(ok, arrival_rate=0), "arrival_rate"),
            (dict(ok, arrival_rate=-5), "arrival_rate"),
            (dict(ok, arrival_rate=10001), "arrival_rate"),
            (dict(ok, arrival_rate="60"), "arrival_rate"),
            (dict(ok, arrival_rate=True), "arrival_rate"),
            (dict(ok, duration_s=0), "duration_s"),
            (dict(ok, duration_s=3601), "duration_s"),
            (dict(ok, arrival_rate=10000, duration_s=100), "duration_s"),  # 10^6 requests
            (dict(ok, duration_s=0.4), "duration_s"),  # 4 requests: not one batch of 5
            (dict(ok, infer=dict(INFER, batch_size=0)), "infer.batch_size"),
            (dict(ok, infer=dict(INFER, batch_size=4097)), "infer.batch_size"),
            (dict(ok, infer=dict(INFER, batch_size=2.0)), "infer.batch_size"),
            (dict(ok, infer=dict(INFER, name="vgg; rm -rf /")), "infer.name"),
            (dict(ok, train=dict(TRAIN, name="../../bin/sh")), "train.name"),
            (dict(ok, train=dict(TRAIN, name=7)), "train.name"),
            (dict(ok, train={"kind": "command", "argv": ["python3", "t.py"]}), "train.kind"),
            (dict(ok, infer={"kind": "shell", "argv": ["x"]}), "infer.kind"),
            (dict(ok, train=dict(TRAIN, inference=True)), "train.inference"),
            (dict(ok, infer=dict(INFER, inference="yes")), "infer.inference"),
            (dict(ok, sample_interval_ms=10), "sample_interval_ms"),
            (dict(ok, progress_every_s=0.01), "progress_every_s"),
        ]
        for fields, text in cases:
            e = self.err("run_concurrent", "bad_field", **fields)
            self.assertIn(text, e["message"], fields)
        self.assertFalse(os.path.exists(self.argfile))  # nothing ran
        self.assertEqual(self.files.writes, [])

    def test_run_follows_the_schedule(self):
        # cycle 0.5 s; inference 50 ms; four 100 ms training minibatches fit in the 0.45 s left
        r, ev = self.ok("run_concurrent", train=TRAIN, infer=INFER, arrival_rate=10,
                        duration_s=20, progress_every_s=0.2)
        self.assertEqual(self.runner_args(), [[
            "--name", "resnet18", "--batch-size", "16", "--infer-name", "mobilenet_v3",
            "--infer-batch-size", "5", "--serve"]])
        self.assertEqual(r["requests"], 200)
        self.assertEqual(r["batches"], 40)
        self.assertEqual(r["infer_minibatches"], 40)
        self.assertEqual(r["train_minibatches"], 4 * 40)
        self.assertEqual(r["overruns"], 0)
        self.assertEqual(r["arrivals"], "uniform")
        self.assertEqual(r["batch"], 5)
        self.assertAlmostEqual(r["train_per_s"], 4 * 10 / 5, delta=0.05)
        self.assertAlmostEqual(r["infer_per_s"], 10 / 5, delta=0.02)
        self.assertAlmostEqual(r["latency_ms"]["max"], 450.0, places=2)
        self.assertAlmostEqual(r["latency_ms"]["p50"], 250.0, places=2)
        self.assertEqual(r["train_ms"]["median"], 100.0)
        self.assertEqual(r["infer_ms"]["median"], 50.0)
        self.assertGreater(r["samples"], 10)
        self.assertEqual(r["power_w"]["median"], 23.0)
        self.assertEqual(r["mode"]["gpu_hz"], 1300500000)
        kinds = [e["event"] for e in ev]
        self.assertEqual(kinds[0], "warmed_up")
        progress = [e for e in ev if e["event"] == "progress"]
        self.assertGreater(len(progress), 0)
        for e in progress:
            lat = e["latency_ms"]
            if lat is not None:
                self.assertLessEqual(lat["p50"], lat["p95"])
                self.assertLessEqual(lat["p95"], lat["p99"])
                self.assertLessEqual(lat["p99"], lat["max"])
        self.assertEqual(self.files.writes, [])

    def test_overrun_shows_in_latency(self):
        # the runner's fourth training minibatch of each five takes 300 ms instead of 100
        self.h.close()
        import faketree
        runner = os.path.join(self.tmp, "runner.py")
        self.h = faketree.AgentHarness(self.files, [
            "--time-scale", "50", "--workload-runner",
            json.dumps([sys.executable, runner, self.argfile, "--train-ms",
                        "100,100,100,300,100"])])
        r, _ = self.ok("run_concurrent", train=TRAIN, infer=INFER, arrival_rate=10, duration_s=20)
        self.assertGreater(r["overruns"], 0)
        self.assertGreater(r["max_overrun_ms"], 0.0)
        self.assertGreater(r["latency_ms"]["max"], 450.0)
        self.assertLessEqual(r["latency_ms"]["max"], 500.0 + 50.0 + 300.0)

    def test_failing_runner(self):
        self.h.close()
        import faketree
        runner = os.path.join(self.tmp, "runner.py")
        self.h = faketree.AgentHarness(self.files, [
            "--time-scale", "50", "--workload-runner",
            json.dumps([sys.executable, runner, self.argfile + "--fail"])])
        e = self.err("run_concurrent", "workload_failed", train=TRAIN, infer=INFER,
                     arrival_rate=10, duration_s=20)
        self.assertIn("status 3", e["message"])
        self.assertEqual(e["stderr"][-1], "RuntimeError: CUDA out of memory")

    def test_stop(self):
        self.h.send({"id": "c", "op": "run_concurrent", "train": TRAIN, "infer": INFER,
                     "arrival_rate": 10, "duration_s": 3000})
        while self.h.next_line().get("event") != "warmed_up":
            pass
        rep, _ = self.h.request({"id": "q", "op": "profile", "workload": TRAIN})
        self.assertEqual(rep["error"]["code"], "busy")
        rep, _ = self.h.request({"id": "st", "op": "stop", "target": "c"})
        self.assertEqual(rep["result"], {"stopped": True})
        rep, _ = self.h.reply("c")
        self.assertEqual(rep["error"]["code"], "stopped")

    def test_builtin_inference_profile(self):
        r, _ = self.ok("profile", workload=dict(INFER, inference=True), minibatches=4,
                       settle={"window": 2})
        self.assertEqual(self.runner_args(), [["--name", "mobilenet_v3", "--batch-size", "5",
                                               "--minibatches", "4", "--inference"]])
        r, _ = self.ok("profile", workload=dict(INFER, inference=False), minibatches=4,
                       settle={"window": 2})
        self.assertNotIn("--inference", self.runner_args()[-1])


if __name__ == "__main__":
    unittest.main()
