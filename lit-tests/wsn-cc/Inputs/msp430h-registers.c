/* Plain mote C for the msp430f1611 through msp430mcu's <msp430.h>: its sfrb/sfrw macros
 * declare every register as `extern volatile T X __asm("__X")`, the address left to periph.x. */
#include <msp430.h>
#include <stdint.h>
#include <wsn/invariant.h>
uint16_t AppC$seen;
WSN_INVARIANT(seen_small) { return AppC$seen < 1000; }
int main(void) {
  WDTCTL = WDTPW | WDTHOLD;
  for (;;) {
    AppC$seen += P2IN & 3;
    WSN_CHECK(seen_small);
  }
}
