/* invariants.c - Blink's invariant (thesis TC1: the LEDs must follow the tick pattern). */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint16_t BlinkC$ticks;
extern uint8_t BlinkC$backlog;
extern uint16_t BlinkC$shown;
extern uint8_t BlinkC$leds;

/* Every timer tick is shown exactly once (shown + pending == taken), and the LEDs show the
 * low three bits of the shown count. Checked with interrupts off. */
WSN_INVARIANT(blink_pattern) {
  return (uint16_t)(BlinkC$shown + BlinkC$backlog) == BlinkC$ticks &&
         BlinkC$leds == (uint8_t)(BlinkC$shown & 7);
}
