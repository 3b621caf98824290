"""Pure functions of the agent (settling, clean-window selection, statistics, parsers) and of the
helper (cpu lists, nearest allowed values, snapping readings to the tables)."""

import math
import unittest

import faketree
import ptwb_agent as A
from ptwb_helper import nearest_allowed, parse_cpu_list, snap


IDLE_W = 18.0
TRAIN_W = 49.0
TRAIN_T = 3.0   # the first (warm-up) minibatch ends here


def idle_then_training():
    """A mode change at t = 0, then the workload's start-up: idle power is flat and low (18 W,
    settled within 0.4 s) until the first minibatch ends at 3.0 s; then training power rises to
    49 W with a 0.6 s first-order transient, with +-1 % noise. Samples every 0.1 s up to 8 s;
    minibatches every 0.1 s after the warm-up one."""
    samples = []
    for i in range(81):
        t = round(0.1 * i, 1)
        if t < TRAIN_T:
            w = IDLE_W + (0.05 if i % 2 else -0.05)
        else:
            w = TRAIN_W - (TRAIN_W - IDLE_W) * math.exp(-(t - TRAIN_T) / 0.6)
            w *= 1.0 + (0.01 if i % 2 else -0.01)
        samples.append((t, round(w, 4)))
    mbs = [(0, 700.0, TRAIN_T)]
    for k in range(1, 50):
        mbs.append((k, 100.0 + (k % 3), round(TRAIN_T + 0.1 * k, 2)))
    return samples, mbs


class SettleTest(unittest.TestCase):
    def test_ramp_then_flat_settles_at_first_full_window(self):
        # power climbs for 1 s, then sits at 30 W +- 0.2 W; samples every 0.1 s
        ramp = [10, 14, 18, 22, 26, 28, 29.2, 29.5, 29.8, 30.0]
        flat = [30.1, 29.9, 30.2, 29.8, 30.0, 30.1, 29.9, 30.0]
        samples = [(round(0.1 * i, 1), w) for i, w in enumerate(ramp + flat)]
        t, ok = A.find_settle(samples, 0.03, 5, 10.0, 0.0)
        self.assertTrue(ok)
        # the first window within 3 % of its median: 28, 29.2, 29.5, 29.8, 30.0 (median 29.5,
        # 28 is 5 % off) fails; 29.2 .. 30.1 (index 6..10) passes -> settled at index 10
        self.assertEqual(t, 1.0)

    def test_never_settles_times_out(self):
        samples = [(0.5 * i, 20 + (5 if i % 2 else -5)) for i in range(40)]
        t, ok = A.find_settle(samples, 0.03, 5, 10.0, 0.0)
        self.assertFalse(ok)
        self.assertEqual(t, 10.0)

    def test_too_short_stream_is_undecided(self):
        t, ok = A.find_settle([(0.0, 10.0), (0.1, 10.0)], 0.03, 5, 10.0, 0.0)
        self.assertEqual((t, ok), (None, False))

    def test_idle_before_training_is_ignored(self):
        samples, mbs = idle_then_training()
        t, ok = A.find_settle(samples, 0.03, 5, 10.0, TRAIN_T)
        self.assertTrue(ok)
        # not the flat idle stretch (it would "settle" at 0.4 s), nor early in the rise, but
        # once training power has nearly stopped rising (the settling window is all training
        # samples, within 3 % of their median, past 90 % of 49 W)
        self.assertGreater(t, TRAIN_T + 1.0)
        window = [w for (ts, w) in samples if t - 0.45 < ts <= t]
        self.assertEqual(len(window), 5)
        self.assertTrue(A.window_settled(window, 0.03), window)
        self.assertGreater(min(window), 0.9 * TRAIN_W, (t, window))
        # one sample earlier the window was not settled yet
        t_before = max(ts for (ts, _) in samples if ts < t)
        earlier = [w for (ts, w) in samples if t_before - 0.45 < ts <= t_before]
        self.assertFalse(A.window_settled(earlier, 0.03), earlier)
        # the same stream judged from t = 0 settles on idle power: what the bug did
        t0, ok0 = A.find_settle(samples, 0.03, 5, 10.0, 0.0)
        self.assertTrue(ok0)
        self.assertLess(t0, TRAIN_T)

    def test_not_training_yet_is_undecided(self):
        samples, _ = idle_then_training()
        self.assertEqual(A.find_settle(samples, 0.03, 5, 10.0, None), (None, False))
        # a stream that ends before training power settles: undecided, no timeout yet
        early = [s for s in samples if s[0] < TRAIN_T + 0.5]
        self.assertEqual(A.find_settle(early, 0.03, 5, 10.0, TRAIN_T), (None, False))

    def test_timeout_counts_from_training_start(self):
        # idle for 12 s (longer than the timeout), then training power that never settles
        samples = [(round(0.1 * i, 1), 18.0) for i in range(120)]
        samples += [(round(12.0 + 0.1 * i, 1), 40.0 + (6 if i % 2 else -6)) for i in range(200)]
        self.assertEqual(A.find_settle(samples, 0.03, 5, 10.0, 12.0), (22.0, False))
        self.assertEqual(A.find_settle(samples[:200], 0.03, 5, 10.0, 12.0), (None, False))

    def test_window_settled(self):
        self.assertTrue(A.window_settled([100, 102, 98, 101, 99], 0.03))
        self.assertFalse(A.window_settled([100, 104, 98, 101, 99], 0.03))
        self.assertTrue(A.window_settled([0, 0, 0], 0.03))
        self.assertFalse(A.window_settled([], 0.03))

    def test_clean_window_medians(self):
        # (index, ms, t_end): warm-up 900 ms, then 3 before settling at t=2.0, then clean ones
        mbs = [(0, 900.0, 0.9), (1, 410.0, 1.3), (2, 405.0, 1.7), (3, 400.0, 1.99),
               (4, 300.0, 2.3), (5, 310.0, 2.6), (6, 320.0, 2.9), (7, 330.0, 3.2), (8, 340.0, 3.5)]
        samples = [(0.1 * i, 10.0 if i < 20 else 20.0 + (i % 3)) for i in range(40)]
        r = A.select_clean(mbs, samples, 2.0)
        self.assertEqual(r["minibatches"], 5)
        self.assertEqual(r["discarded"], 4)
        self.assertEqual(r["time_ms"], {"median": 320.0, "q1": 310.0, "q3": 330.0, "max": 340.0})
        # power samples with 2.0 <= t <= 3.5: i = 20..35 -> values 20 + i % 3
        pw = sorted(20.0 + (i % 3) for i in range(20, 36))
        self.assertEqual(r["power_w"]["median"], round(A.quantile(pw, 0.5), 4))
        self.assertEqual(r["power_w"]["q1"], round(A.quantile(pw, 0.25), 4))
        self.assertEqual(r["power_w"]["max"], 22.0)

    def test_clean_window_max_is_the_peak_of_that_window_only(self):
        # training power 30 W with one 41.23456 W peak inside the clean window; a 55 W spike
        # during warm-up (before the first minibatch ended) and one after the last clean
        # minibatch must not count: max is the peak a power cap must allow for while training
        mbs = [(0, 900.0, 1.0), (1, 400.0, 1.4), (2, 450.5, 1.8), (3, 410.0, 2.2)]
        samples = [(0.5, 55.0), (1.1, 30.0), (1.3, 30.2), (1.5, 41.23456), (1.7, 29.8),
                   (2.0, 30.1), (2.2, 30.0), (2.3, 60.0)]
        r = A.select_clean(mbs, samples, None)
        self.assertEqual(r["power_w"]["max"], 41.2346)       # rounded to 4 digits like the rest
        self.assertEqual(r["power_w"]["median"], 30.05)
        self.assertGreater(r["power_w"]["max"], r["power_w"]["q3"])
        self.assertEqual(r["time_ms"]["max"], 450.5)           # the warm-up's 900 ms is not clean

    def test_clean_window_unsettled_uses_all_but_first(self):
        mbs = [(0, 900.0, 0.9), (1, 400.0, 1.3), (2, 420.0, 1.7)]
        r = A.select_clean(mbs, [(0.0, 5.0), (1.0, 6.0), (1.5, 7.0)], None)
        self.assertEqual(r["minibatches"], 2)
        self.assertEqual(r["discarded"], 1)
        self.assertEqual(r["time_ms"]["median"], 410.0)
        self.assertEqual(r["power_w"]["median"], 6.5)

    def test_clean_window_is_training_power(self):
        samples, mbs = idle_then_training()
        settle_t, ok = A.find_settle(samples, 0.03, 5, 10.0, TRAIN_T)
        self.assertTrue(ok)
        r = A.select_clean(mbs, samples, settle_t)
        # the median is training power (the idle 18 W is nowhere near it); the tail of the
        # transient inside the window pulls it at most a little below 49 W
        self.assertLess(abs(r["power_w"]["median"] - TRAIN_W) / TRAIN_W, 0.02, r)
        self.assertGreater(r["power_w"]["q1"], 0.95 * TRAIN_W, r)
        clean = [mb for mb in mbs[1:] if mb[2] >= settle_t]
        self.assertEqual(r["minibatches"], len(clean))
        self.assertEqual(r["discarded"], len(mbs) - len(clean))

    def test_clean_window_starts_at_the_later_of_training_and_settle(self):
        samples, mbs = idle_then_training()
        # a settle time from before training (e.g. idle power settling) or none at all: the
        # window starts at the end of the first minibatch; no idle sample is ever used
        for settle_t in (0.4, None):
            r = A.select_clean(mbs, samples, settle_t)
            self.assertEqual(r["minibatches"], len(mbs) - 1)
            self.assertEqual(r["discarded"], 1)
            training = sorted(w for (t, w) in samples if TRAIN_T <= t <= mbs[-1][2])
            self.assertEqual(r["power_w"]["median"], round(A.quantile(training, 0.5), 4))
            self.assertGreater(r["power_w"]["q1"], IDLE_W + 5, r)
        self.assertEqual(A.clean_start(mbs, 0.4), TRAIN_T)
        self.assertEqual(A.clean_start(mbs, None), TRAIN_T)
        self.assertEqual(A.clean_start(mbs, TRAIN_T + 2.0), TRAIN_T + 2.0)
        self.assertIsNone(A.clean_start([], 1.0))

    def test_no_training_sample_means_no_power(self):
        # every power sample predates the end of the first minibatch: none may be used
        mbs = [(0, 900.0, 3.0), (1, 400.0, 3.04), (2, 400.0, 3.08)]
        samples = [(0.1 * i, 18.0) for i in range(30)]
        r = A.select_clean(mbs, samples, None)
        self.assertEqual(r["power_w"], {"median": None, "q1": None, "q3": None, "max": None})
        self.assertEqual(r["minibatches"], 2)

    def test_quantiles(self):
        self.assertEqual(A.stats([4, 1, 3, 2]), {"median": 2.5, "q1": 1.75, "q3": 3.25})
        self.assertEqual(A.stats([7]), {"median": 7, "q1": 7, "q3": 7})
        self.assertEqual(A.stats([])["median"], None)
        self.assertEqual(A.stats_with_max([4, 1.23456, 3], 2),
                         {"median": 3, "q1": 2.12, "q3": 3.5, "max": 4})
        self.assertEqual(A.stats_with_max([]), {"median": None, "q1": None, "q3": None,
                                                "max": None})


class ParserTest(unittest.TestCase):
    def test_minibatch_line(self):
        self.assertEqual(A.parse_minibatch_line("PTWB_MINIBATCH 412.5\n"), 412.5)
        self.assertEqual(A.parse_minibatch_line("  PTWB_MINIBATCH 3  "), 3.0)
        for bad in ("PTWB_MINIBATCH", "PTWB_MINIBATCH x", "PTWB_MINIBATCH nan", "epoch 1",
                    "PTWB_MINIBATCH -1", "PTWB_MINIBATCH 1 2"):
            self.assertIsNone(A.parse_minibatch_line(bad), bad)

    def test_cpu_list(self):
        self.assertEqual(parse_cpu_list("0-3,6,8-9\n"), [0, 1, 2, 3, 6, 8, 9])
        self.assertEqual(parse_cpu_list("0"), [0])

    def test_nearest_allowed(self):
        self.assertEqual(nearest_allowed(faketree.GPU_HZ, 1300000000), [1224000000, 1300500000])
        self.assertEqual(nearest_allowed(faketree.GPU_HZ, 5), [306000000, 408000000])
        self.assertEqual(nearest_allowed(faketree.GPU_HZ, 2000000000), [1300500000])

    def test_nvpmodel(self):
        tables = {"cores": list(range(1, 13)), "cpu_khz": faketree.CPU_KHZ,
                  "gpu_hz": faketree.GPU_HZ, "emc_hz": faketree.EMC_HZ}
        presets = A.parse_nvpmodel(faketree.NVPMODEL, tables)
        self.assertEqual(presets, [
            {"id": 0, "name": "MAXN", "cores": 12, "cpu_khz_max": 2201600,
             "gpu_hz_max": 1300500000, "emc_hz_max": 3199000000},
            {"id": 1, "name": "MODE_15W", "cores": 4, "cpu_khz_max": 1113600,
             "gpu_hz_max": 408000000, "emc_hz_max": 2133000000},
        ])
        self.assertEqual(A.parse_nvpmodel("garbage\n<<<>>>\n\x00", tables), [])

    def test_device_kind_and_l4t(self):
        self.assertEqual(A.device_kind("NVIDIA Jetson AGX Orin Developer Kit"), "orin-agx")
        self.assertEqual(A.device_kind("NVIDIA Jetson Orin Nano Developer Kit"), "orin-nano")
        self.assertEqual(A.device_kind("NVIDIA Jetson AGX Xavier Developer Kit"), "xavier-agx")
        self.assertEqual(A.device_kind("Jetson-AGX"), "xavier-agx")  # a real Xavier
        self.assertEqual(A.device_kind("Raspberry Pi 4"), None)
        self.assertEqual(A.parse_l4t("# R35 (release), REVISION: 4.1, GCID: 1"), "35.4.1")

    def test_device_kind_of_every_family(self):
        # The same rules as core/modes/jetsonfamily.cpp (tested in tests/core/test_devicereport.cpp).
        nano_gpu = [306000000, 408000000, 510000000, 612000000, 624750000]
        super_gpu = [306000000, 612000000, 918000000, 1020000000]
        cases = [
            ("NVIDIA Jetson AGX Orin Developer Kit", None, "orin-agx"),
            ("NVIDIA Jetson Orin NX Engineering Reference Developer Kit", None, "orin-nx"),
            ("NVIDIA Jetson Orin Nano Developer Kit", nano_gpu, "orin-nano"),
            ("NVIDIA Jetson Orin Nano Developer Kit", None, "orin-nano"),
            # the Super clocks on a model that does not say so: told by the GPU table
            ("NVIDIA Jetson Orin Nano Developer Kit", super_gpu, "orin-nano-super"),
            ("NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super", None,
             "orin-nano-super"),
            ("NVIDIA Jetson Xavier NX Developer Kit", None, "xavier-nx"),
            ("NVIDIA Jetson AGX Xavier Developer Kit", None, "xavier-agx"),
            ("Jetson-AGX", None, "xavier-agx"),
            ("NVIDIA Jetson AGX Thor Developer Kit", None, "agx-thor"),
            ("nvidia jetson orin nx", None, "orin-nx"),   # case does not matter
            ("Raspberry Pi 4", None, None),
            ("", None, None),
            (None, None, None),
        ]
        for model, gpu, kind in cases:
            self.assertEqual(A.device_kind(model, gpu), kind, (model, gpu))
        # a hostile table does not break it: non-integers are ignored
        self.assertEqual(A.device_kind("Jetson Orin Nano", ["x", None, 2 ** 40]),
                         "orin-nano-super")
        self.assertEqual(A.device_kind("Jetson Orin Nano", ["9" * 50]), "orin-nano")
        for kind in ("orin-nano-super", "orin-nx", "xavier-nx", "agx-thor"):
            self.assertIn(kind, A.INPUT_RAILS)

    def test_snap(self):
        self.assertEqual(snap(2188000, faketree.CPU_KHZ), 2188800)
        self.assertEqual(snap(1032750000, faketree.GPU_HZ), 1032750000)


if __name__ == "__main__":
    unittest.main()
