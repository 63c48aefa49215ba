/* invariants.c - RadioCountToLedsWithSenderID (SaeidRezaei90/RadioCountToLedsWithSenderID's
 * committed build/telosb/app.c) for bench/tinyos/run.py. Three MilliTimers (1000, 333 and
 * 200 ms) each advance RadioCountToLedsC__counter (about 9 a second) and send it with their
 * sender id; `locked` is set when the send is accepted and cleared by the radio's sendDone.
 * The deliberately violable bound "the counter stays below 30" fails about 3.3 s after the
 * radio started. The second term (a send in flight carries a counter already advanced)
 * always holds; it puts the send and sendDone paths into the slice, and every write of
 * `locked` is a check. */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint16_t RadioCountToLedsC__counter;
extern uint8_t RadioCountToLedsC__locked;

WSN_INVARIANT(counter_below_30) {
  return RadioCountToLedsC__counter < 30 &&
         (!RadioCountToLedsC__locked || RadioCountToLedsC__counter > 0);
}
