/* A handler writes an array element through a global pointer (INT0: *PtrC$cursor += 7).
 * The timer handler (instrumented: it writes PtrC$ticks, which the invariant reads) calls
 * PtrC$window, which is not instrumented and opens an interrupt window. The call is skipped
 * in replay, and a pulse taken inside the window is skipped with it, so the call's effect must
 * carry what the pulse handler writes (spec/instrumentation.md section 7). The map lists only
 * PtrC$ticks for it: the write through the pointer (PtrC$buf) is missing, and replay diverges
 * at the next check after a pulse inside a window. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>
#include <wsn/invariant.h>

uint16_t PtrC$buf[4];
uint16_t *PtrC$cursor = &PtrC$buf[2];
uint16_t PtrC$ticks;

WSN_INVARIANT(buf_ok) { return PtrC$buf[2] != 0xFFFFu && PtrC$ticks != 0xFFFFu; }

__attribute__((noinline)) void PtrC$window(void) {
  sei();
  for (volatile uint8_t i = 0; i < 40; ++i)
    ;
  cli();
}

ISR(TIMER0_COMP_vect) {
  PtrC$ticks++;
  PtrC$window();
}

ISR(INT0_vect) { *PtrC$cursor += 7; }

int main(void) {
  OCR0 = 250;
  TCCR0 = (1 << WGM01) | (1 << CS02); /* CTC, clk/64: every 16000 cycles */
  TIMSK |= (1 << OCIE0);
  EICRA = (1 << ISC01);
  EIMSK |= (1 << INT0);
  sei();
  for (;;) {
    uint8_t s = SREG;
    cli();
    WSN_CHECK(buf_ok);
    SREG = s;
  }
}
