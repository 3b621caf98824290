"""corpus.py: the public grid, every mode, and a seeded sample of a few modes."""
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


if __name__ == "__main__":
    unittest.main()
