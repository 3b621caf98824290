"""What mode changes the device accepts (hello's mode_changes, from the device's configuration)
and the reboot op (the helper's `reboot`), against the fake AGX Orin tree, in process."""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

import faketree
from test_ops import LOW, AgentTestCase

import ptwb_agent as A
import ptwb_helper

CONFIG = os.path.join("etc", "powertrain-workbench", "agent.json")


class ModeChangesTest(AgentTestCase):
    def write_config(self, text):
        path = os.path.join(self.tmp, CONFIG)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def mode_changes(self):
        r, _ = self.ok("hello")
        return r["mode_changes"]

    def test_any_without_configuration(self):
        self.assertEqual(self.mode_changes(), "any")

    def test_decreasing_from_the_configuration(self):
        self.write_config('{"mode_changes": "decreasing"}\n')
        self.assertEqual(self.mode_changes(), "decreasing")
        self.write_config('{"mode_changes": "any"}')
        self.assertEqual(self.mode_changes(), "any")

    def test_a_configuration_not_understood_reports_any(self):
        for text in ("not json", "[]", '{"mode_changes": "increasing"}', '{"mode_changes": 1}',
                     '{"other": true}'):
            self.write_config(text)
            self.assertEqual(self.mode_changes(), "any", text)


class RebootTest(AgentTestCase):
    """The helper's reboot is FakeHelper.reboot: it records the boot it ended and gives the tree
    a new boot id, back at MAXN (what the kernel boots into)."""

    args = ["--time-scale", "20"]

    def setUp(self):
        self.after_reply = []
        AgentTestCase.setUp(self)
        self.h.close()
        self.h = faketree.AgentHarness(self.files, self.args, on_reboot=self.on_reboot)

    def on_reboot(self):
        # the reply went out first; the helper had rebooted by then
        written = list(self.h.seen) + list(self.h.lines.queue)
        self.after_reply.append((written, list(self.h.helper.reboots)))

    def ran(self):
        return self.h.helper.reboots

    def test_reboot_asks_the_helper_then_replies(self):
        r, _ = self.ok("reboot")
        self.assertEqual(r, {"rebooting": True, "boot_id": faketree.BOOT_ID})
        self.assertEqual(self.ran(), [faketree.BOOT_ID])
        self.assertIn(["reboot", faketree.BOOT_ID], self.h.helper.calls)
        self.assertEqual(self.files.writes, [])  # a reboot writes no clock
        self.h.close()
        self.assertEqual(len(self.after_reply), 1)
        seen, reboots = self.after_reply[0]
        self.assertEqual(seen[-1]["result"], r)  # on_reboot ran after the reply was written
        self.assertEqual(reboots, [faketree.BOOT_ID])

    def test_reboot_of_the_boot_hello_saw(self):
        r, _ = self.ok("reboot", boot_id=faketree.BOOT_ID)
        self.assertTrue(r["rebooting"])
        self.assertEqual(self.ran(), [faketree.BOOT_ID])

    def test_a_boot_that_already_ended_is_not_rebooted_again(self):
        e = self.err("reboot", "boot_changed", boot_id="11111111-2222-3333-4444-555555555555")
        self.assertIn(faketree.BOOT_ID, e["message"])
        self.assertEqual(self.ran(), [])
        self.h.close()
        self.assertEqual(self.after_reply, [])

    def test_the_helper_checks_the_boot_id_itself(self):
        # the boot changed between the agent's look and the helper's: not rebooted twice
        helper = faketree.FakeHelper(self.files)
        faketree.write_boot_id(self.tmp, "22222222-2222-4222-8222-222222222222")
        with self.assertRaises(A.OpError) as cm:
            helper.agent_side.call("reboot", faketree.BOOT_ID)
        self.assertEqual(cm.exception.code, "boot_changed")
        self.assertEqual(helper.reboots, [])

    def test_boot_id_is_validated(self):
        for bad in (7, "", "  ", None, True, ["x"]):
            e = self.err("reboot", "bad_field", boot_id=bad)
            self.assertTrue(e["message"].startswith("boot_id: "), e)
        self.assertEqual(self.ran(), [])

    def test_a_reboot_voids_the_armed_revert(self):
        """The reboot reset the mode: the revert armed before it is dropped on the next boot
        (_drop_stale), its watchdog ends without writing, and confirm says nothing is armed."""
        arm, _ = self.ok("arm_revert", seconds=20)   # 1 s wall
        self.ok("apply_mode", mode=LOW)
        self.ok("reboot")
        self.h.close()
        n = len(self.files.writes)
        # the watchdog sees the new boot and ends without restoring anything
        self.assertEqual(self.h.helper.watch_result(arm["token"], 5.0)["result"]["state"],
                         "rebooted")
        b = faketree.AgentHarness(self.files, self.args)
        rep, _ = b.request({"id": 1, "op": "get_mode"})
        self.assertEqual(rep["result"]["mode"], faketree.MAXN)   # the boot's default mode
        self.assertFalse(os.path.exists(os.path.join(faketree.state_dir(self.tmp),
                                                     "revert.json")))
        self.assertEqual(b.helper.status(arm["token"]), "missing")
        rep, _ = b.request({"id": 2, "op": "confirm", "token": arm["token"]})
        self.assertEqual(rep["error"]["code"], "not_armed", rep)
        self.assertEqual(len(self.files.writes), n)   # nothing was "restored" over the new boot
        self.assertEqual(b.close(), 0)


class RebootFailsTest(AgentTestCase):
    def setUp(self):
        AgentTestCase.setUp(self)
        self.h.close()

        def refuse():
            raise ptwb_helper.OpError("reboot_failed", "`systemctl reboot` exited with status 1: "
                                      "Access denied")
        self.h = faketree.AgentHarness(self.files, self.args, helper=faketree.FakeHelper(
            self.files, reboot=refuse))

    def test_a_failed_reboot_is_reported(self):
        e = self.err("reboot", "reboot_failed")
        self.assertIn("status 1: Access denied", e["message"])
        r, _ = self.ok("get_mode")  # the agent goes on
        self.assertEqual(r["mode"], faketree.MAXN)


class SystemRebootTest(unittest.TestCase):
    """The installed helper's reboot command, with a stand-in for systemctl (never the real
    one: the helper module's shutil is replaced, so which() can only find the stand-in)."""

    def run_with(self, script):
        tmp = tempfile.mkdtemp(prefix="ptwb-reboot-test-")
        self.addCleanup(shutil.rmtree, tmp, True)
        fake = os.path.join(tmp, "systemctl")
        with open(fake, "w") as f:
            f.write("#!%s\n%s" % (sys.executable, script))
        os.chmod(fake, 0o755)

        class FakeShutil(object):
            @staticmethod
            def which(name, path=None):
                return fake if name == "systemctl" else None

        with mock.patch.object(ptwb_helper, "shutil", FakeShutil):
            self.assertIs(ptwb_helper.shutil, FakeShutil)
            ptwb_helper._system_reboot()
        return tmp

    def test_the_command_is_run(self):
        tmp = self.run_with("import os, sys\n"
                            "open(os.path.join(os.path.dirname(sys.argv[0]), 'ran'), 'w')"
                            ".write(' '.join(sys.argv[1:]))\n")
        with open(os.path.join(tmp, "ran")) as f:
            self.assertEqual(f.read(), "reboot")

    def test_a_failed_command_is_reported_with_its_status_and_last_line(self):
        with self.assertRaises(ptwb_helper.OpError) as cm:
            self.run_with("import sys\nsys.stderr.write('noise\\nAccess denied\\n')\n"
                          "sys.exit(1)\n")
        self.assertEqual(cm.exception.code, "reboot_failed")
        self.assertIn("exited with status 1: Access denied", cm.exception.message)


class RebootNeedsAHelperThatCanTest(AgentTestCase):
    def setUp(self):
        AgentTestCase.setUp(self)
        self.h.close()
        self.h = faketree.AgentHarness(self.files, self.args, helper=faketree.FakeHelper(
            self.files, reboot=None))

    def test_a_helper_without_reboot_refuses(self):
        e = self.err("reboot", "reboot_failed")
        self.assertIn("cannot reboot", e["message"])


class RemovedOptionsTest(AgentTestCase):
    def test_the_agent_no_longer_takes_state_dir_or_reboot_command(self):
        # both moved into the root helper: the agent must not pretend to honour them
        for opt in ("--state-dir", "--reboot-command"):
            with contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(A.main(["--root", self.tmp, opt, "x"]), 2, opt)
            self.assertIn("unrecognized arguments: " + opt, err.getvalue())

    def test_reboot_is_a_known_op(self):
        self.assertIn("reboot", A.ALL_OPS)


if __name__ == "__main__":
    unittest.main()
