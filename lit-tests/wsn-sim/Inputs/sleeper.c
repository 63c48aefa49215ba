/* Active cycles: Timer1 in CTC mode at clk/1024 with OCR1A = 99 interrupts every 102400
 * cycles (ATmega128 datasheet, "16-bit Timer/Counter1": CTC period (OCR1A + 1) * N); the
 * handler counts and the main loop sleeps (idle) between interrupts, so the core is awake for
 * a few dozen cycles per period. BUSY=1 never sleeps. Plain avr-gcc, no trace runtime. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

volatile uint16_t ticks;

ISR(TIMER1_COMPA_vect) { ++ticks; }

int main(void) {
  OCR1A = 99;
  TCCR1B = _BV(WGM12) | _BV(CS12) | _BV(CS10); /* CTC on OCR1A, clk/1024 */
  TIMSK |= _BV(OCIE1A);
  sei();
  for (;;) {
#if BUSY
    __asm__ __volatile__("nop");
#else
    set_sleep_mode(SLEEP_MODE_IDLE);
    sleep_mode();
#endif
  }
}
