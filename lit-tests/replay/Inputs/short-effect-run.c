/* short-effect-run.c: a skipped call whose short effect ends where a run of globals goes on.
 * Run$bump, not selected, is skipped on the mote; its effect lists Run$buf (its own write,
 * the short form) and then the globals only the timer handler writes (Run$ticks, Run$flags).
 * Run$buf and Run$ticks are defined one after the other, so they sit next to each other in
 * RAM (both initialised: .data keeps the order of definition), and replay reads, compares
 * and writes them as one run of bytes. */
#include "hal.h"
#include <wsn/invariant.h>

uint16_t Run$buf[4] = {1, 2, 3, 4};
uint16_t Run$ticks = 1; /* written by the timer handler only */
uint8_t Run$flags;  /* handler -> main loop */
uint16_t Run$seen;

WSN_DECLARE_INVARIANT(ticks_seen);

__attribute__((noinline)) void Run$bump(uint16_t *p, uint8_t x) {
  *p = (uint16_t)(*p * 9u + x);
}

HAL_TIMER_ISR() {
  Run$ticks++;
  Run$flags |= 1u;
}

int main(void) {
  hal_init();
  hal_timer_start();
  __nesc_enable_interrupt();
  for (;;) {
    uint8_t f;
    {
      __nesc_atomic_t a = __nesc_atomic_start();
      f = Run$flags;
      Run$flags = 0;
      __nesc_atomic_end(a);
    }
    if (f & 1u) {
      Run$bump(&Run$buf[3], 150u);
      Run$seen = (uint16_t)(Run$seen + (Run$buf[3] & 1u) + 1u);
    }
    {
      __nesc_atomic_t a = __nesc_atomic_start();
      WSN_CHECK(ticks_seen);
      __nesc_atomic_end(a);
    }
    {
      __nesc_atomic_t a = __nesc_atomic_start();
      if (Run$flags == 0)
        hal_sleep();
      __nesc_atomic_end(a);
    }
  }
}

WSN_INVARIANT(ticks_seen) { return Run$seen <= (uint16_t)(2u * Run$ticks); }
