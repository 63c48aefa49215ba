/* cc2420-spi.h - the MicaZ CC2420 access the wsn-sim lit programs share: SPI master byte
 * exchange on port B, CSn on PB0 (pins in spec/micaz.md), under cc2420-cmd.h's command strobes
 * and 16-bit register access. */
#ifndef WSN_LIT_CC2420_SPI_H
#define WSN_LIT_CC2420_SPI_H

#include <avr/io.h>
#include <stdint.h>

#include "cc2420-cmd.h"

static inline uint8_t spi(uint8_t b) {
  SPDR = b;
  while (!(SPSR & _BV(SPIF)))
    ;
  return SPDR;
}
static inline void csn_low(void) { PORTB &= ~_BV(0); }
static inline void csn_high(void) { PORTB |= _BV(0); }
/* Power the radio up as the MicaZ wires it (spec/micaz.md): VREG_EN (PA5) high, the
 * regulator's start-up wait, RESETn (PA6) high, CSn idle high, SPI master at clk/2, then
 * SXOSCON and SNOP until the status byte shows XOSC16M_STABLE (0x40). */
static inline void radio_power_up(void) {
  DDRA |= _BV(5) | _BV(6);
  PORTA |= _BV(5);
  delay4(2000);
  PORTA |= _BV(6);
  PORTB |= _BV(0);
  DDRB |= _BV(0) | _BV(1) | _BV(2);
  SPCR = _BV(SPE) | _BV(MSTR);
  SPSR = _BV(SPI2X);
  strobe(0x01);
  while (!(strobe(0x00) & 0x40))
    ;
}

#endif
