/* whole-effect-once.c: a global that a skipped callee and an interrupt handler both write.
 * Dup$work, not selected, is skipped; its effect holds what it writes (Dup$shared, Dup$mine)
 * and what the timer handler may write while it runs (Dup$shared, Dup$ticks, Dup$flags). The
 * whole record (a tick inside the call) holds Dup$shared once; the short form (no tick
 * inside) holds the callee's two globals. Dup$work's loop is long enough that some calls
 * take a tick and others do not, so the trace has both forms. */
#include "hal.h"
#include <wsn/invariant.h>

uint16_t Dup$shared = 1; /* written by Dup$work and by the timer handler */
uint16_t Dup$ticks;      /* the timer handler only */
uint8_t Dup$flags;       /* the timer handler -> the main loop */
uint8_t Dup$mine[3];     /* Dup$work only */
uint16_t Dup$seen;

WSN_DECLARE_INVARIANT(seen_bounded);

__attribute__((noinline)) void Dup$work(uint8_t x) {
  for (volatile uint8_t i = 0; i < 60; ++i)
    ;
  Dup$shared = (uint16_t)(Dup$shared * 5u + x);
  Dup$mine[x % 3u]++;
}

HAL_TIMER_ISR() {
  Dup$ticks++;
  Dup$shared ^= 0x5a5au;
  Dup$flags |= 1u;
}

int main(void) {
  uint8_t n = 0;
  hal_init();
  hal_timer_start();
  __nesc_enable_interrupt();
  for (;;) {
    Dup$work(n++);
    Dup$seen = (uint16_t)(Dup$seen + (Dup$shared & 3u) + Dup$mine[1]);
    {
      __nesc_atomic_t a = __nesc_atomic_start();
      if (Dup$flags) {
        Dup$flags = 0;
        Dup$seen = (uint16_t)(Dup$seen + Dup$ticks);
      }
      WSN_CHECK(seen_bounded);
      __nesc_atomic_end(a);
    }
  }
}

WSN_INVARIANT(seen_bounded) { return Dup$seen != 0xffffu || Dup$ticks == 0u; }
