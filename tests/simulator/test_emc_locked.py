"""The simulated Jetson with the emc-locked fault (issue 22): a memory clock that cannot be
controlled. hello reports an empty emc_hz table and the default preset's EMC as the mode's;
a mode at that EMC is applied and profiled, a mode at another EMC is refused (no_such_mode)."""

import json
import os
import shutil
import tempfile
import unittest

import simpaths
import simclient
import simkernel

DEVICE = "orin-agx"


def device_table():
    """The device's table as resources/devices has it."""
    with open(os.path.join(simpaths.TOP, "resources", "devices", DEVICE + ".json")) as f:
        return json.load(f)


def default_mode():
    t = device_table()
    return simkernel.preset_mode(t, simkernel.default_preset(t)).as_dict()


class EmcLockedSimulatorTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simemc-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.sim = simclient.SimProcess(os.path.join(self.dir, "state"), device=DEVICE,
                                        speed=200, faults=["emc-locked"])
        self.addCleanup(self.sim.dispose)

    def ok(self, op, **fields):
        r, _ = self.sim.request(op, **fields)
        self.assertTrue(r["ok"], r)
        return r["result"]

    def test_hello_apply_and_profile_at_the_locked_emc(self):
        default = default_mode()
        emc = default["emc_hz"]
        hello = self.ok("hello")
        self.assertEqual(hello["tables"]["emc_hz"], [])
        self.assertEqual(hello["mode"]["emc_hz"], emc)
        self.assertEqual(hello["helper"]["state"], "ok")
        table = device_table()
        self.assertEqual(hello["tables"]["gpu_hz"], table["gpu_hz"])   # the rest is as before

        low = {"cores": 4, "cpu_khz": table["cpu_khz"][len(table["cpu_khz"]) // 2],
               "gpu_hz": table["gpu_hz"][len(table["gpu_hz"]) // 2], "emc_hz": emc}
        self.assertEqual(self.ok("apply_mode", mode=low)["mode"], low)

        other = min(table["emc_hz"])
        r, _ = self.sim.request("apply_mode", mode=dict(low, emc_hz=other))
        self.assertFalse(r["ok"], r)
        self.assertEqual(r["error"]["code"], "no_such_mode")
        self.assertIn("runs at %d Hz" % emc, r["error"]["message"])
        self.assertEqual(self.ok("get_mode")["mode"], low)

        result = self.ok("profile", workload={"kind": "builtin", "name": "resnet18",
                                              "batch_size": 16}, minibatches=30)
        self.assertEqual(result["mode"], low)
        self.assertGreater(result["power_w"]["median"], 1.0)
        self.assertEqual(self.sim.close(), 0)


if __name__ == "__main__":
    unittest.main()
