/* Drives every CC2420 pin of the MicaZ board (spec/micaz.md) the way TinyOS's
 * micaz platform wires it: VREG_EN PA5, RESETn PA6, CSn PB0, SPI master on PB1-3,
 * FIFO PB7, FIFOP PE6 (INT6), CCA PD6, SFD PD4 (ICP1). Plain avr-gcc, no trace
 * runtime. Results in globals, read from sram.bin. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>

#include "cc2420-spi.h"

volatile uint8_t st_after_vreg;   /* status byte before SXOSCON */
volatile uint16_t xosc_polls;     /* SNOPs until XOSC16M_STABLE */
volatile uint8_t st_stable;
volatile uint16_t manfidl;
volatile uint8_t cca_xosc;        /* PD6 with IOCFG1.CCAMUX = 24 (XOSC16M_STABLE) */
volatile uint8_t fifop_before, fifop_inverted, int6_count;
volatile uint8_t fifo_before, fifo_inverted;
volatile uint8_t cca_rx;          /* PD6 in RX on a quiet channel */
volatile uint16_t icr_rise, icr_fall;
volatile uint8_t capt_count;
volatile uint8_t st_vreg_off;     /* SPI without supply */

ISR(INT6_vect) { ++int6_count; }

ISR(TIMER1_CAPT_vect) {
  if (capt_count == 0) {
    icr_rise = ICR1;
    TCCR1B &= ~_BV(ICES1); /* next: the falling edge */
  } else if (capt_count == 1) {
    icr_fall = ICR1;
  }
  ++capt_count;
}

int main(void) {
  /* VREG_EN and RESETn: outputs; regulator on with the chip in reset. */
  DDRA |= _BV(5) | _BV(6);
  PORTA &= ~_BV(6);
  PORTA |= _BV(5);
  delay4(2000); /* > 600 us */
  PORTA |= _BV(6);
  /* SPI: CSn, SCK, MOSI outputs; master at fosc/2. */
  PORTB |= _BV(0);
  DDRB |= _BV(0) | _BV(1) | _BV(2);
  SPCR = _BV(SPE) | _BV(MSTR);
  SPSR = _BV(SPI2X);

  st_after_vreg = strobe(0x01); /* SXOSCON */
  uint8_t st;
  do {
    st = strobe(0x00);
    ++xosc_polls;
  } while (!(st & 0x40));
  st_stable = st;
  manfidl = reg_read(0x1E);

  reg_write(0x1D, 24); /* IOCFG1.CCAMUX = XOSC16M_STABLE */
  cca_xosc = (PIND >> 6) & 1;
  reg_write(0x1D, 0);

  /* INT6 on the rising edge; then invert FIFOP's and FIFO's polarity. */
  EICRB = _BV(ISC61) | _BV(ISC60);
  EIFR = _BV(INTF6);
  EIMSK |= _BV(INT6);
  sei();
  fifop_before = (PINE >> 6) & 1;
  fifo_before = (PINB >> 7) & 1;
  reg_write(0x1C, 0x0040 | 0x0200 | 0x0400); /* IOCFG0: FIFOP_POL, FIFO_POL */
  fifop_inverted = (PINE >> 6) & 1;
  fifo_inverted = (PINB >> 7) & 1;
  reg_write(0x1C, 0x0040);
  EIMSK &= ~_BV(INT6);

  /* Receive on a quiet channel: CCA high once RSSI is valid. */
  strobe(0x03); /* SRXON */
  delay4(2000);
  cca_rx = (PIND >> 6) & 1;

  /* Transmit: SFD on ICP1, Timer1 at clk/1, rising edge first. */
  TCCR1A = 0;
  TCCR1B = _BV(ICES1) | _BV(CS10);
  TIFR = _BV(ICF1);
  TIMSK |= _BV(TICIE1);
  send3(0x01, 0x02, 0x03);
  while (capt_count < 2)
    ;
  TIMSK &= ~_BV(TICIE1);

  /* Regulator off: the SPI no longer answers. */
  PORTA &= ~_BV(5);
  st_vreg_off = strobe(0x00);
  for (;;)
    ;
}
