"""What mode changes the device accepts (hello's mode_changes, from the device's configuration)
and the reboot op, against the fake AGX Orin tree, in process."""

import json
import os
import sys

import faketree
from test_ops import AgentTestCase

import ptwb_agent as A

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
    """--reboot-command stands in for systemctl: it records that it ran (a marker file)."""

    def setUp(self):
        import tempfile
        self.marker_dir = tempfile.mkdtemp(prefix="ptwb-reboot-test-")
        self.marker = os.path.join(self.marker_dir, "rebooted")
        self.args = ["--time-scale", "50", "--reboot-command", json.dumps(
            [sys.executable, "-c", "import sys; open(sys.argv[1], 'a').write('x')", self.marker])]
        AgentTestCase.setUp(self)

    def tearDown(self):
        import shutil
        AgentTestCase.tearDown(self)
        shutil.rmtree(self.marker_dir, ignore_errors=True)

    def ran(self):
        return os.path.exists(self.marker)

    def test_reboot_runs_the_command_then_replies(self):
        r, _ = self.ok("reboot")
        self.assertEqual(r, {"rebooting": True, "boot_id": faketree.BOOT_ID})
        self.assertTrue(self.ran())
        self.assertEqual(self.files.writes, [])  # a reboot writes no clock

    def test_reboot_of_the_boot_hello_saw(self):
        r, _ = self.ok("reboot", boot_id=faketree.BOOT_ID)
        self.assertTrue(r["rebooting"])
        self.assertTrue(self.ran())

    def test_a_boot_that_already_ended_is_not_rebooted_again(self):
        e = self.err("reboot", "boot_changed", boot_id="11111111-2222-3333-4444-555555555555")
        self.assertIn(faketree.BOOT_ID, e["message"])
        self.assertFalse(self.ran())

    def test_boot_id_is_validated(self):
        for bad in (7, "", "  ", None, True, ["x"]):
            e = self.err("reboot", "bad_field", boot_id=bad)
            self.assertTrue(e["message"].startswith("boot_id: "), e)
        self.assertFalse(self.ran())


class RebootFailsTest(AgentTestCase):
    args = ["--time-scale", "50", "--reboot-command", json.dumps(
        [sys.executable, "-c", "import sys; sys.stderr.write('Access denied\\n'); sys.exit(1)"])]

    def test_a_failed_command_is_reported(self):
        e = self.err("reboot", "reboot_failed")
        self.assertIn("status 1: Access denied", e["message"])
        self.assertIn("needs root", e["message"])
        r, _ = self.ok("get_mode")  # the agent goes on
        self.assertEqual(r["mode"], faketree.MAXN)


class RebootNeedsACommandOffTheRealTreeTest(AgentTestCase):
    def test_a_tree_under_root_is_never_this_machine_rebooted(self):
        e = self.err("reboot", "reboot_failed")
        self.assertIn("--root", e["message"])
        self.assertIn("--reboot-command", e["message"])


class RebootCommandOptionTest(AgentTestCase):
    def test_a_malformed_reboot_command_is_refused_at_start(self):
        for bad in ("nonsense", "[]", '["systemctl", 3]', '"systemctl reboot"', '[""]'):
            self.assertEqual(A.main(["--root", self.tmp, "--reboot-command", bad]), 2, bad)

    def test_reboot_is_a_known_op(self):
        self.assertIn("reboot", A.ALL_OPS)
