/* check-padding.c - an invariant input with a padding byte (MSP430: the uint16_t after the
 * uint8_t leaves a hole at +1). PadC$update copies a stack temporary whose hole it never
 * writes, so the copy carries whatever byte the stack held there: on the mote a byte of an
 * earlier local (different every tick), in replay a byte of replay's own stack. The check of
 * PadC$shaped checksums PadC$copy. */
#include "hal.h"

#include <wsn/invariant.h>

typedef struct {
  uint8_t tag;
  uint16_t val;
} PadC$rec_t;

PadC$rec_t PadC$copy;
uint16_t PadC$ticks;
uint16_t PadC$seen;
uint8_t PadC$flags;

WSN_DECLARE_INVARIANT(counted);
WSN_DECLARE_INVARIANT(shaped);

__attribute__((noinline)) void PadC$fill(PadC$rec_t *r, uint8_t x) {
  r->tag = x;
  r->val = (uint16_t)(x * 300u);
}

/* junk and t live at different times, so the mote's backend may give them one stack slot
 * (replay's locals never share one): t's hole then holds junk[1]. */
__attribute__((noinline)) void PadC$update(uint8_t x, uint8_t noise) {
  {
    volatile uint8_t junk[4];
    for (uint8_t i = 0; i < 4u; ++i)
      junk[i] = (uint8_t)(noise + 17u * i + 1u);
  }
  {
    PadC$rec_t t; /* its hole is never written */
    PadC$fill(&t, x);
    PadC$copy = t; /* the struct copy carries the hole's stack byte */
  }
}

HAL_TIMER_ISR() {
  PadC$ticks++;
  PadC$flags |= 1u;
}

WSN_INVARIANT(counted) { return PadC$seen <= PadC$ticks; }
WSN_INVARIANT(shaped) { return PadC$copy.tag != 0xFFu; }

int main(void) {
  hal_init();
  hal_timer_start();
  __nesc_enable_interrupt();
  for (;;) {
    uint8_t f;
    uint16_t now;
    {
      __nesc_atomic_t a = __nesc_atomic_start();
      f = PadC$flags;
      PadC$flags = 0;
      now = PadC$ticks;
      __nesc_atomic_end(a);
    }
    if (f & 1u) {
      PadC$seen++;
      PadC$update((uint8_t)(PadC$seen & 0x7Fu), (uint8_t)now);
    }
    WSN_CHECK(counted);
    WSN_CHECK(shaped);
  }
}
