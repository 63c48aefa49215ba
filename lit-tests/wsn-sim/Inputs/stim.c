/* Test firmware for wsn-sim (atmega128): every input wsn-sim can drive, and the
 * trace runtime's check/violation hooks.
 *   INT0 (falling edge): counts pulses and time-stamps them with TIMER1.
 *   USART0 RX interrupt: keeps the last received bytes.
 *   TIMER0 compare (1 kHz): wakes the main loop, which samples ADC0 and checks
 *   the invariant "sample <= ADC_LIMIT" through the runtime (hand-written call,
 *   as wsn-cc would emit it).
 * -DDRAIN: after the first violation, send the trace object through USART0.
 * -DADC_LIMIT=N: the invariant's bound (default 1000).
 * -DBIG_FLASH=N: add N bytes of constant data to the code (for flash-size errors). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include <stdint.h>

#include "wsn/trace.h"

#ifndef ADC_LIMIT
#define ADC_LIMIT 1000
#endif

volatile uint16_t irq_count;
volatile uint16_t irq_times[16];
volatile uint8_t uart_count;
volatile uint8_t uart_bytes[16];
volatile uint16_t ticks;
volatile uint16_t samples[16];
volatile uint16_t sample_count;
volatile uint16_t last_sample;
#ifdef BIG_FLASH
const uint8_t big_table[BIG_FLASH] PROGMEM = {1};
volatile uint8_t big_byte;
#endif

ISR(INT0_vect) {
  __wsn_rt_irq_entry(1);
  irq_times[irq_count & 15] = TCNT1;
  ++irq_count;
  __wsn_rt_irq_exit(1);
}

ISR(USART0_RX_vect) {
  uint8_t b = UDR0;
  uart_bytes[uart_count & 15] = b;
  ++uart_count;
  __wsn_rt_input(2, b);
}

ISR(TIMER0_COMP_vect) { ++ticks; }

static uint16_t adc_read(void) {
  ADCSRA |= _BV(ADSC);
  while (ADCSRA & _BV(ADSC))
    ;
  return ADC;
}

#ifdef DRAIN
static void uart0_put(uint8_t b) {
  while (!(UCSR0A & _BV(UDRE0)))
    ;
  UDR0 = b;
}
#endif

int main(void) {
  TCCR1B = _BV(CS10);                          /* TIMER1: free-running time stamps */
  TCCR0 = _BV(WGM01) | _BV(CS02);              /* TIMER0: CTC, clk/64, ~1 kHz */
  OCR0 = 114;
  TIMSK |= _BV(OCIE0);
  EICRA = _BV(ISC01);                          /* INT0 on the falling edge */
  EIMSK = _BV(INT0);
  UCSR0A = _BV(U2X0);                          /* USART0: 230400 baud, RX interrupt */
  UBRR0L = 3;
  UCSR0B = _BV(RXEN0) | _BV(RXCIE0) | _BV(TXEN0);
  ADMUX = _BV(REFS0);                          /* ADC0 against AVCC */
  ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1);
  set_sleep_mode(SLEEP_MODE_IDLE);
#ifdef BIG_FLASH
  big_byte = pgm_read_byte(&big_table[ticks]);
#endif
  sei();
  for (;;) {
    uint16_t seen = ticks;
    while (ticks == seen)
      sleep_mode();
    uint16_t v = adc_read();
    __wsn_rt_input(3, v);
    last_sample = v;
    samples[sample_count & 15] = v;
    ++sample_count;
    __wsn_rt_check(1, v <= ADC_LIMIT, __wsn_crc16(0xFFFF, &v, sizeof v));
#ifdef DRAIN
    if (__wsn_trace.hdr.violation != WSN_TRACE_NO_VIOLATION) {
      __wsn_rt_drain(uart0_put);
      for (;;)
        sleep_mode();
    }
#endif
  }
}
