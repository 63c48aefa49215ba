/* TinyOS's idle loop: interrupts are enabled only for the instruction after
 * SEI, which is SLEEP (McuSleep: sei; sleep; cli). An interrupt that became
 * pending while I was clear must be taken right after that SLEEP ("the
 * instruction following SEI will be executed before any pending interrupts").
 * INT0 (PD0, output, falling edge) is triggered by the program itself with
 * interrupts off; then the loop runs. Plain avr-gcc, no trace runtime. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

volatile uint8_t taken;
volatile uint16_t loops;

ISR(INT0_vect) { taken = 1; }

int main(void) {
  PORTD |= _BV(0);
  DDRD |= _BV(0);
  EICRA = _BV(ISC01); /* INT0 on the falling edge */
  EIFR = _BV(INTF0);
  EIMSK = _BV(INT0);
  PORTD &= ~_BV(0); /* the edge, with interrupts off: INT0 pending */
  set_sleep_mode(SLEEP_MODE_IDLE);
  sleep_enable();
  while (!taken && loops < 1000) {
    ++loops;
    __asm__ __volatile__("sei\n\tsleep\n\tcli" ::: "memory");
  }
  for (;;)
    ;
}
