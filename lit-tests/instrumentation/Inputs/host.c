/* A host build of a mote-style program: the "interrupt" is a plain function the main loop
 * calls (the host has no interrupts), the register read is a volatile load, and the
 * invariant fails at the fifth tick (the bug: `seen` runs one ahead there). */
#include <stdint.h>
#include <stdlib.h>
#include <wsn/invariant.h>

uint16_t ticks, seen;
uint8_t leds;
volatile uint8_t sensor = 3;

WSN_INVARIANT(seen_le_ticks) { return seen <= ticks; }

__attribute__((noinline)) void timer_isr(void) { ticks++; }
__attribute__((noinline)) void show(uint8_t v) { leds = v; }

int main(void) {
  uint8_t round = 0;
  for (;;) {
    timer_isr();
    seen = ticks + (ticks == 5) + (leds > 7); /* leds <= 7: replay reads it */
    show(sensor & 7);
    WSN_CHECK(seen_le_ticks);
    if (++round == 8)
      exit(0);
  }
}
