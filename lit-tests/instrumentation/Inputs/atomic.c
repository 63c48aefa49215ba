/* Counted references inside and outside a nesC atomic section (interrupts disabled by the
 * program itself): spec/instrumentation.md section 10, regions inside atomic sections. */
#include <stdint.h>
#include <wsn/invariant.h>

uint16_t ticks; /* written by the handler: interrupt-shared */
uint16_t seen;

WSN_INVARIANT(seen_le_ticks) { return seen <= ticks; }

#if defined(__AVR__)
#define SREG (*(volatile uint8_t *)0x5F)
static inline __attribute__((always_inline)) uint8_t atomic_start(void) {
  uint8_t s = SREG;
  __asm__ __volatile__("cli" ::: "memory");
  return s;
}
static inline __attribute__((always_inline)) void atomic_end(uint8_t s) {
  __asm__ __volatile__("" ::: "memory");
  SREG = s;
}
__attribute__((signal, used)) void __vector_15(void) { ticks++; }
#else
static inline __attribute__((always_inline)) uint16_t atomic_start(void) {
  uint16_t s;
  __asm__ __volatile__("mov r2, %0\n\tdint\n\tnop" : "=r"(s) : : "memory");
  return s;
}
static inline __attribute__((always_inline)) void atomic_end(uint16_t s) {
  __asm__ __volatile__("" ::: "memory");
  if (s & 8)
    __asm__ __volatile__("nop\n\teint\n\tnop" ::: "memory");
}
__attribute__((interrupt(9))) void timer_isr(void) { ticks++; }
#endif

int main(void) {
  for (;;) {
    seen = ticks; /* outside: the region disables interrupts itself */
    {
      __typeof__(atomic_start()) a = atomic_start();
      seen = (uint16_t)(ticks + 1); /* inside: interrupts are already off */
      atomic_end(a);
    }
    WSN_CHECK(seen_le_ticks);
  }
}
