/* hal_host.h - host HAL for the examples: the hardware is simulated in software.
 *
 * Simulated time (see hal_host.c): hal_sleep() jumps to the next tick or ADC completion;
 * LED writes and serial bytes take time, so a tick can land in the middle of a task, as on a
 * mote. The ADC returns pseudo-random 12-bit samples. After WSN_HOST_TICKS (environment,
 * default 200) timer ticks the program exits with status 0, so a host build terminates.
 * WSN_HOST_SEED seeds the samples and input bits; WSN_HOST_VERBOSE=1 prints LED changes.
 * Serial bytes go to stdout in hex, one line per 0x7E-framed packet.
 * Serial receive and the external line are in hal_host_in.c (link it when the program calls
 * hal_uart_rx_start / hal_ext_start): a pseudo-random byte every 100..500 us, an external
 * interrupt every 1..9 ms, from their own generator.
 */
#ifndef WSN_EXAMPLES_HAL_HOST_H
#define WSN_EXAMPLES_HAL_HOST_H

#define HAL_TICK_HZ 1000u
#define HAL_ADC_BITS 12

typedef uint8_t __nesc_atomic_t;
static inline __nesc_atomic_t __nesc_atomic_start(void) { return 0; }
static inline void __nesc_atomic_end(__nesc_atomic_t s) { (void)s; }
static inline void __nesc_enable_interrupt(void) {}

#define HAL_TIMER_ISR() void hal_host_timer_isr(void)
#define HAL_ADC_ISR() void hal_host_adc_isr(void)
#define HAL_UART_RX_ISR() void hal_host_uart_rx_isr(void)
#define HAL_EXT_ISR() void hal_host_ext_isr(void)

/* hal_host.c */
void hal_init(void);
void hal_leds_set(uint8_t v);
uint8_t hal_input_bits(void);
void hal_timer_start(void);
void hal_adc_start(void);
uint16_t hal_adc_result(void);
void hal_uart_init(void);
uint8_t hal_uart_put(uint8_t b);
void hal_sleep(void);

/* hal_host_in.c */
void hal_uart_rx_start(void);
uint8_t hal_uart_rx_byte(void);
void hal_ext_start(void);
void hal_ext_ack(void);

#endif
