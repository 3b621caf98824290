"""The revert armed in one connection is confirmed in another: `ptwb apply` arms and applies on
one connection, then verifies and confirms on a new one (over SSH, a new agent process). The armed
revert is the root helper's (its state directory, its watchdog), shared by every agent on the
device; here two agents share one fake tree and one helper state directory, as two in-process
harnesses or as processes (with fakehelper.py, whose watchdog outlives a killed agent)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

import faketree
import fakehelper
from faketree import MAXN

import ptwb_helper

HERE = os.path.dirname(os.path.abspath(__file__))
LAUNCH = ("import sys; sys.path.insert(0, %r); import faketree, ptwb_agent; "
          "root = sys.argv[1]; "
          "sys.exit(ptwb_agent.main(sys.argv[2:], files=faketree.FakeKernel(root)))" % HERE)
LOW = {"cores": 4, "cpu_khz": 729600, "gpu_hz": 612000000, "emc_hz": 665600000}
OTHER_BOOT = "11111111-2222-3333-4444-555555555555"


class SharedRevertTest(unittest.TestCase):
    scale = 20.0

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptwb-agent-shared-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        faketree.build_orin_agx(self.tmp)
        self.state = faketree.make_state_dir(self.tmp)
        self.n = 0

    # --- helpers
    def harness(self, watch=True):
        files = faketree.FakeKernel(self.tmp)
        helper = faketree.FakeHelper(files, self.scale, watch=watch)
        h = faketree.AgentHarness(files, ["--time-scale", str(self.scale)], helper=helper)
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
        return faketree.read_mode(self.tmp)

    def wait_mode(self, want, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.mode() == want:
                return time.monotonic()
            time.sleep(0.02)
        self.fail("the mode is still %r, not %r, after %s s" % (self.mode(), want, timeout))

    def state_file(self, name):
        return os.path.join(self.state, name)

    def read_state(self, name):
        with open(self.state_file(name)) as f:
            return json.load(f)

    def arm_apply_close(self, seconds):
        """Agent A: arm_revert, apply LOW, close stdin; A exits (the watchdog keeps the revert)."""
        a = self.harness()
        t0 = time.monotonic()                        # the deadline is later than t0 + seconds
        arm = self.ok(a, "arm_revert", seconds=seconds)
        armed = time.monotonic()                     # ... and earlier than this + seconds
        self.assertEqual(arm["previous"], MAXN)
        self.ok(a, "apply_mode", mode=LOW)
        self.assertEqual(a.close(timeout=3.0), 0)
        self.assertLess(time.monotonic() - armed, seconds / self.scale,
                        "A stayed for the deadline")
        a.applied = len(a.files.writes)
        return a, arm, t0

    def agent_process(self):
        p = subprocess.Popen([sys.executable, "-c", LAUNCH, self.tmp, "--time-scale",
                              str(self.scale), "--helper-command",
                              json.dumps(fakehelper.prefix(self.tmp, self.scale))],
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
    def test_confirm_from_another_agent_keeps_mode_and_ends_the_watchdog(self):
        a, arm, t0 = self.arm_apply_close(100)      # deadline 5 s wall
        rec = self.read_state("revert.json")
        self.assertEqual(rec["token"], arm["token"])
        self.assertEqual(rec["previous"], MAXN)
        self.assertEqual(rec["boot_id"], faketree.BOOT_ID)
        self.assertAlmostEqual(rec["deadline_epoch"], time.time() + 5.0, delta=1.0)
        self.assertEqual(os.stat(self.state).st_mode & 0o777, 0o700)
        b = self.harness()
        self.assertEqual(b.helper.status(arm["token"]), "armed")   # B's session sees it
        self.assertEqual(self.ok(b, "get_mode")["mode"], LOW)
        r = self.ok(b, "confirm", token=arm["token"])
        self.assertEqual(r, {"mode": LOW, "token": arm["token"]})
        # A's watchdog lets go at once, long before the deadline, without a write
        self.assertEqual(a.helper.watch_result(arm["token"], 2.0),
                         {"ok": True, "result": {"state": "done"}})
        self.assertLess(time.monotonic() - t0, 4.0)
        self.assertEqual(len(a.files.writes), a.applied)   # the watchdog wrote nothing
        self.assertFalse(os.path.exists(self.state_file("revert.json")))
        self.assertEqual(self.read_state("confirmed.json")["token"], arm["token"])
        self.assertEqual(b.helper.status(arm["token"]), "confirmed")
        self.assertNotIn("reverted", json.dumps(a.seen + list(a.lines.queue)))
        self.assertEqual(self.mode(), LOW)
        self.assertIn("nothing is armed", self.not_armed(b))
        self.assertEqual(b.close(), 0)

    def test_confirm_without_token(self):
        a, arm, _ = self.arm_apply_close(100)
        b = self.harness()
        self.assertEqual(self.ok(b, "confirm"), {"mode": LOW, "token": arm["token"]})
        self.assertEqual(a.helper.watch_result(arm["token"], 2.0)["result"]["state"], "done")
        self.assertEqual(self.mode(), LOW)

    def test_without_confirm_the_watchdog_reverts_at_the_deadline(self):
        a, arm, t0 = self.arm_apply_close(20)       # deadline 1 s wall
        b = self.harness()
        self.assertEqual(self.ok(b, "get_mode")["mode"], LOW)   # verified, never confirmed
        self.assertEqual(b.close(), 0)
        self.assertEqual(self.mode(), LOW)
        res = a.helper.watch_result(arm["token"], 10.0)
        self.assertGreaterEqual(time.monotonic() - t0, 0.9)
        self.assertEqual(res["result"]["state"], "reverted")
        self.assertEqual(res["result"]["mode"], MAXN)
        self.assertEqual(self.mode(), MAXN)
        self.assertFalse(os.path.exists(self.state_file("revert.json")))
        c = self.harness()
        self.assertEqual(c.helper.status(arm["token"]), "reverted")
        self.assertIn("passed its deadline", self.not_armed(c, token=arm["token"]))

    def test_wrong_token_is_not_armed(self):
        a, arm, _ = self.arm_apply_close(20)
        b = self.harness()
        self.assertIn("does not match", self.not_armed(b, token="0" * 32))
        self.assertIn("is not one arm_revert gives", self.not_armed(b, token="../revert"))
        rep = self.req(b, "confirm", token=5)
        self.assertEqual(rep["error"]["code"], "bad_field", rep)
        self.assertTrue(os.path.exists(self.state_file("revert.json")))
        self.assertEqual(b.helper.status("0" * 32), "other")
        self.assertEqual(a.helper.watch_result(arm["token"], 10.0)["result"]["state"],
                         "reverted")
        self.assertEqual(self.mode(), MAXN)          # the wrong token confirmed nothing

    def test_rearm_from_another_agent_keeps_the_first_mode(self):
        a, arm, _ = self.arm_apply_close(100)
        b = self.harness()
        r = self.ok(b, "arm_revert", seconds=20)
        b_arm = self.n
        self.assertEqual(r["previous"], MAXN)        # not LOW, the unconfirmed mode
        self.assertNotEqual(r["token"], arm["token"])
        # the first watchdog hands the revert over to the new one
        self.assertEqual(a.helper.watch_result(arm["token"], 2.0)["result"]["state"], "done")
        self.assertIn("does not match", self.not_armed(b, token=arm["token"]))
        self.assertEqual(b.helper.status(arm["token"]), "other")
        self.assertEqual(b.helper.status(r["token"]), "armed")
        # B's watchdog reverts at B's deadline (1 s), to the first mode; B's connection hears it
        ev = b.next_line(10.0)
        self.assertEqual(ev, {"id": b_arm, "event": "reverted", "mode": MAXN})
        self.assertEqual(self.mode(), MAXN)
        self.assertEqual(b.close(), 0)

    def test_confirm_of_a_revert_armed_before_a_reboot(self):
        b = self.harness()
        self.ok(b, "get_mode")                       # startup is over
        ptwb_helper.StateDir(self.state, os.geteuid()).write("revert.json", {
            "token": "ab" * 16, "previous": LOW, "deadline_epoch": time.time() + 100,
            "boot_id": OTHER_BOOT})
        self.assertIn("nothing is armed", self.not_armed(b))
        self.assertFalse(os.path.exists(self.state_file("revert.json")))
        self.assertEqual(b.helper.status("ab" * 16), "missing")
        self.assertEqual(self.mode(), MAXN)
        self.assertEqual(b.files.writes, [])         # the reboot reset the mode: nothing to do

    def test_stale_file_from_another_boot_is_removed(self):
        ptwb_helper.StateDir(self.state, os.geteuid()).write("revert.json", {
            "token": "cd" * 16, "previous": LOW, "deadline_epoch": time.time() - 50,
            "boot_id": OTHER_BOOT})
        b = self.harness()
        self.assertEqual(self.ok(b, "get_mode")["mode"], MAXN)   # LOW was not "restored"
        self.assertFalse(os.path.exists(self.state_file("revert.json")))
        self.assertIn("nothing is armed", self.not_armed(b))
        self.assertEqual(b.close(), 0)
        self.assertEqual(self.mode(), MAXN)
        self.assertEqual(b.files.writes, [])

    # --- the watchdog is gone (killed): the next helper call performs the overdue revert
    def test_overdue_revert_without_a_watchdog_is_performed_by_the_next_helper_call(self):
        a = self.harness(watch=False)
        arm = self.ok(a, "arm_revert", seconds=2)    # 0.1 s wall
        self.ok(a, "apply_mode", mode=LOW)
        self.assertEqual(a.close(), 0)
        time.sleep(0.2)
        self.assertEqual(self.mode(), LOW)           # nobody reverted it yet
        with mock.patch.object(ptwb_helper, "OVERDUE_GRACE_S", 0.05), \
                mock.patch.object(ptwb_helper, "log") as log:
            b = self.harness()
            self.assertEqual(self.ok(b, "get_mode")["mode"], MAXN)   # before the first reply
        self.assertIn("overdue", " ".join(str(c) for c in log.call_args_list))
        self.assertEqual(b.helper.status(arm["token"]), "reverted")
        self.assertIn("passed its deadline", self.not_armed(b, token=arm["token"]))

    def test_within_the_grace_a_missing_watchdog_is_not_second_guessed(self):
        a = self.harness(watch=False)
        self.ok(a, "arm_revert", seconds=2)          # 0.1 s wall; grace 2 s
        self.ok(a, "apply_mode", mode=LOW)
        time.sleep(0.2)
        self.assertEqual(self.ok(a, "get_mode")["mode"], LOW)

    # --- the arming agent was killed: the watchdog (a process of its own) still reverts
    def _arm_and_kill(self, seconds):
        p = self.agent_process()
        self.assertTrue(self.preq(p, {"id": 0, "op": "get_mode"})["ok"])   # started
        t0 = time.monotonic()                        # the deadline is later than t0 + seconds
        arm = self.preq(p, {"id": 1, "op": "arm_revert", "seconds": seconds})
        self.assertTrue(arm["ok"], arm)
        self.assertTrue(self.preq(p, {"id": 2, "op": "apply_mode", "mode": LOW})["ok"])
        p.send_signal(signal.SIGKILL)
        p.wait()
        self.assertEqual(self.mode(), LOW)
        return arm["result"]["token"], t0

    def test_killed_agent_is_reverted_by_the_watchdog_at_the_deadline(self):
        token, t0 = self._arm_and_kill(20)           # deadline 1 s wall
        t1 = self.wait_mode(MAXN, 10.0)
        self.assertGreaterEqual(t1 - t0, 0.9)
        # the watchdog records the revert after the mode is back: wait for the record too
        end = time.monotonic() + 5.0
        while not os.path.exists(self.state_file("reverted.json")) and time.monotonic() < end:
            time.sleep(0.02)
        self.assertEqual(self.read_state("reverted.json")["token"], token)
        p = self.agent_process()
        r = self.preq(p, {"id": 1, "op": "confirm", "token": token})
        self.assertEqual(r["error"]["code"], "not_armed", r)
        self.assertIn("passed its deadline", r["error"]["message"])
        p.stdin.close()
        self.assertEqual(p.wait(timeout=10), 0)

    def test_killed_agent_before_deadline_confirmed_by_the_next_agent(self):
        token, t0 = self._arm_and_kill(20)           # deadline 1 s wall
        b = self.harness()
        self.assertEqual(self.ok(b, "confirm", token=token), {"mode": LOW, "token": token})
        self.assertEqual(b.close(timeout=3.0), 0)
        time.sleep(max(0.0, 1.6 - (time.monotonic() - t0)))   # past the deadline
        self.assertEqual(self.mode(), LOW)
        self.assertEqual(faketree.FakeHelper(b.files).status(token), "confirmed")


if __name__ == "__main__":
    unittest.main()
