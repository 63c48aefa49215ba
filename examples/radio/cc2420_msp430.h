/* cc2420_msp430.h - the TelosB's and the Z1's side of cc2420.c (the interface is listed in
 * cc2420_avr.h). Both boards wire the CC2420 as TinyOS's platform files do (spec/telosb.md,
 * spec/z1.md): FIFO P1.3, CCA P1.4, SFD P4.1, VREG_EN P4.5, RESETn P4.6 on both;
 *   TelosB (msp430f1611): SPI on USART0 (SLAU049 chapter 14), CSn P4.2, FIFOP P1.0;
 *   Z1 (msp430f2617):     SPI on USCI_B0 (SLAU144 chapter 16), CSn P3.0, FIFOP P1.2.
 * Registers by address, as hal_msp430.h writes them (the msp430mcu headers' values).
 *
 * FIFOP takes the port 1 interrupt (sig_PORT1_VECTOR), the vector hal_ext_start's line (P1.7)
 * uses too: a program with the radio cannot also use HAL_EXT_ISR on MSP430. */
#ifndef WSN_RADIO_CC2420_MSP430_H
#define WSN_RADIO_CC2420_MSP430_H

#include "hal.h" /* HAL_REG8, the atomic section, HAL_PORT1_SLOT, HAL_ISR_ */

static inline __nesc_atomic_t RadioC$atomicStart(void) { return __nesc_atomic_start(); }
static inline void RadioC$atomicEnd(__nesc_atomic_t s) { __nesc_atomic_end(s); }

/* RadioC$busyWait's loop takes 8-9 cycles an iteration (clang -Os: the nop, the count and a
 * test of the borrow through SR), at the DCO's reset frequency, which the examples keep
 * (hal_msp430.h): 800 kHz on the F1611 and 1.1 MHz on the F2617 in wsn-sim's clock models
 * (run.json "frequency"). The counts are per part, below. */

#define RADIO_P1IN HAL_REG8(0x0020)
#define RADIO_P1DIR HAL_REG8(0x0022)
#define RADIO_P1IFG HAL_REG8(0x0023)
#define RADIO_P1IES HAL_REG8(0x0024)
#define RADIO_P1IE HAL_REG8(0x0025)
#define RADIO_P3OUT HAL_REG8(0x0019)
#define RADIO_P3DIR HAL_REG8(0x001A)
#define RADIO_P3SEL HAL_REG8(0x001B)
#define RADIO_P4IN HAL_REG8(0x001C)
#define RADIO_P4OUT HAL_REG8(0x001D)
#define RADIO_P4DIR HAL_REG8(0x001E)

#define RADIO_FIFO_BIT 0x08  /* P1.3 */
#define RADIO_CCA_BIT 0x10   /* P1.4 */
#define RADIO_SFD_BIT 0x02   /* P4.1 */
#define RADIO_VREG_BIT 0x20  /* P4.5 */
#define RADIO_RESETN_BIT 0x40 /* P4.6 */

#if defined(__MSP430F1611__)
#define RADIO_WAIT_REGULATOR 100   /* 1 ms: the regulator starts in at most 0.6 ms (Table 4) */
#define RADIO_WAIT_RESET 2
#define RADIO_WAIT_BACKOFF_UNIT 30 /* 320 us: 20 symbols, the 802.15.4 unit backoff period */
#define RADIO_WAIT_ACK_STEP 10     /* 100 us */
#define RADIO_FIFOP_BIT 0x01 /* P1.0 */
#define RADIO_CSN_OUT RADIO_P4OUT
#define RADIO_CSN_DIR RADIO_P4DIR
#define RADIO_CSN_BIT 0x04 /* P4.2 */
/* USART0: U0CTL 0x70, U0TCTL 0x71, U0MCTL 0x73, U0BR0/1 0x74/0x75, U0RXBUF 0x76, U0TXBUF
 * 0x77; ME1 0x04 (USPIE0 0x40), IFG1 0x02 (URXIFG0 0x40). SPI master on SMCLK / 2
 * (SLAU049 14.2.1: SWRST held while configuring; CHAR 8-bit, SYNC, MM; CKPH, SSEL1 = SMCLK,
 * STC 3-pin), SIMO0/SOMI0/UCLK0 (P3.1-P3.3) in module function. Reading U0RXBUF clears
 * URXIFG0 (14.2.6). */
#define RADIO_SPI_INIT()                                                                        \
  do {                                                                                          \
    HAL_REG8(0x0070) = 0x01 | 0x10 | 0x04 | 0x02;                                               \
    HAL_REG8(0x0071) = 0x80 | 0x20 | 0x02;                                                      \
    HAL_REG8(0x0074) = 2;                                                                       \
    HAL_REG8(0x0075) = 0;                                                                       \
    HAL_REG8(0x0073) = 0;                                                                       \
    RADIO_P3SEL |= 0x0E;                                                                        \
    HAL_REG8(0x0004) |= 0x40;                                                                   \
    HAL_REG8(0x0070) &= (uint8_t)~0x01;                                                         \
  } while (0)
#define RADIO_SPI_PUT(b) (HAL_REG8(0x0077) = (b))
#define RADIO_SPI_BUSY() (!(HAL_REG8(0x0002) & 0x40))
#define RADIO_SPI_GET() HAL_REG8(0x0076)
#elif defined(__MSP430F2617__)
#define RADIO_WAIT_REGULATOR 130   /* 1 ms */
#define RADIO_WAIT_RESET 2
#define RADIO_WAIT_BACKOFF_UNIT 41 /* 320 us */
#define RADIO_WAIT_ACK_STEP 13     /* 100 us */
#define RADIO_FIFOP_BIT 0x04 /* P1.2 */
#define RADIO_CSN_OUT RADIO_P3OUT
#define RADIO_CSN_DIR RADIO_P3DIR
#define RADIO_CSN_BIT 0x01 /* P3.0 */
/* USCI_B0: UCB0CTL0 0x68, UCB0CTL1 0x69, UCB0BR0/1 0x6A/0x6B, UCB0RXBUF 0x6E, UCB0TXBUF 0x6F;
 * IFG2 0x03 (UCB0RXIFG 0x04). SPI master on SMCLK / 2 (SLAU144 16.3.1: UCSWRST held while
 * configuring; UCCKPH, UCMSB, UCMST, 3-pin, UCSYNC; UCSSEL_2 = SMCLK), UCB0SIMO/SOMI/CLK
 * (P3.1-P3.3) in module function. Reading UCB0RXBUF clears UCB0RXIFG (16.3.7). */
#define RADIO_SPI_INIT()                                                                        \
  do {                                                                                          \
    HAL_REG8(0x0069) = 0x80 | 0x01;                                                             \
    HAL_REG8(0x0068) = 0x80 | 0x20 | 0x08 | 0x01;                                               \
    HAL_REG8(0x006A) = 2;                                                                       \
    HAL_REG8(0x006B) = 0;                                                                       \
    RADIO_P3SEL |= 0x0E;                                                                        \
    HAL_REG8(0x0069) &= (uint8_t)~0x01;                                                         \
  } while (0)
#define RADIO_SPI_PUT(b) (HAL_REG8(0x006F) = (b))
#define RADIO_SPI_BUSY() (!(HAL_REG8(0x0003) & 0x04))
#define RADIO_SPI_GET() HAL_REG8(0x006E)
#else
#error "cc2420_msp430.h: the TelosB (msp430f1611) or the Z1 (msp430f2617)"
#endif

/* SFD is also Timer_B's capture input CCI1A (both boards; TinyOS's CaptureSFDC). At the reset
 * DCO a traced interrupt handler takes longer than a short frame is on the air (radio-sense's
 * 22-byte reading: about 0.7 ms, 560 cycles at 800 kHz), so a transmitter polling the pin for
 * the rising edge could miss the whole pulse and wait for ever (seed 1 on the F1611: the 24th
 * frame). Timer_B runs continuously on SMCLK with channel 1 capturing SFD's rising edge
 * (SLAU049 12.2.4 / SLAU144 13.2.4: CAP, CM_1, CCIS_0); the capture flag CCIFG latches the
 * edge until RADIO_SFD_ARM clears it before the next transmission. TBCTL 0x0180, TBCCTL1
 * 0x0184. */
#define RADIO_TBCTL HAL_REG16(0x0180)
#define RADIO_TBCCTL1 HAL_REG16(0x0184)
#define RADIO_SFD_ARM() (RADIO_TBCCTL1 &= (uint16_t)~0x0003) /* CCIFG, COV */
#define RADIO_SFD_SEEN() (RADIO_TBCCTL1 & 0x0001)

/* CSn, VREG_EN, RESETn out (CSn idle high); FIFOP, FIFO, CCA, SFD in; the SFD capture; then
 * the SPI master. */
#define RADIO_PINS_INIT()                                                                       \
  do {                                                                                          \
    RADIO_CSN_DIR |= RADIO_CSN_BIT;                                                             \
    RADIO_CSN_HIGH();                                                                           \
    RADIO_P4DIR = (uint8_t)((RADIO_P4DIR | RADIO_VREG_BIT | RADIO_RESETN_BIT) & ~RADIO_SFD_BIT); \
    RADIO_P1DIR &= (uint8_t)~(RADIO_FIFOP_BIT | RADIO_FIFO_BIT | RADIO_CCA_BIT);                \
    RADIO_TBCCTL1 = 0x4000 | 0x0100;         /* CM_1 (rising edge) | CAP, input CCI1A */       \
    RADIO_TBCTL = 0x0200 | 0x0020 | 0x0004; /* TBSSEL_2 (SMCLK) | MC_2 (continuous) | TBCLR */ \
    RADIO_SPI_INIT();                                                                           \
  } while (0)

#define RADIO_CSN_LOW() (RADIO_CSN_OUT &= (uint8_t)~RADIO_CSN_BIT)
#define RADIO_CSN_HIGH() (RADIO_CSN_OUT |= RADIO_CSN_BIT)
#define RADIO_VREG_ON() (RADIO_P4OUT |= RADIO_VREG_BIT)
#define RADIO_RESETN_LOW() (RADIO_P4OUT &= (uint8_t)~RADIO_RESETN_BIT)
#define RADIO_RESETN_HIGH() (RADIO_P4OUT |= RADIO_RESETN_BIT)

#define RADIO_FIFO() (RADIO_P1IN & RADIO_FIFO_BIT)
#define RADIO_FIFOP() (RADIO_P1IN & RADIO_FIFOP_BIT)
#define RADIO_CCA() (RADIO_P1IN & RADIO_CCA_BIT)
#define RADIO_SFD() (RADIO_P4IN & RADIO_SFD_BIT)

/* Port 1 interrupt on FIFOP's rising edge (PxIES bit clear: low-to-high, SLAU049 9.2.7 /
 * SLAU144 8.2.6). The port flag stays set until software clears it: the handler clears it
 * first, so that an edge while it empties the FIFO calls it again. */
#define RADIO_FIFOP_IRQ_INIT()                                                                  \
  do {                                                                                          \
    RADIO_P1IES &= (uint8_t)~RADIO_FIFOP_BIT;                                                   \
    RADIO_P1IFG &= (uint8_t)~RADIO_FIFOP_BIT;                                                   \
    RADIO_P1IE |= RADIO_FIFOP_BIT;                                                              \
  } while (0)
#define RADIO_FIFOP_ISR() HAL_ISR_(HAL_PORT1_SLOT, sig_PORT1_VECTOR)
#define RADIO_FIFOP_ACK() (RADIO_P1IFG &= (uint8_t)~RADIO_FIFOP_BIT)

#endif
