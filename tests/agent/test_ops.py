"""Every operation against the fake AGX Orin tree, in process."""

import io
import json
import shutil
import tempfile
import time
import unittest

import faketree
from faketree import CPU_KHZ, EMC, GPU, GPU_HZ, MAXN

import ptwb_agent as A

CPU = "sys/devices/system/cpu"
LOW = {"cores": 4, "cpu_khz": 729600, "gpu_hz": 612000000, "emc_hz": 665600000}


class AgentTestCase(unittest.TestCase):
    args = ["--time-scale", "50"]
    reject = None
    gpu_cap = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptwb-agent-test-")
        faketree.build_orin_agx(self.tmp)
        self.files = faketree.FakeKernel(self.tmp, reject=self.reject, gpu_cap=self.gpu_cap)
        self.h = faketree.AgentHarness(self.files, self.args)
        self.next_id = 0

    def tearDown(self):
        try:
            self.h.close()
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def req(self, op, timeout=10.0, **fields):
        self.next_id += 1
        obj = {"id": self.next_id, "op": op}
        obj.update(fields)
        return self.h.request(obj, timeout)

    def ok(self, op, **fields):
        rep, events = self.req(op, **fields)
        self.assertTrue(rep["ok"], rep)
        return rep["result"], events

    def err(self, op, code, **fields):
        rep, _ = self.req(op, **fields)
        self.assertFalse(rep["ok"], rep)
        self.assertEqual(rep["error"]["code"], code, rep)
        return rep["error"]


class HelloTest(AgentTestCase):
    def test_hello(self):
        r, _ = self.ok("hello")
        self.assertEqual(r["protocol"], 1)
        self.assertEqual(r["device"], "orin-agx")
        self.assertIs(r["simulated"], True)
        self.assertEqual(r["model"], "NVIDIA Jetson AGX Orin Developer Kit (simulated)")
        self.assertEqual(r["l4t"], "35.4.1")
        self.assertEqual(r["boot_id"], faketree.BOOT_ID)
        self.assertEqual(r["tables"], {"cores": list(range(1, 13)), "cpu_khz": CPU_KHZ,
                                       "gpu_hz": GPU_HZ, "emc_hz": faketree.EMC_HZ})
        self.assertEqual([p["name"] for p in r["presets"]], ["MAXN", "MODE_15W"])
        self.assertEqual(r["rails"], ["VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0",
                                      "VDDQ_VDD2_1V8AO"])
        self.assertEqual(r["thermal"], [{"zone": "cpu-thermal", "temp_c": 45.5},
                                        {"zone": "gpu-thermal", "temp_c": 43.0}])
        self.assertEqual(r["mode"], MAXN)
        self.assertEqual(self.files.writes, [])

    def test_hello_survives_missing_and_broken_files(self):
        import os
        os.remove(os.path.join(self.tmp, "etc/nvpmodel.conf"))
        os.remove(os.path.join(self.tmp, "etc/nv_tegra_release"))
        with open(os.path.join(self.tmp, "proc/device-tree/model"), "w") as f:
            f.write("Some Board")
        r, _ = self.ok("hello")
        self.assertEqual(r["presets"], [])
        self.assertIsNone(r["l4t"])
        self.assertIsNone(r["device"])
        self.assertIs(r["simulated"], False)
        # unknown device: total is every rail (10 + 5 + 8 + 1 W)
        r, ev = self.ok("sample_power", interval_ms=100, count=1)
        self.assertEqual(ev[0]["total_w"], 24.0)

    def test_get_mode(self):
        r, _ = self.ok("get_mode")
        self.assertEqual(r, {"mode": MAXN})


def _cpu_writes(n, first, second, value):
    base = "%s/cpu%d/cpufreq/" % (CPU, n)
    return [(base + first, str(value)), (base + second, str(value))]


class ApplyTest(AgentTestCase):
    def expected_lower(self):
        w = []
        for n in range(12):
            w += _cpu_writes(n, "scaling_min_freq", "scaling_max_freq", LOW["cpu_khz"])
        w += [(GPU + "/min_freq", str(LOW["gpu_hz"])), (GPU + "/max_freq", str(LOW["gpu_hz"]))]
        w += [(EMC + "/mrq_rate_locked", "1"), (EMC + "/rate", str(LOW["emc_hz"]))]
        w += [("%s/cpu%d/online" % (CPU, n), "0") for n in range(11, 3, -1)]
        return w

    def test_lower_then_raise_write_order(self):
        r, _ = self.ok("apply_mode", mode=LOW)
        self.assertEqual(r["mode"], LOW)
        self.assertEqual(r["previous"], MAXN)
        self.assertEqual(self.files.writes, self.expected_lower())

        del self.files.writes[:]
        r, _ = self.ok("apply_mode", mode=MAXN)
        self.assertEqual(r["mode"], MAXN)
        self.assertEqual(r["previous"], LOW)
        w = [("%s/cpu%d/online" % (CPU, n), "1") for n in range(4, 12)]
        for n in range(12):
            w += _cpu_writes(n, "scaling_max_freq", "scaling_min_freq", MAXN["cpu_khz"])
        w += [(GPU + "/max_freq", str(MAXN["gpu_hz"])), (GPU + "/min_freq", str(MAXN["gpu_hz"]))]
        w += [(EMC + "/mrq_rate_locked", "1"), (EMC + "/rate", str(MAXN["emc_hz"]))]
        self.assertEqual(self.files.writes, w)
        r, _ = self.ok("get_mode")
        self.assertEqual(r["mode"], MAXN)

    def test_each_clock_separately(self):
        # lower only the GPU: CPU limits are rewritten unchanged (max first), GPU min first
        mode = dict(MAXN, gpu_hz=408000000)
        self.ok("apply_mode", mode=mode)
        gpu = [w for w in self.files.writes if w[0].startswith(GPU)]
        self.assertEqual(gpu, [(GPU + "/min_freq", "408000000"), (GPU + "/max_freq", "408000000")])
        del self.files.writes[:]
        self.ok("apply_mode", mode=MAXN)
        gpu = [w for w in self.files.writes if w[0].startswith(GPU)]
        self.assertEqual(gpu, [(GPU + "/max_freq", "1300500000"),
                               (GPU + "/min_freq", "1300500000")])
        # lower only the CPU, then raise it
        del self.files.writes[:]
        self.ok("apply_mode", mode=dict(MAXN, cpu_khz=115200))
        cpu0 = [w[0].rsplit("/", 1)[1] for w in self.files.writes if "/cpu0/" in w[0]]
        self.assertEqual(cpu0, ["scaling_min_freq", "scaling_max_freq"])
        del self.files.writes[:]
        self.ok("apply_mode", mode=dict(MAXN, cpu_khz=1497600))
        cpu0 = [w[0].rsplit("/", 1)[1] for w in self.files.writes if "/cpu0/" in w[0]]
        self.assertEqual(cpu0, ["scaling_max_freq", "scaling_min_freq"])
        # cores only: offline highest first, online lowest first
        del self.files.writes[:]
        self.ok("apply_mode", mode=dict(MAXN, cpu_khz=1497600, cores=9))
        online = [w for w in self.files.writes if w[0].endswith("/online")]
        self.assertEqual(online, [("%s/cpu11/online" % CPU, "0"), ("%s/cpu10/online" % CPU, "0"),
                                  ("%s/cpu9/online" % CPU, "0")])
        del self.files.writes[:]
        self.ok("apply_mode", mode=dict(MAXN, cpu_khz=1497600, cores=11))
        online = [w for w in self.files.writes if w[0].endswith("/online")]
        self.assertEqual(online, [("%s/cpu9/online" % CPU, "1"), ("%s/cpu10/online" % CPU, "1")])
        # the freshly onlined cores got their clocks after coming online
        idx_online = self.files.writes.index(("%s/cpu10/online" % CPU, "1"))
        idx_clock = self.files.writes.index(("%s/cpu10/cpufreq/scaling_max_freq" % CPU, "1497600"))
        self.assertLess(idx_online, idx_clock)


class ReadbackMismatchTest(AgentTestCase):
    gpu_cap = 1020000000

    def test_readback_mismatch(self):
        e = self.err("apply_mode", "readback_mismatch", mode=MAXN)
        self.assertIn("gpu_hz: wrote 1300500000, kernel reports 1020000000", e["message"])
        self.assertEqual(e["readback"], dict(MAXN, gpu_hz=1020000000))


class WriteFailedTest(AgentTestCase):
    reject = {"max_freq": 612000000}

    def test_write_failed_names_field_and_file(self):
        e = self.err("apply_mode", "write_failed", mode=LOW)
        self.assertTrue(e["message"].startswith("gpu_hz: "), e["message"])
        self.assertEqual(e["field"], "gpu_hz")
        self.assertIn(GPU + "/max_freq", e["message"])
        self.assertEqual(e["file"], GPU + "/max_freq")
        # The device is not left part-way: the previous mode is back.
        self.assertTrue(e["restored"], e)
        now = self.ok("get_mode")[0]["mode"]
        self.assertEqual(e["readback"], now)
        self.assertNotEqual(now["gpu_hz"], LOW["gpu_hz"])


class RevertTest(AgentTestCase):
    args = ["--time-scale", "20"]

    def test_revert_fires_without_confirm(self):
        r, _ = self.ok("arm_revert", seconds=2)   # 0.1 s real
        arm_id = self.next_id
        self.assertEqual(sorted(r), ["previous", "seconds", "token"])
        self.assertEqual((r["previous"], r["seconds"]), (MAXN, 2))
        self.assertRegex(r["token"], "^[0-9a-f]{32}$")
        self.ok("apply_mode", mode=LOW)
        ev = self.h.next_line(5.0)
        self.assertEqual(ev, {"id": arm_id, "event": "reverted", "mode": MAXN})
        # the helper's watchdog restored it; the agent only told this connection
        self.assertEqual(self.h.helper.watch_result(r["token"])["result"]["state"], "reverted")
        self.assertEqual(self.h.helper.status(r["token"]), "reverted")
        r, _ = self.ok("get_mode")
        self.assertEqual(r["mode"], MAXN)
        self.err("confirm", "not_armed")

    def test_confirm_keeps_mode(self):
        arm, _ = self.ok("arm_revert", seconds=4)   # 0.2 s real
        self.ok("apply_mode", mode=LOW)
        r, _ = self.ok("confirm")
        self.assertEqual(r["mode"], LOW)
        # the confirm ended the helper's watchdog without a revert
        self.assertEqual(self.h.helper.watch_result(arm["token"])["result"]["state"], "done")
        n = len(self.files.writes)
        time.sleep(0.4)
        self.assertEqual(len(self.files.writes), n)
        r, _ = self.ok("get_mode")
        self.assertEqual(r["mode"], LOW)
        self.assertTrue(self.h.lines.empty(), self.h.seen)
        self.err("confirm", "not_armed")

    def test_not_armed(self):
        self.err("confirm", "not_armed")


class SamplePowerTest(AgentTestCase):
    def test_sample_power(self):
        r, ev = self.ok("sample_power", interval_ms=100, count=3)
        self.assertEqual(len(ev), 3)
        for e in ev:
            self.assertEqual(e["event"], "power")
            self.assertEqual(e["total_w"], 23.0)   # 10 + 5 + 8 W; the 1 W rail is not an input
            self.assertEqual(e["rails"], {"VDD_GPU_SOC": 10.0, "VDD_CPU_CV": 5.0,
                                          "VIN_SYS_5V0": 8.0, "VDDQ_VDD2_1V8AO": 1.0})
        ts = [e["t_s"] for e in ev]
        self.assertEqual(ts, sorted(ts))
        self.assertGreaterEqual(ts[-1], 0.19)   # device seconds, not wall seconds
        self.assertEqual(r, {"samples": 3, "total_w": {"median": 23.0, "q1": 23.0, "q3": 23.0}})

    def test_stop_and_busy(self):
        self.h.send({"id": "s", "op": "sample_power", "interval_ms": 1000, "count": 100000})
        first = self.h.next_line()
        self.assertEqual(first["event"], "power")
        rep, _ = self.h.request({"id": "s2", "op": "sample_power", "interval_ms": 100, "count": 1})
        self.assertEqual(rep["error"]["code"], "busy")
        rep, _ = self.h.request({"id": "st", "op": "stop", "target": "s"})
        self.assertEqual(rep, {"id": "st", "ok": True, "result": {"stopped": True}})
        rep, _ = self.h.reply("s")
        self.assertEqual(rep["error"]["code"], "stopped")
        rep, _ = self.h.request({"id": "st2", "op": "stop", "target": "s"})
        self.assertEqual(rep["result"], {"stopped": False})
        # free again
        r, ev = self.ok("sample_power", interval_ms=100, count=1)
        self.assertEqual(r["samples"], 1)


class MalformedTest(AgentTestCase):
    def check(self, raw, code, rid=None, field=None):
        self.h.send_raw(raw if isinstance(raw, bytes) else raw.encode("utf-8"))
        rep = self.h.next_line()
        self.assertEqual(rep.get("id"), rid, rep)
        self.assertIs(rep["ok"], False, rep)
        self.assertEqual(rep["error"]["code"], code, rep)
        if field:
            self.assertIn(field, rep["error"]["message"])
        return rep

    def tearDown(self):
        self.assertEqual(self.files.writes, [])
        AgentTestCase.tearDown(self)

    def test_envelope(self):
        self.check("not json\n", "bad_request")
        self.check("[1, 2]\n", "bad_request")
        self.check("\"hello\"\n", "bad_request")
        self.check("{\"id\": 1, \"op\": \"hello\"\n", "bad_request")
        self.check(b"\xff\xfe{}\n", "bad_request")
        self.check("{\"op\": \"hello\"}\n", "bad_field", field="id")
        self.check("{\"id\": true, \"op\": \"hello\"}\n", "bad_field", field="id")
        self.check("{\"id\": 1.5, \"op\": \"hello\"}\n", "bad_field", field="id")
        self.check("{\"id\": 7}\n", "bad_request", rid=7, field="op")
        self.check("{\"id\": 7, \"op\": 3}\n", "bad_request", rid=7, field="op")
        self.check("{\"id\": \"x\", \"op\": \"format_disk\"}\n", "unknown_op", rid="x")
        self.check(b"{\"id\": 1, \"pad\": \"" + b"a" * (1024 * 1024) + b"\"}\n", "bad_request")
        # still alive and untouched
        r, _ = self.ok("get_mode")
        self.assertEqual(r["mode"], MAXN)

    def test_apply_mode_fields(self):
        cases = [
            ({}, "bad_field", "mode"),
            ({"mode": [1, 2]}, "bad_field", "mode"),
            ({"mode": dict(LOW, cores=True)}, "bad_field", "mode.cores"),
            ({"mode": dict(LOW, gpu_hz=True)}, "bad_field", "mode.gpu_hz"),
            ({"mode": dict(LOW, cpu_khz=729600.0)}, "bad_field", "mode.cpu_khz"),
            ({"mode": dict(LOW, emc_hz="665600000")}, "bad_field", "mode.emc_hz"),
            ({"mode": {"cores": 4, "cpu_khz": 729600, "gpu_hz": 612000000}}, "bad_field",
             "mode.emc_hz"),
            ({"mode": dict(LOW, cores=0)}, "no_such_mode", "mode.cores"),
            ({"mode": dict(LOW, cores=13)}, "no_such_mode", "mode.cores"),
            ({"mode": dict(LOW, cpu_khz=730000)}, "no_such_mode", "729600, 806400"),
            ({"mode": dict(LOW, emc_hz=1)}, "no_such_mode", "mode.emc_hz"),
        ]
        for fields, code, text in cases:
            e = self.err("apply_mode", code, **fields)
            self.assertIn(text, e["message"], fields)
        e = self.err("apply_mode", "no_such_mode", mode=dict(LOW, gpu_hz=1300000000))
        self.assertIn("mode.gpu_hz", e["message"])
        self.assertIn("1224000000, 1300500000", e["message"])

    def test_other_fields(self):
        cases = [
            ("arm_revert", {}, "bad_field", "seconds"),
            ("arm_revert", {"seconds": "5"}, "bad_field", "seconds"),
            ("arm_revert", {"seconds": True}, "bad_field", "seconds"),
            ("arm_revert", {"seconds": 0}, "bad_field", "seconds"),
            ("arm_revert", {"seconds": 3601}, "bad_field", "seconds"),
            ("sample_power", {"count": 1}, "bad_field", "interval_ms"),
            ("sample_power", {"interval_ms": 50, "count": 1}, "bad_field", "interval_ms"),
            ("sample_power", {"interval_ms": 100, "count": True}, "bad_field", "count"),
            ("sample_power", {"interval_ms": 100, "count": 0}, "bad_field", "count"),
            ("sample_power", {"interval_ms": 100, "count": 1.0}, "bad_field", "count"),
            ("profile", {}, "bad_field", "workload"),
            ("profile", {"workload": "resnet18"}, "bad_field", "workload"),
            ("profile", {"workload": {"kind": "shell", "argv": ["x"]}}, "bad_field",
             "workload.kind"),
            ("profile", {"workload": {"kind": "command", "argv": "python3 x.py"}}, "bad_field",
             "workload.argv"),
            ("profile", {"workload": {"kind": "command", "argv": []}}, "bad_field",
             "workload.argv"),
            ("profile", {"workload": {"kind": "command", "argv": ["x"], "cwd": 3}}, "bad_field",
             "workload.cwd"),
            ("profile", {"workload": {"kind": "builtin", "name": "vgg", "batch_size": 16}},
             "bad_field", "workload.name"),
            ("profile", {"workload": {"kind": "builtin", "name": "resnet18", "batch_size": True}},
             "bad_field", "workload.batch_size"),
            ("profile", {"workload": {"kind": "builtin", "name": "resnet18", "batch_size": 16},
                         "minibatches": "40"}, "bad_field", "minibatches"),
            ("profile", {"workload": {"kind": "builtin", "name": "resnet18", "batch_size": 16},
                         "sample_interval_ms": 10}, "bad_field", "sample_interval_ms"),
            ("profile", {"workload": {"kind": "builtin", "name": "resnet18", "batch_size": 16},
                         "settle": {"window": True}}, "bad_field", "settle.window"),
            ("profile", {"workload": {"kind": "builtin", "name": "resnet18", "batch_size": 16},
                         "settle": 5}, "bad_field", "settle"),
            ("stop", {}, "bad_field", "target"),
            ("stop", {"target": [1]}, "bad_field", "target"),
        ]
        for op, fields, code, text in cases:
            e = self.err(op, code, **fields)
            self.assertIn(text, e["message"], (op, fields))


ORIN_RAILS = ["VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO"]


def add_hwmon(root, hwmon, files):
    """Writes sys/class/hwmon/<hwmon>/<file> for each (file, text) of files."""
    for name, text in files:
        faketree._w(root, "sys/class/hwmon/%s/%s" % (hwmon, name), text + "\n")


def ina238(hwmon, microwatts):
    """An INA238 as the ina238 driver shows it: no labels, in0 the shunt voltage, in1 the bus
    voltage, and the power the chip computes in power1_input."""
    add = [("name", "ina238"), ("in0_input", "3"), ("in1_input", "12000"),
           ("power1_input", "%d" % microwatts), ("temp1_input", "41000")]
    return hwmon, add


class RailDiscoveryTest(unittest.TestCase):
    """Device.rails() and read_power() find power monitors by what they are (issue 22)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptwb-rails-test-")
        faketree.build_orin_agx(self.tmp)   # two INA3221 under the i2c driver: hwmon3, hwmon4
        self.dev = A.Device(A.KernelFiles(self.tmp))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def labels(self):
        return [r.label for r in self.dev.rails()]

    def test_ina238_under_class_hwmon_without_labels_is_a_rail_read_in_microwatts(self):
        add_hwmon(self.tmp, *ina238("hwmon7", 6100000))
        self.assertEqual(self.labels(), ORIN_RAILS + ["ina238_1"])
        total, values = self.dev.read_power(self.dev.rails(), "orin-agx")
        self.assertEqual(values["ina238_1"], 6.1)
        self.assertEqual(total, 23.0)   # not one of the AGX Orin's input rails
        total, _ = self.dev.read_power(self.dev.rails(), None)
        self.assertEqual(total, 30.1)   # no input rails known: every rail, as before

    def test_two_monitors_of_one_type_keep_both_rails(self):
        add_hwmon(self.tmp, *ina238("hwmon7", 6000000))
        add_hwmon(self.tmp, *ina238("hwmon8", 2000000))
        self.assertEqual(self.labels(), ORIN_RAILS + ["ina238_1", "ina238_hwmon8_1"])
        total, values = self.dev.read_power(self.dev.rails(), None)
        self.assertEqual((values["ina238_1"], values["ina238_hwmon8_1"]), (6.0, 2.0))
        self.assertEqual(total, 32.0)

    def test_ina3221_seen_under_driver_and_class_hwmon_is_counted_once(self):
        import os
        # hwmon3: the kernel's link; hwmon4: a plain copy (the name alone must tell them apart)
        os.makedirs(os.path.join(self.tmp, "sys/class/hwmon"))
        os.symlink(os.path.join(self.tmp, faketree.HW1),
                   os.path.join(self.tmp, "sys/class/hwmon/hwmon3"))
        shutil.copytree(os.path.join(self.tmp, faketree.HW2),
                        os.path.join(self.tmp, "sys/class/hwmon/hwmon4"))
        for hw in ("hwmon3", "hwmon4"):
            add_hwmon(self.tmp, hw, [("name", "ina3221")])
        # an INA3221 only under sys/class/hwmon (no i2c driver directory for it)
        add_hwmon(self.tmp, "hwmon5", [("name", "ina3221"), ("in1_label", "VDD_EXTRA"),
                                       ("in1_input", "5000"), ("curr1_input", "400"),
                                       ("in2_input", "5000"), ("curr2_input", "300")])
        self.assertEqual(self.labels(), ORIN_RAILS + ["VDD_EXTRA"])   # unlabelled in2: no rail
        total, values = self.dev.read_power(self.dev.rails(), None)
        self.assertEqual(values["VDD_EXTRA"], 2.0)
        self.assertEqual(total, 26.0)   # 23 + 1 + 2 W, each rail once

    def test_hwmon_that_is_no_power_monitor_is_ignored(self):
        # a temperature sensor with files that would look like a rail
        add_hwmon(self.tmp, "hwmon1", [("name", "tmp451"), ("temp1_input", "40000"),
                                       ("in1_input", "5000"), ("curr1_input", "1000"),
                                       ("power1_input", "5000000")])
        add_hwmon(self.tmp, *ina238("hwmon7", 1500000))
        self.assertEqual(self.labels(), ORIN_RAILS + ["ina238_1"])
        total, values = self.dev.read_power(self.dev.rails(), None)
        self.assertNotIn("tmp451_1", values)
        self.assertEqual(total, 25.5)

    def test_ina3221_driver_layout_unchanged(self):
        # A regression guard: the layout of today's tests and the simulator (no `name` file, no
        # sys/class/hwmon) gives the same rails and readings as before issue 22.
        rails = self.dev.rails()
        self.assertEqual([r.label for r in rails], ORIN_RAILS)
        self.assertEqual(rails[0], A.Rail("VDD_GPU_SOC", faketree.HW1 + "/in1_input",
                                          faketree.HW1 + "/curr1_input", None))
        self.assertEqual(self.dev.read_power(rails, "orin-agx"),
                         (23.0, {"VDD_GPU_SOC": 10.0, "VDD_CPU_CV": 5.0, "VIN_SYS_5V0": 8.0,
                                 "VDDQ_VDD2_1V8AO": 1.0}))
        self.assertEqual(self.dev.read_power(rails, None)[0], 24.0)

    def test_unreadable_power_input_is_left_out_as_before(self):
        add_hwmon(self.tmp, *ina238("hwmon7", 0))
        add_hwmon(self.tmp, "hwmon7", [("power1_input", "n/a")])
        rails = self.dev.rails()
        self.assertIn("ina238_1", [r.label for r in rails])
        total, values = self.dev.read_power(rails, None)
        self.assertNotIn("ina238_1", values)
        self.assertEqual(total, 24.0)

    def test_a_reading_that_is_no_finite_number_is_left_out(self):
        add_hwmon(self.tmp, *ina238("hwmon7", 0))
        for text in ("nan", "inf", "1e999"):
            add_hwmon(self.tmp, "hwmon7", [("power1_input", text)])
            total, values = self.dev.read_power(self.dev.rails(), None)
            self.assertNotIn("ina238_1", values, text)
            self.assertEqual(total, 24.0, text)


class ClassHwmonOnlyTest(AgentTestCase):
    def test_sample_power_reads_ina238_rails_when_there_is_no_ina3221(self):
        shutil.rmtree(self.tmp + "/sys/bus/i2c/drivers/ina3221")
        add_hwmon(self.tmp, *ina238("hwmon2", 7250000))
        add_hwmon(self.tmp, *ina238("hwmon3", 2750000))
        r, _ = self.ok("hello")
        self.assertEqual(r["rails"], ["ina238_1", "ina238_hwmon3_1"])
        r, ev = self.ok("sample_power", interval_ms=100, count=2)
        for e in ev:
            # none of the AGX Orin's input rails: the total is every rail's, as before
            self.assertEqual(e["total_w"], 10.0)
            self.assertEqual(e["rails"], {"ina238_1": 7.25, "ina238_hwmon3_1": 2.75})


class TextStreamTest(unittest.TestCase):
    """main() also works with text streams (how the simulator may call it) and exits on EOF."""

    def test_text_streams(self):
        tmp = tempfile.mkdtemp(prefix="ptwb-agent-test-")
        try:
            faketree.build_orin_agx(tmp)
            files = faketree.FakeKernel(tmp)
            inp = io.StringIO('{"id": 1, "op": "get_mode"}\nnope\n{"id": 2, "op": "hello"}')
            out = io.StringIO()
            rc = A.main(["--root", "/nonexistent"], stdin=inp, stdout=out, files=files,
                        helper=faketree.FakeHelper(files).agent_side)
            self.assertEqual(rc, 0)
            lines = [json.loads(x) for x in out.getvalue().splitlines()]
            # the bad line is answered by the reader at once, get_mode by the worker
            self.assertEqual(sorted((str(x["id"]), x["ok"]) for x in lines),
                             [("1", True), ("2", True), ("None", False)])
            byid = dict((x["id"], x) for x in lines)
            self.assertEqual(byid[1]["result"]["mode"], MAXN)
            self.assertEqual(byid[None]["error"]["code"], "bad_request")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
