"""The retained tail of a recorded trace (.wtr), as the harnesses judge a stop by it.

bench/fidelity/fidelity.py and bench/tinyos/run.py both move a stop (a check K, a cycle bound)
until replay can start and end where the mote did: the ring must hold a CHECKPOINT, and the
stop must not fall inside a skipped call, right after a CHECK, or inside an interrupt handler.
Both read that here, from wsn-trace-dump --json and the trace header (spec/trace-format.md)."""
import json
import subprocess


def _first_bytes(path, n=32):
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError:
        return None


def header(path):
    """The 32-byte header of a .wtr (spec/trace-format.md section 1), or None when the file
    cannot be read or is not a trace."""
    h = _first_bytes(path)
    return h if h is not None and len(h) == 32 and h[:4] == b"WTRB" else None


def trace_open(path):
    """Whether a .wtr was read while a record was open (header byte 31, bit 7), or None when
    the file cannot be read."""
    if _first_bytes(path) is None:
        return None
    h = header(path)
    return bool(h and h[31] & 0x80)


def records(dump, trace, timeout):
    """The records of the trace as wsn-trace-dump --json lists them, or None when the dump
    fails (or takes longer than timeout seconds): the replay will say what is wrong with it."""
    try:
        p = subprocess.run([dump, "--json", trace], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        return None
    try:
        return json.loads(p.stdout).get("records", [])
    except ValueError:
        return None


def tail_state(dump, trace, timeout):
    """(holds a CHECKPOINT, ends inside a skipped call, a closed trace ends with a CHECK, ends
    inside an interrupt handler) for the retained tail of a trace; a trace wsn-trace-dump cannot
    read gives (True, False, False, False), so that the replay reports what is wrong with it."""
    recs = records(dump, trace, timeout)
    if recs is None:
        return True, False, False, False
    depth = 0
    handlers = 0
    for r in recs:
        depth += {"SKIP_BEGIN": 1, "SKIP_END": -1}.get(r.get("kind"), 0)
        # A wrapped tail can keep an IRQ_EXIT whose IRQ was overwritten: never below 0.
        handlers = max(0, handlers + {"IRQ": 1, "IRQ_EXIT": -1}.get(r.get("kind"), 0))
    # An effect call writes SKIP_END and the EFFECT with the callee's writes one after the
    # other: an open record after a SKIP_END is that EFFECT, torn; and a trace that ends with
    # the SKIP_END (the stop fell between closing it and opening the EFFECT, a few
    # instructions with interrupts off: blink on msp430f1611, 12 of 250 seeds) is inside the
    # skipped call as well.
    torn_effect = bool(recs) and recs[-1].get("kind") == "SKIP_END"
    # A closed trace that ends with a CHECK reads as one stopped at that check (wsn-sim
    # --stop-after-checks stops at the check hook): replay stops there, not where the node
    # went on to (blink on msp430f1611: 3 of 250 seeds).
    at_check = not trace_open(trace) and bool(recs) and recs[-1].get("kind") == "CHECK"
    # A tail that ends with a handler open (an IRQ without its IRQ_EXIT) stops the interrupted
    # code at a point the trace does not name: replay runs the handler as soon as the count
    # reaches the IRQ's (spec/replay-log.md 2.2, "a stop inside a handler"), the node may have
    # gone on to the end of the atomic section first, writing globals the handler does not
    # share (radio-sense on msp430f1611 seed 1001: RadioSenseC$sent stored after the region
    # end, mote 2, replay 1). Such a stop moves on like one where an interrupt came first.
    return (any(r.get("kind") == "CHECKPOINT" for r in recs), depth > 0 or torn_effect,
            at_check, handlers > 0)
