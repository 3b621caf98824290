"""Apply-by-reboot (issue 18): on a device that lowers clocks only until a reboot, a raise is
staged (`stage_mode`, the helper's `stage`), the device reboots (`reboot`), and the boot unit
(the helper's `boot`) applies the staged mode and arms a revert to the mode before; unconfirmed,
the watchdog restores it, through a second reboot when that needs a raise. Against the fake AGX
Orin tree, in process (FakeHelper runs `boot` after each reboot, as systemd would)."""

import io
import json
import os
import shutil
import tempfile
import time
import unittest
from unittest import mock

import faketree
from faketree import MAXN

import ptwb_helper as H

CONFIG = os.path.join("etc", "powertrain-workbench", "agent.json")
SCALE = 40.0
LOWER = {"cores": 4, "cpu_khz": 729600, "gpu_hz": 612000000, "emc_hz": 665600000}
MID = {"cores": 8, "cpu_khz": 1574400, "gpu_hz": 1020000000, "emc_hz": 2133000000}
# MIXED_PREV -> MIXED_TARGET raises the cores; coming back raises the GPU clock
MIXED_PREV = {"cores": 4, "cpu_khz": 729600, "gpu_hz": 1224000000, "emc_hz": 665600000}
MIXED_TARGET = {"cores": 8, "cpu_khz": 729600, "gpu_hz": 612000000, "emc_hz": 665600000}


def args_of(mode, seconds, boot):
    return ["stage"] + [str(mode[f]) for f in H.MODE_FIELDS] + [str(seconds), boot]


class StageCase(unittest.TestCase):
    decreasing = True

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptwb-stage-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        faketree.build_orin_agx(self.tmp)
        if self.decreasing:
            path = os.path.join(self.tmp, CONFIG)
            os.makedirs(os.path.dirname(path))
            with open(path, "w") as f:
                f.write('{"mode_changes": "decreasing"}\n')
        self.files = faketree.FakeKernel(self.tmp)
        self.helper = faketree.FakeHelper(self.files, SCALE)
        self.state = faketree.state_dir(self.tmp)
        self.n = 0
        self.conns = []

    def tearDown(self):
        for h in self.conns:
            h.close()

    def connect(self):
        h = faketree.AgentHarness(self.files, ["--time-scale", str(SCALE)], helper=self.helper)
        self.conns.append(h)
        return h

    def req(self, h, op, **fields):
        self.n += 1
        obj = {"id": self.n, "op": op}
        obj.update(fields)
        return h.request(obj)[0]

    def ok(self, h, op, **fields):
        rep = self.req(h, op, **fields)
        self.assertTrue(rep["ok"], rep)
        return rep["result"]

    def err(self, h, op, code, **fields):
        rep = self.req(h, op, **fields)
        self.assertFalse(rep["ok"], rep)
        self.assertEqual(rep["error"]["code"], code, rep)
        return rep["error"]

    def helper_run(self, *argv):
        return H.run(list(argv), self.helper.config)

    def mode(self):
        return faketree.read_mode(self.tmp)

    def staged(self):
        path = os.path.join(self.state, H.STAGED_FILE)
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return json.load(f)

    def boot_id(self):
        return self.files.read(faketree.BOOT_ID_FILE)

    def wait_for(self, what, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if what():
                return
            time.sleep(0.05)
        self.fail("not within %s s" % timeout)


class HelperStageTest(StageCase):
    def test_stage_records_the_target_and_writes_no_clock(self):
        status, reply = self.helper_run(*args_of(MID, 30, faketree.BOOT_ID))
        self.assertEqual(status, 0, reply)
        token = reply["result"]["token"]
        self.assertRegex(token, r"^[0-9a-f]{32}$")
        self.assertEqual(reply["result"]["previous"], MAXN)
        self.assertEqual(self.files.writes, [])
        rec = self.staged()
        self.assertEqual({k: rec[k] for k in ("token", "boot_id", "target", "previous",
                                               "revert_after_s")},
                         {"token": token, "boot_id": faketree.BOOT_ID, "target": MID,
                          "previous": MAXN, "revert_after_s": 30})
        self.assertEqual(os.stat(os.path.join(self.state, H.STAGED_FILE)).st_mode & 0o777, 0o600)
        self.assertEqual(self.helper_run("status", token)[1]["result"], {"state": "staged"})
        # a new stage replaces it
        again = self.helper_run(*args_of(LOWER, 40, faketree.BOOT_ID))[1]["result"]["token"]
        self.assertEqual(self.staged()["token"], again)
        self.assertEqual(self.helper_run("status", token)[1]["result"], {"state": "missing"})

    def test_stage_is_validated(self):
        for argv in (["stage"] + ["1"] * 5, args_of(MID, 30, faketree.BOOT_ID) + ["x"],
                     args_of(MID, 0, faketree.BOOT_ID), args_of(MID, 3601, faketree.BOOT_ID),
                     args_of(MID, 30, "../../etc"), args_of(dict(MID, cores="-1"), 30,
                                                            faketree.BOOT_ID)):
            status, reply = self.helper_run(*argv)
            self.assertEqual(status, 2, argv)
            self.assertEqual(reply["error"]["code"], "bad_request", argv)
        status, reply = self.helper_run(*args_of(dict(MID, gpu_hz=1000000000), 30,
                                                 faketree.BOOT_ID))
        self.assertEqual(reply["error"]["code"], "no_such_mode", reply)
        self.assertIn("gpu_hz", reply["error"]["message"])
        status, reply = self.helper_run(*args_of(MID, 30, "11111111-2222-3333-4444-555555555555"))
        self.assertEqual(reply["error"]["code"], "boot_changed", reply)
        self.assertIsNone(self.staged())
        self.assertEqual(self.files.writes, [])

    def test_unstage(self):
        token = self.helper_run(*args_of(MID, 30, faketree.BOOT_ID))[1]["result"]["token"]
        status, reply = self.helper_run("unstage", "ab" * 16)
        self.assertEqual(reply["error"]["code"], "not_staged", reply)
        self.assertIsNotNone(self.staged())
        status, reply = self.helper_run("unstage", token)
        self.assertEqual(reply["result"], {"token": token, "unstaged": True})
        self.assertIsNone(self.staged())
        self.assertEqual(self.helper_run("unstage", token)[1]["error"]["code"], "not_staged")
        self.assertEqual(self.helper_run("boot")[1]["result"], {"state": "nothing"})
        self.assertEqual(self.files.writes, [])

    def test_boot_in_the_same_boot_leaves_the_staged_mode_alone(self):
        token = self.helper_run(*args_of(MID, 30, faketree.BOOT_ID))[1]["result"]["token"]
        self.assertEqual(self.helper_run("boot")[1]["result"], {"state": "nothing"})
        self.assertEqual(self.staged()["token"], token)
        self.helper_run("read")
        self.assertEqual(self.staged()["token"], token)
        self.assertEqual(self.files.writes, [])
        self.assertEqual(self.mode(), MAXN)

    def test_boot_applies_the_target_and_arms_the_revert(self):
        self.helper_run("apply", *[str(LOWER[f]) for f in H.MODE_FIELDS])
        token = self.helper_run(*args_of(MID, 30, faketree.BOOT_ID))[1]["result"]["token"]
        self.helper.boot_unit = False
        self.helper.reboot()
        self.assertEqual(self.mode(), MAXN)
        status, reply = self.helper_run("boot")
        result = reply["result"]
        self.assertEqual(result["state"], "armed", reply)
        self.assertEqual(result["token"], token)
        self.assertEqual(result["mode"], MID)
        self.assertEqual(result["previous"], LOWER)
        self.assertEqual(result["seconds"], 30)
        self.assertAlmostEqual(result["deadline_epoch"], time.time() + 30 / SCALE, delta=1.0)
        self.assertEqual(self.mode(), MID)
        self.assertIsNone(self.staged())
        self.assertEqual(self.helper_run("status", token)[1]["result"], {"state": "armed"})
        read = self.helper_run("read")[1]["result"]
        self.assertEqual(read["revert"]["token"], token)
        self.assertEqual(read["revert"]["previous"], LOWER)
        self.assertEqual(read["revert"]["target"], MID)
        self.assertTrue(read["revert"]["by_reboot"])
        self.assertIsNone(read["staged"])
        self.assertEqual([w[0] for w in self.helper.watches], [token])
        # a second `boot` in this boot does nothing
        self.assertEqual(self.helper_run("boot")[1]["result"], {"state": "nothing"})
        # the watchdog restores LOWER at the deadline (a decrease from MID)
        self.assertEqual(self.helper.watch_result(token)["result"]["state"], "reverted")
        self.assertEqual(self.mode(), LOWER)
        self.assertEqual(self.helper_run("status", token)[1]["result"]["state"], "reverted")

    def test_the_first_helper_call_after_the_reboot_does_what_boot_would(self):
        # no boot unit (systemd missing, or the agent came first): `read` applies and arms
        token = self.helper_run(*args_of(MID, 30, faketree.BOOT_ID))[1]["result"]["token"]
        self.helper.boot_unit = False
        self.helper.reboot()
        read = self.helper_run("read")[1]["result"]
        self.assertEqual(read["mode"], MID)
        self.assertEqual(read["revert"]["token"], token)
        self.assertEqual(self.helper_run("confirm", token)[0], 0)

    def test_a_target_that_cannot_be_applied_arms_nothing(self):
        self.helper_run("apply", *[str(LOWER[f]) for f in H.MODE_FIELDS])
        token = self.helper_run(*args_of(MID, 30, faketree.BOOT_ID))[1]["result"]["token"]
        self.files.reject = {"/max_freq": MID["gpu_hz"]}
        self.helper.reboot()
        result = self.helper.boot_result()["result"]
        self.assertEqual(result["state"], "failed", result)
        self.assertIn("restored", result["error"]["message"])
        self.assertEqual(self.mode(), LOWER)
        self.assertIsNone(self.staged())
        self.assertFalse(os.path.exists(os.path.join(self.state, H.REVERT_FILE)))
        st = self.helper_run("status", token)[1]["result"]
        self.assertEqual(st["state"], "reverted")
        self.assertEqual(st["mode"], LOWER)
        self.assertIn("applying the staged mode after the reboot failed", st["error"]["message"])
        self.assertEqual(self.helper.watches, [])

    def test_a_restore_that_needs_a_raise_reboots_again(self):
        self.helper_run("apply", *[str(MIXED_PREV[f]) for f in H.MODE_FIELDS])
        token = self.helper_run(*args_of(MIXED_TARGET, 20, faketree.BOOT_ID))[1]["result"][
            "token"]
        self.helper.reboot()
        self.assertEqual(self.helper.boot_result(0)["result"]["state"], "armed")
        self.assertEqual(self.mode(), MIXED_TARGET)
        # no confirm: the GPU must go up again, so the watchdog stages the restore and reboots
        self.assertEqual(self.helper.watch_result(token)["result"]["state"], "rebooting")
        self.assertEqual(len(self.helper.reboots), 2)
        result = self.helper.boot_result(1)["result"]
        self.assertEqual(result["state"], "restored", result)
        self.assertEqual(self.mode(), MIXED_PREV)
        self.assertIsNone(self.staged())
        st = self.helper_run("status", token)[1]["result"]
        self.assertEqual(st, {"state": "reverted", "mode": MIXED_PREV})
        self.assertEqual(len(self.helper.watches), 1)  # the restore arms nothing
        self.assertEqual(self.helper_run("confirm", token)[1]["error"]["code"], "not_armed")

    def test_a_restore_whose_reboot_fails_waits_for_the_next_boot(self):
        def refuse():
            raise H.OpError("reboot_failed", "`systemctl reboot` exited with status 1")
        self.helper_run("apply", *[str(MIXED_PREV[f]) for f in H.MODE_FIELDS])
        token = self.helper_run(*args_of(MIXED_TARGET, 20, faketree.BOOT_ID))[1]["result"][
            "token"]
        self.helper.reboot()
        self.helper.boot_result()
        self.helper.config.reboot = refuse
        self.assertEqual(self.helper.watch_result(token)["result"]["state"], "rebooting")
        st = self.helper_run("status", token)[1]["result"]
        self.assertEqual(st["state"], "reverting")
        self.assertTrue(self.staged()["restore_only"])
        self.assertEqual(self.helper_run(*args_of(MID, 20, self.boot_id()))[1]["error"]["code"],
                         "restore_pending")
        self.helper.config.reboot = self.helper.reboot
        self.helper.reboot()
        self.assertEqual(self.helper.boot_result()["result"]["state"], "restored")
        self.assertEqual(self.mode(), MIXED_PREV)

    def test_a_normal_revert_that_needs_a_raise_reboots_too(self):
        arm = self.helper_run("arm", "20")[1]["result"]
        self.helper_run("apply", *[str(LOWER[f]) for f in H.MODE_FIELDS])
        self.assertEqual(self.helper.watch_result(arm["token"])["result"]["state"], "rebooting")
        self.assertEqual(self.helper.boot_result()["result"]["state"], "restored")
        self.assertEqual(self.mode(), MAXN)


class AgentStageTest(StageCase):
    def test_not_needed_for_a_mode_reached_by_lowering(self):
        h = self.connect()
        e = self.err(h, "stage_mode", "not_needed", mode=LOWER, revert_after_s=30)
        self.assertIn("apply_mode", e["message"])
        self.ok(h, "apply_mode", mode=LOWER)
        self.err(h, "stage_mode", "not_needed", mode=LOWER, revert_after_s=30)
        self.assertIsNone(self.staged())

    def test_fields_are_checked(self):
        h = self.connect()
        self.ok(h, "apply_mode", mode=LOWER)
        self.err(h, "stage_mode", "bad_field", mode=MID)
        self.err(h, "stage_mode", "bad_field", mode=MID, revert_after_s=0)
        self.err(h, "stage_mode", "bad_field", mode=MID, revert_after_s="30")
        self.err(h, "stage_mode", "bad_field", mode=dict(MID, cores=8.0), revert_after_s=30)
        self.err(h, "stage_mode", "no_such_mode", mode=dict(MID, emc_hz=1), revert_after_s=30)
        self.err(h, "unstage", "bad_field")
        self.err(h, "unstage", "bad_field", token="../x")
        self.err(h, "unstage", "not_staged", token="ab" * 16)
        self.assertIsNone(self.staged())

    def test_stage_then_unstage(self):
        h = self.connect()
        self.ok(h, "apply_mode", mode=LOWER)
        r = self.ok(h, "stage_mode", mode=MID, revert_after_s=29.5)
        self.assertEqual(r["previous"], LOWER)
        self.assertEqual(r["boot_id"], faketree.BOOT_ID)
        self.assertEqual(r["mode"], MID)
        self.assertEqual(r["revert_after_s"], 30)
        hello = self.ok(h, "hello")
        self.assertIsNone(hello["revert"])
        self.assertEqual(hello["staged"]["token"], r["token"])
        self.assertEqual(hello["staged"]["target"], MID)
        self.assertFalse(hello["staged"]["restore_only"])
        self.assertEqual(self.ok(h, "unstage", token=r["token"]),
                         {"token": r["token"], "unstaged": True})
        self.assertIsNone(self.staged())
        self.assertIsNone(self.ok(h, "hello")["staged"])

    def stage_and_reboot(self, previous=LOWER, target=MID, seconds=40):
        h = self.connect()
        self.ok(h, "apply_mode", mode=previous)
        staged = self.ok(h, "stage_mode", mode=target, revert_after_s=seconds)
        self.ok(h, "reboot", boot_id=staged["boot_id"])
        h.close()
        self.assertEqual(self.helper.boot_result()["result"]["state"], "armed")
        h = self.connect()
        hello = self.ok(h, "hello")
        self.assertNotEqual(hello["boot_id"], staged["boot_id"])
        self.assertEqual(hello["mode"], target)
        rev = hello["revert"]
        self.assertEqual(rev["token"], staged["token"])
        self.assertEqual(rev["previous"], previous)
        self.assertEqual(rev["target"], target)
        self.assertTrue(rev["by_reboot"])
        self.assertGreater(rev["seconds_left"], 0)
        self.assertLessEqual(rev["seconds_left"], seconds)
        self.assertIsNone(hello["staged"])
        return h, staged, hello

    def test_confirmed_after_the_reboot_the_mode_stays(self):
        h, staged, hello = self.stage_and_reboot(seconds=20)
        r = self.ok(h, "confirm", token=staged["token"])
        self.assertEqual(r, {"mode": MID, "token": staged["token"]})
        self.assertEqual(self.helper.watch_result(staged["token"])["result"]["state"], "done")
        time.sleep(20 / SCALE + 0.3)
        self.assertEqual(self.mode(), MID)
        self.assertEqual(self.helper.status(staged["token"]), "confirmed")

    def test_unconfirmed_the_previous_mode_comes_back(self):
        h, staged, hello = self.stage_and_reboot(seconds=20)
        # hello adopted the revert: its `reverted` event comes with hello's id
        ev = h.next_line(timeout=10)
        self.assertEqual(ev, {"id": self.n, "event": "reverted", "mode": LOWER})
        self.assertEqual(self.mode(), LOWER)
        self.assertEqual(self.err(h, "confirm", "not_armed", token=staged["token"])["code"],
                         "not_armed")

    def test_unconfirmed_a_restore_that_needs_a_raise_ends_in_the_previous_mode(self):
        h, staged, hello = self.stage_and_reboot(MIXED_PREV, MIXED_TARGET, 20)
        self.assertEqual(self.helper.watch_result(staged["token"])["result"]["state"],
                         "rebooting")
        # the boot unit, or the still connected agent's first helper call (its revert notice
        # asks `status`), whichever takes the helper's lock first, restores the mode
        self.assertIn(self.helper.boot_result()["result"]["state"], ("restored", "nothing"))
        self.wait_for(lambda: self.mode() == MIXED_PREV)
        h2 = self.connect()
        hello = self.ok(h2, "hello")
        self.assertEqual(hello["mode"], MIXED_PREV)
        self.assertIsNone(hello["revert"])
        self.assertEqual(self.helper.status(staged["token"]), "reverted")


class AnyChangeStageTest(StageCase):
    decreasing = False

    def test_not_needed_on_a_device_that_accepts_any_change(self):
        h = self.connect()
        self.ok(h, "apply_mode", mode=LOWER)
        e = self.err(h, "stage_mode", "not_needed", mode=MID, revert_after_s=30)
        self.assertIn("any mode change", e["message"])
        self.assertIsNone(self.staged())


class BootUnitInstallTest(unittest.TestCase):
    def install(self, which=None):
        tmp = tempfile.mkdtemp(prefix="ptwb-install-unit-")
        self.addCleanup(shutil.rmtree, tmp, True)
        out = io.StringIO()
        if which is None:
            rc = H.install(b"# helper\n", H.Layout(tmp), "alice", out)
        else:
            with mock.patch.object(H.shutil, "which", which):
                rc = H.install(b"# helper\n", H.Layout(tmp), "alice", out)
        return tmp, rc, out.getvalue()

    def unit_path(self, tmp):
        return os.path.join(tmp, H.BOOT_UNIT_DIR.lstrip("/"), H.BOOT_UNIT)

    def test_the_unit_is_written_and_enabled_under_the_prefix(self):
        if H.shutil.which("systemctl", path=H.SYSTEM_PATH) is None:
            self.skipTest("no systemctl here to enable the unit with")
        tmp, rc, out = self.install()
        self.assertEqual(rc, 0, out)
        with open(self.unit_path(tmp)) as f:
            self.assertEqual(f.read(), H.BOOT_UNIT_TEXT)
        self.assertIn("ExecStart=%s boot\n" % H.INSTALL_PATH, H.BOOT_UNIT_TEXT)
        link = os.path.join(tmp, "etc/systemd/system/multi-user.target.wants", H.BOOT_UNIT)
        self.assertTrue(os.path.islink(link), out)
        self.assertEqual(os.path.basename(os.readlink(link)), H.BOOT_UNIT)
        self.assertIn("enabled %s" % H.BOOT_UNIT, out)

    def test_without_systemd_the_setup_says_so_and_succeeds(self):
        real = H.shutil.which

        def which(name, *a, **kw):
            return None if name == "systemctl" else real(name, *a, **kw)
        tmp, rc, out = self.install(which)
        self.assertEqual(rc, 0, out)
        self.assertTrue(os.path.exists(self.unit_path(tmp)))
        self.assertIn("systemctl not found", out)
        self.assertIn("visudo -c: ok", out)


if __name__ == "__main__":
    unittest.main()
