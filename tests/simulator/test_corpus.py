"""corpus.py: the public grid, every mode, a seeded sample of a few modes, the 441-mode
Fulcrum grid, and inference corpora in the public inference layout."""
import csv
import os
import tempfile
import unittest

import simpaths  # noqa: F401  (puts remote/simulator on sys.path)
import corpus


def rows(*args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "c.csv")
        assert corpus.main(["--out", out] + list(args)) in (0, None)
        with open(out, newline="") as f:
            return list(csv.DictReader(f))


class CorpusTest(unittest.TestCase):
    def test_grid_has_the_public_4368_modes(self):
        self.assertEqual(len(rows()), 4368)

    def test_sample_draws_distinct_grid_modes_reproducibly(self):
        a = rows("--workload", "mobilenet_v3", "--sample", "50", "--seed", "3")
        b = rows("--workload", "mobilenet_v3", "--sample", "50", "--seed", "3")
        c = rows("--workload", "mobilenet_v3", "--sample", "50", "--seed", "4")
        key = lambda r: (r["cores"], r["cpu"], r["gpu"], r["mem"])
        self.assertEqual(len(a), 50)
        self.assertEqual(len({key(r) for r in a}), 50)
        self.assertEqual([key(r) for r in a], [key(r) for r in b])
        self.assertNotEqual([key(r) for r in a], [key(r) for r in c])
        grid = {key(r) for r in rows("--workload", "mobilenet_v3")}
        self.assertTrue({key(r) for r in a} <= grid)



def text(*args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "c.csv")
        assert corpus.main(["--out", out] + list(args)) in (0, None)
        with open(out, newline="") as f:
            return f.read()


def mode_key(r):
    return (int(r["cores"]), int(r["cpu"]), int(r["gpu"]), int(r["mem"]))


class InferenceCorpusTest(unittest.TestCase):
    def test_fulcrum_inference_has_the_exact_header_and_441_x_5_rows(self):
        t = text("--inference", "--workload", "resnet18", "--grid", "fulcrum")
        lines = t.splitlines()
        self.assertEqual(lines[0], "cores,cpu,gpu,mem,observed_time,bs,observed_power")
        self.assertEqual(len(lines), 1 + 441 * 5)
        rs = list(csv.DictReader(t.splitlines()))
        self.assertEqual([r["bs"] for r in rs[::441]], ["1.0", "4.0", "16.0", "32.0", "64.0"])
        for b in ("1.0", "4.0", "16.0", "32.0", "64.0"):
            modes = [mode_key(r) for r in rs if r["bs"] == b]
            self.assertEqual(len(set(modes)), 441)
        self.assertEqual({k[0] for k in (mode_key(r) for r in rs)}, {4, 8, 12})
        for r in rs:
            self.assertGreater(float(r["observed_time"]), 0)
            self.assertGreater(float(r["observed_power"]), 0)

    def test_fulcrum_grid_is_the_public_inference_files_grid(self):
        path = os.path.join(simpaths.DATA_DIR, "orin-agx", "resnet18_infer.csv")
        if not os.path.exists(path):
            self.skipTest("no %s (set PTWB_DATA_DIR); grid comparison skipped" % path)
        with open(path, newline="") as f:
            real = list(csv.DictReader(f))
        sim = list(csv.DictReader(text("--inference", "--workload", "mobilenet_v3",
                                       "--grid", "fulcrum").splitlines()))
        # the same (mode, bs) rows in the same order
        self.assertEqual([mode_key(r) + (float(r["bs"]),) for r in sim],
                         [mode_key(r) + (float(r["bs"]),) for r in real])

    def test_training_on_the_fulcrum_grid_lines_up_with_inference(self):
        train = rows("--workload", "yolo_detect", "--grid", "fulcrum")
        infer = list(csv.DictReader(text("--inference", "--workload", "bert_base", "--grid",
                                         "fulcrum", "--batch-sizes", "16").splitlines()))
        self.assertEqual(len(train), 441)
        self.assertEqual(list(train[0].keys()),
                         ["cores", "cpu", "gpu", "mem", "observed_time", "observed_power"])
        self.assertEqual([mode_key(r) for r in train], [mode_key(r) for r in infer])

    def test_inference_corpus_is_deterministic_per_seed(self):
        args = ("--inference", "--workload", "bert_base", "--grid", "fulcrum")
        a = text(*(args + ("--seed", "7")))
        self.assertEqual(a, text(*(args + ("--seed", "7"))))
        self.assertNotEqual(a, text(*(args + ("--seed", "8"))))

    def test_batch_sizes_and_default_grid(self):
        rs = list(csv.DictReader(text("--inference", "--workload", "resnet18",
                                      "--batch-sizes", "2,8").splitlines()))
        self.assertEqual(len(rs), 2 * 4368)
        self.assertEqual(sorted({r["bs"] for r in rs}), ["2.0", "8.0"])

    def test_refusals(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "c.csv")
            # a workload without an inference profile; a device the study did not measure
            self.assertEqual(corpus.main(["--out", out, "--inference", "--workload", "lstm"]), 2)
            self.assertEqual(corpus.main(["--out", out, "--device", "orin-nano",
                                          "--grid", "fulcrum"]), 2)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
