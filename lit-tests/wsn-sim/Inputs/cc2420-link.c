/* Two MicaZ nodes, one image, talking through their CC2420s and wsn-sim's
 * 802.15.4 medium (spec/cc2420.md, spec/micaz.md). Node 1 sends one frame whose
 * payload byte is 5; node 2 listens, polls FIFOP (PE6), reads the frame from the
 * RXFIFO over SPI and shows the payload's low three bits on its LEDs (Led0
 * bit 0 ... Led2 bit 2; lit = pin driven low). Address recognition is off
 * (MDMCTRL0.ADR_DECODE = 0), AUTOCRC on: the FCS is appended on transmit and
 * replaced by RSSI and CRC-ok/correlation on receive. Plain avr-gcc. */
#include <avr/io.h>
#include <stdint.h>

#include "cc2420-spi.h"

uint16_t TOS_NODE_ID = 1;
volatile uint8_t rx_len, rx_payload, rx_crc_ok, rx_done;

int main(void) {
  PORTA = 0x07; /* LEDs dark */
  DDRA = 0x07;
  radio_power_up();
  reg_write(0x11, 0x02E2); /* MDMCTRL0: reset value without ADR_DECODE */
  strobe(0x03);            /* SRXON */
  if (TOS_NODE_ID == 1) {
    delay4(4000); /* let the receiver listen */
    send3(0x41, 0x88, 5 /* payload */);
    for (;;)
      ;
  }
  /* Receiver: FIFOP (active high, IOCFG0 reset polarity) once a frame is in. */
  while (!(PINE & _BV(6)))
    ;
  csn_low();
  spi(0x7F); /* RXFIFO, read */
  rx_len = spi(0);
  spi(0);
  spi(0);
  rx_payload = spi(0);
  spi(0);                          /* RSSI */
  rx_crc_ok = spi(0) >> 7;         /* CRC ok bit, then correlation */
  csn_high();
  if (rx_crc_ok)
    PORTA = (uint8_t)(0x07 & ~rx_payload) | _BV(5) | _BV(6);
  rx_done = 1;
  for (;;)
    ;
}
