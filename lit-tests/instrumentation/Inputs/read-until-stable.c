/* nesC-shaped timer read (as TinyOS's Msp430TimerP$Timer$get): read the counter until two
 * reads agree, so that a read racing the asynchronous clock is not used. Recording each
 * read inside the loop would make the loop's two reads always disagree. */
#include <stdint.h>
#include <wsn/invariant.h>
#define TCNT1 (*(volatile uint16_t *)0x4C)
#define TCCR1B (*(volatile uint8_t *)0x4E)
uint16_t AppC$last, AppC$ticks;
WSN_INVARIANT(ticks_small) { return AppC$ticks < 60000u; }
uint16_t TimerP$Timer$get(void) {
  uint16_t t0, t1 = TCNT1;
  do {
    t0 = t1;
    t1 = TCNT1;
  } while (t0 != t1);
  return t1;
}
int main(void) {
  TCCR1B = 3; /* timer 1 counts every 64 CPU cycles */
  for (;;) {
    uint16_t now = TimerP$Timer$get();
    AppC$ticks += (uint8_t)(now - AppC$last);
    AppC$last = now;
    WSN_CHECK(ticks_small);
  }
}
