/* effect-z.c: effects mostly of zero bytes. Zed$work, not selected, is skipped; the timer
 * handler that may run inside it writes one slot of Zed$log (24 bytes, mostly 0), so the whole
 * form of the effect holds the log, Zed$ticks and the callee's Zed$count. Built without effect
 * keys, a full EFFECT whose zero bytes are more than its mask bytes is written as EFFECT_Z
 * (spec/trace-format.md section 3.6). */
#include "hal.h"
#include <wsn/invariant.h>

uint8_t Zed$log[24];  /* the timer handler only: one slot set, the one before cleared */
uint16_t Zed$ticks;   /* the timer handler only */
uint16_t Zed$count;   /* Zed$work only */
uint16_t Zed$seen;

WSN_DECLARE_INVARIANT(seen_bounded);

__attribute__((noinline)) void Zed$work(uint8_t x) {
  for (volatile uint8_t i = 0; i < 60; ++i)
    ;
  Zed$count = (uint16_t)(Zed$count + x);
}

HAL_TIMER_ISR() {
  uint8_t k = (uint8_t)(Zed$ticks % 24u);
  Zed$log[k] = 0;
  Zed$ticks++;
  Zed$log[Zed$ticks % 24u] = (uint8_t)(Zed$ticks | 1u);
}

int main(void) {
  uint8_t n = 0;
  hal_init();
  hal_timer_start();
  __nesc_enable_interrupt();
  for (;;) {
    Zed$work(n++);
    {
      __nesc_atomic_t a = __nesc_atomic_start();
      Zed$seen = (uint16_t)(Zed$seen + Zed$log[Zed$ticks % 24u] + (Zed$count & 1u));
      WSN_CHECK(seen_bounded);
      __nesc_atomic_end(a);
    }
  }
}

WSN_INVARIANT(seen_bounded) { return Zed$seen != 0xffffu || Zed$ticks == 0u; }
