/* telosb-cc2420.h - the TelosB (msp430f1611) CC2420 access the wsn-sim lit programs share,
 * wired as spec/telosb.md says: USART0 in SPI master mode (SIMO0 P3.1, SOMI0 P3.2, UCLK0 P3.3),
 * CSn P4.2, FIFOP P1.0; the rest as msp430-cc2420.h says. Registers by address (MSP430x1xx
 * Family User's Guide SLAU049: chapter 14 USART SPI; the F1611 datasheet's peripheral map). */
#ifndef WSN_LIT_TELOSB_CC2420_H
#define WSN_LIT_TELOSB_CC2420_H

#define FIFOP_BIT 0
#define LED0_BIT 4 /* red */
#define LED1_BIT 5 /* green */
#define LED2_BIT 6 /* blue */
/* clang's interrupt(N) counts 2-byte slots of the table ending at 0xFFFE: (vector - 0xFF80)/2. */
#define PORT1_SLOT 52 /* 0xFFE8 */

#include "msp430-cc2420.h"

#define IE1 REG8(0x0000)
#define IFG1 REG8(0x0002)
#define ME1 REG8(0x0004)
#define U0CTL REG8(0x0070)
#define U0TCTL REG8(0x0071)
#define U0MCTL REG8(0x0073)
#define U0BR0 REG8(0x0074)
#define U0BR1 REG8(0x0075)
#define U0RXBUF REG8(0x0076)
#define U0TXBUF REG8(0x0077)

#define URXIFG0 0x40 /* IFG1 */
#define USPIE0 0x40  /* ME1 */

static inline uint8_t spi(uint8_t b) {
  IFG1 &= ~URXIFG0;
  U0TXBUF = b;
  while (!(IFG1 & URXIFG0))
    ;
  return U0RXBUF;
}
static inline void csn_low(void) { P4OUT &= ~(1u << 2); }
static inline void csn_high(void) { P4OUT |= 1u << 2; }
static inline void csn_idle_high(void) {
  P4DIR |= 1u << 2;
  P4OUT |= 1u << 2;
}
/* USART0 as SPI master on SMCLK / 2 (SLAU049 §14.2.1: SWRST set while configuring; CHAR 8-bit,
 * SYNC, MM master; SSEL1 = SMCLK, STC 3-pin), its pins in module function. */
static inline void spi_init(void) {
  U0CTL = 0x01 | 0x10 | 0x04 | 0x02; /* SWRST | CHAR | SYNC | MM */
  U0TCTL = 0x20 | 0x02 | 0x80;       /* SSEL1 (SMCLK) | STC | CKPH */
  U0BR0 = 2;
  U0BR1 = 0;
  U0MCTL = 0;
  P3SEL |= 0x0E; /* SIMO0, SOMI0, UCLK0 */
  ME1 |= USPIE0;
  U0CTL &= ~0x01;
}

#endif
