"""The streaming slot is free by the time a streaming op's reply is written: a desktop that sends
its next streaming request the moment it reads the reply never gets `busy`, on any path (ok,
error, stopped)."""

import os
import sys
import textwrap

import faketree
from test_ops import AgentTestCase

SHORT = textwrap.dedent("""\
    for i in range(3):
        print("PTWB_MINIBATCH %d" % (100 + i), flush=True)
""")

FAILING = "import sys\nprint('PTWB_MINIBATCH 5', flush=True)\nsys.exit(3)\n"


class BackToBackTest(AgentTestCase):
    """Each reply is answered at once by the next streaming request."""

    args = ["--time-scale", "50"]
    reply_write_delay = 0.0

    def setUp(self):
        AgentTestCase.setUp(self)
        if self.reply_write_delay:
            self.h.close()
            self.h = faketree.AgentHarness(self.files, self.args,
                                           reply_write_delay=self.reply_write_delay)
        for name, text in (("short.py", SHORT), ("fail.py", FAILING)):
            with open(os.path.join(self.tmp, name), "w") as f:
                f.write(text)

    def wl(self, name):
        return {"kind": "command", "argv": [sys.executable, os.path.join(self.tmp, name)]}

    def chain(self, requests, expect):
        """Sends requests[0]; each time a reply arrives, sends the next request before looking
        at anything else. expect[i]: None for ok, else the error code of reply i."""
        replies = []
        self.h.send(requests[0])
        for i, req in enumerate(requests):
            rid = req["id"]
            while True:
                ln = self.h.next_line(timeout=20.0)
                if ln.get("id") == rid and "ok" in ln:
                    break
            if i + 1 < len(requests):
                self.h.send(requests[i + 1])   # the moment the reply line is read
            replies.append(ln)
        for rep, code in zip(replies, expect):
            if code is None:
                self.assertTrue(rep["ok"], rep)
            else:
                self.assertFalse(rep["ok"], rep)
                self.assertEqual(rep["error"]["code"], code, rep)
        return replies

    def test_profile_and_sample_power_back_to_back(self):
        reqs, expect = [], []
        for i in range(20):
            if i % 2 == 0:
                reqs.append({"id": i, "op": "profile", "workload": self.wl("short.py"),
                             "minibatches": 3, "settle": {"window": 2}})
            else:
                reqs.append({"id": i, "op": "sample_power", "interval_ms": 100, "count": 2})
            expect.append(None)
        reps = self.chain(reqs, expect)
        self.assertEqual(reps[0]["result"]["minibatches"] + reps[0]["result"]["discarded"], 3)
        self.assertEqual(reps[1]["result"]["samples"], 2)

    def test_error_replies_free_the_slot_first(self):
        reqs = [
            {"id": "f1", "op": "profile", "workload": self.wl("fail.py")},       # workload_failed
            {"id": "s1", "op": "sample_power", "interval_ms": 100, "count": 0},   # bad_field
            {"id": "p1", "op": "profile", "workload": {"kind": "command",
                                                        "argv": [os.path.join(self.tmp, "nope")]}},
            {"id": "s2", "op": "sample_power", "interval_ms": 100, "count": 1},
        ]
        for _ in range(5):
            self.chain(reqs, ["workload_failed", "bad_field", "workload_failed", None])

    def test_stopped_reply_frees_the_slot_first(self):
        for i in range(10):
            rid = "long%d" % i
            self.h.send({"id": rid, "op": "sample_power", "interval_ms": 1000, "count": 100000})
            self.assertEqual(self.h.next_line()["event"], "power")
            self.h.send({"id": "stop%d" % i, "op": "stop", "target": rid})
            while True:
                ln = self.h.next_line()
                if ln.get("id") == rid and "ok" in ln:
                    break
            self.h.send({"id": "next%d" % i, "op": "sample_power", "interval_ms": 100,
                         "count": 1})
            self.assertEqual(ln["error"]["code"], "stopped")
            rep, _ = self.h.reply("next%d" % i)
            self.assertTrue(rep["ok"], rep)


class SlowPipeBackToBackTest(BackToBackTest):
    """The same, with the agent's reply write taking 50 ms after the line was delivered, so
    bookkeeping done after the write would reliably be seen."""

    reply_write_delay = 0.05

