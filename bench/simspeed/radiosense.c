/* Periodic sense-and-send on the MicaZ's CC2420 (the radio workload of
 * bench/simspeed): Timer0 clocked asynchronously from the 32.768 kHz crystal
 * (CTC, clk_T0S/1024, a compare every PERIOD_TICKS/32 s) wakes the MCU from
 * power-save; it samples ADC0, sends a 12-byte broadcast frame with STXONCCA
 * (retried while the channel is busy) and goes back to sleep. The radio stays
 * in receive between sends, as TinyOS's default (non-LPL) stack keeps it;
 * FIFOP (INT6) reads each received frame out of the RXFIFO and counts it.
 * Written for this project; no TinyOS code. Plain avr-gcc, no trace runtime. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#ifndef PERIOD_TICKS
#define PERIOD_TICKS 32 /* 32 ticks of 1/32 s: one sample a second */
#endif

uint16_t TOS_NODE_ID = 1;
volatile uint16_t samples, sent, busy_retries, received;
static volatile uint8_t wake;
static uint8_t seq;

static uint8_t spi(uint8_t b) {
  SPDR = b;
  while (!(SPSR & _BV(SPIF)))
    ;
  return SPDR;
}
static void csn_low(void) { PORTB &= ~_BV(0); }
static void csn_high(void) { PORTB |= _BV(0); }
static uint8_t strobe(uint8_t s) {
  csn_low();
  uint8_t st = spi(s);
  csn_high();
  return st;
}
static void reg_write(uint8_t a, uint16_t v) {
  csn_low();
  spi(a);
  spi(v >> 8);
  spi(v & 0xFF);
  csn_high();
}

ISR(TIMER0_COMP_vect) {
  TCCR0 = TCCR0; /* one TOSC1 cycle before sleeping again */
  while (ASSR & _BV(TCR0UB))
    ;
  wake = 1;
}

ISR(INT6_vect) {
  /* A frame is complete in the RXFIFO: read length and drop the rest. */
  csn_low();
  spi(0x7F);
  uint8_t len = spi(0) & 0x7F;
  while (len--)
    spi(0);
  csn_high();
  strobe(0x08); /* SFLUSHRX (twice, as the data sheet asks after an overflow) */
  strobe(0x08);
  ++received;
}

static uint16_t adc_read(void) {
  ADCSRA |= _BV(ADSC);
  while (ADCSRA & _BV(ADSC))
    ;
  return ADC;
}

static void send(uint16_t value) {
  csn_low();
  spi(0x3E); /* TXFIFO */
  spi(12);   /* length: 10 bytes + FCS */
  spi(0x41); /* FCF: data, PAN compression */
  spi(0x88); /* short addresses */
  spi(++seq);
  spi(0x22); /* PAN 0x0022 */
  spi(0x00);
  spi(0xFF); /* broadcast */
  spi(0xFF);
  spi(TOS_NODE_ID & 0xFF);
  spi(TOS_NODE_ID >> 8);
  spi(value & 0xFF);
  csn_high();
  (void)value;
  while (!(strobe(0x05) & 0x08)) { /* STXONCCA until TX_ACTIVE */
    ++busy_retries;
    if (busy_retries & 0x8000)
      break;
  }
  ++sent;
}

int main(void) {
  /* CC2420: regulator, reset, SPI, oscillator, receive. */
  DDRA |= _BV(5) | _BV(6);
  PORTA |= _BV(5);
  for (volatile uint16_t i = 0; i < 2000; ++i)
    ;
  PORTA |= _BV(6);
  PORTB |= _BV(0);
  DDRB |= _BV(0) | _BV(1) | _BV(2);
  SPCR = _BV(SPE) | _BV(MSTR);
  SPSR = _BV(SPI2X);
  strobe(0x01);
  while (!(strobe(0x00) & 0x40))
    ;
  reg_write(0x11, 0x02E2); /* MDMCTRL0 without address recognition */
  reg_write(0x1C, 0x0040 | 0x7F); /* IOCFG0: FIFOP at a complete frame */
  strobe(0x03);
  EICRB = _BV(ISC61) | _BV(ISC60); /* FIFOP rising */
  EIFR = _BV(INTF6);
  EIMSK |= _BV(INT6);
  /* ADC0 against AVCC. */
  ADMUX = _BV(REFS0);
  ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1);
  /* Timer0 from the crystal: CTC, clk_T0S/1024 (32 Hz), phase by node id. */
  ASSR |= _BV(AS0);
  TCNT0 = (uint8_t)(TOS_NODE_ID * 7) % PERIOD_TICKS;
  OCR0 = PERIOD_TICKS - 1;
  TCCR0 = _BV(WGM01) | _BV(CS02) | _BV(CS01) | _BV(CS00);
  while (ASSR & (_BV(TCN0UB) | _BV(OCR0UB) | _BV(TCR0UB)))
    ;
  TIFR = _BV(OCF0);
  TIMSK |= _BV(OCIE0);
  set_sleep_mode(SLEEP_MODE_PWR_SAVE);
  sei();
  for (;;) {
    cli();
    if (!wake) {
      sleep_enable();
      sei();
      sleep_cpu();
      sleep_disable();
      continue;
    }
    wake = 0;
    sei();
    ++samples;
    send(adc_read());
  }
}
