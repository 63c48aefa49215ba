/* The Z1 twin of telosb-link.c (spec/z1.md): node 1 sends one frame whose payload byte is
 * PAYLOAD; node 2 listens, polls FIFOP (P1.2), reads the frame from the RXFIFO over USCI_B0
 * and shows the payload's low three bits on its LEDs (Led0 P5.4 bit 0, Led1 P5.6 bit 1, Led2
 * P5.5 bit 2; lit = pin driven low). Address recognition off (MDMCTRL0.ADR_DECODE = 0),
 * AUTOCRC on. nesC-shaped names. */
#include "z1-cc2420.h"

#ifndef PAYLOAD
#define PAYLOAD 6
#endif
#ifndef SEND_DELAY
#define SEND_DELAY 2000
#endif

uint16_t TOS_NODE_ID = 1;
volatile uint8_t LinkC$rx_len, LinkC$rx_payload, LinkC$rx_crc_ok, LinkC$rx_done;

int main(void) {
  watchdog_hold();
  P5OUT |= 0x70; /* LEDs dark */
  P5DIR |= 0x70;
  radio_power_up();
  reg_write(0x11, 0x02E2); /* MDMCTRL0: reset value without ADR_DECODE */
  strobe(0x03);            /* SRXON */
  if (TOS_NODE_ID == 1) {
    delay4(SEND_DELAY); /* let the receiver listen */
    csn_low();
    spi(0x3E); /* TXFIFO */
    spi(5);    /* length: 3 bytes + FCS */
    spi(0x41);
    spi(0x88);
    spi(PAYLOAD);
    csn_high();
    strobe(0x04); /* STXON */
    for (;;)
      ;
  }
  /* Receiver: FIFOP (active high, IOCFG0 reset polarity) once a frame is in. */
  while (!(P1IN & (1u << 2)))
    ;
  csn_low();
  spi(0x7F); /* RXFIFO, read */
  LinkC$rx_len = spi(0);
  spi(0);
  spi(0);
  LinkC$rx_payload = spi(0);
  spi(0);                        /* RSSI */
  LinkC$rx_crc_ok = spi(0) >> 7; /* CRC ok bit, then correlation */
  csn_high();
  if (LinkC$rx_crc_ok) {
    uint8_t p = LinkC$rx_payload, lit = 0;
    if (p & 1u)
      lit |= 1u << 4;
    if (p & 2u)
      lit |= 1u << 6;
    if (p & 4u)
      lit |= 1u << 5;
    P5OUT = (uint8_t)((P5OUT | 0x70) & ~lit);
  }
  LinkC$rx_done = 1;
  for (;;)
    ;
}
