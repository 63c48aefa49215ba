/* msp430-serial.c - echoes what the mote's serial port receives in upper case through the
 * examples' HAL (USART1 in UART mode on the msp430f1611, USCI_A0 on the msp430f2617),
 * polling the receive flag; after a '.' it writes "bye" back to back. */
#include <stdint.h>

#include "hal_msp430.h"

static void put(const char *s) {
  while (*s)
    hal_uart_put((uint8_t)*s++);
}

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
    uint8_t c = hal_uart_rx_byte();
    if (c >= 'a' && c <= 'z')
      c = (uint8_t)(c - 'a' + 'A');
    hal_uart_put(c);
    if (c == '.')
      put("\nbye\n");
  }
}
