/* Timer/Counter0 clocked asynchronously from the 32.768 kHz crystal, driven
 * the way TinyOS's micaz timer stack drives it (an alarm rebuilt on every
 * compare interrupt, OCR0 sometimes set below TCNT0): plain avr-gcc, no trace
 * runtime.
 *   - init: AS0 set, then TCNT0, OCR0 and TCCR0 written (CTC, clk_T0S/32); ASSR is
 *     sampled right after the writes (all three update-busy flags set) and
 *     polled until they clear;
 *   - every compare interrupt: TCCR0 = TCCR0 and a wait on TCR0UB (TinyOS's
 *     stabiliseTimer0), TCNT1 (clk/1024) stamped, then a new OCR0 written after
 *     waiting for OCR0UB: alternating 31 and 63 (32 and 64 timer clocks);
 *   - after WRAP_AT fires the interrupt leaves OCR0 alone and the main loop,
 *     once TCNT0 has passed 20, sets OCR0 = 10, below the counter: the counter
 *     runs on to MAX, wraps (TOV0) and matches at 10;
 *   - main: sleeps (idle) with interrupts on. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#define NSTAMPS 16
#define WRAP_AT 8
volatile uint16_t fires;
volatile uint16_t stamps[NSTAMPS];
volatile uint8_t assr_after_writes;
volatile uint8_t assr_settled;
volatile uint16_t busy_polls;
volatile uint8_t tov_seen;
volatile uint16_t wrap_stamp;
volatile uint8_t wrap_tcnt;

ISR(TIMER0_COMP_vect) {
  TCCR0 = TCCR0;
  while (ASSR & _BV(TCR0UB))
    ;
  uint16_t t = TCNT1;
  if (fires < NSTAMPS)
    stamps[fires] = t;
  ++fires;
  if (fires == WRAP_AT + 1)
    tov_seen = TIFR & _BV(TOV0);
  if (fires == WRAP_AT)
    return; /* main sets OCR0 below TCNT0 */
  while (ASSR & _BV(OCR0UB))
    ;
  OCR0 = (fires & 1) ? 63 : 31;
}

int main(void) {
  TCCR1B = _BV(CS12) | _BV(CS10); /* Timer1: clk/1024, the stopwatch */
  ASSR |= _BV(AS0);
  TCNT0 = 0;
  OCR0 = 31;
  TCCR0 = _BV(WGM01) | _BV(CS01) | _BV(CS00); /* CTC, clk_T0S/32 */
  assr_after_writes = ASSR;
  while (ASSR & (_BV(TCN0UB) | _BV(OCR0UB) | _BV(TCR0UB)))
    ++busy_polls;
  assr_settled = ASSR;
  TIFR = _BV(OCF0) | _BV(TOV0);
  TIMSK |= _BV(OCIE0);
  sei();
  set_sleep_mode(SLEEP_MODE_IDLE);
  for (;;) {
    if (fires == WRAP_AT && !wrap_stamp) {
      while (TCNT0 < 20)
        ;
      cli();
      wrap_tcnt = TCNT0;
      wrap_stamp = TCNT1;
      OCR0 = 10;
      sei();
    }
    sleep_mode();
  }
}
