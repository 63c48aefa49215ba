/* z1-cc2420.h - the Z1 (msp430f2617) CC2420 access of the wsn-sim lit programs, wired as
 * spec/z1.md says: USCI_B0 in SPI master mode (UCB0SIMO P3.1, UCB0SOMI P3.2, UCB0CLK P3.3),
 * CSn P3.0, FIFOP P1.2; the rest as msp430-cc2420.h says. Registers by address (MSP430x2xx
 * Family User's Guide SLAU144: chapter 16 USCI SPI; the F2617 datasheet's peripheral map). */
#ifndef WSN_LIT_Z1_CC2420_H
#define WSN_LIT_Z1_CC2420_H

#define FIFOP_BIT 2
#define LED0_BIT 4 /* red */
#define LED1_BIT 6 /* green */
#define LED2_BIT 5 /* yellow */
/* clang's interrupt(N) counts 2-byte slots of the table ending at 0xFFFE: (vector - 0xFF80)/2. */
#define PORT1_SLOT 50 /* 0xFFE4 on the F2617 */

#include "msp430-cc2420.h"

#define IFG2 REG8(0x0003)
#define UCB0CTL0 REG8(0x0068)
#define UCB0CTL1 REG8(0x0069)
#define UCB0BR0 REG8(0x006A)
#define UCB0BR1 REG8(0x006B)
#define UCB0RXBUF REG8(0x006E)
#define UCB0TXBUF REG8(0x006F)

#define UCB0RXIFG 0x04 /* IFG2 */

static inline uint8_t spi(uint8_t b) {
  IFG2 &= ~UCB0RXIFG;
  UCB0TXBUF = b;
  while (!(IFG2 & UCB0RXIFG))
    ;
  return UCB0RXBUF;
}
static inline void csn_low(void) { P3OUT &= ~1u; }
static inline void csn_high(void) { P3OUT |= 1u; }
static inline void csn_idle_high(void) {
  P3DIR |= 1u;
  P3OUT |= 1u;
}
/* USCI_B0 as SPI master on SMCLK / 2 (SLAU144 §16.3.1: UCSWRST set while configuring; UCCKPH,
 * UCMSB, UCMST, 3-pin, UCSYNC; UCSSEL_2 = SMCLK), its pins in module function. */
static inline void spi_init(void) {
  UCB0CTL1 = 0x80 | 0x01;               /* UCSSEL_2 | UCSWRST */
  UCB0CTL0 = 0x80 | 0x20 | 0x08 | 0x01; /* UCCKPH | UCMSB | UCMST | UCSYNC */
  UCB0BR0 = 2;
  UCB0BR1 = 0;
  P3SEL |= 0x0E; /* UCB0SIMO, UCB0SOMI, UCB0CLK */
  UCB0CTL1 &= ~0x01;
}

#endif
