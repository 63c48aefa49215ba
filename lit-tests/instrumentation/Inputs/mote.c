/* A small mote program exercising every recording rule (spec/instrumentation.md):
 * an interrupt handler sharing globals with main, a register read, an uninstrumented
 * helper, an invariant check and the infinite main loop (an anchor site). */
#include <stdint.h>
#include <wsn/invariant.h>

uint16_t ticks;   /* written by the handler: interrupt-shared */
uint16_t seen;    /* read by the invariant */
uint8_t flags;    /* written by the handler */
uint8_t leds;     /* only the uninstrumented helper writes it */

WSN_INVARIANT(seen_le_ticks) { return seen <= ticks; }

#if defined(__AVR__)
__attribute__((signal, used)) void __vector_15(void) {
#elif defined(__MSP430__)
__attribute__((interrupt(9))) void timer_isr(void) {
#else
void timer_isr(void) {
#endif
  ticks++;
  flags |= 1;
}

__attribute__((noinline)) void show(uint8_t v) { leds = v; }

int main(void) {
  uint8_t round = 0;
  for (;;) {
    uint8_t sw = *(volatile uint8_t *)0x36;
    seen = ticks;
    flags = 0;
    show(sw & 0x0F);
    ++round;
    WSN_CHECK(seen_le_ticks);
  }
}
