/* Acknowledgements through the medium (spec/cc2420.md): three MicaZ nodes, one
 * image, address recognition on (PAN 0x0022, short address = node id, written
 * to the CC2420's RAM), AUTOACK on. Node 1 sends a data frame with the
 * acknowledgement request bit to node 3; node 3's radio acknowledges it by
 * itself; node 1 reads the ACK frame from its RXFIFO (FCF 0x0002, the data
 * frame's sequence number). Node 2 hears the data frame too but its address
 * recognition drops it (and it sends no ACK). Plain avr-gcc. */
#include <avr/io.h>
#include <stdint.h>

#include "cc2420-spi.h"

uint16_t TOS_NODE_ID = 1;
volatile uint8_t ack_len, ack_fcf0, ack_fcf1, ack_seq, ack_crc_ok, got_ack;

int main(void) {
  radio_power_up();
  /* RAM 0x168: PANID, then SHORTADR (bank 2, address 0x68). */
  csn_low();
  spi(0x80 | 0x68);
  spi(2 << 6);
  spi(0x22);
  spi(0x00);
  spi(TOS_NODE_ID & 0xFF);
  spi(TOS_NODE_ID >> 8);
  csn_high();
  reg_write(0x11, 0x0AE2 | 0x0010); /* MDMCTRL0: reset value (ADR_DECODE, AUTOCRC) + AUTOACK */
  strobe(0x03);                     /* SRXON */
  delay4(3000);
  if (TOS_NODE_ID != 1)
    for (;;)
      ;
  strobe(0x09);
  csn_low();
  spi(0x3E);
  spi(11);   /* length: 9 bytes + FCS */
  spi(0x61); /* FCF: data frame, ACK request, PAN ID compression */
  spi(0x88); /* short destination and source addresses */
  spi(0x5A); /* sequence number */
  spi(0x22); /* destination PAN */
  spi(0x00);
  spi(0x03); /* destination: node 3 */
  spi(0x00);
  spi(0x01); /* source: node 1 */
  spi(0x00);
  csn_high();
  strobe(0x04); /* STXON */
  /* The ACK arrives 12 symbols after the frame: wait for FIFOP (a complete frame). */
  while (!(PINE & _BV(6)))
    ;
  csn_low();
  spi(0x7F);
  ack_len = spi(0);
  ack_fcf0 = spi(0);
  ack_fcf1 = spi(0);
  ack_seq = spi(0);
  spi(0);
  ack_crc_ok = spi(0) >> 7;
  csn_high();
  got_ack = 1;
  for (;;)
    ;
}
