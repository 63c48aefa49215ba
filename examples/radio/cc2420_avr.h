/* cc2420_avr.h - the MicaZ's side of cc2420.c: how the atmega128 reaches its CC2420
 * (spec/micaz.md): the SPI master on PB1-PB3, CSn PB0, FIFO PB7, CCA PD6, SFD PD4, FIFOP PE6
 * (INT6), VREG_EN PA5, RESETn PA6. cc2420_msp430.h is the same interface for the TelosB and Z1.
 *
 * What a platform file gives cc2420.c (macros, so each board's code is what a hand-written
 * driver for it would be):
 *   __nesc_atomic_t, RadioC$atomicStart(), RadioC$atomicEnd(s)   atomic sections
 *   RADIO_WAIT_REGULATOR, RADIO_WAIT_RESET, RADIO_WAIT_BACKOFF_UNIT, RADIO_WAIT_ACK_STEP
 *        RadioC$busyWait counts for 1 ms, a RESETn pulse, 320 us and 100 us
 *   RADIO_PINS_INIT()          pin directions and the SPI master, radio still unpowered
 *   RADIO_SPI_PUT(b), RADIO_SPI_BUSY(), RADIO_SPI_GET()   one byte over the SPI bus
 *   RADIO_CSN_LOW(), RADIO_CSN_HIGH(), RADIO_VREG_ON(), RADIO_RESETN_LOW(), RADIO_RESETN_HIGH()
 *   RADIO_FIFO(), RADIO_FIFOP(), RADIO_CCA(), RADIO_SFD()   pin levels (non-zero: high)
 *   RADIO_SFD_ARM(), RADIO_SFD_SEEN()   before a transmission / polled until its SFD rose:
 *                              the pin itself here; a latched capture of the edge where an
 *                              interrupt handler may outlast a short frame (cc2420_msp430.h)
 *   RADIO_FIFOP_IRQ_INIT()     interrupt on FIFOP's rising edge, flag cleared, enabled
 *   RADIO_FIFOP_ISR()          defines the FIFOP handler; RADIO_FIFOP_ACK() is its first
 *                              statement (clears the flag where the hardware does not) */
#ifndef WSN_RADIO_CC2420_AVR_H
#define WSN_RADIO_CC2420_AVR_H

#include <avr/interrupt.h>
#include <avr/io.h>

typedef uint8_t __nesc_atomic_t;
static inline __nesc_atomic_t RadioC$atomicStart(void) {
  __nesc_atomic_t s = SREG;
  cli();
  return s;
}
static inline void RadioC$atomicEnd(__nesc_atomic_t s) { SREG = s; }

/* RadioC$busyWait: about 5 cycles an iteration at 7.3728 MHz, so 1475 is 1 ms. */
#define RADIO_WAIT_REGULATOR 1475 /* regulator start-up: at most 0.6 ms (datasheet Table 4) */
#define RADIO_WAIT_RESET 10
#define RADIO_WAIT_BACKOFF_UNIT 472 /* 320 us: 20 symbols, the 802.15.4 unit backoff period */
#define RADIO_WAIT_ACK_STEP 147     /* 100 us */

/* MicaZ pins (spec/micaz.md). */
#define CSN_PORT PORTB
#define CSN_BIT 0
#define FIFO_PIN PINB
#define FIFO_BIT 7
#define CCA_PIN PIND
#define CCA_BIT 6
#define SFD_PIN PIND
#define SFD_BIT 4
#define FIFOP_PIN PINE
#define FIFOP_BIT 6
#define VREG_PORT PORTA
#define VREG_BIT 5
#define RESETN_PORT PORTA
#define RESETN_BIT 6

/* CSn, SCK, MOSI out; MISO, FIFO in (port B); VREG_EN, RESETn out (port A); CCA, SFD
 * (port D) and FIFOP (port E) in. SPI master, mode 0, clk/2 with SPI2X. */
#define RADIO_PINS_INIT()                                                                       \
  do {                                                                                          \
    DDRB = (uint8_t)((DDRB | _BV(CSN_BIT) | _BV(1) | _BV(2)) & ~(_BV(3) | _BV(FIFO_BIT)));      \
    RADIO_CSN_HIGH();                                                                           \
    DDRA |= _BV(VREG_BIT) | _BV(RESETN_BIT);                                                    \
    DDRD &= (uint8_t)~(_BV(CCA_BIT) | _BV(SFD_BIT));                                            \
    DDRE &= (uint8_t)~_BV(FIFOP_BIT);                                                           \
    SPCR = _BV(SPE) | _BV(MSTR);                                                                \
    SPSR = _BV(SPI2X);                                                                          \
  } while (0)

#define RADIO_SPI_PUT(b) (SPDR = (b))
#define RADIO_SPI_BUSY() (!(SPSR & _BV(SPIF)))
#define RADIO_SPI_GET() SPDR

#define RADIO_CSN_LOW() (CSN_PORT &= (uint8_t)~_BV(CSN_BIT))
#define RADIO_CSN_HIGH() (CSN_PORT |= _BV(CSN_BIT))
#define RADIO_VREG_ON() (VREG_PORT |= _BV(VREG_BIT))
#define RADIO_RESETN_LOW() (RESETN_PORT &= (uint8_t)~_BV(RESETN_BIT))
#define RADIO_RESETN_HIGH() (RESETN_PORT |= _BV(RESETN_BIT))

#define RADIO_FIFO() (FIFO_PIN & _BV(FIFO_BIT))
#define RADIO_FIFOP() (FIFOP_PIN & _BV(FIFOP_BIT))
#define RADIO_CCA() (CCA_PIN & _BV(CCA_BIT))
#define RADIO_SFD() (SFD_PIN & _BV(SFD_BIT))
#define RADIO_SFD_ARM() ((void)0)
#define RADIO_SFD_SEEN() RADIO_SFD()

/* INT6 on FIFOP's rising edge; the flag clears itself when the handler is entered. */
#define RADIO_FIFOP_IRQ_INIT()                                                                  \
  do {                                                                                          \
    EICRB |= _BV(ISC61) | _BV(ISC60);                                                           \
    EIFR = _BV(INTF6);                                                                          \
    EIMSK |= _BV(INT6);                                                                         \
  } while (0)
#define RADIO_FIFOP_ISR() ISR(INT6_vect)
#define RADIO_FIFOP_ACK() ((void)0)

#endif
