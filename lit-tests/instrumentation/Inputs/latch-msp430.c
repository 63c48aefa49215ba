/* MSP430 latch registers (spec/instrumentation.md, "Latch registers"): main
 * reads P5OUT (0x31, the TelosB LEDs) in a read-modify-write and P2IN (0x28,
 * an input port, never a latch). By default the Timer_A handler writes only
 * RAM, so the P5OUT read is deterministic. With -DHANDLER_ASM the handler runs
 * an inline asm statement replay does not know (`mov.b #1, &0x31` writes
 * P5OUT), with -DHANDLER_STORE it writes P5OUT from C: either way P5OUT reads
 * must be recorded. With -DWIDE main reads P5OUT as a 16-bit word at 0x30
 * (P5IN and P5OUT): not a byte latch, so it is recorded. */
#include <stdint.h>
#include <wsn/invariant.h>

#define P2IN (*(volatile uint8_t *)0x28)
#define P5OUT (*(volatile uint8_t *)0x31)
#define P5INOUT (*(volatile uint16_t *)0x30)

uint8_t level;
uint8_t seen;

WSN_INVARIANT(level_ok) { return level < 8; }

__attribute__((interrupt(54), used)) void timer_a0(void) {
  level = (level + 1) & 7;
#if defined(HANDLER_ASM)
  __asm__ __volatile__("mov.b #1, &0x31" ::: "memory");
#elif defined(HANDLER_STORE)
  P5OUT = 0x70;
#endif
}

int main(void) {
  for (;;) {
#ifdef WIDE
    P5INOUT = (uint16_t)((P5INOUT & ~0x0700) | (level << 8));
#else
    P5OUT = (uint8_t)((P5OUT & ~7) | level);
#endif
    seen = P2IN;
    WSN_CHECK(level_ok);
  }
}
