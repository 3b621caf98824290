"""A memory clock that cannot be controlled (issue 22): a device without EMC possible_rates
whose EMC rate is readable. Its hello reports an empty emc_hz table; a mode at the rate EMC
runs at is applied without any EMC write and read back with that rate; a mode at any other
EMC is refused (no_such_mode, naming the rate), by the helper and by the agent alike. A device
with an EMC table is unchanged."""

import os
import shutil
import tempfile
import unittest

import faketree
from faketree import EMC, MAXN

import ptwb_helper as H

RATE = MAXN["emc_hz"]                      # the rate the locked clock runs at
LOW = {"cores": 4, "cpu_khz": 729600, "gpu_hz": 612000000, "emc_hz": 665600000}
LOW_AT_RATE = dict(LOW, emc_hz=RATE)


def argv(verb, mode):
    return [verb] + [str(mode[f]) for f in H.MODE_FIELDS]


class TreeTestCase(unittest.TestCase):
    locked = True
    possible_rates = None   # with locked: the text of possible_rates (None: no file)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptwb-emc-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        faketree.build_orin_agx(self.tmp)
        if self.locked:
            faketree.lock_emc(self.tmp, self.possible_rates)
            self.files = faketree.EmcLockedKernel(self.tmp)
        else:
            self.files = faketree.FakeKernel(self.tmp)
        self.fake = faketree.FakeHelper(self.files, time_scale=20.0)

    def run_helper(self, args):
        return H.run(args, self.fake.config)


class HelperLockedEmcTest(TreeTestCase):
    def test_read_reports_no_emc_table_and_the_current_rate(self):
        status, reply = self.run_helper(["read"])
        self.assertEqual(status, 0, reply)
        self.assertEqual(reply["result"]["tables"]["emc_hz"], [])
        self.assertEqual(reply["result"]["mode"], MAXN)

    def test_a_mode_at_the_current_emc_is_applied_without_an_emc_write(self):
        status, reply = self.run_helper(argv("apply", LOW_AT_RATE))
        self.assertEqual(status, 0, reply)
        self.assertEqual(reply["result"]["mode"], LOW_AT_RATE)
        self.assertEqual(reply["result"]["previous"], MAXN)
        self.assertEqual(faketree.emc_writes(self.files), [])
        self.assertEqual(faketree.read_mode(self.tmp), LOW_AT_RATE)

    def test_a_mode_at_another_emc_is_refused_naming_the_current_rate(self):
        status, reply = self.run_helper(argv("apply", LOW))
        self.assertEqual(status, 1, reply)
        self.assertEqual(reply["error"]["code"], "no_such_mode")
        msg = reply["error"]["message"]
        self.assertIn("mode.emc_hz: 665600000", msg)
        self.assertIn("cannot be controlled", msg)
        self.assertIn("runs at %d Hz" % RATE, msg)
        self.assertEqual(self.files.writes, [])
        self.assertEqual(faketree.read_mode(self.tmp), MAXN)

    def test_a_revert_restores_the_previous_mode_without_an_emc_write(self):
        status, reply = self.run_helper(["arm", "1"])
        self.assertEqual(status, 0, reply)
        token = reply["result"]["token"]
        self.assertEqual(self.run_helper(argv("apply", LOW_AT_RATE))[0], 0)
        result = self.fake.watch_result(token)
        self.assertTrue(result["ok"], result)
        self.assertEqual(result["result"]["state"], "reverted")
        self.assertNotIn("error", result["result"])
        self.assertEqual(faketree.read_mode(self.tmp), MAXN)
        self.assertEqual(faketree.emc_writes(self.files), [])


class HelperEmptyPossibleRatesTest(TreeTestCase):
    possible_rates = "\n"

    def test_an_empty_table_is_a_locked_clock_too(self):
        status, reply = self.run_helper(argv("apply", LOW_AT_RATE))
        self.assertEqual(status, 0, reply)
        self.assertEqual(reply["result"]["mode"], LOW_AT_RATE)
        self.assertEqual(self.run_helper(argv("apply", LOW))[1]["error"]["code"],
                         "no_such_mode")


class HelperUnreadableRateTest(TreeTestCase):
    def test_without_a_table_or_a_rate_emc_has_no_allowed_value(self):
        os.remove(os.path.join(self.tmp, EMC, "rate"))
        status, reply = self.run_helper(argv("apply", LOW_AT_RATE))
        self.assertEqual(status, 1, reply)
        self.assertEqual(reply["error"]["code"], "no_such_mode")
        self.assertIn("mode.emc_hz: the device reports no allowed values",
                      reply["error"]["message"])
        self.assertEqual(self.files.writes, [])


class AgentLockedEmcTest(TreeTestCase):
    def setUp(self):
        TreeTestCase.setUp(self)
        self.h = faketree.AgentHarness(self.files, ["--time-scale", "20"], helper=self.fake)
        self.addCleanup(self.h.close)
        self.next_id = 0

    def req(self, op, **fields):
        self.next_id += 1
        obj = {"id": self.next_id, "op": op}
        obj.update(fields)
        return self.h.request(obj)[0]

    def test_hello_reports_an_empty_emc_table_and_the_current_rate(self):
        rep = self.req("hello")
        self.assertTrue(rep["ok"], rep)
        self.assertEqual(rep["result"]["tables"]["emc_hz"], [])
        self.assertEqual(rep["result"]["mode"]["emc_hz"], RATE)
        self.assertEqual(rep["result"]["helper"]["state"], "ok")

    def test_apply_mode_at_the_current_emc_writes_no_emc_file(self):
        self.assertTrue(self.req("hello")["ok"])
        rep = self.req("apply_mode", mode=LOW_AT_RATE)
        self.assertTrue(rep["ok"], rep)
        self.assertEqual(rep["result"]["mode"], LOW_AT_RATE)
        self.assertEqual(faketree.emc_writes(self.files), [])
        self.assertEqual(self.req("get_mode")["result"]["mode"], LOW_AT_RATE)

    def test_apply_mode_at_another_emc_is_refused_by_the_agent(self):
        self.assertTrue(self.req("hello")["ok"])
        rep = self.req("apply_mode", mode=LOW)
        self.assertFalse(rep["ok"], rep)
        self.assertEqual(rep["error"]["code"], "no_such_mode")
        self.assertIn("runs at %d Hz" % RATE, rep["error"]["message"])
        self.assertNotIn("apply", [c[0] for c in self.fake.calls])
        self.assertEqual(self.files.writes, [])

    def test_apply_mode_before_hello_reads_the_rate_too(self):
        rep = self.req("apply_mode", mode=LOW)
        self.assertEqual(rep["error"]["code"], "no_such_mode", rep)
        self.assertNotIn("apply", [c[0] for c in self.fake.calls])


class UnlockedEmcTest(TreeTestCase):
    locked = False

    def test_nothing_is_fixed_with_an_emc_table(self):
        tables = H.Clocks(self.files).tables()
        self.assertEqual(tables["emc_hz"], faketree.EMC_HZ)
        self.assertEqual(H.fixed_fields(tables, MAXN), {})
        self.assertEqual(H.Clocks(self.files).fixed(tables), {})

    def test_a_mode_at_another_emc_is_applied_through_the_emc_files(self):
        status, reply = self.run_helper(argv("apply", LOW))
        self.assertEqual(status, 0, reply)
        self.assertEqual(reply["result"]["mode"], LOW)
        self.assertEqual(faketree.emc_writes(self.files),
                         [(EMC + "/mrq_rate_locked", "1"), (EMC + "/rate", "665600000")])

    def test_an_emc_outside_the_table_names_the_nearest_allowed(self):
        status, reply = self.run_helper(argv("apply", dict(LOW, emc_hz=1)))
        self.assertEqual(reply["error"]["code"], "no_such_mode")
        self.assertIn("not in the device's table; nearest allowed: 204000000",
                      reply["error"]["message"])


if __name__ == "__main__":
    unittest.main()
