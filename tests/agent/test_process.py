"""The agent as a separate process, with the fake device's helper as processes too
(fakehelper.py, as --helper-command): random bytes on stdin, the watchdog's revert after the
agent exited, workloads dying with the agent."""

import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import faketree
import fakehelper
from faketree import MAXN

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT = os.path.join(faketree.AGENT_DIR, "ptwb_agent.py")
# runs the agent's main() with the kernel-playing FakeKernel over the tree in argv[1]
LAUNCH = ("import sys; sys.path.insert(0, %r); import faketree, ptwb_agent; "
          "root = sys.argv[1]; "
          "sys.exit(ptwb_agent.main(sys.argv[2:], files=faketree.FakeKernel(root)))" % HERE)

LOW = {"cores": 4, "cpu_khz": 729600, "gpu_hz": 612000000, "emc_hz": 665600000}


class ProcessTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptwb-agent-test-")
        faketree.build_orin_agx(self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_random_bytes_then_hello(self):
        rng = random.Random(1234)
        junk = bytearray()
        for _ in range(200):
            n = rng.randint(0, 300)
            junk += bytes(rng.getrandbits(8) for _ in range(n))
            junk += b"\n"
        junk += b"x" * (1024 * 1024 + 10) + b"\n"   # a line over 1 MiB
        junk += b"\x00\x01\x02\r\n"
        junk += b'{"id": "h", "op": "hello"}\n'
        p = subprocess.run([sys.executable, AGENT, "--root", self.tmp, "--helper-command",
                            json.dumps(fakehelper.prefix(self.tmp, 1.0))], input=bytes(junk),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        lines = [json.loads(x) for x in p.stdout.decode("ascii").splitlines()]
        self.assertGreater(len(lines), 100)
        hello = [x for x in lines if x.get("id") == "h"]
        self.assertEqual(len(hello), 1)
        self.assertTrue(hello[0]["ok"])
        self.assertEqual(hello[0]["result"]["device"], "orin-agx")
        self.assertEqual(hello[0]["result"]["helper"]["state"], "ok")
        self.assertEqual(hello[0]["result"]["mode"], MAXN)
        others = [x for x in lines if x.get("id") != "h"]
        for x in others:
            self.assertIs(x["ok"], False)
            self.assertIn(x["error"]["code"], ("bad_request", "bad_field", "unknown_op"))
        self.assertIn("longer than 1 MiB", json.dumps(others))

    def _agent(self, *args):
        scale = args[args.index("--time-scale") + 1] if "--time-scale" in args else 1.0
        return subprocess.Popen([sys.executable, "-c", LAUNCH, self.tmp, "--helper-command",
                                 json.dumps(fakehelper.prefix(self.tmp, scale))] + list(args),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)

    def _req(self, p, obj):
        p.stdin.write((json.dumps(obj) + "\n").encode())
        p.stdin.flush()
        while True:
            ln = json.loads(p.stdout.readline())
            if ln.get("id") == obj["id"] and "ok" in ln:
                return ln

    def _mode(self):
        return faketree.read_mode(self.tmp)

    def _wait_mode(self, want, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._mode() == want:
                return time.monotonic()
            time.sleep(0.02)
        self.fail("the mode is still %r, not %r, after %s s" % (self._mode(), want, timeout))

    def test_agent_exits_at_eof_and_the_watchdog_reverts_at_the_deadline(self):
        p = self._agent("--time-scale", "10")
        try:
            self.assertTrue(self._req(p, {"id": 0, "op": "get_mode"})["ok"])   # started
            t0 = time.monotonic()   # the deadline is later than t0 + 2 s
            r = self._req(p, {"id": 1, "op": "arm_revert", "seconds": 20})   # 2 s real
            self.assertTrue(r["ok"], r)
            r = self._req(p, {"id": 2, "op": "apply_mode", "mode": LOW})
            self.assertTrue(r["ok"], r)
            import signal
            p.send_signal(signal.SIGHUP)   # what sshd does when the connection drops
            p.stdin.close()
            # the agent no longer stays for the revert: the root helper's watchdog does it
            self.assertEqual(p.wait(timeout=10), 0)
            self.assertLess(time.monotonic() - t0, 1.5, "the agent waited for the deadline")
            self.assertEqual(self._mode(), LOW)
            t1 = self._wait_mode(MAXN, 10.0)
            self.assertGreaterEqual(t1 - t0, 1.9)
            with open(fakehelper.calls_file(self.tmp)) as f:
                verbs = [json.loads(line)[0] for line in f]
            self.assertIn("watch", verbs)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            for s in (p.stdout, p.stderr):
                s.close()

    def test_builtin_workload(self):
        """The agent re-runs itself with --run-builtin; without PyTorch that fails cleanly."""
        have_torch = importlib.util.find_spec("torch") is not None
        have_torchvision = importlib.util.find_spec("torchvision") is not None
        p = self._agent("--time-scale", "10")
        try:
            # ResNet-18 runs with PyTorch alone (built here when torchvision is missing).
            r = self._req(p, {"id": 1, "op": "profile", "minibatches": 3,
                              "workload": {"kind": "builtin", "name": "resnet18",
                                           "batch_size": 1}})
            if have_torch:
                self.assertTrue(r["ok"], r)
                self.assertEqual(r["result"]["minibatches"] + r["result"]["discarded"], 3)
            else:
                self.assertEqual(r["error"]["code"], "workload_failed", r)
                self.assertIn("PyTorch is not available", " ".join(r["error"]["stderr"]))
            # MobileNet v3 needs torchvision; nothing else is measured in its place.
            r = self._req(p, {"id": 2, "op": "profile", "minibatches": 3,
                              "workload": {"kind": "builtin", "name": "mobilenet_v3",
                                           "batch_size": 1}})
            if have_torch and have_torchvision:
                self.assertTrue(r["ok"], r)
            else:
                self.assertEqual(r["error"]["code"], "workload_failed", r)
                if have_torch:
                    self.assertIn("needs torchvision", " ".join(r["error"]["stderr"]))
        finally:
            p.stdin.close()
            p.wait(timeout=10)
            for s in (p.stdout, p.stderr):
                s.close()

    def test_workload_dies_with_a_killed_agent(self):
        """An orphaned workload would load the device and skew the next measurement."""
        pid_file = os.path.join(self.tmp, "workload.pid")
        script = ("import os, sys, time\n"
                  "open(sys.argv[1], 'w').write(str(os.getpid()))\n"
                  "print('PTWB_MINIBATCH 100', flush=True)\n"
                  "time.sleep(60)  # a long minibatch: no write to notice a broken pipe\n")
        p = self._agent()
        try:
            p.stdin.write((json.dumps({"id": 1, "op": "profile", "minibatches": 100000,
                                       "workload": {"kind": "command",
                                                    "argv": [sys.executable, "-c", script,
                                                             pid_file]}}) + "\n").encode())
            p.stdin.flush()
            deadline = time.time() + 20
            while not os.path.exists(pid_file) and time.time() < deadline:
                time.sleep(0.05)
            time.sleep(0.2)
            with open(pid_file) as f:
                workload = int(f.read())
            p.kill()
            p.wait(timeout=10)
            deadline = time.time() + 5
            alive = True
            while alive and time.time() < deadline:
                try:
                    os.kill(workload, 0)
                    with open("/proc/%d/stat" % workload) as f:
                        alive = f.read().split()[2] != "Z"  # a zombie has ended
                    time.sleep(0.05)
                except (ProcessLookupError, FileNotFoundError):
                    alive = False
            self.assertFalse(alive, "the workload outlived the agent")
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            for s in (p.stdin, p.stdout, p.stderr):
                s.close()

    def test_exits_on_eof_without_revert(self):
        p = self._agent()
        try:
            r = self._req(p, {"id": 1, "op": "get_mode"})
            self.assertEqual(r["result"]["mode"], MAXN)
            p.stdin.close()
            self.assertEqual(p.wait(timeout=10), 0)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            for s in (p.stdout, p.stderr):
                s.close()


if __name__ == "__main__":
    unittest.main()
