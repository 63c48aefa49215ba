/* deep-stack.c: a recursion without end, as a handler that re-enables interrupts and is
 * struck again before it returns behaves: every level keeps a frame, and the stack grows down
 * into the globals (.bss; in a traced image the trace ring and the runtime's state lie last).
 * Builds for AVR (avr-gcc) and MSP430 (wsn-cc). Project-written. */
#include <stdint.h>

volatile uint8_t Deep__level;
volatile uint8_t Deep__guard[32];

__attribute__((noinline)) static uint8_t Deep__down(uint8_t n) {
  volatile uint8_t frame[8];
  frame[0] = n;
  Deep__level = n;
  return (uint8_t)(Deep__down((uint8_t)(n + 1)) + frame[0]);
}

int main(void) {
  Deep__guard[0] = 1;
  return Deep__down(0);
}
