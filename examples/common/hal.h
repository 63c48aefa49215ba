/* hal.h - the small hardware layer under the example mote programs.
 *
 * The examples are written the way nesC emits C (module$interface$function names, a FIFO task
 * scheduler, atomic sections through __nesc_atomic_start/__nesc_atomic_end). This header picks
 * the target's HAL; each one provides the same functions:
 *
 *   __nesc_atomic_start/__nesc_atomic_end, __nesc_enable_interrupt   interrupt state
 *   hal_init()                 clocks, LED and input pins
 *   hal_leds_set(bits)         three LEDs, bit 0..2
 *   hal_input_bits()           the user switch/button port (a nondeterministic input)
 *   hal_timer_start()          periodic tick of about HAL_TICK_HZ; calls HAL_TIMER_ISR
 *   hal_adc_start(), hal_adc_result()  one conversion; completion calls HAL_ADC_ISR
 *   hal_uart_init(), hal_uart_put(b)   serial transmit (bounded wait; 0 on timeout)
 *   hal_sleep()                called with interrupts off when the task queue is empty;
 *                              lets pending interrupts run and returns with them off again
 *
 * and the handler definers HAL_TIMER_ISR() / HAL_ADC_ISR(), used as
 *   HAL_TIMER_ISR() { Module$Timer$fired(); }
 *
 * Serial receive and one external interrupt line (examples/uart-cmd; unused by the others):
 *   hal_uart_rx_start()        enable the receiver; each byte calls HAL_UART_RX_ISR
 *   hal_uart_rx_byte()         the received byte (read it in the handler: clears the flag)
 *   hal_ext_start()            falling-edge interrupt on the line (AVR INT0 on PD0, MSP430
 *                              P1.7); each edge calls HAL_EXT_ISR
 *   hal_ext_ack()              first thing in HAL_EXT_ISR (clears the flag where the
 *                              hardware does not)
 * All handlers are entered with interrupts disabled; one may re-enable them with
 * __nesc_enable_interrupt() (nesting).
 */
#ifndef WSN_EXAMPLES_HAL_H
#define WSN_EXAMPLES_HAL_H

#include <stdint.h>

typedef uint8_t bool_t;
enum { FALSE = 0, TRUE = 1 };
typedef uint8_t error_t;
enum { SUCCESS = 0, FAIL = 1, EBUSY = 2 };

#if defined(__AVR__)
#include "hal_avr.h"
#elif defined(__MSP430__)
#include "hal_msp430.h"
#else
#include "hal_host.h"
#endif

#endif
