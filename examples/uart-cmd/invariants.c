/* invariants.c - the serial command interpreter's invariant: nothing is lost or counted twice. */
#include <stdint.h>
#include <wsn/invariant.h>

#define UART_RING 16u /* as in UartCmdC.c */

extern uint8_t UartCmdC$ring[UART_RING];
extern uint8_t UartCmdC$head;
extern uint8_t UartCmdC$tail;
extern uint16_t UartCmdC$received;
extern uint16_t UartCmdC$rxSum;
extern uint16_t UartCmdC$parsed;
extern uint16_t UartCmdC$parsedSum;
extern uint8_t UartCmdC$rate;
extern uint16_t UartCmdC$ticks;
extern uint16_t UartCmdC$pulses;
extern uint16_t UartCmdC$events;

/* Checked with interrupts off, from tasks:
 *  - every byte put into the ring is either parsed or still in the ring, and the sums agree
 *    (so the ring's contents are part of what replay must reproduce);
 *  - the rate is a nibble;
 *  - every tick and every pulse was counted as exactly one event. */
WSN_INVARIANT(cmd_accounting) {
  uint16_t pending = 0, pendingSum = 0;
  for (uint8_t i = UartCmdC$tail; i != UartCmdC$head; i = (uint8_t)((i + 1u) & (UART_RING - 1u))) {
    pending++;
    pendingSum = (uint16_t)(pendingSum + UartCmdC$ring[i]);
  }
  return (uint16_t)(UartCmdC$parsed + pending) == UartCmdC$received &&
         (uint16_t)(UartCmdC$parsedSum + pendingSum) == UartCmdC$rxSum && UartCmdC$rate < 16u &&
         UartCmdC$events == (uint16_t)(UartCmdC$ticks + UartCmdC$pulses);
}
