/* msp430-cc2420.h - what the TelosB (telosb-cc2420.h) and Z1 (z1-cc2420.h) CC2420 access of
 * the wsn-sim lit programs share: the port and Timer_B registers by address (SLAU049 chapters
 * 9 and 13, SLAU144 chapters 8 and 13: the same addresses on both parts), the commands of
 * cc2420-cmd.h, the radio's power-up and the LEDs. VREG_EN P4.5, RESETn P4.6, FIFO P1.3,
 * CCA P1.4, SFD P4.1 (Timer_B CCI1A) and the LEDs on P5.4-P5.6 are wired alike on both boards.
 *
 * The board's header defines, before including this file, FIFOP_BIT (FIFOP's port 1 bit),
 * LED0_BIT, LED1_BIT, LED2_BIT (port 5), PORT1_SLOT; and after it the SPI bus (spi_init, spi)
 * and the chip select (csn_idle_high: an output driven high; csn_low, csn_high). */
#ifndef WSN_LIT_MSP430_CC2420_H
#define WSN_LIT_MSP430_CC2420_H

#include <stdint.h>

#define REG8(a) (*(volatile uint8_t *)(a))
#define REG16(a) (*(volatile uint16_t *)(a))

#define P1IN REG8(0x0020)
#define P1OUT REG8(0x0021)
#define P1DIR REG8(0x0022)
#define P1IFG REG8(0x0023)
#define P1IES REG8(0x0024)
#define P1IE REG8(0x0025)
#define P3OUT REG8(0x0019)
#define P3DIR REG8(0x001A)
#define P3SEL REG8(0x001B)
#define P4IN REG8(0x001C)
#define P4OUT REG8(0x001D)
#define P4DIR REG8(0x001E)
#define P5OUT REG8(0x0031)
#define P5DIR REG8(0x0032)
#define WDTCTL REG16(0x0120)
#define TBCTL REG16(0x0180)
#define TBCCTL1 REG16(0x0184)
#define TBCCR1 REG16(0x0194)

#define FIFOP_MASK (1u << FIFOP_BIT)
#define LEDS_MASK ((1u << LED0_BIT) | (1u << LED1_BIT) | (1u << LED2_BIT))

#include "cc2420-cmd.h"

static inline void spi_init(void);
static inline void csn_idle_high(void);

/* Power the radio up (spec/telosb.md, spec/z1.md): VREG_EN high, the regulator's start-up wait
 * (> 600 us), RESETn high, CSn idle high, then SXOSCON and SNOP until XOSC16M_STABLE (0x40). */
static inline void radio_power_up(void) {
  csn_idle_high();
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
/* The low three bits of v on the LEDs (Led0 bit 0 ... Led2 bit 2; lit = pin driven low). */
static inline void leds_show(uint8_t v) {
  uint8_t lit = 0;
  if (v & 1u)
    lit |= 1u << LED0_BIT;
  if (v & 2u)
    lit |= 1u << LED1_BIT;
  if (v & 4u)
    lit |= 1u << LED2_BIT;
  P5OUT = (uint8_t)((P5OUT | LEDS_MASK) & ~lit);
}

#endif
