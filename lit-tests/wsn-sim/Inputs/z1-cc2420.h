/* z1-cc2420.h - the Z1 (msp430f2617) CC2420 access of the wsn-sim lit programs, wired as
 * spec/z1.md says: USCI_B0 in SPI master mode (UCB0SIMO P3.1, UCB0SOMI P3.2, UCB0CLK P3.3),
 * CSn P3.0, VREG_EN P4.5, RESETn P4.6; FIFOP P1.2, FIFO P1.3, CCA P1.4, SFD P4.1 (Timer_B
 * CCI1A). Registers by address (MSP430x2xx Family User's Guide SLAU144: chapter 8 ports,
 * chapter 16 USCI SPI, chapter 13 Timer_B; the F2617 datasheet's peripheral map). */
#ifndef WSN_LIT_Z1_CC2420_H
#define WSN_LIT_Z1_CC2420_H

#include <stdint.h>

#define REG8(a) (*(volatile uint8_t *)(a))
#define REG16(a) (*(volatile uint16_t *)(a))

#define IFG2 REG8(0x0003)
#define P1IN REG8(0x0020)
#define P1IFG REG8(0x0023)
#define P1IES REG8(0x0024)
#define P1IE REG8(0x0025)
#define P3OUT REG8(0x0019)
#define P5OUT REG8(0x0031)
#define P5DIR REG8(0x0032)
#define P3DIR REG8(0x001A)
#define P3SEL REG8(0x001B)
#define P4IN REG8(0x001C)
#define P4OUT REG8(0x001D)
#define P4DIR REG8(0x001E)
#define UCB0CTL0 REG8(0x0068)
#define UCB0CTL1 REG8(0x0069)
#define UCB0BR0 REG8(0x006A)
#define UCB0BR1 REG8(0x006B)
#define UCB0RXBUF REG8(0x006E)
#define UCB0TXBUF REG8(0x006F)
#define WDTCTL REG16(0x0120)
#define TBCTL REG16(0x0180)
#define TBCCTL1 REG16(0x0184)
#define TBCCR1 REG16(0x0194)

#define UCB0RXIFG 0x04 /* IFG2 */

/* clang's interrupt(N) counts 2-byte slots of the table ending at 0xFFFE: (vector - 0xFF80)/2. */
#define PORT1_SLOT 50 /* 0xFFE4 on the F2617 */

static inline void delay4(uint16_t n) {
  for (volatile uint16_t i = 0; i < n; ++i)
    ;
}
static inline uint8_t spi(uint8_t b) {
  IFG2 &= ~UCB0RXIFG;
  UCB0TXBUF = b;
  while (!(IFG2 & UCB0RXIFG))
    ;
  return UCB0RXBUF;
}
static inline void csn_low(void) { P3OUT &= ~1u; }
static inline void csn_high(void) { P3OUT |= 1u; }
static inline uint8_t strobe(uint8_t s) {
  csn_low();
  uint8_t st = spi(s);
  csn_high();
  return st;
}
static inline void reg_write(uint8_t a, uint16_t v) {
  csn_low();
  spi(a);
  spi(v >> 8);
  spi(v & 0xFF);
  csn_high();
}
static inline uint16_t reg_read(uint8_t a) {
  csn_low();
  spi(0x40 | a);
  uint16_t v = (uint16_t)spi(0) << 8;
  v |= spi(0);
  csn_high();
  return v;
}
/* USCI_B0 as SPI master on SMCLK / 2 (SLAU144 §16.3.1: UCSWRST set while configuring; UCCKPH,
 * UCMSB, UCMST, 3-pin, UCSYNC; UCSSEL_2 = SMCLK), its pins in module function. */
static inline void spi_init(void) {
  UCB0CTL1 = 0x80 | 0x01;            /* UCSSEL_2 | UCSWRST */
  UCB0CTL0 = 0x80 | 0x20 | 0x08 | 0x01; /* UCCKPH | UCMSB | UCMST | UCSYNC */
  UCB0BR0 = 2;
  UCB0BR1 = 0;
  P3SEL |= 0x0E; /* UCB0SIMO, UCB0SOMI, UCB0CLK */
  UCB0CTL1 &= ~0x01;
}
/* Power the radio up (spec/z1.md): VREG_EN high, the regulator's start-up wait (> 600 us),
 * RESETn high, CSn idle high, then SXOSCON and SNOP until XOSC16M_STABLE (0x40). */
static inline void radio_power_up(void) {
  P3DIR |= 1u;
  P3OUT |= 1u;
  P4DIR |= (1u << 5) | (1u << 6);
  P4OUT |= 1u << 5;
  delay4(100);
  P4OUT |= 1u << 6;
  spi_init();
  strobe(0x01);
  while (!(strobe(0x00) & 0x40))
    ;
}
static inline void watchdog_hold(void) { WDTCTL = 0x5A80; }

#endif
