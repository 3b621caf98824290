"""The revert armed by one agent process is confirmed by another: `ptwb apply` arms and applies on
one connection, then verifies and confirms on a new one (over SSH, a new agent process). Two
agents share one fake tree and one --state-dir here, as two in-process harnesses or as two
processes."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import faketree
from faketree import MAXN

import ptwb_agent as A

HERE = os.path.dirname(os.path.abspath(__file__))
LAUNCH = ("import sys; sys.path.insert(0, %r); import faketree, ptwb_agent; "
          "root = sys.argv[1]; "
          "sys.exit(ptwb_agent.main(sys.argv[2:], files=faketree.FakeKernel(root)))" % HERE)
LOW = {"cores": 4, "cpu_khz": 729600, "gpu_hz": 612000000, "emc_hz": 665600000}


class SharedRevertTest(unittest.TestCase):
    scale = 20.0

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptwb-agent-shared-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        faketree.build_orin_agx(self.tmp)
        self.state = faketree.state_dir(self.tmp)
        self.n = 0

    # --- helpers
    def harness(self):
        files = faketree.FakeKernel(self.tmp)
        h = faketree.AgentHarness(files, ["--time-scale", str(self.scale),
                                          "--state-dir", self.state])
        h.files = files
        self.addCleanup(self._dispose, h)
        return h

    def _dispose(self, h):
        try:
            h._in_w.close()
        except OSError:
            pass
        h.thread.join(15)
        h._in_r.close()

    def req(self, h, op, **fields):
        self.n += 1
        obj = {"id": self.n, "op": op}
        obj.update(fields)
        rep, _ = h.request(obj)
        return rep

    def ok(self, h, op, **fields):
        rep = self.req(h, op, **fields)
        self.assertTrue(rep["ok"], rep)
        return rep["result"]

    def not_armed(self, h, **fields):
        rep = self.req(h, "confirm", **fields)
        self.assertFalse(rep["ok"], rep)
        self.assertEqual(rep["error"]["code"], "not_armed", rep)
        return rep["error"]["message"]

    def mode(self):
        return A.Device(faketree.FakeKernel(self.tmp)).get_mode()

    def revert_file(self):
        return os.path.join(self.state, "revert.json")

    def read_revert(self):
        with open(self.revert_file()) as f:
            return json.load(f)

    def arm_apply_close(self, seconds):
        """Agent A: arm_revert, apply LOW, close stdin (A stays alive for the revert)."""
        a = self.harness()
        arm = self.ok(a, "arm_revert", seconds=seconds)
        self.assertEqual(arm["previous"], MAXN)
        self.ok(a, "apply_mode", mode=LOW)
        t0 = time.monotonic()
        a._in_w.close()
        return a, arm, t0

    def agent_process(self):
        p = subprocess.Popen([sys.executable, "-c", LAUNCH, self.tmp, "--time-scale",
                              str(self.scale), "--state-dir", self.state],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

        def dispose():
            if p.poll() is None:
                p.kill()
            p.wait()
            for s in (p.stdin, p.stdout, p.stderr):
                try:
                    s.close()
                except (OSError, ValueError):
                    pass
        self.addCleanup(dispose)
        return p

    def preq(self, p, obj):
        p.stdin.write((json.dumps(obj) + "\n").encode())
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if not line:
                self.fail("agent exited; stderr: %r" % p.stderr.read()[-2000:])
            ln = json.loads(line)
            if ln.get("id") == obj["id"] and "ok" in ln:
                return ln

    # --- the two-connection apply
    def test_confirm_from_another_agent_keeps_mode_and_ends_the_first(self):
        a, arm, t0 = self.arm_apply_close(100)      # deadline 5 s wall
        rec = self.read_revert()
        self.assertEqual(rec["token"], arm["token"])
        self.assertEqual(rec["previous"], MAXN)
        self.assertEqual(rec["boot_id"], faketree.BOOT_ID)
        self.assertEqual(rec["armed_by_pid"], os.getpid())
        self.assertAlmostEqual(rec["deadline_epoch"], time.time() + 5.0, delta=1.0)
        if os.name == "posix":
            self.assertEqual(os.stat(self.state).st_mode & 0o777, 0o700)
        time.sleep(0.3)
        self.assertTrue(a.thread.is_alive(), "A exited before the deadline with a revert armed")
        b = self.harness()
        self.assertEqual(self.ok(b, "get_mode")["mode"], LOW)
        r = self.ok(b, "confirm", token=arm["token"])
        self.assertEqual(r, {"mode": LOW, "token": arm["token"]})
        a.thread.join(3.0)
        self.assertFalse(a.thread.is_alive(), "A still waits for its deadline after the confirm")
        self.assertLess(time.monotonic() - t0, 4.0)
        self.assertFalse(os.path.exists(self.revert_file()))
        self.assertEqual(os.listdir(self.state), ["lock"])   # A removed the confirmation marker
        a_lines = []
        while not a.lines.empty():
            a_lines.append(a.lines.get())
        self.assertNotIn("reverted", json.dumps(a_lines))
        self.assertEqual(self.mode(), LOW)
        self.assertIn("nothing is armed", self.not_armed(b))
        self.assertEqual(b.close(), 0)

    def test_confirm_without_token(self):
        a, arm, _ = self.arm_apply_close(100)
        b = self.harness()
        self.assertEqual(self.ok(b, "confirm"), {"mode": LOW, "token": arm["token"]})
        a.thread.join(3.0)
        self.assertFalse(a.thread.is_alive())
        self.assertEqual(self.mode(), LOW)

    def test_without_confirm_the_first_agent_reverts_at_the_deadline(self):
        a, arm, t0 = self.arm_apply_close(20)       # deadline 1 s wall
        b = self.harness()
        self.assertEqual(self.ok(b, "get_mode")["mode"], LOW)   # verified, never confirmed
        self.assertEqual(b.close(), 0)
        a.thread.join(10.0)
        self.assertFalse(a.thread.is_alive())
        self.assertGreaterEqual(time.monotonic() - t0, 0.9)
        self.assertEqual(self.mode(), MAXN)
        self.assertFalse(os.path.exists(self.revert_file()))
        c = self.harness()
        self.assertIn("passed its deadline", self.not_armed(c, token=arm["token"]))

    def test_wrong_token_is_not_armed(self):
        a, arm, _ = self.arm_apply_close(20)
        b = self.harness()
        msg = self.not_armed(b, token="0" * 32)
        self.assertIn("does not match", msg)
        rep = self.req(b, "confirm", token=5)
        self.assertEqual(rep["error"]["code"], "bad_field", rep)
        self.assertTrue(os.path.exists(self.revert_file()))
        a.thread.join(10.0)
        self.assertFalse(a.thread.is_alive())
        self.assertEqual(self.mode(), MAXN)          # the wrong token confirmed nothing

    def test_rearm_from_another_agent_keeps_the_first_mode(self):
        a, arm, _ = self.arm_apply_close(100)
        b = self.harness()
        r = self.ok(b, "arm_revert", seconds=20)
        self.assertEqual(r["previous"], MAXN)        # not LOW, the unconfirmed mode
        self.assertNotEqual(r["token"], arm["token"])
        a.thread.join(3.0)
        self.assertFalse(a.thread.is_alive(), "A did not hand the revert over")
        self.assertIn("does not match", self.not_armed(b, token=arm["token"]))
        self.assertEqual(b.close(timeout=10.0), 0)   # B reverts at its deadline (1 s)
        self.assertEqual(self.mode(), MAXN)

    def test_confirm_of_a_revert_armed_before_a_reboot(self):
        b = self.harness()
        self.ok(b, "get_mode")                       # startup is over
        A.RevertStore(self.state).write({"token": "ab" * 16, "previous": LOW,
                                         "deadline_epoch": time.time() + 100, "boot_id": "old-boot",
                                         "armed_by_pid": os.getpid()})
        self.assertIn("before a reboot", self.not_armed(b))
        self.assertFalse(os.path.exists(self.revert_file()))
        self.assertEqual(self.mode(), MAXN)

    # --- the arming agent died
    def _arm_and_kill(self, seconds):
        p = self.agent_process()
        arm = self.preq(p, {"id": 1, "op": "arm_revert", "seconds": seconds})
        self.assertTrue(arm["ok"], arm)
        self.assertTrue(self.preq(p, {"id": 2, "op": "apply_mode", "mode": LOW})["ok"])
        t0 = time.monotonic()
        self.assertEqual(self.read_revert()["armed_by_pid"], p.pid)
        p.send_signal(signal.SIGKILL)
        p.wait()
        self.assertEqual(self.mode(), LOW)
        return arm["result"]["token"], t0

    def test_killed_agent_past_deadline_is_reverted_by_the_next_agent(self):
        token, t0 = self._arm_and_kill(10)           # deadline 0.5 s wall
        time.sleep(max(0.0, 0.8 - (time.monotonic() - t0)))
        self.assertEqual(self.mode(), LOW)           # nobody reverted it yet
        p = self.agent_process()
        r = self.preq(p, {"id": 1, "op": "get_mode"})
        self.assertEqual(r["result"]["mode"], MAXN)  # reverted before the first reply
        self.assertFalse(os.path.exists(self.revert_file()))
        r = self.preq(p, {"id": 2, "op": "confirm", "token": token})
        self.assertEqual(r["error"]["code"], "not_armed", r)
        p.stdin.close()
        self.assertEqual(p.wait(timeout=10), 0)
        err = p.stderr.read().decode("utf-8", "replace")
        self.assertIn("is gone", err)
        self.assertIn("restored", err)

    def test_killed_agent_before_deadline_is_adopted(self):
        self._arm_and_kill(40)                       # deadline 2 s wall
        b = self.harness()
        self.assertEqual(self.ok(b, "get_mode")["mode"], LOW)
        self.assertEqual(self.read_revert()["armed_by_pid"], os.getpid())
        b._in_w.close()                              # no confirm: B stays for the revert
        b.thread.join(15.0)
        self.assertFalse(b.thread.is_alive())
        self.assertEqual(self.mode(), MAXN)

    def test_killed_agent_before_deadline_confirmed_by_the_next_agent(self):
        token, _ = self._arm_and_kill(40)
        b = self.harness()
        self.assertEqual(self.ok(b, "confirm", token=token), {"mode": LOW, "token": token})
        self.assertEqual(b.close(timeout=3.0), 0)    # nothing left to wait for
        time.sleep(0.3)
        self.assertEqual(self.mode(), LOW)

    def test_stale_file_from_another_boot_is_removed(self):
        A.RevertStore(self.state).write({"token": "cd" * 16, "previous": LOW,
                                         "deadline_epoch": time.time() - 50,
                                         "boot_id": "11111111-2222-3333-4444-555555555555",
                                         "armed_by_pid": 999999999})
        b = self.harness()
        self.assertEqual(self.ok(b, "get_mode")["mode"], MAXN)   # LOW was not "restored"
        self.assertFalse(os.path.exists(self.revert_file()))
        self.assertIn("nothing is armed", self.not_armed(b))
        self.assertEqual(b.close(), 0)
        self.assertEqual(self.mode(), MAXN)
        self.assertEqual(b.files.writes, [])


if __name__ == "__main__":
    unittest.main()
