"""A hostile device, for tests only: the simulated Jetson's agent, perturbed in one way.

The agent behind it speaks the protocol honestly (docs/device-protocol.md); this module sits
between the agent's output and the desktop and changes it in the way one case names, so that
the desktop's defences can be tested one at a time (issue 21, docs/ssh.md "What a hostile device
can and cannot do to the desktop"). Used by the simulated Jetson's `--hostile CASE` (or
`--fault hostile:CASE`, or the environment variable PTWB_SIM_HOSTILE) and by the stand-in agent
tests/hostile/hostile_agent.py. Standard library only, Python 3.8+.

A case may be written CASE@N: the first N requests are answered honestly (N=1 lets hello
through, so a sweep reaches the perturbed profile replies).

Cases:
  rich-text            HTML in the model, thermal zone names, helper and error messages, stderr
  terminal-escapes     OSC 52 (clipboard), OSC 0 (title), erase line, C1 CSI and a bidi
                       override in the same places, a non-JSON stdout line, and the first reply
                       after hello turned into an error carrying them
  line-flood           from the first perturbed request on, "x\\n" forever
  endless-line         from the first perturbed request on, "x" forever, never a newline
  absurd-numbers       1e300, 1e999 (inf), NaN, negative, zero and q1 > median in results and
                       events (a variant per reply, in turn), cores beyond 32 bits
  wrong-types          strings for numbers, numbers for strings, lists for objects
  duplicate-replies    every line written twice
  out-of-order-replies a reply is held back until the next one (then written after it) or 0.5 s
                       (PTWB_HOSTILE_HOLD_S)
  unsolicited-reply    replies and events for ids never sent (including the next id the
                       desktop will use) before every reply
  endless-events       the first perturbed request gets power events every 50 ms and never
                       a reply
"""

import json
import os
import sys
import threading
import time

CASES = ("rich-text", "terminal-escapes", "line-flood", "endless-line", "absurd-numbers",
         "wrong-types", "duplicate-replies", "out-of-order-replies", "unsolicited-reply",
         "endless-events")

ENV_CASE = "PTWB_SIM_HOSTILE"
# out-of-order-replies: how long a reply waits for the next one (a test on a loaded machine
# sets it longer, so that the next reply is not late by chance)
try:
    HOLD_S = max(0.05, min(60.0, float(os.environ.get("PTWB_HOSTILE_HOLD_S", "0.5"))))
except ValueError:
    HOLD_S = 0.5
# Where the rich-text case's <img> points: a FIFO or a large file shows a window reading it.
ENV_IMAGE = "PTWB_HOSTILE_IMG"

# Every kind of escape a terminal acts on: OSC 52 writes the clipboard ("pwned"), OSC 0 sets
# the title, CSI 2K erases the line, 0x9b is the C1 CSI, U+202E reverses the text after it.
ESCAPES = ("\x1b]52;c;cHduZWQ=\x07\x1b]0;hostile title\x07\x1b[2K\r\u009b2K"
           "\u202eevil\u202c\x7f")
STREAMING = ("profile", "sample_power", "test_workload", "run_concurrent")


class CaseError(ValueError):
    pass


def parse_case(spec):
    """'CASE' or 'CASE@N' -> (case, honest_requests)."""
    name, _, after = spec.partition("@")
    if name not in CASES:
        raise CaseError("unknown hostile case %r; expected one of: %s" % (name, ", ".join(CASES)))
    honest = 0
    if after:
        try:
            honest = int(after)
        except ValueError:
            honest = -1
        if honest < 0:
            raise CaseError("hostile case %r: @N must be a whole number >= 0" % spec)
    return name, honest


def log(text):
    try:
        sys.stderr.write("hostile: %s\n" % text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _image():
    path = os.environ.get(ENV_IMAGE) or "/nonexistent/ptwb-hostile.png"
    return '<img src="%s" width="900" height="900">' % path


def _rich(text):
    return "<b>%s</b>%s<a href=\"https://example.invalid\">x</a>" % (text, _image())


def _escaped(text):
    return "%s%s%s" % (ESCAPES, text, ESCAPES)


def _dumps(obj):
    # infinity as 1e999 (valid JSON grammar that overflows a double), NaN as Python writes it
    # (not JSON at all)
    return json.dumps(obj, separators=(",", ":"), allow_nan=True,
                      ensure_ascii=False).replace("-Infinity", "-1e999").replace("Infinity",
                                                                                "1e999")


class HostileOutput(object):
    """The agent's stdout (it calls write() with whole lines and flush()), perturbed on its way
    to `raw` (a binary stream). on_request() sees every request line before the agent does."""

    def __init__(self, spec, raw):
        self.case, self.honest = parse_case(spec)
        self.raw = raw
        self.lock = threading.RLock()
        self.requests = 0  # request lines seen
        self.perturbed = set()  # ids of requests the case applies to
        self.ops = {}  # id -> op
        self.last_id = 0
        self.held = None  # out-of-order: (line, timer)
        self.variant = 0
        self.silenced = set()  # endless-events: ids whose agent output is dropped
        self.started = False  # the flood or the endless events
        self.buffer = ""
        self.dead = False
        if self.case in ("rich-text", "terminal-escapes"):
            self.log_hostile("the agent starts")

    # --- from the desktop
    def on_request(self, line):
        try:
            obj = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            obj = None
        rid = obj.get("id") if isinstance(obj, dict) else None
        op = obj.get("op") if isinstance(obj, dict) else None
        with self.lock:
            self.requests += 1
            if isinstance(rid, int) and not isinstance(rid, bool):
                self.last_id = max(self.last_id, rid)
            self.ops[rid] = op
            if self.requests <= self.honest:
                return
            self.perturbed.add(rid)
            if self.started:
                return
            if self.case == "line-flood":
                self._start(self._flood, b"x\n" * 32768)
            elif self.case == "endless-line":
                self._start(self._flood, b"x" * 65536)
            elif self.case == "endless-events":
                self.silenced.add(rid)
                self._start(self._events, rid)

    def _start(self, target, arg):
        self.started = True
        log("%s starts at request %d" % (self.case, self.requests))
        threading.Thread(target=target, args=(arg,), name="hostile", daemon=True).start()

    def _flood(self, chunk):
        sent = 0
        while True:
            with self.lock:
                if not self._write_raw(chunk):
                    break
            sent += len(chunk)
        log("%s stopped after %d bytes: the desktop closed the pipe" % (self.case, sent))

    def _events(self, rid):
        t = 0.0
        while True:
            line = _dumps({"id": rid, "event": "power", "t_s": round(t, 2), "total_w": 20.0,
                           "rails": {}}) + "\n"
            with self.lock:
                if not self._write_raw(line.encode("utf-8")):
                    break
            t += 0.05
            time.sleep(0.05)
        log("endless events stopped: the desktop closed the pipe")

    # --- from the agent
    def write(self, text):
        with self.lock:
            self.buffer += text
            while "\n" in self.buffer:
                line, self.buffer = self.buffer.split("\n", 1)
                self._line(line)

    def flush(self):
        with self.lock:
            try:
                self.raw.flush()
            except (OSError, ValueError):
                self.dead = True

    def log_hostile(self, what):
        if self.case == "rich-text":
            log(_rich(what))
        elif self.case == "terminal-escapes":
            log(_escaped(what))

    def _write_raw(self, data):
        if self.dead:
            return False
        try:
            self.raw.write(data)
            self.raw.flush()
            return True
        except (OSError, ValueError):
            self.dead = True
            return False

    def _emit(self, obj_or_text):
        text = obj_or_text if isinstance(obj_or_text, str) else _dumps(obj_or_text)
        self._write_raw((text + "\n").encode("utf-8"))

    def _line(self, line):
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            self._emit(line)
            return
        rid = obj.get("id")
        if rid in self.silenced:
            return
        if rid not in self.perturbed or self.case in ("line-flood", "endless-line",
                                                       "endless-events"):
            # line-flood and endless-line write their own bytes; the agent's lines go on as
            # they are between the chunks (the desktop may find one if it keeps up)
            self._emit(obj)
            return
        is_reply = "ok" in obj and "event" not in obj
        handler = getattr(self, "_case_" + self.case.replace("-", "_"))
        handler(obj, is_reply)

    # --- the cases
    def _case_rich_text(self, obj, is_reply):
        self._decorate(obj, _rich)
        self._emit(obj)
        if is_reply:
            self.log_hostile("reply to %s" % self.ops.get(obj.get("id")))

    def _case_terminal_escapes(self, obj, is_reply):
        rid = obj.get("id")
        if is_reply and self.ops.get(rid) not in ("hello", "stop") and not getattr(
                self, "failed_one", False):
            self.failed_one = True
            obj = {"id": rid, "ok": False,
                   "error": {"code": "write_failed",
                             "message": _escaped("gpu_hz: the kernel says"),
                             "stderr": [_escaped("stderr line")]}}
        self._decorate(obj, _escaped)
        if is_reply:
            self._emit(_escaped("not JSON"))
        self._emit(obj)
        if is_reply:
            self.log_hostile("reply to %s" % self.ops.get(rid))

    def _decorate(self, obj, how):
        result = obj.get("result")
        if isinstance(result, dict):
            if isinstance(result.get("model"), str):
                result["model"] = how(result["model"])
            thermal = result.get("thermal")
            if isinstance(thermal, list):
                for zone in thermal:
                    if isinstance(zone, dict) and isinstance(zone.get("zone"), str):
                        zone["zone"] = how(zone["zone"])
            helper = result.get("helper")
            if isinstance(helper, dict) and isinstance(helper.get("message"), str):
                helper["message"] = how(helper["message"] or "helper")
            for key in ("reason", "message"):
                if isinstance(result.get(key), str):
                    result[key] = how(result[key])
        error = obj.get("error")
        if isinstance(error, dict):
            if isinstance(error.get("message"), str):
                error["message"] = how(error["message"])
            if isinstance(error.get("stderr"), list):
                error["stderr"] = [how(s) if isinstance(s, str) else s for s in error["stderr"]]

    ABSURD = (1e300, float("inf"), float("nan"), -5.0, 0.0, "q1>median")

    def _absurd(self):
        value = self.ABSURD[self.variant % len(self.ABSURD)]
        self.variant += 1
        return value

    def _stats(self, stats, value):
        if not isinstance(stats, dict):
            return
        if value == "q1>median":
            median = stats.get("median")
            if isinstance(median, (int, float)):
                stats["q1"] = median * 2 + 1
                stats["q3"] = median * 3 + 1
            return
        for key in ("median", "q1", "q3", "max"):
            if key in stats:
                stats[key] = value

    def _case_absurd_numbers(self, obj, is_reply):
        result = obj.get("result")
        if is_reply and isinstance(result, dict):
            stats = [result[k] for k in ("time_ms", "power_w", "total_w")
                     if isinstance(result.get(k), dict)]
            value = self._absurd() if stats else None
            for s in stats:
                self._stats(s, value)
            if isinstance(result.get("thermal"), list):
                for zone in result["thermal"]:
                    if isinstance(zone, dict):
                        zone["temp_c"] = 1e300
            if isinstance(result.get("mode"), dict) and value == 1e300:
                result["mode"]["cores"] = 2 ** 32 + 12
            if "samples" in result and value != "q1>median":
                result["samples"] = -1 if value == -5.0 else 2 ** 53
        elif obj.get("event") == "power":
            obj["total_w"] = 1e300
        elif obj.get("event") == "minibatch":
            obj["ms"] = -1.0
        self._emit(obj)

    def _case_wrong_types(self, obj, is_reply):
        result = obj.get("result")
        if is_reply and isinstance(result, dict):
            swaps = {"model": 12345, "thermal": "hot", "time_ms": "fast", "power_w": [1, 2, 3],
                     "total_w": "lots", "tables": [], "presets": {"a": 1}, "rails": 7,
                     "boot_id": 99, "samples": "many", "minibatches": {"n": 1},
                     "previous": "the one before", "settled": "yes"}
            for key, value in swaps.items():
                if key in result:
                    result[key] = value
            if isinstance(result.get("mode"), dict):
                result["mode"] = {k: str(v) for k, v in result["mode"].items()}
            obj["ok"] = "true"
        elif obj.get("event"):
            obj["event"] = 7
            obj["t_s"] = "later"
        self._emit(obj)

    def _case_duplicate_replies(self, obj, is_reply):
        self._emit(obj)
        self._emit(obj)

    def _case_out_of_order_replies(self, obj, is_reply):
        if not is_reply:
            self._emit(obj)
            return
        held = self.held
        if held is not None:
            held[1].cancel()
            self.held = None
            self._emit(obj)
            self._emit(held[0])
            return
        timer = threading.Timer(HOLD_S, self._release, args=(obj,))
        timer.daemon = True
        self.held = (obj, timer)
        timer.start()

    def _release(self, obj):
        with self.lock:
            if self.held is not None and self.held[0] is obj:
                self.held = None
                self._emit(obj)

    def _case_unsolicited_reply(self, obj, is_reply):
        if is_reply:
            # an id the desktop has not used yet (it will, much later: ignored then too)
            nxt = self.last_id + 1000
            self._emit({"id": 987654321, "ok": True, "result": {"mode": {"cores": 1}}})
            self._emit({"id": "never-sent", "ok": False,
                        "error": {"code": "internal", "message": "for no request"}})
            self._emit({"id": nxt, "ok": True, "result": {"rebooting": True}})
            self._emit({"id": nxt + 1, "event": "power", "t_s": 0, "total_w": 1.0, "rails": {}})
            self._emit({"id": None, "ok": True, "result": {}})
        self._emit(obj)
