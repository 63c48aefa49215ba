/* The three MicaZ LEDs (PA2 red, PA1 green, PA0 yellow; lit when the pin is an
 * output driven low), switched in a fixed order with busy waits between the
 * steps. Plain avr-gcc, no trace runtime. */
#include <avr/io.h>
#include <stdint.h>

static void wait(void) {
  for (volatile uint16_t i = 0; i < 1000; ++i)
    ;
}

int main(void) {
  PORTA = 0x07; /* pins high first: all dark when they become outputs */
  DDRA = 0x07;
  wait();
  PORTA &= ~_BV(2); /* red on */
  wait();
  PORTA &= ~_BV(1); /* green on */
  wait();
  PORTA &= ~_BV(0); /* yellow on */
  wait();
  DDRA &= ~_BV(2); /* red pin an input: dark */
  wait();
  PORTA = 0x07; /* all high: dark */
  for (;;)
    ;
}
