"""A small JSON-lines client for the simulated Jetson (tests only)."""

import json
import os
import subprocess
import sys
import threading
import queue
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SIMULATOR = os.path.join(TOP, "remote", "simulator", "ptwb_simjetson.py")
AGENT = os.path.join(TOP, "remote", "agent", "ptwb_agent.py")


class SimProcess(object):
    def __init__(self, state, device="orin-agx", speed=50, seed=1, faults=()):
        argv = [sys.executable, SIMULATOR, "--device", device, "--state", state,
                "--speed", str(speed), "--seed", str(seed)]
        for f in faults:
            argv += ["--fault", f]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()
        self.next_id = 1

    def _pump(self):
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(json.loads(line.decode("utf-8")))
        self.lines.put(None)

    def _pump_err(self):
        for line in iter(self.proc.stderr.readline, b""):
            self.stderr.append(line.decode("utf-8", "replace"))

    def send(self, obj):
        self.proc.stdin.write((json.dumps(obj) + "\n").encode("utf-8"))
        self.proc.stdin.flush()

    def request(self, op, timeout=60, **fields):
        """Send a request; return (reply, events)."""
        rid = self.next_id
        self.next_id += 1
        obj = {"id": rid, "op": op}
        obj.update(fields)
        self.send(obj)
        events = []
        deadline = time.time() + timeout
        while True:
            try:
                msg = self.lines.get(timeout=max(deadline - time.time(), 0.01))
            except queue.Empty:
                raise AssertionError("no reply to %s within %s s; stderr: %s"
                                     % (op, timeout, "".join(self.stderr[-20:])))
            if msg is None:
                return None, events
            if msg.get("id") != rid:
                continue
            if "event" in msg:
                events.append(msg)
                continue
            return msg, events

    def close(self, timeout=20):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def wait(self, timeout=20):
        return self.proc.wait(timeout)

    def dispose(self):
        """Kill if still running and close every pipe (test cleanup)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except (OSError, ValueError):
                pass
