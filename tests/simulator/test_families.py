"""The Jetson families added for issue 22 (orin-nano-super, orin-nx, xavier-nx, agx-thor) as
simulated devices: each starts, reports its own tables and presets from resources/devices, says
which family it is, runs at its top mode and trains there."""

import json
import os
import shutil
import tempfile
import unittest

import simpaths
import calibrate
import perfmodel
import simclient
import simdevices
import simkernel

NEW = ("orin-nano-super", "orin-nx", "xavier-nx", "agx-thor")
# L4T release line per family (JetPack 6.2, JetPack 5.1, JetPack 7).
TABLES = os.path.join(simpaths.TOP, "resources", "devices")
L4T_MAJOR = {"orin-nano-super": "36.", "orin-nx": "36.", "xavier-nx": "35.", "agx-thor": "38."}


def table(device):
    with open(os.path.join(TABLES, device + ".json")) as f:
        return json.load(f)


def top_mode(t):
    return {"cores": t["cores"]["max"], "cpu_khz": max(t["cpu_khz"]),
            "gpu_hz": max(t["gpu_hz"]), "emc_hz": max(t["emc_hz"])}


def snapped(values, cap):
    """The fastest table value within a preset's cap (what the agent reports as the cap)."""
    below = [v for v in values if v <= cap]
    return max(below) if below else min(values)


class DescriptionTest(unittest.TestCase):
    def test_every_simulated_device_has_a_table_and_a_whole_description(self):
        keys = set(simdevices.DEVICES["orin-agx"])
        for d in simkernel.DEVICES:
            self.assertEqual(set(simdevices.DEVICES[d]), keys, d)
            self.assertTrue(simdevices.fact(d, "model").endswith("(simulated)"), d)
            self.assertTrue(os.path.exists(os.path.join(TABLES, d + ".json")), d)
        for d in NEW:
            self.assertIn(d, simkernel.DEVICES)

    def test_rails_in_the_total_carry_each_power_part_once(self):
        import ptwb_agent  # remote/agent, on the path by simpaths
        for d in NEW:
            inputs = ptwb_agent.INPUT_RAILS[d]
            carried = {}
            for _, _, rails in simdevices.fact(d, "rails"):
                for label, share in rails:
                    if label in inputs:
                        for part, s in share.items():
                            carried[part] = carried.get(part, 0.0) + s
            self.assertEqual(sorted(carried), ["cpu", "gpu", "mem", "static"], d)
            for part, s in carried.items():
                self.assertAlmostEqual(s, 1.0, msg="%s %s" % (d, part))
            self.assertEqual(sorted(table(d)["power_rails"]),
                             sorted(label for _, _, rails in simdevices.fact(d, "rails")
                                    for label, _ in rails), d)

    def test_profiles_hold_the_descriptions_scaling(self):
        profiles = perfmodel.load_profiles()
        self.assertEqual(profiles["devices"], calibrate.DEVICES)
        for d in NEW:
            self.assertIn("SIMULATED", profiles["devices"][d]["description"], d)

    def test_the_old_three_keep_their_scaling(self):
        # The factors of the devices that existed before issue 22, as profiles.json held them.
        self.assertEqual(calibrate.DEVICES["orin-nano"]["gpu_time"], 2.0)
        self.assertEqual(calibrate.DEVICES["orin-nano"]["static_w"], 3.0)
        self.assertEqual(calibrate.DEVICES["xavier-agx"]["gpu_time"], 2.4)
        self.assertEqual(calibrate.DEVICES["xavier-agx"]["cpu_power"], 1.3)
        self.assertEqual(calibrate.DEVICES["orin-agx"],
                         {"description": "measured device (factors 1)", "memory_gib": 28.0})

    def test_top_mode_trains_within_the_module_and_faster_than_the_slowest_preset(self):
        rated = {"orin-nano-super": 25, "orin-nx": 25, "xavier-nx": 20, "agx-thor": 130}
        for d in NEW:
            t = table(d)
            m = perfmodel.PerfModel(d)
            top = perfmodel.Mode(**top_mode(t))
            low = perfmodel.Mode(1, min(t["cpu_khz"]), min(t["gpu_hz"]), min(t["emc_hz"]))
            self.assertLess(m.power_w("resnet18", top), rated[d], d)
            self.assertLess(m.time_ms("resnet18", top), m.time_ms("resnet18", low), d)
            self.assertGreater(m.power_w("resnet18", top), m.power_w("resnet18", low), d)


class SimulatedFamilyTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptwb-simfam-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def check_hello(self, device, res):
        t = table(device)
        self.assertEqual(res["device"], device)
        self.assertTrue(res["simulated"])
        self.assertTrue(res["model"].endswith("(simulated)"), res["model"])
        self.assertTrue(res["l4t"].startswith(L4T_MAJOR[device]), res["l4t"])
        tables = res["tables"]
        self.assertEqual(tables["cpu_khz"], t["cpu_khz"])
        self.assertEqual(tables["gpu_hz"], t["gpu_hz"])
        self.assertEqual(tables["emc_hz"], t["emc_hz"])
        self.assertEqual(max(tables["cores"]), t["cores"]["max"])
        for rail in t["power_rails"]:
            self.assertIn(rail, res["rails"])
        got = {p["name"]: p for p in res["presets"]}
        self.assertEqual(sorted(got), sorted(p["name"] for p in t["presets"]))
        for p in t["presets"]:
            r = got[p["name"]]
            self.assertEqual(r["id"], p["id"])
            self.assertEqual(r["cores"], p["cores"])
            self.assertEqual(r["cpu_khz_max"], snapped(t["cpu_khz"], p["cpu_max_khz"]), p)
            self.assertEqual(r["gpu_hz_max"], snapped(t["gpu_hz"], p["gpu_max_hz"]), p)
            self.assertEqual(r["emc_hz_max"], snapped(t["emc_hz"], p["emc_max_hz"]), p)
        default = [p for p in t["presets"] if p["name"] == t["default_preset"]][0]
        self.assertEqual(res["mode"]["cores"], default["cores"])

    def test_each_new_family_starts_reports_its_tables_and_trains_at_its_top(self):
        for device in NEW:
            with self.subTest(device=device):
                s = simclient.SimProcess(os.path.join(self.dir, device), device=device, speed=200)
                self.addCleanup(s.dispose)
                r, _ = s.request("hello")
                self.check_hello(device, r["result"])
                top = top_mode(table(device))
                r, _ = s.request("apply_mode", mode=top)
                self.assertTrue(r["ok"], r)
                self.assertEqual(r["result"]["mode"], top)
                r, _ = s.request("profile", workload={"kind": "builtin", "name": "resnet18",
                                                      "batch_size": 16}, minibatches=40)
                self.assertTrue(r["ok"], r)
                expected = perfmodel.PerfModel(device).time_ms("resnet18", perfmodel.Mode(**top))
                self.assertAlmostEqual(r["result"]["time_ms"]["median"] / expected, 1.0, delta=0.15)
                self.assertGreater(r["result"]["power_w"]["median"], 1.0)
                self.assertEqual(s.close(), 0)


if __name__ == "__main__":
    unittest.main()
