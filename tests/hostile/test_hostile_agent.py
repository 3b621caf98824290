"""The hostile stand-in device (tests only): each case perturbs what it names and nothing else."""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT = os.path.join(HERE, "hostile_agent.py")
SIMULATOR = os.path.normpath(os.path.join(HERE, "..", "..", "remote", "simulator",
                                          "ptwb_simjetson.py"))


def run(case, requests, extra_wait=1.0, limit=None, argv=None, env=None, await_first=False,
        await_all=False):
    """Send request lines (a pause after each), return (stdout bytes, stderr text).
    await_first: the second request goes only once the first one's reply has come (a loaded
    machine may take longer than the pause to answer hello); await_all: every request waits
    for its reply so (up to 30 s)."""
    argv = argv or [sys.executable, AGENT, "--case", case]
    errfile = tempfile.TemporaryFile()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=errfile, env=env)
    out = []
    size = [0]

    def pump():
        while True:
            chunk = proc.stdout.read1(65536)
            if not chunk:
                break
            size[0] += len(chunk)
            if limit is None or sum(len(c) for c in out) < limit:
                out.append(chunk)
            elif size[0] > limit * 4:
                break
        proc.stdout.close()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    for i, r in enumerate(requests):
        proc.stdin.write((json.dumps(r) + "\n").encode())
        proc.stdin.flush()
        time.sleep(0.5)
        deadline = time.monotonic() + 30
        while (await_all or (await_first and i == 0)) and time.monotonic() < deadline \
                and not any(o.get("id") == r["id"] for o in json_lines(b"".join(out))):
            time.sleep(0.1)
    time.sleep(extra_wait)
    if limit is not None:
        reader.join(30)
    try:
        proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    reader.join(5)
    errfile.seek(0)
    err = errfile.read()
    errfile.close()
    return b"".join(out), err.decode("utf-8", "replace"), size[0]


HELLO = {"id": 1, "op": "hello"}
GET_MODE = {"id": 2, "op": "get_mode"}
SAMPLE = {"id": 3, "op": "sample_power", "interval_ms": 100, "count": 2}


def json_lines(out):
    objs = []
    for line in out.decode("utf-8", "replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            objs.append(obj)
    return objs


class HostileAgentTest(unittest.TestCase):
    def test_rich_text_in_model_zone_and_stderr(self):
        out, err, _ = run("rich-text", [HELLO], await_all=True)
        hello = [o for o in json_lines(out) if o.get("id") == 1][0]
        self.assertIn("<img src=", hello["result"]["model"])
        self.assertIn("(simulated)", hello["result"]["model"])
        self.assertTrue(all("<b>" in z["zone"] for z in hello["result"]["thermal"]))
        self.assertIn("<img src=", err)

    def test_terminal_escapes_everywhere(self):
        out, err, _ = run("terminal-escapes", [HELLO, GET_MODE], await_all=True)
        self.assertIn(b"\x1b]52;", out.split(b"\n")[0], "a non-JSON line with OSC 52 first")
        objs = json_lines(out)
        self.assertIn("\x1b]0;", [o for o in objs if o.get("id") == 1][0]["result"]["model"])
        failed = [o for o in objs if o.get("id") == 2][0]
        self.assertFalse(failed["ok"])
        self.assertIn("\x1b[2K", failed["error"]["message"])
        self.assertIn("\x1b]52;", err)

    def test_line_flood_after_honest_hello(self):
        out, _, size = run("line-flood@1", [HELLO, GET_MODE], limit=1 << 20, await_first=True)
        self.assertEqual(json_lines(out)[0]["id"], 1)
        self.assertGreater(size, 1 << 20)
        self.assertGreater(out.count(b"x\n"), 100000)

    def test_endless_line(self):
        out, _, size = run("endless-line", [HELLO], limit=1 << 20)
        self.assertGreater(size, 1 << 20)
        self.assertNotIn(b"\n", out)

    def test_absurd_numbers(self):
        out, _, _ = run("absurd-numbers", [HELLO, SAMPLE, dict(SAMPLE, id=4), dict(SAMPLE, id=5)],
                        extra_wait=2)
        text = out.decode()
        self.assertIn('"temp_c":1e+300', text)
        self.assertIn('"median":1e+300', text)
        self.assertIn('"median":1e999', text)
        self.assertIn('"median":NaN', text)

    def test_wrong_types(self):
        out, _, _ = run("wrong-types", [HELLO], await_all=True)
        hello = json_lines(out)[0]
        self.assertEqual(hello["ok"], "true")
        self.assertEqual(hello["result"]["model"], 12345)
        self.assertEqual(hello["result"]["mode"]["cores"], "12")

    def test_duplicate_replies(self):
        out, _, _ = run("duplicate-replies", [HELLO, GET_MODE], await_all=True)
        ids = [o["id"] for o in json_lines(out)]
        self.assertEqual(ids, [1, 1, 2, 2])

    def test_out_of_order_replies(self):
        out, _, _ = run("out-of-order-replies@1", [HELLO], await_all=True)  # honest: hello alone
        self.assertEqual([o["id"] for o in json_lines(out)], [1])
        # two requests at once: the second's reply comes first
        out, _, _ = run_pipelined("out-of-order-replies", [HELLO, GET_MODE])
        self.assertEqual([o["id"] for o in json_lines(out)], [2, 1])

    def test_unsolicited_reply(self):
        out, _, _ = run("unsolicited-reply", [HELLO], await_all=True)
        ids = [o.get("id") for o in json_lines(out)]
        self.assertEqual(ids[-1], 1)
        self.assertIn(987654321, ids)
        self.assertIn("never-sent", ids)
        self.assertIn(None, ids)

    def test_endless_events(self):
        out, _, _ = run("endless-events@1", [HELLO, GET_MODE], extra_wait=1.5)
        objs = json_lines(out)
        self.assertGreater(len([o for o in objs if o.get("event") == "power"]), 10)
        self.assertFalse([o for o in objs if o.get("id") == 2 and "ok" in o])

    def test_simulator_switch_and_environment(self):
        with tempfile.TemporaryDirectory() as state:
            argv = [sys.executable, SIMULATOR, "--device", "orin-agx", "--state", state,
                    "--fault", "hostile:duplicate-replies"]
            out, err, _ = run("", [HELLO], argv=argv)
            self.assertEqual([o["id"] for o in json_lines(out)], [1, 1])
            self.assertIn("HOSTILE device (tests only)", err)
            env = dict(os.environ, PTWB_SIM_HOSTILE="duplicate-replies")
            out, _, _ = run("", [HELLO], argv=argv[:-2], env=env)
            self.assertEqual([o["id"] for o in json_lines(out)], [1, 1])

    def test_unknown_case_is_refused(self):
        done = subprocess.run([sys.executable, AGENT, "--case", "nice"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(done.returncode, 2)
        self.assertIn(b"unknown hostile case", done.stderr)


def run_pipelined(case, requests):
    # a held reply waits 10 s for the next one: on a loaded machine the next may take more
    # than the default 0.5 s, and the order would be right by chance
    env = dict(os.environ, PTWB_HOSTILE_HOLD_S="10")
    proc = subprocess.Popen([sys.executable, AGENT, "--case", case], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    proc.stdin.write(b"".join((json.dumps(r) + "\n").encode() for r in requests))
    proc.stdin.flush()
    time.sleep(2)
    out, _ = proc.communicate(timeout=30)
    return out, "", 0


if __name__ == "__main__":
    unittest.main()
