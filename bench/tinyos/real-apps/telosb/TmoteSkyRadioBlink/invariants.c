/* invariants.c - TmoteSkyRadioBlink (davidegagliardi/TmoteSky-RadioBlink's committed
 * build/telosb/app.c, TinyOS's BlinkToRadio tutorial app) for bench/tinyos/run.py. The 250 ms
 * Timer0 advances BlinkToRadioC__counter and, when the radio is free, sends it and sets
 * `busy`; the radio's sendDone clears `busy`. The deliberately violable bound "the counter
 * stays below 12" fails at the 12th fire (about 3 s after the radio started). The second term
 * (a send in flight carries a counter already advanced) always holds; it puts the send and
 * sendDone paths into the slice, and every write of `busy` is a check. */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint16_t BlinkToRadioC__counter;
extern uint8_t BlinkToRadioC__busy;

WSN_INVARIANT(counter_below_12) {
  return BlinkToRadioC__counter < 12 && (!BlinkToRadioC__busy || BlinkToRadioC__counter > 0);
}
