/* msp430-link.c - the program of telosb-link.c and z1-link.c, over their board's header
 * (telosb-cc2420.h, z1-cc2420.h: included first). Node 1 sends one frame whose payload byte
 * is PAYLOAD; node 2 listens, polls FIFOP, reads the frame from the RXFIFO and shows the
 * payload's low three bits on its LEDs (leds_show). Address recognition off
 * (MDMCTRL0.ADR_DECODE = 0), AUTOCRC on. nesC-shaped names. */
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
  P5OUT |= LEDS_MASK; /* LEDs dark */
  P5DIR |= LEDS_MASK;
  radio_power_up();
  reg_write(0x11, 0x02E2); /* MDMCTRL0: reset value without ADR_DECODE */
  strobe(0x03);            /* SRXON */
  if (TOS_NODE_ID == 1) {
    delay4(SEND_DELAY); /* let the receiver listen */
    send3(0x41, 0x88, PAYLOAD);
    for (;;)
      ;
  }
  /* Receiver: FIFOP (active high, IOCFG0 reset polarity) once a frame is in. */
  while (!(P1IN & FIFOP_MASK))
    ;
  csn_low();
  spi(0x7F); /* RXFIFO, read */
  LinkC$rx_len = spi(0);
  spi(0);
  spi(0);
  LinkC$rx_payload = spi(0);
  spi(0);                          /* RSSI */
  LinkC$rx_crc_ok = spi(0) >> 7;   /* CRC ok bit, then correlation */
  csn_high();
  if (LinkC$rx_crc_ok)
    leds_show(LinkC$rx_payload);
  LinkC$rx_done = 1;
  for (;;)
    ;
}
