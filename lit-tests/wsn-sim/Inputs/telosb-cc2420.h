/* telosb-cc2420.h - the TelosB (msp430f1611) CC2420 access the wsn-sim lit programs share,
 * wired as spec/telosb.md says: USART0 in SPI master mode (SIMO0 P3.1, SOMI0 P3.2, UCLK0 P3.3),
 * CSn P4.2, VREG_EN P4.5, RESETn P4.6; FIFOP P1.0, FIFO P1.3, CCA P1.4, SFD P4.1 (Timer_B
 * CCI1A). Registers by address (MSP430x1xx Family User's Guide SLAU049: chapter 9 ports,
 * chapter 14 USART SPI, chapter 13 Timer_B; the F1611 datasheet's peripheral map). */
#ifndef WSN_LIT_TELOSB_CC2420_H
#define WSN_LIT_TELOSB_CC2420_H

#include <stdint.h>

#define REG8(a) (*(volatile uint8_t *)(a))
#define REG16(a) (*(volatile uint16_t *)(a))

#define IE1 REG8(0x0000)
#define IFG1 REG8(0x0002)
#define ME1 REG8(0x0004)
#define P1IN REG8(0x0020)
#define P1OUT REG8(0x0021)
#define P1DIR REG8(0x0022)
#define P1IFG REG8(0x0023)
#define P1IES REG8(0x0024)
#define P1IE REG8(0x0025)
#define P3SEL REG8(0x001B)
#define P3DIR REG8(0x001A)
#define P4IN REG8(0x001C)
#define P4OUT REG8(0x001D)
#define P4DIR REG8(0x001E)
#define P5OUT REG8(0x0031)
#define P5DIR REG8(0x0032)
#define U0CTL REG8(0x0070)
#define U0TCTL REG8(0x0071)
#define U0MCTL REG8(0x0073)
#define U0BR0 REG8(0x0074)
#define U0BR1 REG8(0x0075)
#define U0RXBUF REG8(0x0076)
#define U0TXBUF REG8(0x0077)
#define WDTCTL REG16(0x0120)
#define TBCTL REG16(0x0180)
#define TBCCTL1 REG16(0x0184)
#define TBCCR1 REG16(0x0194)

#define URXIFG0 0x40 /* IFG1 */
#define USPIE0 0x40  /* ME1 */

/* clang's interrupt(N) counts 2-byte slots of the table ending at 0xFFFE: (vector - 0xFF80)/2. */
#define PORT1_SLOT 52 /* 0xFFE8 */

/* About 4n cycles (a volatile counter: the compiler keeps every iteration). */
static inline void delay4(uint16_t n) {
  for (volatile uint16_t i = 0; i < n; ++i)
    ;
}
static inline uint8_t spi(uint8_t b) {
  IFG1 &= ~URXIFG0;
  U0TXBUF = b;
  while (!(IFG1 & URXIFG0))
    ;
  return U0RXBUF;
}
static inline void csn_low(void) { P4OUT &= ~(1u << 2); }
static inline void csn_high(void) { P4OUT |= 1u << 2; }
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
/* Power the radio up (spec/telosb.md): VREG_EN high, the regulator's start-up wait (> 600 us),
 * RESETn high, CSn idle high, then SXOSCON and SNOP until XOSC16M_STABLE (0x40). */
static inline void radio_power_up(void) {
  P4DIR |= (1u << 2) | (1u << 5) | (1u << 6);
  P4OUT |= 1u << 2;
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
