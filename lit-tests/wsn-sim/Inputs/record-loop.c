/* record-loop.c: main's loop writes records all the time (an INPUT for each port read in the
 * invariant's slice, a CHECK each round), so a stop at almost any cycle falls inside a record
 * write (spec/trace-format.md section 1.1). For wsn-sim --full-trace at such a stop (lit
 * wsn-sim/full-trace-open.test). Builds for atmega128 (PINA) and msp430 (P2IN).
 * Project-written. */
#include <stdint.h>
#include <wsn/invariant.h>

#ifdef __MSP430__
extern volatile unsigned int WDTCTL __asm("__""WDTCTL");
extern const volatile unsigned char P2IN __asm("__""P2IN");
#define PORT_IN P2IN
#else
#include <avr/io.h>
#define PORT_IN PINA
#endif

uint16_t LoopC$sum;
uint16_t LoopC$rounds;

WSN_INVARIANT(sum_small) { return LoopC$sum < 60000u || LoopC$rounds < 2; }

int main(void) {
#ifdef __MSP430__
  WDTCTL = 0x5A80; /* WDTPW | WDTHOLD */
#endif
  for (;;) {
    LoopC$sum += PORT_IN;
    ++LoopC$rounds;
    WSN_CHECK(sum_small);
  }
}
