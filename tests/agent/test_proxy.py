"""proxy_convergence (issue 17): the researcher's training command run once per batch size with
PTWB_BATCH_SIZE and the linearly scaled PTWB_LEARNING_RATE, read for progress lines until the
target accuracy; not reaching it, failing, a sample cap, a timeout and stop are per-batch results
or errors as docs/device-protocol.md says; output is bounded and sanitised."""

import json
import os
import sys
import textwrap
import time
import unittest

from test_ops import AgentTestCase
import ptwb_agent as A

# Accuracy climbs 0.1 per progress line, 1000 x batch samples per line; it records what it was
# told in a file.
TRAINER = textwrap.dedent("""\
    import json, os, sys, time
    b = int(os.environ["PTWB_BATCH_SIZE"])
    with open(sys.argv[1], "a") as f:
        f.write(json.dumps({"batch": b, "lr": os.environ["PTWB_LEARNING_RATE"],
                            "target": os.environ["PTWB_TARGET_ACCURACY"]}) + "\\n")
    print("\\x1b[31mstarting\\x1b[0m \\x07", flush=True)
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    for i in range(1, steps + 1):
        time.sleep(0.01)
        print(json.dumps({"samples": 1000 * b * i, "accuracy": round(min(1.0, 0.1 * i), 3)}), flush=True)
        print("some other line", flush=True)
    sys.exit(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
""")

PERCENT = textwrap.dedent("""\
    import json
    for i in range(5):
        print(json.dumps({"samples": 100 * i, "accuracy": 20.0 * i}), flush=True)
""")

SLOW = textwrap.dedent("""\
    import json, time
    print(json.dumps({"samples": 10, "accuracy": 0.05}), flush=True)
    time.sleep(60)
""")


class ProxyPureTest(unittest.TestCase):
    def test_linear_scaling_rule(self):
        self.assertEqual(A.proxy_learning_rate(0.1, 32, 8), 0.025)
        self.assertEqual(A.proxy_learning_rate(0.1, 32, 128), 0.4)

    def test_progress_lines(self):
        self.assertEqual(A.parse_progress_line('{"samples": 1200, "accuracy": 0.5}'), (1200, 0.5))
        self.assertIsNone(A.parse_progress_line("epoch 3 accuracy 0.5"))
        self.assertIsNone(A.parse_progress_line('{"accuracy": 0.5}'))
        self.assertEqual(A.parse_progress_line('{"samples": 1, "accuracy": 83}')[0], "bad")
        self.assertEqual(A.parse_progress_line('{"samples": -1, "accuracy": 0.3}')[0], "bad")
        self.assertEqual(A.parse_progress_line('{"samples": 1, "accuracy": true}')[0], "bad")

    def test_validation_names_the_field(self):
        base = {"workload": {"kind": "command", "argv": ["python3", "t.py"]},
                "batch_sizes": [8, 16], "target_accuracy": 0.9, "base_lr": 0.1, "base_batch": 32}
        self.assertEqual(A.validate_proxy(base)["timeout_s"], A.PROXY_TIMEOUT_S)
        for field, value, words in (("batch_sizes", [8, 8], "once"),
                                    ("batch_sizes", [0], "batch_sizes"),
                                    ("batch_sizes", "8,16", "batch_sizes"),
                                    ("target_accuracy", 1.5, "target_accuracy"),
                                    ("base_lr", 0, "base_lr"),
                                    ("base_batch", 2.5, "base_batch"),
                                    ("workload", {"kind": "builtin", "name": "resnet18",
                                                  "batch_size": 16}, "workload.kind")):
            req = dict(base)
            req[field] = value
            with self.assertRaises(A.OpError) as cm:
                A.validate_proxy(req)
            self.assertEqual(cm.exception.code, "bad_field")
            self.assertIn(words, cm.exception.message)


class ProxyOpTest(AgentTestCase):
    def script(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def run_proxy(self, argv, sizes=(8, 32), timeout=30.0, **fields):
        w = {"kind": "command", "argv": [sys.executable] + list(argv)}
        req = dict(workload=w, batch_sizes=list(sizes), target_accuracy=0.5, base_lr=0.1,
                   base_batch=32)
        req.update(fields)
        return self.req("proxy_convergence", timeout=timeout, **req)

    def test_each_batch_with_its_scaled_rate_until_the_target(self):
        told = os.path.join(self.tmp, "told.jsonl")
        rep, ev = self.run_proxy([self.script("t.py", TRAINER), told])
        self.assertTrue(rep["ok"], rep)
        res = rep["result"]
        self.assertEqual(res["target_accuracy"], 0.5)
        self.assertEqual([(b["batch_size"], b["status"], b["samples"], b["learning_rate"])
                          for b in res["batches"]],
                         [(8, "reached", 40000, 0.025), (32, "reached", 160000, 0.1)])
        self.assertEqual(res["batches"][0]["output"], [])  # reached: no output kept
        with open(told) as f:
            runs = [json.loads(l) for l in f]
        self.assertEqual([(r["batch"], r["lr"], r["target"]) for r in runs],
                         [(8, "0.025", "0.5"), (32, "0.1", "0.5")])
        progress = [e for e in ev if e["event"] == "proxy_progress" and e["samples"]]
        self.assertEqual([e["accuracy"] for e in progress if e["batch_size"] == 8],
                         [0.1, 0.2, 0.3, 0.4, 0.5])
        self.assertEqual([e["event"] for e in ev if e["event"] != "proxy_progress"],
                         ["proxy_batch", "proxy_result", "proxy_batch", "proxy_result"])

    def test_ending_short_of_the_target_is_not_reached_with_its_output(self):
        rep, _ = self.run_proxy([self.script("t.py", TRAINER), os.devnull, "3"], sizes=(8,))
        b = rep["result"]["batches"][0]
        self.assertEqual(b["status"], "not_reached", b)
        self.assertEqual((b["samples"], b["accuracy"]), (24000, 0.3))
        self.assertIn("did not reach accuracy 0.5: last 0.3 at 24000 samples", b["reason"])
        texts = [l["text"] for l in b["output"]]
        self.assertIn("starting", texts)  # colour codes and the bell removed
        self.assertTrue(all("\x1b" not in t and "\x07" not in t for t in texts))

    def test_a_failing_script_a_percent_and_a_missing_program_are_failed(self):
        rep, _ = self.run_proxy([self.script("t.py", TRAINER), os.devnull, "2", "3"],
                                sizes=(8,))
        b = rep["result"]["batches"][0]
        self.assertEqual(b["status"], "failed")
        self.assertIn("exited with status 3", b["reason"])
        rep, _ = self.run_proxy([self.script("p.py", PERCENT)], sizes=(8,))
        b = rep["result"]["batches"][0]
        self.assertEqual(b["status"], "failed")
        self.assertIn("not between 0 and 1 (a fraction, not a percent)", b["reason"])
        w = {"kind": "command", "argv": [os.path.join(self.tmp, "missing")]}
        rep, _ = self.req("proxy_convergence", workload=w, batch_sizes=[8], target_accuracy=0.5,
                          base_lr=0.1, base_batch=8)
        b = rep["result"]["batches"][0]
        self.assertEqual(b["status"], "failed")
        self.assertIn("could not start", b["reason"])

    def test_sample_cap(self):
        rep, _ = self.run_proxy([self.script("t.py", TRAINER), os.devnull], sizes=(8,),
                                max_samples=20000)
        b = rep["result"]["batches"][0]
        self.assertEqual(b["status"], "not_reached")
        self.assertIn("over the cap of 20000 samples", b["reason"])
        self.assertEqual(b["samples"], 24000)

    def test_stop_ends_the_run_with_stopped(self):
        w = {"kind": "command", "argv": [sys.executable, self.script("s.py", SLOW)]}
        self.h.send({"id": "p", "op": "proxy_convergence", "workload": w, "batch_sizes": [8, 16],
                     "target_accuracy": 0.5, "base_lr": 0.1, "base_batch": 32})
        deadline = time.monotonic() + 10
        while not any(l.get("event") == "proxy_progress" for l in self.h.seen) \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        rep, _ = self.h.request({"id": "st", "op": "stop", "target": "p"})
        self.assertEqual(rep["result"], {"stopped": True})
        rep, _ = self.h.reply("p")
        self.assertEqual(rep["error"]["code"], "stopped")


if __name__ == "__main__":
    unittest.main()
