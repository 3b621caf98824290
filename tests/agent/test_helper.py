"""The root helper's own interface (ptwb_helper.py): nothing outside its verbs and whole-number,
token or boot-id arguments is accepted; its state directory must be safe; the installed file is
refused when anyone but root could change it; the sudoers rule names exactly that file."""

import io
import json
import os
import shutil
import stat
import tempfile
import unittest
from unittest import mock

import faketree
from faketree import MAXN

import ptwb_agent as A
import ptwb_helper as H

LOW = ["4", "729600", "612000000", "665600000"]
TOKEN = "ab" * 16


class HelperTestCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptwb-helper-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        faketree.build_orin_agx(self.tmp)
        self.files = faketree.FakeKernel(self.tmp)
        self.state = faketree.make_state_dir(self.tmp)

    def config(self, state=None, owner_uid=None):
        return H.Config(self.files, state or self.state,
                        os.geteuid() if owner_uid is None else owner_uid, 20.0)

    def run_helper(self, argv, config=None):
        return H.run(argv, config or self.config())

    def assert_untouched(self):
        self.assertEqual(self.files.writes, [])
        self.assertEqual(faketree.read_mode(self.tmp), MAXN)


class InterfaceTest(HelperTestCase):
    def refused(self, argv, text):
        status, reply = self.run_helper(argv)
        self.assertEqual(status, 2, argv)
        self.assertIs(reply["ok"], False)
        self.assertEqual(reply["error"]["code"], "bad_request", argv)
        msg = reply["error"]["message"]
        self.assertIn(text, msg, argv)
        self.assertIn("usage: ptwb-helper", msg)
        self.assertLess(len(msg), 600, "the message echoes the whole argument")
        return msg

    def tearDown(self):
        self.assert_untouched()
        self.assertEqual(os.listdir(self.state), [])   # refused before any state was touched

    def test_unknown_verbs(self):
        self.refused([], "no verb")
        for verb in ("format", "READ", "apply_mode", "sh", "--help", "/bin/sh", ""):
            self.refused([verb], "unknown verb")

    def test_argument_counts(self):
        self.refused(["read", "x"], "read takes 0 arguments, got 1")
        self.refused(["version", "--help"], "version takes 0 arguments, got 1")
        self.refused(["apply"] + LOW[:3], "apply takes 4 arguments, got 3")
        self.refused(["apply"] + LOW + ["1"], "apply takes 4 arguments, got 5")
        self.refused(["arm"], "arm takes 1 argument, got 0")
        self.refused(["arm", "5", "5"], "arm takes 1 argument, got 2")
        self.refused(["confirm", TOKEN, TOKEN], "confirm takes 0 or 1 arguments, got 2")
        self.refused(["status"], "status takes 1 argument, got 0")
        self.refused(["reboot"], "reboot takes 1 argument, got 0")

    def test_paths_and_commands_are_not_arguments(self):
        self.refused(["apply", "/etc/passwd"] + LOW[1:], "cores: expected a whole number")
        self.refused(["status", "../../etc/shadow"], "TOKEN: expected 32 lowercase hex")
        self.refused(["watch", "/tmp/" + TOKEN], "TOKEN: expected 32 lowercase hex")
        self.refused(["confirm", "$(id)"], "TOKEN: expected 32 lowercase hex")
        self.refused(["reboot", "/sbin/reboot"], "BOOT_ID: expected the boot id")
        self.refused(["reboot", faketree.BOOT_ID + ";reboot"], "BOOT_ID: expected the boot id")

    def test_numbers_must_be_plain_whole_numbers(self):
        for bad in ("729600.0", "-4", "+4", "0x10", " 4", "4 ", "1e6", "", "٤"):
            self.refused(["apply", "4", bad] + LOW[2:], "cpu_khz: expected a whole number")
        self.refused(["arm", "1.5"], "SECONDS: expected a whole number")

    def test_a_trailing_newline_is_not_part_of_the_interface(self):
        self.refused(["apply", "4\n"] + LOW[1:], "cores: expected a whole number")
        self.refused(["arm", "5\n"], "SECONDS: expected a whole number")
        self.refused(["status", TOKEN + "\n"], "TOKEN: expected")
        self.refused(["reboot", faketree.BOOT_ID + "\n"], "BOOT_ID: expected")

    def test_ranges(self):
        self.refused(["arm", "0"], "SECONDS: 0 out of range; expected 1..3600")
        self.refused(["arm", "3601"], "SECONDS: 3601 out of range")
        self.refused(["apply", "0"] + LOW[1:], "cores: 0 out of range")

    def test_over_long_arguments(self):
        self.refused(["arm", "9" * 13], "SECONDS: expected a whole number")
        self.refused(["apply", "4", "7" * 13] + LOW[2:], "cpu_khz: expected a whole number")
        self.refused(["status", "a" * 33], "TOKEN: expected")
        self.refused(["status", "A" * 32], "TOKEN: expected")   # lowercase only
        self.refused(["reboot", "a" * 65], "BOOT_ID: expected")
        self.refused(["confirm", "x" * 100000], "TOKEN: expected")

    def test_main_prints_one_json_line(self):
        out = io.StringIO()
        self.assertEqual(H.main(["frobnicate", "x"], self.config(), out), 2)
        lines = out.getvalue().splitlines()
        self.assertEqual(len(lines), 1)
        self.assertEqual(json.loads(lines[0])["error"]["code"], "bad_request")


class ValuesTest(HelperTestCase):
    def test_values_outside_the_tables_are_refused_without_a_write(self):
        for argv, text in ((["apply", "4", "730000"] + LOW[2:], "729600, 806400"),
                           (["apply", "13"] + LOW[1:], "mode.cores: 13"),
                           (["apply"] + LOW[:3] + ["1"], "mode.emc_hz: 1 ")):
            status, reply = self.run_helper(argv)
            self.assertEqual(status, 1, argv)
            self.assertEqual(reply["error"]["code"], "no_such_mode", reply)
            self.assertIn(text, reply["error"]["message"])
        self.assert_untouched()

    def test_a_mode_from_the_tables_is_applied_and_read_back(self):
        status, reply = self.run_helper(["apply"] + LOW)
        self.assertEqual(status, 0, reply)
        self.assertEqual(reply["result"]["mode"], dict(zip(H.MODE_FIELDS, map(int, LOW))))
        self.assertEqual(reply["result"]["previous"], MAXN)

    def test_version(self):
        self.assertEqual(self.run_helper(["version"]),
                         (0, {"ok": True, "result": {"helper_version": H.HELPER_VERSION}}))

    @unittest.skipIf(os.geteuid() == 0, "runs as root here")
    def test_main_refuses_to_run_as_a_user_without_sudo(self):
        self.assertEqual(H.main(["read"]), 2)


class StateDirTest(HelperTestCase):
    def unsafe(self, config, *texts):
        for argv in (["arm", "5"], ["apply"] + LOW, ["confirm"], ["status", TOKEN], ["read"]):
            status, reply = self.run_helper(argv, config)
            self.assertEqual(status, 1, argv)
            self.assertEqual(reply["error"]["code"], "unsafe_state", reply)
            for text in texts:
                self.assertIn(text, reply["error"]["message"])
        self.assert_untouched()

    def test_a_symlinked_state_directory_is_refused(self):
        real = os.path.join(self.tmp, "elsewhere")
        os.mkdir(real, 0o700)
        link = os.path.join(self.tmp, "state-link")
        os.symlink(real, link)
        self.unsafe(self.config(state=link), "is a symbolic link",
                    "remove the link and run `ptwb device setup` again")
        self.assertEqual(os.listdir(real), [])

    def test_a_state_directory_owned_by_someone_else_is_refused(self):
        other = os.geteuid() + 1
        self.unsafe(self.config(owner_uid=other), "owned by uid %d, not %d" % (os.geteuid(), other),
                    "remove it and run `ptwb device setup` again")
        self.assertEqual(os.listdir(self.state), [])

    def test_a_group_or_world_writable_state_directory_is_refused(self):
        for mode in (0o770, 0o707, 0o777):
            os.chmod(self.state, mode)
            self.unsafe(self.config(), "writable by others (mode %o)" % mode, "must be 0700")
            self.assertEqual(os.listdir(self.state), [])

    def test_a_file_not_a_directory_is_refused(self):
        path = os.path.join(self.tmp, "state-file")
        open(path, "w").close()
        self.unsafe(self.config(state=path), "is not a directory")

    def test_a_missing_state_directory_is_created_0700(self):
        path = os.path.join(self.tmp, "new-state")
        status, reply = self.run_helper(["arm", "100"], self.config(state=path))
        self.assertEqual(status, 0, reply)
        st = os.lstat(path)
        self.assertTrue(stat.S_ISDIR(st.st_mode))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o700)
        self.assertEqual(st.st_uid, os.geteuid())

    def test_a_planted_link_in_the_state_directory_is_not_followed(self):
        victim = os.path.join(self.tmp, "victim")
        with open(victim, "w") as f:
            f.write('{"token": "%s", "previous": {}, "deadline_epoch": 0, "boot_id": "%s"}'
                    % (TOKEN, faketree.BOOT_ID))
        os.symlink(victim, os.path.join(self.state, "revert.json"))
        self.assertEqual(self.run_helper(["status", TOKEN])[1]["result"]["state"], "missing")
        status, reply = self.run_helper(["arm", "100"])
        self.assertEqual(status, 0, reply)
        self.assertFalse(os.path.islink(os.path.join(self.state, "revert.json")))
        with open(victim) as f:
            self.assertIn(TOKEN, f.read())   # the link was replaced, its target left alone
        self.assert_untouched()


class InstallProblemTest(unittest.TestCase):
    """install_problem() on a stand-in tree under a temporary `top`; the stand-in for root is
    this process's euid."""

    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="ptwb-install-test-")
        self.addCleanup(shutil.rmtree, self.top, True)
        os.chmod(self.top, 0o755)
        self.dir = os.path.join(self.top, "usr", "lib", "powertrain-workbench")
        os.makedirs(self.dir, 0o755)
        self.path = os.path.join(self.dir, "ptwb-helper")
        shutil.copyfile(H.__file__, self.path)
        os.chmod(self.path, 0o755)
        self.sha = H.file_sha256(H.__file__)

    def problem(self, sha=None):
        return H.install_problem(self.path, sha, os.geteuid(), self.top)

    def test_a_safe_install_has_no_problem(self):
        self.assertIsNone(self.problem(self.sha))

    def test_a_helper_writable_by_others_is_refused(self):
        for mode in (0o775, 0o757, 0o777):
            os.chmod(self.path, mode)
            self.assertEqual(self.problem(self.sha), "%s is writable by group or others (mode %o)"
                             % (self.path, mode))

    @unittest.skipUnless(os.geteuid() == 0, "needs root to give the file to another user")
    def test_a_helper_owned_by_a_user_is_refused(self):
        os.chown(self.path, 4321, 4321)
        msg = H.install_problem(self.path, self.sha, 0, self.top)
        self.assertIn("owned by uid 4321, not root", msg)
        self.assertIn("gets root through sudo", msg)

    def test_a_user_writable_parent_directory_is_refused(self):
        os.chmod(self.dir, 0o777)
        self.assertEqual(self.problem(self.sha), "%s (above the helper) is writable by group or "
                         "others (mode 777)" % self.dir)
        os.chmod(self.dir, 0o755)
        os.chmod(os.path.dirname(self.dir), 0o775)
        self.assertIn("%s (above the helper) is writable" % os.path.dirname(self.dir),
                      self.problem(self.sha))

    @unittest.skipUnless(os.geteuid() == 0, "needs root to give the directory to another user")
    def test_a_parent_directory_owned_by_a_user_is_refused(self):
        os.chown(self.dir, 4321, 4321)
        self.assertIn("%s (above the helper) is owned by uid 4321, not root" % self.dir,
                      H.install_problem(self.path, self.sha, 0, self.top))

    def test_a_symlinked_helper_or_directory_is_refused(self):
        real = os.path.join(self.top, "real-helper")
        os.rename(self.path, real)
        os.symlink(real, self.path)
        self.assertIn("is not a regular file", self.problem(self.sha))
        os.unlink(self.path)
        os.rename(real, self.path)
        moved = self.dir + ".real"
        os.rename(self.dir, moved)
        os.symlink(moved, self.dir)
        self.assertIn("(above the helper) is a symbolic link",
                      H.install_problem(os.path.join(self.dir, "ptwb-helper"), self.sha,
                                        os.geteuid(), self.top))

    def test_a_wrong_sha256_is_refused(self):
        with open(self.path, "a") as f:
            f.write("# changed\n")
        msg = self.problem(self.sha)
        self.assertIn("differs from this workbench's helper", msg)
        self.assertIn("expected %s" % self.sha[:12], msg)

    def test_a_missing_helper(self):
        os.unlink(self.path)
        self.assertEqual(self.problem(), "%s is not installed" % self.path)


class AgentRefusesTheInstalledHelperTest(InstallProblemTest):
    """What the agent makes of install_problem(): the problem and how to fix it, and sudo is
    never run. INSTALL_PATH is pointed at the stand-in tree for these tests."""

    def agent_problem(self):
        ran = os.path.join(self.top, "sudo-ran")
        original = H.install_problem

        def under_top(path, sha, owner_uid):
            return original(path, sha, os.geteuid(), self.top)

        with mock.patch.object(H, "INSTALL_PATH", self.path), \
                mock.patch.object(H, "install_problem", under_top):
            helper = A.HelperProcess(["/bin/sh", "-c", "touch " + ran], installed=True)
            bad = helper.problem()
            if bad is not None:
                with self.assertRaises(A.OpError) as cm:
                    helper.call("read")
                self.assertEqual(cm.exception.code, "helper_" + bad[0])
                self.assertEqual(cm.exception.message, bad[1])
                self.assertFalse(os.path.exists(ran), "the helper ran although refused")
        return bad

    def test_the_agent_accepts_its_own_helper(self):
        self.assertIsNone(self.agent_problem())

    def test_the_agent_names_the_fix_for_a_writable_helper(self):
        os.chmod(self.path, 0o777)
        state, msg = self.agent_problem()
        self.assertEqual(state, "unsafe")
        self.assertIn("is writable by group or others", msg)
        self.assertIn("remove it and run `ptwb device setup` again", msg)

    def test_the_agent_names_the_fix_for_a_writable_directory(self):
        os.chmod(self.dir, 0o777)
        state, msg = self.agent_problem()
        self.assertEqual(state, "unsafe")
        self.assertIn("(above the helper) is writable", msg)
        self.assertIn("run `ptwb device setup` again", msg)

    def test_the_agent_names_the_fix_for_another_helper(self):
        with open(self.path, "a") as f:
            f.write("# changed\n")
        state, msg = self.agent_problem()
        self.assertEqual(state, "modified")
        self.assertIn("not this workbench's helper", msg)
        self.assertIn("run `ptwb device setup` to install this one", msg)

    def test_the_agent_names_the_fix_for_an_older_helper(self):
        with open(self.path, "w") as f:
            f.write("HELPER_VERSION = 0\n")
        state, msg = self.agent_problem()
        self.assertEqual(state, "outdated")
        self.assertIn("version 0; this workbench needs version %d" % H.HELPER_VERSION, msg)
        self.assertIn("run `ptwb device setup` to update it", msg)

    def test_the_agent_names_the_fix_for_a_missing_helper(self):
        os.unlink(self.path)
        state, msg = self.agent_problem()
        self.assertEqual(state, "missing")
        self.assertIn("run `ptwb device setup`", msg)


class SudoersTest(unittest.TestCase):
    def test_the_rule_names_exactly_the_installed_helper(self):
        line = H.sudoers_line("alice")
        self.assertEqual(line, "alice ALL=(root) NOPASSWD: %s\n" % H.INSTALL_PATH)
        command = line.split("NOPASSWD:", 1)[1].strip()
        self.assertEqual(command, H.INSTALL_PATH)
        for c in "*?[]\\, \t":
            self.assertNotIn(c, command)

    def test_the_installed_path_is_in_a_root_owned_system_directory(self):
        self.assertEqual(H.INSTALL_PATH, "/usr/lib/powertrain-workbench/ptwb-helper")
        self.assertEqual(os.path.normpath(H.INSTALL_PATH), H.INSTALL_PATH)

    def test_install_refuses_a_user_name_that_is_not_one(self):
        tmp = tempfile.mkdtemp(prefix="ptwb-install-user-")
        self.addCleanup(shutil.rmtree, tmp, True)
        for user in ("", "root", "alice ALL", "bob,root", "eve\nALL ALL=(ALL) ALL", "ALL"):
            out = io.StringIO()
            self.assertEqual(H.install(b"# helper\n", H.Layout(tmp), user, out), 1, user)
            self.assertIn("error:", out.getvalue())
            self.assertEqual(os.listdir(tmp), [], user)


if __name__ == "__main__":
    unittest.main()
