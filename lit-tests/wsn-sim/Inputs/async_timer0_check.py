#!/usr/bin/env python3
"""Checks async-timer0.c's results in a wsn-sim sram.bin against the ATmega128
datasheet (spec/micaz.md, "Timer0 from the watch crystal").

usage: async_timer0_check.py FW.elf sram.bin
Timer1 runs at clk/1024 = 7200 Hz at 7.3728 MHz; a Timer0 clock (clk_T0S/32) is
32 TOSC1 periods = 32 * 225 CPU cycles = 7.03125 Timer1 ticks."""
import subprocess
import sys

SYMSCRIPT = __file__.replace("async_timer0_check.py", "sramsym.py")


def sym(elf, image, name, kind="u8", count=1):
    out = subprocess.run([sys.executable, SYMSCRIPT, elf, image, name, kind, str(count)],
                         check=True, capture_output=True, text=True).stdout.split()
    return [int(v) for v in out]


def main():
    elf, image = sys.argv[1:3]
    ok = True

    def check(what, cond, got):
        nonlocal ok
        print("%s: %s (%s)" % ("ok" if cond else "FAIL", what, got))
        ok = ok and cond

    T1_PER_CLOCK = 32 * 225 / 1024.0
    after = sym(elf, image, "assr_after_writes")[0]
    check("ASSR right after the TCNT0/OCR0/TCCR0 writes = AS0|TCN0UB|OCR0UB|TCR0UB", after == 0x0F, hex(after))
    settled = sym(elf, image, "assr_settled")[0]
    check("ASSR once the writes are latched = AS0", settled == 0x08, hex(settled))
    polls = sym(elf, image, "busy_polls", "u16")[0]
    check("the busy flags were polled (latched two TOSC1 edges later)", polls > 0, polls)
    stamps = sym(elf, image, "stamps", "u16", 16)
    fires = sym(elf, image, "fires", "u16")[0]
    check("compare interrupts keep coming", fires >= 16, fires)
    # Fires 1..7: OCR0 alternates 63 (64 clocks) and 31 (32 clocks): 450 and 225 ticks.
    diffs = [(stamps[i + 1] - stamps[i]) & 0xFFFF for i in range(7)]
    want = [450 if i % 2 == 0 else 225 for i in range(7)]
    check("periods with OCR0 = 63, 31, ... (Timer1 ticks)", diffs == want, diffs)
    # OCR0 = 10 written when TCNT0 = c >= 20: the counter runs to 0xFF, wraps (TOV0) and
    # matches at 10: OCF0 at the clock after TCNT0 == 10, i.e. 267 - c clocks after the clock
    # that made TCNT0 = c (the read happened somewhere within that clock).
    c = sym(elf, image, "wrap_tcnt")[0]
    w = sym(elf, image, "wrap_stamp", "u16")[0]
    d = (stamps[8] - w) & 0xFFFF
    lo, hi = (266 - c) * T1_PER_CLOCK - 1, (267 - c) * T1_PER_CLOCK + 1
    check("OCR0 below TCNT0 (%d): the match comes after the wrap, %.1f..%.1f ticks" % (c, lo, hi),
          lo <= d <= hi, d)
    check("TOV0 was set by the wrap", sym(elf, image, "tov_seen")[0] == 1, "")
    d9 = (stamps[9] - stamps[8]) & 0xFFFF
    check("after the wrap, OCR0 = 63 again: 450 ticks", d9 == 450, d9)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
