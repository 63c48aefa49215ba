/* msp430-drain.c - a TelosB/Z1 program linked with the trace runtime (no instrumentation):
 * it takes each byte the host sends on the serial port (the examples' HAL: USART1 on the
 * msp430f1611, USCI_A0 on the msp430f2617), logs it as an input and checks it is below LIMIT;
 * after the first violation it sends the trace object back through the same port. */
#include <stdint.h>

#include "hal_msp430.h"
#include "wsn/trace.h"

#ifndef LIMIT
#define LIMIT 200
#endif

volatile uint16_t DrainC$received;

static void put(uint8_t b) { hal_uart_put(b); }

int main(void) {
  HAL_REG16(0x0120) = 0x5A80; /* WDTCTL = WDTPW | WDTHOLD */
  hal_uart_init();
  hal_uart_rx_start();
  for (;;) {
#if defined(__MSP430F1611__)
    while (!(HAL_REG8(0x0003) & 0x10)) /* IFG2 & URXIFG1 */
      ;
#else
    while (!(HAL_REG8(0x0003) & 0x01)) /* IFG2 & UCA0RXIFG */
      ;
#endif
    uint16_t v = hal_uart_rx_byte();
    __wsn_rt_input(1, v);
    ++DrainC$received;
    __wsn_rt_check(1, v < LIMIT, __wsn_crc16(0xFFFF, &v, sizeof v));
    if (__wsn_trace.hdr.violation != WSN_TRACE_NO_VIOLATION) {
      __wsn_rt_drain(put);
      for (;;)
        ;
    }
  }
}
