/* A timer handler that writes PORTB only through a pointer taken from a table of ports, and
 * touches no global the invariant needs: it is not selected, so replay does not run it. Main
 * copies PORTB into a sliced global on every loop. PORTB must therefore be a recorded input
 * (spec/instrumentation.md, latch registers); were it a latch, replay would keep its value from
 * the checkpoint and `seen` would differ from the recorded run. */
#include <avr/io.h>
#include <stdint.h>
#include <wsn/invariant.h>

volatile uint8_t *const PortPtrC$ports[2] = {&PORTB, &PORTD};
static uint8_t PortPtrC$which;
uint8_t PortPtrC$seen;
uint16_t PortPtrC$loops;

WSN_INVARIANT(seen_ok) { return (PortPtrC$seen & (uint8_t)~0x10) == 0 && PortPtrC$loops < 60000u; }

void __vector_15(void) __attribute__((signal, used)); /* TIMER0_COMP */
void __vector_15(void) {
  *PortPtrC$ports[PortPtrC$which & 1] ^= 0x10;
  PortPtrC$which ^= 2; /* stays on PORTB */
}

int main(void) {
  OCR0 = 40;
  TCCR0 = (1 << WGM01) | (1 << CS01); /* CTC, clk/8 */
  TIMSK |= (1 << OCIE0);
  __asm__ __volatile__("sei" ::: "memory");
  for (;;) {
    PortPtrC$seen = PORTB;
    PortPtrC$loops++;
    WSN_CHECK(seen_ok);
  }
}
