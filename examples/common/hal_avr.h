/* hal_avr.h - ATmega128 (MicaZ) HAL for the examples; see hal.h for the contract.
 * Registers are avr-libc's, i.e. volatile accesses to constant addresses. CPU clock 7.3728 MHz. */
#ifndef WSN_EXAMPLES_HAL_AVR_H
#define WSN_EXAMPLES_HAL_AVR_H

#include <avr/io.h>

#define HAL_ADC_BITS 10
#define HAL_TICK_HZ 1019u /* 7372800 / 64 / (112 + 1) */

typedef uint8_t __nesc_atomic_t;

/* nesC's atomic section on AVR: save SREG (the I bit), cli; restore SREG. */
static inline __attribute__((always_inline)) __nesc_atomic_t __nesc_atomic_start(void) {
  __nesc_atomic_t result = SREG;
  __asm__ __volatile__("cli" ::: "memory");
  return result;
}
static inline __attribute__((always_inline)) void __nesc_atomic_end(__nesc_atomic_t s) {
  __asm__ __volatile__("" ::: "memory");
  SREG = s;
}
static inline void __nesc_enable_interrupt(void) { __asm__ __volatile__("sei" ::: "memory"); }

/* Handlers: avr-libc's vector numbering for the ATmega128. */
#define HAL_TIMER_ISR()                                                                   \
  void __vector_15(void) __attribute__((signal, used)); /* TIMER0_COMP */                 \
  void __vector_15(void)
#define HAL_ADC_ISR()                                                                     \
  void __vector_21(void) __attribute__((signal, used)); /* ADC */                         \
  void __vector_21(void)

#define HAL_UART_RX_ISR()                                                                 \
  void __vector_18(void) __attribute__((signal, used)); /* USART0_RX */                   \
  void __vector_18(void)
#define HAL_EXT_ISR()                                                                     \
  void __vector_1(void) __attribute__((signal, used)); /* INT0 */                         \
  void __vector_1(void)

static inline void hal_init(void) {
  DDRA |= 0x07;          /* MicaZ LEDs on PA0..PA2, active low */
  PORTA |= 0x07;
  DDRC = 0x00;           /* switches */
  MCUCR |= (1 << SE);    /* sleep instruction enabled, idle mode */
}
static inline void hal_leds_set(uint8_t v) { PORTA = (uint8_t)((PORTA & ~0x07) | (~v & 0x07)); }
static inline uint8_t hal_input_bits(void) { return PINC; }

static inline void hal_timer_start(void) {
  OCR0 = 112;
  TCCR0 = (1 << WGM01) | (1 << CS02); /* CTC, clk/64 */
  TIMSK |= (1 << OCIE0);
}

static inline void hal_adc_start(void) {
  ADMUX = (1 << REFS0); /* AVCC reference, channel 0 */
  ADCSRA = (1 << ADEN) | (1 << ADIE) | (1 << ADSC) | (1 << ADPS2) | (1 << ADPS1);
}
static inline uint16_t hal_adc_result(void) { return ADC; }

static inline void hal_uart_init(void) {
  UBRR0H = 0;
  UBRR0L = 3; /* 115200 baud at 7.3728 MHz */
  UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
  UCSR0B = (1 << TXEN0);
}
static inline uint8_t hal_uart_put(uint8_t b) {
  for (uint16_t n = 0; !(UCSR0A & (1 << UDRE0)); ++n)
    if (n == 0xFFFF)
      return 0;
  UDR0 = b;
  return 1;
}

/* Receiver on USART0 (same frame format as hal_uart_init); RXC0 interrupt per byte. */
static inline void hal_uart_rx_start(void) { UCSR0B |= (1 << RXEN0) | (1 << RXCIE0); }
static inline uint8_t hal_uart_rx_byte(void) { return UDR0; }

/* INT0 (PD0, MicaZ expansion connector), falling edge; the flag clears on vector entry. */
static inline void hal_ext_start(void) {
  DDRD &= ~0x01;
  PORTD |= 0x01; /* pull-up: the line idles high */
  EICRA = (uint8_t)((EICRA & ~0x03) | (1 << ISC01));
  EIFR = (1 << INTF0);
  EIMSK |= (1 << INT0);
}
static inline void hal_ext_ack(void) {}

/* TinyOS McuSleep: sei; sleep executes the sleep before any pending interrupt is taken, so a
 * wake-up cannot be lost between the queue check and the sleep. */
static inline void hal_sleep(void) { __asm__ __volatile__("sei\n\tsleep\n\tcli" ::: "memory"); }

#endif
