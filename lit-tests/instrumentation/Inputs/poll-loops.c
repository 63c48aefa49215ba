/* Polling loops (spec/instrumentation.md section 6, "Polling loops"): a nesC-shaped SPI
 * driver whose busy-waits the pre-instrument inliner brings into the task that sends.
 *   - HplSpiP$SpiByte$write waits for the transfer's end flag and has no live-out: the loop
 *     becomes a void input function, its call records nothing;
 *   - HplSpiP$waitReady counts its spins in a local and adds the count to a global after the
 *     loop: the loop becomes an input function returning the count, recorded once;
 *   - HplSpiP$waitCounted counts its spins in a global: it stores, so it stays in the task
 *     and every read is an input.
 * AVR: SPI's SPDR/SPSR (SPIF), Timer0 compare match interrupt (ATmega128 datasheet, "SPI",
 * "8-bit Timer/Counter0"). MSP430 F1611: USART0's U0TXBUF/U0RXBUF and IFG1's URXIFG0
 * (SLAU049 chapter 14), Timer_A (interrupt slot 6 as in latch-msp430.c). */
#include <stdint.h>
#include <wsn/invariant.h>

#ifdef __AVR__
#include <avr/interrupt.h>
#include <avr/io.h>
#define SPI_TXBUF SPDR
#define SPI_RXBUF SPDR
#define SPI_FLAGS SPSR
#define SPI_DONE (1 << SPIF)
#else
#define SPI_TXBUF (*(volatile uint8_t *)0x77) /* U0TXBUF */
#define SPI_RXBUF (*(volatile uint8_t *)0x76) /* U0RXBUF */
#define SPI_FLAGS (*(volatile uint8_t *)0x02) /* IFG1 */
#define SPI_DONE 0x40                         /* URXIFG0 */
#endif

uint16_t AppC$ticks; /* written by the timer handler */
uint8_t AppC$rxsum;  /* what the task received */
uint16_t AppC$spins; /* the counted wait's spins */
uint16_t AppC$ready; /* the ready wait's spins */

WSN_INVARIANT(ticks_ok) { return AppC$ticks != 0xffffu; }

static inline uint8_t HplSpiP$SpiByte$write(uint8_t b) {
  SPI_TXBUF = b;
  while (!(SPI_FLAGS & SPI_DONE))
    ;
  return SPI_RXBUF;
}

static inline void HplSpiP$waitReady(void) {
  uint16_t n = 0;
  while (!(SPI_FLAGS & SPI_DONE) && n < 1000)
    n++;
  AppC$ready += n;
}

static inline void HplSpiP$waitCounted(void) {
  while (!(SPI_FLAGS & SPI_DONE))
    AppC$spins++;
}

#ifdef __AVR__
ISR(TIMER0_COMP_vect) { AppC$ticks++; }
#else
__attribute__((interrupt(6), used)) void AppC$timer(void) { AppC$ticks++; }
#endif

int main(void) {
#ifdef __AVR__
  DDRB |= (1 << PB0) | (1 << PB1) | (1 << PB2); /* SS, SCK, MOSI out: SPI master */
  SPCR = (1 << SPE) | (1 << MSTR) | (1 << SPR0);
  OCR0 = 100;
  TCCR0 = (1 << WGM01) | (1 << CS01) | (1 << CS00); /* CTC, clk/32 */
  TIMSK |= (1 << OCIE0);
  sei();
#endif
  for (;;) {
    for (uint8_t i = 0; i < 4; ++i)
      AppC$rxsum += HplSpiP$SpiByte$write(i);
    SPI_TXBUF = 0;
    HplSpiP$waitReady();
    SPI_TXBUF = 0;
    HplSpiP$waitCounted();
    WSN_CHECK(ticks_ok);
  }
}
