"""Command workloads (issue 20): the three recognisers on real process output, the launcher on
an unmodified script, every failure with its reason and output lines, and test_workload."""

import os
import subprocess
import sys
import textwrap
import time
import unittest

from test_ops import AgentTestCase
import ptwb_agent as A

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
STANDIN = os.path.join(TOP, "remote", "simulator", "standin")
TQDM = "(?P<rate>[0-9.]+)it/s"


def python_with_torch():
    """A Python that imports a real PyTorch (not the stand-in): this one, or Debian's
    /usr/bin/python3 with python3-torch (scripts/packages.txt); None without one."""
    for python in (sys.executable, "/usr/bin/python3"):
        try:
            p = subprocess.run([python, "-c", "import torch, torch.optim; "
                                "assert not getattr(torch, 'SIMULATED', False)"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if p.returncode == 0:
            return python
    return None


TORCH_PYTHON = python_with_torch()


# ---------------------------------------------------------------------------------------------
# Pure parts: splitting, cleaning, recognising, validating

class LineSplitterTest(unittest.TestCase):
    def test_lines_end_at_newline_or_carriage_return(self):
        s = A.LineSplitter()
        self.assertEqual(s.feed(b"a\nb\r\nc\rd"), ["a", "b", "c"])
        self.assertEqual(s.feed(b"", final=True), ["d"])

    def test_a_line_and_a_character_split_across_reads_are_joined(self):
        s = A.LineSplitter()
        euro = "\u20ac".encode("utf-8")
        self.assertEqual(s.feed(b"PTWB_MINI"), [])
        self.assertEqual(s.feed(b"BATCH 12.5 " + euro[:1]), [])
        self.assertEqual(s.feed(euro[1:] + b"\n"), ["PTWB_MINIBATCH 12.5 \u20ac"])

    def test_long_lines_are_cut_and_control_characters_removed(self):
        s = A.LineSplitter()
        lines = s.feed(b"x" * 50000 + b"\n")
        self.assertEqual(lines, ["x" * A.OUTPUT_LINE_MAX])
        self.assertEqual(s.feed(b"\x1b[31mred\x1b[0m\tand \x07bell\x00 \xc2\x9b\n"),
                         ["red and bell"])
        self.assertEqual(s.feed(b"\xff\xfebad\n"), ["\ufffd\ufffdbad"])

    def test_blank_lines_are_dropped(self):
        self.assertEqual(A.LineSplitter().feed(b"\r\n\r\n  \nx\n"), ["x"])


class RecogniserTest(unittest.TestCase):
    def test_marker(self):
        r = A.Recogniser({"by": "marker"})
        self.assertEqual(r.ms_of("PTWB_MINIBATCH 12.5"), 12.5)
        self.assertIsNone(r.ms_of("PTWB_MINIBATCH twelve"))
        self.assertIn("no PTWB_MINIBATCH line", r.why_none())

    def test_regex_units(self):
        per_s = A.Recogniser({"by": "regex", "pattern": TQDM, "unit": "per_s"})
        self.assertAlmostEqual(per_s.ms_of("50%|#####| 5/10 [00:01<00:01, 12.5it/s]"), 80.0)
        ms = A.Recogniser({"by": "regex", "pattern": r"(?P<t>[0-9.]+) ms", "unit": "ms"})
        self.assertEqual(ms.ms_of("step 40 loss 1.2 95.5 ms"), 95.5)
        s = A.Recogniser({"by": "regex", "pattern": r"took (?P<t>\S+)s", "unit": "s"})
        self.assertEqual(s.ms_of("minibatch took 0.25s"), 250.0)
        self.assertIsNone(s.ms_of("nothing here"))
        self.assertIn("no line matched the pattern", s.why_none())

    def test_a_group_that_is_not_a_positive_number_is_not_a_minibatch(self):
        r = A.Recogniser({"by": "regex", "pattern": r"(?P<rate>\S+)it/s", "unit": "per_s"})
        self.assertIsNone(r.ms_of("0it [00:00, ?it/s]"))
        self.assertIsNone(r.ms_of("0.00it/s"))
        self.assertEqual(r.why_none(), 'the pattern matched "?it/s" but its group "rate" is '
                                       'not a positive number')
        self.assertEqual(r.ms_of("4.00it/s"), 250.0)


class ValidateCommandTest(unittest.TestCase):
    def check(self, field_text, **fields):
        w = {"kind": "command", "argv": ["python3", "train.py"]}
        w.update(fields)
        with self.assertRaises(A.OpError) as cm:
            A.validate_workload({"workload": w})
        self.assertEqual(cm.exception.code, "bad_field")
        self.assertIn(field_text, cm.exception.message)
        return cm.exception.message

    def test_defaults(self):
        w = A.validate_workload({"workload": {"kind": "command", "argv": ["python3", "t.py"]}})
        self.assertEqual(w, {"kind": "command", "argv": ["python3", "t.py"], "cwd": None,
                             "env": {}, "recognise": {"by": "marker"}, "skip": 0,
                             "timeout_s": 120})

    def test_env(self):
        self.check("workload.env", env=["A=1"])
        self.check("workload.env", env={"1A": "x"})
        self.check("workload.env", env={"A-B": "x"})
        self.check("workload.env.PTWB_BATCH_SIZE: PTWB_* variables are the agent's own",
                   env={"PTWB_BATCH_SIZE": "3"})
        self.check("workload.env.ptwb_events_fd", env={"ptwb_events_fd": "3"})
        self.check("workload.env.A: expected a string", env={"A": 1})
        self.check("workload.env.A", env={"A": "x\x00y"})
        self.check("workload.env.A", env={"A": "x" * 5000})
        self.check("at most 64", env=dict(("V%d" % i, "x") for i in range(65)))
        w = A.validate_workload({"workload": {"kind": "command", "argv": ["t"],
                                              "env": {"CUDA_VISIBLE_DEVICES": "0"}}})
        self.assertEqual(w["env"], {"CUDA_VISIBLE_DEVICES": "0"})

    def test_cwd(self):
        self.check("workload.cwd: \"run\" is relative", cwd="run")
        self.check("workload.cwd", cwd="")
        self.assertEqual(A.expand_cwd("~/run", "/home/n"), "/home/n/run")
        self.assertEqual(A.expand_cwd("~", "/home/n"), "/home/n")
        self.assertEqual(A.expand_cwd("/abs", "/home/n"), "/abs")
        self.assertIsNone(A.expand_cwd(None))

    def test_skip_and_timeout(self):
        self.check("workload.skip: expected an integer", skip="5")
        self.check("workload.skip", skip=-1)
        self.check("workload.timeout_s", timeout_s=0)
        self.check("workload.timeout_s", timeout_s="120")

    def test_recognise(self):
        self.check("workload.recognise: expected an object", recognise="marker")
        self.check("workload.recognise.by", recognise={"by": "magic"})
        self.check("workload.recognise.pattern: expected a non-empty string",
                   recognise={"by": "regex", "unit": "ms"})
        self.check("workload.recognise.pattern: not a regular expression",
                   recognise={"by": "regex", "pattern": "(?P<x>[0-9", "unit": "ms"})
        self.check("exactly one named group (?P<name>...), found 0",
                   recognise={"by": "regex", "pattern": "([0-9]+)", "unit": "ms"})
        self.check("found 2", recognise={"by": "regex", "pattern": "(?P<a>1)(?P<b>2)",
                                         "unit": "ms"})
        self.check("at most 500", recognise={"by": "regex", "pattern": "(?P<a>1)" + "x" * 500,
                                             "unit": "ms"})
        self.check("workload.recognise.unit", recognise={"by": "regex", "pattern": TQDM,
                                                         "unit": "it/s"})

    def test_launcher_needs_a_python_and_a_script(self):
        self.check("workload.argv: the launcher recogniser runs the script with its own Python",
                   argv=["./train.sh"], recognise={"by": "launcher"})
        self.check("workload.argv: the launcher recogniser needs a script",
                   argv=["python3"], recognise={"by": "launcher"})
        self.check("workload.argv", argv=["python3", "-c", "pass"], recognise={"by": "launcher"})
        for argv0 in ("python3", "/home/n/venv/bin/python", "python3.8"):
            A.validate_workload({"workload": {"kind": "command", "argv": [argv0, "t.py"],
                                              "recognise": {"by": "launcher"}}})

    def test_launcher_argv(self):
        launch = os.path.join("/d", A.LAUNCHER)
        self.assertEqual(A.launcher_argv(["python3", "t.py", "-u"], "/d"),
                         ["python3", launch, "t.py", "-u"])
        self.assertEqual(A.launcher_argv(["python3", "-u", "-X", "dev", "-m", "pkg.train"], "/d"),
                         ["python3", "-u", "-X", "dev", launch, "-m", "pkg.train"])


# ---------------------------------------------------------------------------------------------
# Real processes through the agent

MARKER_SPLIT = textwrap.dedent("""\
    import sys, time
    for i in range(8):
        sys.stdout.write("PTWB_MINI")
        sys.stdout.flush()
        time.sleep(0.02)
        sys.stdout.write("BATCH %d\\nnoise\\n" % (100 + i))
        sys.stdout.flush()
""")

# A tqdm-style bar on stderr (redrawn with \\r, one write per minibatch) interleaved with
# epoch lines on stdout.
TQDM_BAR = textwrap.dedent("""\
    import sys, time
    sys.stderr.write("\\r  0%|          | 0/12 [00:00<?, ?it/s]")
    sys.stderr.flush()
    for i in range(12):
        time.sleep(0.01)
        sys.stderr.write("\\r%3d%%|#   | %d/12 [00:01<00:01, %.2fit/s]" % (i * 8, i + 1, 4.0))
        sys.stderr.flush()
        if i % 4 == 0:
            print("epoch %d" % (i // 4), flush=True)
    sys.stderr.write("\\n")
""")

STEPS = textwrap.dedent("""\
    import sys, time
    for i in range(10):
        time.sleep(0.01)
        print("step %d/10 loss 1.0 %.1f ms" % (i + 1, 50 + i), flush=True)
""")

# An unmodified PyTorch-style script: it knows nothing of the workbench.
PLAIN_SCRIPT = textwrap.dedent("""\
    import json, os, sys, time
    import torch
    w = torch.nn.Parameter(torch.zeros(3))
    opt = torch.optim.SGD([w], lr=0.1)
    other = torch.optim.SGD([w], lr=0.1)   # a second optimizer: not counted
    with open(sys.argv[1], "w") as f:
        json.dump({"argv": sys.argv, "name": __name__, "path0": sys.path[0],
                   "events_fd": os.environ.get("PTWB_EVENTS_FD")}, f)
    print("training", flush=True)
    for i in range(int(sys.argv[2])):
        time.sleep(0.02)
        opt.zero_grad()
        opt.step()
        other.step()
    print("done", flush=True)
""")

# The same, for a real PyTorch: a tiny model trained with Adam.
REAL_TORCH_SCRIPT = textwrap.dedent("""\
    import torch
    model = torch.nn.Linear(8, 2)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 8), torch.randn(64, 2)
    for i in range(30):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    print("loss %.4f" % loss.item())
""")

SLEEPER = textwrap.dedent("""\
    import os, sys, time
    with open(sys.argv[1], "w") as f:
        f.write(str(os.getpid()))
    print("loading data", flush=True)
    time.sleep(60)
""")

EARLY_EXIT = textwrap.dedent("""\
    import sys
    print("PTWB_MINIBATCH 10", flush=True)
    print("PTWB_MINIBATCH 11", flush=True)
    sys.stderr.write("Traceback (most recent call last):\\n")
    sys.stderr.write("RuntimeError: CUDA out of memory\\n")
    sys.exit(3)
""")


class CommandTest(AgentTestCase):
    args = ["--time-scale", "10"]

    def script(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def command(self, script, *args, **fields):
        w = {"kind": "command", "argv": [sys.executable, self.script(script[0], script[1])]
             + list(args)}
        w.update(fields)
        return w

    def profile(self, w, n, **fields):
        return self.ok("profile", workload=w, minibatches=n, settle={"window": 2}, **fields)

    def failed(self, w, n=10, timeout=20.0, op="profile", **fields):
        rep, _ = self.req(op, timeout=timeout, workload=w, minibatches=n, **fields)
        self.assertFalse(rep["ok"], rep)
        self.assertEqual(rep["error"]["code"], "workload_failed", rep)
        for line in rep["error"]["output"]:
            self.assertEqual(set(line), {"stream", "text", "ms"})
            self.assertIn(line["stream"], ("out", "err"))
        return rep["error"]

    # --- the recognisers
    def test_marker_split_across_writes(self):
        r, ev = self.profile(self.command(("split.py", MARKER_SPLIT)), 8)
        mbs = [e["ms"] for e in ev if e["event"] == "minibatch"]
        self.assertEqual(mbs, [100.0 + i for i in range(8)])

    def test_regex_on_a_carriage_return_progress_bar_on_stderr(self):
        w = self.command(("bar.py", TQDM_BAR),
                         recognise={"by": "regex", "pattern": TQDM, "unit": "per_s"})
        r, ev = self.profile(w, 12)
        mbs = [e["ms"] for e in ev if e["event"] == "minibatch"]
        self.assertEqual(mbs, [250.0] * 12)
        self.assertEqual(r["time_ms"]["median"], 250.0)

    def test_test_workload_keeps_both_streams_in_order_with_what_was_recognised(self):
        w = self.command(("bar.py", TQDM_BAR), skip=2,
                         recognise={"by": "regex", "pattern": TQDM, "unit": "per_s"})
        r, ev = self.ok("test_workload", workload=w, seconds=30, minibatches=100)
        self.assertEqual(set(r), {"lines", "minibatches", "time_ms", "power_w", "exit_status",
                                  "reason", "mode", "seconds"})
        self.assertIsNone(r["reason"])
        self.assertEqual(r["exit_status"], 0)
        self.assertEqual(r["minibatches"], 12)
        self.assertEqual(len([e for e in ev if e["event"] == "minibatch"]), 12)
        self.assertEqual(r["time_ms"]["median"], 250.0)
        self.assertEqual(r["power_w"]["median"], 23.0)
        out = [l for l in r["lines"] if l["stream"] == "out"]
        err = [l for l in r["lines"] if l["stream"] == "err"]
        self.assertEqual([l["text"] for l in out], ["epoch 0", "epoch 1", "epoch 2"])
        self.assertEqual(err[0], {"stream": "err", "text": "0%|          | 0/12 [00:00<?, ?it/s]",
                                  "ms": None})
        self.assertEqual([l["ms"] for l in err[1:]], [250.0] * 12)
        # arrival order: "epoch 0" follows the first bar redraw (both written in minibatch 0)
        texts = [l["text"] for l in r["lines"]]
        self.assertLess(texts.index("epoch 0"), texts.index(err[2]["text"]))
        self.assertEqual(r["mode"]["gpu_hz"], 1300500000)

    def test_regex_in_ms_on_stdout(self):
        w = self.command(("steps.py", STEPS), recognise={"by": "regex", "unit": "ms",
                                                         "pattern": r"(?P<ms>[0-9.]+) ms$"})
        r, ev = self.profile(w, 10)
        self.assertEqual([e["ms"] for e in ev if e["event"] == "minibatch"],
                         [50.0 + i for i in range(10)])

    def test_launcher_on_an_unmodified_script(self):
        report = os.path.join(self.tmp, "report.json")
        w = self.command(("plain.py", PLAIN_SCRIPT), report, "12",
                         recognise={"by": "launcher"}, env={"PYTHONPATH": STANDIN})
        r, ev = self.profile(w, 11)
        import json
        with open(report) as f:
            seen = json.load(f)
        # the script ran as itself: its argv, __main__, its own directory first on sys.path,
        # and the launcher's pipe is not in its environment
        self.assertEqual(seen["argv"], [os.path.join(self.tmp, "plain.py"), report, "12"])
        self.assertEqual(seen["name"], "__main__")
        self.assertEqual(seen["path0"], self.tmp)
        self.assertIsNone(seen["events_fd"])
        mbs = [e["ms"] for e in ev if e["event"] == "minibatch"]
        # 12 steps of the first optimizer: 11 intervals of 0.02 s wall = 200 device ms each
        self.assertEqual(len(mbs), 11)
        for ms in mbs:
            self.assertTrue(190.0 <= ms <= 400.0, mbs)

    def test_launcher_module_and_its_output_untouched(self):
        pkg = os.path.join(self.tmp, "pkg")
        os.mkdir(pkg)
        with open(os.path.join(pkg, "__init__.py"), "w"):
            pass
        with open(os.path.join(pkg, "train.py"), "w") as f:
            f.write(PLAIN_SCRIPT)
        report = os.path.join(self.tmp, "report.json")
        w = {"kind": "command", "argv": [sys.executable, "-u", "-m", "pkg.train", report, "4"],
             "cwd": self.tmp, "recognise": {"by": "launcher"}, "env": {"PYTHONPATH": STANDIN}}
        r, ev = self.ok("test_workload", workload=w, seconds=30, minibatches=100)
        self.assertIsNone(r["reason"], r)
        self.assertEqual(r["minibatches"], 3)
        self.assertEqual([l["text"] for l in r["lines"]], ["training", "done"])
        import json
        with open(report) as f:
            self.assertEqual(json.load(f)["argv"][1:], [report, "4"])

    @unittest.skipUnless(TORCH_PYTHON, "PyTorch is not installed for %s or /usr/bin/python3 "
                         "(install python3-torch to run the launcher on a real training script)"
                         % sys.executable)
    def test_launcher_on_a_real_pytorch_script(self):
        # the script as a researcher wrote it: no marker, no import of ours
        w = {"kind": "command", "argv": [TORCH_PYTHON, self.script("real.py", REAL_TORCH_SCRIPT)],
             "recognise": {"by": "launcher"}, "skip": 2}
        r, ev = self.ok("test_workload", workload=w, seconds=600, minibatches=1000, timeout=120)
        self.assertIsNone(r["reason"], r)
        # 30 steps of Adam: 29 intervals, every one positive; the loss line is the script's own
        self.assertEqual(r["minibatches"], 29)
        self.assertTrue(all(e["ms"] > 0 for e in ev if e["event"] == "minibatch"))
        self.assertEqual(r["exit_status"], 0)
        self.assertRegex(r["lines"][-1]["text"], r"^loss [0-9.]+$")
        self.assertIsNotNone(r["time_ms"]["median"])
        # and profiled like any workload
        res, _ = self.ok("profile", workload=w, minibatches=20, settle={"window": 2},
                         timeout=120)
        self.assertEqual(res["minibatches"] + res["discarded"], 20)

    def test_env_and_home_cwd(self):
        w = self.command(("env.py", "import os\nprint('PTWB_MINIBATCH', os.environ['RUN_MS'])\n"
                          "print('PTWB_MINIBATCH', len(os.listdir('.')))\n"),
                         env={"RUN_MS": "42"}, cwd="~/")
        old = os.environ.get("HOME")
        os.environ["HOME"] = os.path.join(self.tmp, "etc")
        try:
            r, ev = self.ok("test_workload", workload=w, seconds=30)
        finally:
            os.environ["HOME"] = old
        self.assertEqual([l["ms"] for l in r["lines"]],
                         [42.0, float(len(os.listdir(os.path.join(self.tmp, "etc"))))])

    # --- failures: a reason and the output's last lines
    def test_command_not_found(self):
        e = self.failed({"kind": "command", "argv": [os.path.join(self.tmp, "train.py")]})
        self.assertRegex(e["message"], r"^could not start .*train.py: \[Errno 2\] No such file")
        self.assertEqual(e["output"], [])
        self.assertIs(e["retry"], False)  # fails alike in every mode: a sweep does not retry

    def test_missing_working_directory(self):
        e = self.failed({"kind": "command", "argv": [sys.executable, "t.py"],
                         "cwd": os.path.join(self.tmp, "gone")})
        self.assertIn("the working directory %s does not exist" % os.path.join(self.tmp, "gone"),
                      e["message"])
        self.assertIs(e["retry"], False)

    def test_non_zero_exit_before_enough_minibatches(self):
        e = self.failed(self.command(("early.py", EARLY_EXIT)), n=40)
        self.assertEqual(e["message"], "workload exited with status 3 after 2 of 40 minibatches")
        # the streams are read apart: each in its order, not exactly interleaved
        self.assertEqual([l for l in e["output"] if l["stream"] == "err"][-1],
                         {"stream": "err", "ms": None, "text": "RuntimeError: CUDA out of memory"})
        self.assertEqual([l["ms"] for l in e["output"] if l["stream"] == "out"], [10.0, 11.0])
        self.assertEqual(e["stderr"][-1], "RuntimeError: CUDA out of memory")

    def test_nothing_recognised_within_the_timeout_ends_the_process(self):
        pidfile = os.path.join(self.tmp, "pid")
        t = time.monotonic()
        # 5 device s at time scale 10: 0.5 s wall (at least 1 s wall is always given)
        e = self.failed(self.command(("sleeper.py", SLEEPER), pidfile, timeout_s=5))
        self.assertLess(time.monotonic() - t, 15.0)
        self.assertEqual(e["message"], "no minibatch recognised within 5 s: no PTWB_MINIBATCH line")
        self.assertEqual(e["output"], [{"stream": "out", "text": "loading data", "ms": None}])
        with open(pidfile) as f:
            pid = int(f.read())
        with self.assertRaises(OSError):
            os.kill(pid, 0)

    def test_regex_that_matches_nothing(self):
        w = self.command(("steps.py", STEPS),
                         recognise={"by": "regex", "pattern": TQDM, "unit": "per_s"})
        e = self.failed(w)
        self.assertEqual(e["message"], 'no minibatch recognised: no line matched the pattern '
                                       '"(?P<rate>[0-9.]+)it/s" (the workload exited with status 0)')
        self.assertEqual(len(e["output"]), 10)
        self.assertEqual(e["output"][0], {"stream": "out", "text": "step 1/10 loss 1.0 50.0 ms",
                                          "ms": None})

    def test_regex_group_that_is_not_a_number(self):
        w = self.command(("steps.py", STEPS), recognise={"by": "regex", "unit": "ms",
                                                         "pattern": r"(?P<loss>loss \S+)"})
        e = self.failed(w)
        self.assertIn('the pattern matched "loss 1.0" but its group "loss" is not a positive '
                      'number', e["message"])

    def test_launcher_without_torch(self):
        # -S: no site-packages, so no torch even where python3-torch is installed
        w = {"kind": "command", "argv": [sys.executable, "-S", self.script("p.py", "print(1)\n")],
             "recognise": {"by": "launcher"}}
        e = self.failed(w)
        self.assertTrue(e["message"].startswith("launcher: cannot import torch.optim with %s: "
                                                % sys.executable), e["message"])
        self.assertIn("torch", e["output"][-1]["text"])
        self.assertIs(e["retry"], False)

    def test_launcher_script_that_never_steps(self):
        w = {"kind": "command", "argv": [sys.executable, self.script("p.py", "print(1)\n")],
             "recognise": {"by": "launcher"}, "env": {"PYTHONPATH": STANDIN}}
        e = self.failed(w)
        self.assertIn("no minibatch recognised: optimizer.step() was never called", e["message"])
        self.assertNotIn("retry", e)  # the script ran: another mode may behave otherwise
        self.assertEqual(e["output"], [{"stream": "out", "text": "1", "ms": None}])

    def test_launcher_script_that_steps_once(self):
        report = os.path.join(self.tmp, "report.json")
        w = {"kind": "command", "argv": [sys.executable, self.script("plain.py", PLAIN_SCRIPT),
                                         report, "1"],
             "recognise": {"by": "launcher"}, "env": {"PYTHONPATH": STANDIN}}
        e = self.failed(w)
        self.assertIn("no minibatch recognised: optimizer.step() returned only once",
                      e["message"])

    def test_test_workload_says_when_every_minibatch_was_skipped(self):
        w = self.command(("two.py", "print('PTWB_MINIBATCH 10')\nprint('PTWB_MINIBATCH 11')\n"),
                         skip=5)
        r, _ = self.ok("test_workload", workload=w, seconds=30)
        self.assertEqual(r["minibatches"], 2)
        self.assertIsNone(r["time_ms"])
        self.assertEqual(r["reason"], "all 2 minibatches recognised were skipped (skip 5): run "
                         "longer or skip fewer")

    def test_test_workload_reports_a_failure_as_its_result(self):
        r, _ = self.ok("test_workload", workload=self.command(("early.py", EARLY_EXIT)),
                       seconds=30, minibatches=40)
        self.assertEqual(r["reason"], "workload exited with status 3 after 2 of 40 minibatches")
        self.assertEqual(r["exit_status"], 3)
        self.assertEqual(r["minibatches"], 2)
        self.assertEqual(r["time_ms"]["median"], 10.5)
        self.assertEqual(len(r["lines"]), 4)
        r, _ = self.ok("test_workload", workload={"kind": "command", "argv": ["/nonexistent/x"]})
        self.assertIn("could not start /nonexistent/x", r["reason"])
        self.assertIsNone(r["exit_status"])

    def test_test_workload_runs_for_its_seconds_then_ends_the_process(self):
        pidfile = os.path.join(self.tmp, "pid")
        r, _ = self.ok("test_workload", workload=self.command(("sleeper.py", SLEEPER), pidfile),
                       seconds=12)
        self.assertEqual(r["reason"], "no minibatch recognised within 12 s: no PTWB_MINIBATCH line")
        self.assertIsNone(r["exit_status"])
        self.assertGreaterEqual(r["seconds"], 12.0)
        self.assertEqual(r["lines"], [{"stream": "out", "text": "loading data", "ms": None}])

    def test_test_workload_is_stopped_like_profile(self):
        pidfile = os.path.join(self.tmp, "pid")
        self.h.send({"id": "t", "op": "test_workload", "seconds": 600,
                     "workload": self.command(("sleeper.py", SLEEPER), pidfile)})
        deadline = time.monotonic() + 10
        while not os.path.exists(pidfile) and time.monotonic() < deadline:
            time.sleep(0.02)
        rep, _ = self.h.request({"id": "st", "op": "stop", "target": "t"})
        self.assertEqual(rep["result"], {"stopped": True})
        rep, _ = self.h.reply("t")
        self.assertEqual(rep["error"]["code"], "stopped")

    def test_bad_test_workload_requests(self):
        w = {"kind": "command", "argv": ["x"]}
        self.assertIn("seconds", self.err("test_workload", "bad_field", workload=w,
                                          seconds=0)["message"])
        self.assertIn("minibatches", self.err("test_workload", "bad_field", workload=w,
                                              minibatches=1)["message"])

    def test_a_child_keeping_the_output_open_does_not_hold_the_run(self):
        # the script exits, a process of its own keeps its stdout and stderr open
        pidfile = os.path.join(self.tmp, "pid")
        w = self.command(("daemon.py", textwrap.dedent("""\
            import subprocess, sys
            p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
            with open(sys.argv[1], "w") as f:
                f.write(str(p.pid))
            for i in range(3):
                print("PTWB_MINIBATCH 10", flush=True)
            """)), pidfile)
        t = time.monotonic()
        try:
            r, ev = self.profile(w, 40)
        finally:
            with open(pidfile) as f:
                os.kill(int(f.read()), 9)
        self.assertLess(time.monotonic() - t, 15.0)
        self.assertEqual(r["minibatches"] + r["discarded"], 3)

    def test_a_flood_of_output_is_read_and_bounded(self):
        w = self.command(("flood.py", textwrap.dedent("""\
            import sys
            for i in range(6):
                sys.stdout.write(("x" * 100 + "\\n") * 20000 + "PTWB_MINIBATCH %d\\n" % (10 + i))
                sys.stderr.write("y" * 3000000 + "\\n")
            sys.stdout.flush()
            """)))
        r, _ = self.ok("test_workload", workload=w, seconds=600, minibatches=100)
        self.assertIsNone(r["reason"], r)
        self.assertEqual(r["minibatches"], 6)
        self.assertEqual(len(r["lines"]), 40)
        self.assertTrue(all(len(l["text"]) <= 1000 for l in r["lines"]))
        self.assertEqual(r["time_ms"]["max"], 15.0)

    def test_skip_is_never_measured(self):
        w = self.command(("split.py", MARKER_SPLIT), skip=3)
        r, ev = self.profile(w, 8)
        self.assertEqual(r["minibatches"] + r["discarded"], 8)
        self.assertLessEqual(r["minibatches"], 5)
        self.assertGreaterEqual(r["time_ms"]["q1"], 103.0)


if __name__ == "__main__":
    unittest.main()
