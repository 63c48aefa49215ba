/* hal_msp430.h - MSP430F1611 (TelosB) and MSP430F2617 (Z1) HAL for the examples; see hal.h.
 *
 * Registers are written as volatile accesses to constant addresses (the msp430mcu headers
 * would give link-time symbols instead). Clocks are left at their reset values (DCO about
 * 1 MHz on SMCLK).
 *
 * Interrupt vectors: clang's interrupt(N) counts 2-byte slots of a 64-slot table ending at
 * 0xFFFE (slot = (vector address - 0xFF80) / 2); see the linker scripts in trace-runtime/platform/msp430.
 *
 * Idle: clang has no equivalent of mspgcc's "wakeup" attribute or __bic_SR_register_on_exit,
 * so a handler cannot clear the low-power bits of the interrupted SR. hal_sleep therefore
 * opens an interrupt window (eint ... dint) instead of entering LPM0: same scheduling,
 * higher idle current.
 */
#ifndef WSN_EXAMPLES_HAL_MSP430_H
#define WSN_EXAMPLES_HAL_MSP430_H

#define HAL_REG8(a) (*(volatile uint8_t *)(a))
#define HAL_REG16(a) (*(volatile uint16_t *)(a))

#define HAL_ADC_BITS 12
/* Timer_A period in SMCLK cycles (up mode: TACCR0 = period - 1). A traced build may want a
 * longer period (-DHAL_TIMER_PERIOD=...) so that its heavier handler leaves the main loop
 * time to run. */
#ifndef HAL_TIMER_PERIOD
#define HAL_TIMER_PERIOD 1000u
#endif
#define HAL_TICK_HZ (1000000u / HAL_TIMER_PERIOD) /* SMCLK ~1 MHz */

/* Common to the 1xx and 2xx parts. */
#define HAL_P2IN HAL_REG8(0x0028)
#define HAL_P3SEL HAL_REG8(0x001B)
#define HAL_P5OUT HAL_REG8(0x0031)
#define HAL_P5DIR HAL_REG8(0x0032)
#define HAL_TACTL HAL_REG16(0x0160)
#define HAL_TACCTL0 HAL_REG16(0x0162)
#define HAL_TACCR0 HAL_REG16(0x0172)
#define HAL_ADC12CTL0 HAL_REG16(0x01A0)
#define HAL_ADC12CTL1 HAL_REG16(0x01A2)
#define HAL_ADC12IE HAL_REG16(0x01A6)
#define HAL_ADC12MEM0 HAL_REG16(0x0140)
#define HAL_ADC12MCTL0 HAL_REG8(0x0080)

#define HAL_P1IFG HAL_REG8(0x0023)
#define HAL_P1IES HAL_REG8(0x0024)
#define HAL_P1IE HAL_REG8(0x0025)
#define HAL_P1DIR HAL_REG8(0x0022)

#if defined(__MSP430F1611__)
#define HAL_TIMERA0_SLOT 54 /* 0xFFEC */
#define HAL_ADC12_SLOT 55   /* 0xFFEE */
#define HAL_UART_RX_SLOT 51 /* 0xFFE6 USART1 receive */
#define HAL_PORT1_SLOT 52   /* 0xFFE8 */
#elif defined(__MSP430F2617__)
#define HAL_TIMERA0_SLOT 57 /* 0xFFF2 */
#define HAL_ADC12_SLOT 53   /* 0xFFEA */
#define HAL_UART_RX_SLOT 55 /* 0xFFEE USCI A0/B0 receive */
#define HAL_PORT1_SLOT 50   /* 0xFFE4 */
#else
#error "hal_msp430.h: unsupported MCU (msp430f1611 or msp430f2617)"
#endif

typedef uint16_t __nesc_atomic_t;

/* nesC's atomic section on MSP430: remember GIE (SR bit 3), dint; set GIE again only if it
 * was set. dint takes effect one instruction later, hence the nop. */
static inline __attribute__((always_inline)) __nesc_atomic_t __nesc_atomic_start(void) {
  uint16_t sr;
  __asm__ __volatile__("mov r2, %0\n\tdint\n\tnop" : "=r"(sr) : : "memory");
  return sr & 0x0008;
}
static inline __attribute__((always_inline)) void __nesc_atomic_end(__nesc_atomic_t s) {
  __asm__ __volatile__("" ::: "memory");
  if (s)
    __asm__ __volatile__("nop\n\teint\n\tnop" ::: "memory");
}
static inline void __nesc_enable_interrupt(void) {
  __asm__ __volatile__("nop\n\teint\n\tnop" ::: "memory");
}

#define HAL_ISR_(slot, name)                                                              \
  void name(void) __attribute__((interrupt(slot), used));                                 \
  void name(void)
#define HAL_TIMER_ISR() HAL_ISR_(HAL_TIMERA0_SLOT, sig_TIMERA0_VECTOR)
#define HAL_ADC_ISR() HAL_ISR_(HAL_ADC12_SLOT, sig_ADC_VECTOR)
#define HAL_UART_RX_ISR() HAL_ISR_(HAL_UART_RX_SLOT, sig_UART_RX_VECTOR)
#define HAL_EXT_ISR() HAL_ISR_(HAL_PORT1_SLOT, sig_PORT1_VECTOR)

static inline void hal_init(void) {
  HAL_P5DIR |= 0x70; /* LEDs on P5.4..P5.6, active low (TelosB and Z1) */
  HAL_P5OUT |= 0x70;
}
static inline void hal_leds_set(uint8_t v) {
  HAL_P5OUT = (uint8_t)((HAL_P5OUT & ~0x70) | ((~v & 0x07) << 4));
}
static inline uint8_t hal_input_bits(void) { return HAL_P2IN; }

static inline void hal_timer_start(void) {
  HAL_TACCR0 = HAL_TIMER_PERIOD - 1;
  HAL_TACCTL0 = 0x0010;          /* CCIE */
  HAL_TACTL = 0x0200 | 0x0010 | 0x0004; /* TASSEL_2 (SMCLK) | MC_1 (up) | TACLR */
}

static inline void hal_adc_start(void) {
  HAL_ADC12CTL0 = 0x0200 | 0x0010; /* SHT0_2 | ADC12ON */
  HAL_ADC12CTL1 = 0x0200;          /* SHP */
  HAL_ADC12MCTL0 = 0x00;           /* channel A0, AVCC/AVSS */
  HAL_ADC12IE = 0x0001;
  HAL_ADC12CTL0 |= 0x0002 | 0x0001; /* ENC | ADC12SC */
}
static inline uint16_t hal_adc_result(void) { return HAL_ADC12MEM0; /* clears the flag */ }

#if defined(__MSP430F1611__)
/* TelosB: the USB serial port is USART1 on P3.6/P3.7. */
static inline void hal_uart_init(void) {
  HAL_P3SEL |= 0xC0;
  HAL_REG8(0x0078) = 0x11;  /* U1CTL = CHAR | SWRST */
  HAL_REG8(0x0079) = 0x20;  /* U1TCTL = SSEL1 (SMCLK) */
  HAL_REG8(0x007C) = 0x09;  /* U1BR0: ~115200 baud from ~1 MHz */
  HAL_REG8(0x007D) = 0x00;  /* U1BR1 */
  HAL_REG8(0x007B) = 0x08;  /* U1MCTL */
  HAL_REG8(0x0005) |= 0x20; /* ME2 |= UTXE1 */
  HAL_REG8(0x0078) &= ~0x01;
}
static inline uint8_t hal_uart_put(uint8_t b) {
  for (uint16_t n = 0; !(HAL_REG8(0x0003) & 0x20); ++n) /* IFG2 & UTXIFG1 */
    if (n == 0xFFFF)
      return 0;
  HAL_REG8(0x007F) = b; /* U1TXBUF */
  return 1;
}
static inline void hal_uart_rx_start(void) {
  HAL_REG8(0x0005) |= 0x10; /* ME2 |= URXE1 */
  HAL_REG8(0x0001) |= 0x10; /* IE2 |= URXIE1 */
}
static inline uint8_t hal_uart_rx_byte(void) { return HAL_REG8(0x007E); /* U1RXBUF */ }
#else
/* Z1: the USB serial port is USCI_A0 on P3.4/P3.5. */
static inline void hal_uart_init(void) {
  HAL_P3SEL |= 0x30;
  HAL_REG8(0x0061) = 0x81; /* UCA0CTL1 = UCSSEL_2 | UCSWRST */
  HAL_REG8(0x0062) = 0x09; /* UCA0BR0 */
  HAL_REG8(0x0063) = 0x00; /* UCA0BR1 */
  HAL_REG8(0x0064) = 0x02; /* UCA0MCTL = UCBRS_1 */
  HAL_REG8(0x0061) &= ~0x01;
}
static inline uint8_t hal_uart_put(uint8_t b) {
  for (uint16_t n = 0; !(HAL_REG8(0x0003) & 0x02); ++n) /* IFG2 & UCA0TXIFG */
    if (n == 0xFFFF)
      return 0;
  HAL_REG8(0x0067) = b; /* UCA0TXBUF */
  return 1;
}
static inline void hal_uart_rx_start(void) { HAL_REG8(0x0001) |= 0x01; /* IE2 |= UCA0RXIE */ }
static inline uint8_t hal_uart_rx_byte(void) { return HAL_REG8(0x0066); /* UCA0RXBUF */ }
#endif

/* P1.7, falling edge; the port flag must be cleared by software. (Not P1.0, P1.2-P1.4: the
 * CC2420's FIFOP, FIFO and CCA on the TelosB (P1.0) and the Z1 (P1.2).) */
static inline void hal_ext_start(void) {
  HAL_P1DIR &= ~0x80;
  HAL_P1IES |= 0x80;
  HAL_P1IFG &= ~0x80;
  HAL_P1IE |= 0x80;
}
static inline void hal_ext_ack(void) { HAL_P1IFG &= ~0x80; }

static inline void hal_sleep(void) {
  __asm__ __volatile__("nop\n\teint\n\tnop\n\tdint\n\tnop" ::: "memory");
}

#endif
