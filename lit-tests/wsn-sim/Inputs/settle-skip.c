/* settle-skip.c: a main loop that spends nearly all its time in a long uninstrumented call
 * (level 1 skips Work$long: nothing the invariant reads depends on it), with a timer
 * interrupt whose handler is instrumented (it writes a global the loop reads). A cycle bound
 * almost always stops the node inside the skipped call. */
#include <stdint.h>
#include <avr/io.h>
#include <avr/interrupt.h>
#include <wsn/invariant.h>

volatile uint8_t Timer$ticks;
uint16_t Work$sum;
uint16_t App$rounds;
uint16_t App$seen;

__attribute__((noinline)) void Work$long(void) {
  for (uint16_t i = 0; i < 20000; ++i) {
    __asm__ __volatile__("nop");
    Work$sum = (uint16_t)(Work$sum + i);
  }
}

ISR(TIMER0_COMP_vect) { Timer$ticks++; }

WSN_INVARIANT(rounds_small) { return App$rounds < 1000; }

int main(void) {
  OCR0 = 200;
  TCCR0 = (1 << WGM01) | (1 << CS01) | (1 << CS00); /* CTC, clk/32: every 6432 cycles */
  TIMSK |= (1 << OCIE0);
  sei();
  for (;;) {
    Work$long();
    App$seen = (uint16_t)(App$seen + Timer$ticks);
    App$rounds++;
    WSN_CHECK(rounds_small);
  }
}
