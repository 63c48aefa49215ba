/* Skipped calls and the interrupt flag (spec/instrumentation.md section 7.1). NestC$window and
 * NestC$quiet are out of line and write no global, so the instrumentation skips their calls
 * and records an effect. An interrupt handler that runs inside a skipped call is skipped with
 * it, so the effect must carry what the handlers write, unless interrupts are certainly off
 * during the whole call:
 *   - the timer handler (a signal handler: entered with interrupts off) calls quiet, which
 *     keeps them off: no handler writes in that effect;
 *   - it then calls window, which opens an interrupt window: the external interrupt runs
 *     inside the skipped call, and its write of NestC$pulses must be in that effect;
 *   - main calls quiet inside an atomic section (no handler writes) and outside (with them).
 * Replay must reproduce a run where pulses arrive inside the windows, byte for byte. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>
#include <wsn/invariant.h>

uint16_t NestC$ticks;
uint16_t NestC$pulses;
uint16_t NestC$loops;

WSN_INVARIANT(counts_ok) { return (uint16_t)(NestC$ticks + NestC$pulses) != 0xffffu; }

__attribute__((noinline)) void NestC$quiet(void) {
  for (volatile uint8_t i = 0; i < 3; ++i)
    ;
}

__attribute__((noinline)) void NestC$window(void) {
  sei();
  for (volatile uint8_t i = 0; i < 40; ++i)
    ;
  cli();
}

ISR(TIMER0_COMP_vect) {
  NestC$ticks++;
  NestC$quiet();
  NestC$window();
}

ISR(INT0_vect) { NestC$pulses++; }

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
    NestC$quiet();
    SREG = s;
    NestC$quiet();
    NestC$loops++;
    WSN_CHECK(counts_ok);
  }
}
