/* nested-storm.c: a timer handler that re-enables interrupts at once and then works longer
 * than the tick period, so every tick nests another handler inside the last one until the
 * stack runs into the globals (the shape of progfuzz's traced-image overflows: a handler
 * that fits its period in the original and outlasts it once traced). For wsn-sim's
 * stack-overflow report of the nested handlers (lit wsn-sim/stack-overflow.test).
 * Project-written. */
#include <stdint.h>

#include "hal.h"

volatile uint16_t StormC$ticks;
volatile uint16_t StormC$work;

HAL_TIMER_ISR() {
  __nesc_enable_interrupt();
  StormC$ticks++;
  /* About 40 000 cycles: longer than the tick on both motes. */
  for (uint16_t i = 0; i < 4000u; ++i)
    StormC$work += i;
}

int main(void) {
  hal_timer_start();
  __nesc_enable_interrupt();
  for (;;)
    StormC$work++;
}
