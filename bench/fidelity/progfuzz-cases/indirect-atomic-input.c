/* An indirect call that may reach an instrumented (op1) and an uninstrumented (op0) function is
 * not skipped (wsn-trace warns) and replay runs op0 uncounted. The call is inside an atomic
 * section, after an input read. On the mote, a timer interrupt pending during the section runs at
 * SREG = s, after op0; replay drains it at the input record's callback, before op0. op0 reads
 * IndC$c, which the handler writes, so IndC$a differs at the next checkpoint.
 * Reduced from generated program 1118 (indirect-uninstrumented-atomic/). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>
#include <wsn/invariant.h>

uint8_t IndC$a;      /* written by op0 (not instrumented), from c */
uint8_t IndC$b;      /* main copies a here, so a is in the checkpoint */
uint8_t IndC$r;      /* written by op1 (instrumented: the invariant reads it) */
uint8_t IndC$c;      /* written by the timer handler, read by op0 */
uint16_t IndC$ticks;

WSN_INVARIANT(ok) { return (uint16_t)(IndC$ticks + IndC$r) != 0xEEEEu; }

static void IndC$op0(uint8_t x) { IndC$a = (uint8_t)(IndC$a * 3u + IndC$c + x); }
static void IndC$op1(uint8_t x) { IndC$r = (uint8_t)(IndC$r + x); }
static void (*const IndC$ops[2])(uint8_t) = {&IndC$op0, &IndC$op1};

ISR(TIMER0_COMP_vect) {
  IndC$ticks++;
  IndC$c = (uint8_t)(IndC$c + 7u);
}

int main(void) {
  OCR0 = 20;
  TCCR0 = (1 << WGM01) | (1 << CS02); /* CTC, clk/64: every 1344 cycles */
  TIMSK |= (1 << OCIE0);
  sei();
  for (;;) {
    uint8_t s = SREG;
    cli();
    IndC$r = (uint8_t)(IndC$r + 1u + (PINC & 1u)); /* an input: a callback in replay */
    IndC$ops[IndC$r & 1u](1);
    SREG = s;
    IndC$b = IndC$a;
    WSN_CHECK(ok);
  }
}
