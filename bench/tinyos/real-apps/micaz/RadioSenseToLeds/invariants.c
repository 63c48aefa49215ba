/* invariants.c - RadioSenseToLeds (TinyOS apps/RadioSenseToLeds, micaz) for bench/tinyos/run.py.
 * The app has no counter of its own: its 250 ms MilliTimer (HilTimerMilliC's virtual timer 1)
 * starts a sensor read whose readDone sends the reading and sets `locked`; the radio's sendDone
 * clears it. The virtual timer's base time t0 (ms) advances by the period at every fire, so
 * the deliberately violable bound "the sense timer's base stays below 3000 ms" fails at about
 * the 12th fire. The second term (a send in flight belongs to the running 250 ms timer) always
 * holds; it puts the read/send/sendDone path into the slice, and every write of `locked` or of
 * the timer table is a check. */
#include <stdint.h>
#include <wsn/invariant.h>

/* VirtualizeTimerC's Timer_t on the AVR: t0, dt, then one byte of bit-fields (9 bytes). */
struct vtimer {
  uint32_t t0;
  uint32_t dt;
  uint8_t flags;
} __attribute__((packed));

extern struct vtimer VirtualizeTimerC__0__m_timers[2];
extern uint8_t RadioSenseToLedsC__locked;

WSN_INVARIANT(sense_timer_below_3s) {
  return VirtualizeTimerC__0__m_timers[1].t0 < 3000 &&
         (!RadioSenseToLedsC__locked || VirtualizeTimerC__0__m_timers[1].dt == 250);
}
