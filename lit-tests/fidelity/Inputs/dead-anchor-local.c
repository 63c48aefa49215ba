/* dead-anchor-local.c - the main loop's locals that are dead at its anchor (reduced from
 * progfuzz --mcu msp430f1611 program 15 at -O2). Every iteration takes a struct-return
 * temporary (DeadLocalC$mk's result, copied to a global) and two WSN_CHECK results, each
 * between its own lifetime markers, so the backend's stack colouring may put them in one slot. */
#include "hal.h"

#include <wsn/invariant.h>

typedef struct {
  uint8_t tag;
  uint8_t spare; /* no padding byte: its value would be unspecified */
  uint16_t val;
  uint32_t acc;
} DeadLocalC$rec_t;

DeadLocalC$rec_t DeadLocalC$copy;
uint16_t DeadLocalC$ticks;
uint16_t DeadLocalC$seen;
uint8_t DeadLocalC$flags;

WSN_DECLARE_INVARIANT(counted);
WSN_DECLARE_INVARIANT(tagged);

__attribute__((noinline)) DeadLocalC$rec_t DeadLocalC$mk(uint8_t x) {
  DeadLocalC$rec_t r;
  r.tag = (uint8_t)(x ^ 28u);
  r.spare = x;
  r.val = (uint16_t)(x * 922u);
  r.acc = (uint32_t)x << 3;
  return r;
}

HAL_TIMER_ISR() {
  DeadLocalC$ticks++;
  DeadLocalC$flags |= 1u;
}

WSN_INVARIANT(counted) { return DeadLocalC$seen <= DeadLocalC$ticks; }
WSN_INVARIANT(tagged) { return DeadLocalC$copy.tag != 0xFFu; }

int main(void) {
  hal_init();
  {
    DeadLocalC$rec_t t = DeadLocalC$mk(158u);
    DeadLocalC$ticks = (uint16_t)(t.val + t.tag);
  }
  hal_timer_start();
  __nesc_enable_interrupt();
  for (;;) {
    uint8_t f;
    {
      __nesc_atomic_t a = __nesc_atomic_start();
      f = DeadLocalC$flags;
      DeadLocalC$flags = 0;
      __nesc_atomic_end(a);
    }
    if (f & 1u) {
      __nesc_atomic_t a = __nesc_atomic_start();
      DeadLocalC$seen++;
      DeadLocalC$copy = DeadLocalC$mk((uint8_t)(93u + DeadLocalC$seen));
      __nesc_atomic_end(a);
    }
    WSN_CHECK(counted);
    WSN_CHECK(tagged);
  }
}
