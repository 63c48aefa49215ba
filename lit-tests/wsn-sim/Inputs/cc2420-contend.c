/* Three MicaZ nodes, one image, contending for the channel through their
 * CC2420s (spec/cc2420.md, "Medium"). All nodes boot identically, so their
 * busy-wait delays end at the same cycle:
 *   phase 1: nodes 1 and 2 both strobe STXON at the same moment: their frames
 *     overlap at node 3 with equal power and both are lost there (capture
 *     needs one to be 3 dB above the other);
 *   phase 2: node 1 sends a long frame (100-byte PSDU, 3.4 ms on the air);
 *     while it is on the air (node 2 samples its CCA pin first) node 2 strobes
 *     STXONCCA, which the radio refuses (CCA low); node 2 retries until the
 *     channel is free.
 * Address recognition is off; node 3 only listens. Plain avr-gcc. */
#include <avr/io.h>
#include <stdint.h>

#include "cc2420-spi.h"

uint16_t TOS_NODE_ID = 1;
volatile uint16_t refusals; /* STXONCCA strobes that did not start a transmission */
volatile uint8_t cca_before; /* node 2: CCA pin (PD6) just before its STXONCCA */

static void load(uint8_t psdu_len) {
  strobe(0x09); /* SFLUSHTX */
  csn_low();
  spi(0x3E);
  spi(psdu_len);
  for (uint8_t i = 0; i + 2 < psdu_len; ++i)
    spi((uint8_t)(TOS_NODE_ID + i));
  csn_high();
}

int main(void) {
  radio_power_up();
  reg_write(0x11, 0x02E2); /* MDMCTRL0: no address recognition, AUTOCRC, CCA mode 3 */
  strobe(0x03);            /* SRXON */
  delay4(3000);
  /* Phase 1: simultaneous STXON on nodes 1 and 2. */
  if (TOS_NODE_ID == 1 || TOS_NODE_ID == 2) {
    load(12);
    strobe(0x04);
  }
  delay4(10000); /* ~5.4 ms: both frames are over */
  /* Phase 2: a long frame from node 1, node 2 tries to send over it with CCA. */
  if (TOS_NODE_ID == 1) {
    load(100);
    strobe(0x04);
  } else if (TOS_NODE_ID == 2) {
    load(12);
    delay4(1500); /* node 1's turnaround and preamble are over: its frame is on the air */
    cca_before = (PIND >> 6) & 1;
    for (;;) {
      strobe(0x05); /* STXONCCA */
      if (strobe(0x00) & 0x08) /* TX_ACTIVE: it started */
        break;
      ++refusals;
      delay4(200);
    }
  }
  for (;;)
    ;
}
