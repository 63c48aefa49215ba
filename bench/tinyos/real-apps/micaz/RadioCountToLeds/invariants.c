/* invariants.c - RadioCountToLeds (TinyOS apps/RadioCountToLeds, micaz) for bench/tinyos/run.py.
 * The 250 ms MilliTimer advances RadioCountToLedsC__counter and sends it; `locked` is set
 * when the send is accepted and cleared by the radio's sendDone. The bound on the counter is
 * deliberately violable: it fails at the 12th timer fire (about 3 s after boot). The second
 * term (a send in flight carries a counter already advanced) always holds; it puts the send
 * and sendDone paths into the slice, and every write of `locked` is a check too. */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint16_t RadioCountToLedsC__counter;
extern uint8_t RadioCountToLedsC__locked;

WSN_INVARIANT(counter_below_12) {
  return RadioCountToLedsC__counter < 12 &&
         (!RadioCountToLedsC__locked || RadioCountToLedsC__counter > 0);
}
