/* FilterC.c - an averaging filter, written as nesC emits C: the example of the multi-level
 * tracing loop (thesis section 4.4; README "The multi-level loop").
 *
 * A 1 kHz tick starts an ADC conversion every 16 ticks; the ADC handler stores the result and
 * posts the sample task, which adds it to the current window (sum, minimum, maximum, count)
 * through FilterC$add. When the window holds FILTER_WINDOW samples, FilterC$finish computes the
 * average and posts the report task, which checks the invariant avg_bounds (invariants.c: the
 * average lies between the window's minimum and maximum), sends the average over the serial
 * port and starts the next window.
 *
 * The bug (real, data-dependent): the window's sum is 16 bits. 80 samples of a 10-bit ADC
 * can reach 81,840: with readings above 819 on average the sum wraps and the average comes
 * out far below the minimum. Small readings never trigger it.
 * (The fix: a 32-bit sum.)
 *
 * add and finish are kept out of line (noinline) so that each is a function of its own in
 * the trace at the level that selects it: level 1 traces the report task (the invariant's
 * caller), level 2 also the functions that write what the invariant reads.
 */
#include "scheduler.h"

#include <wsn/invariant.h>

#define FILTER_WINDOW 80u

enum { FilterC$sample = 0, FilterC$report = 1 };

uint16_t FilterC$ticks;  /* timer interrupts taken */
uint16_t FilterC$raw;    /* the last ADC result (ADC handler) */
uint16_t FilterC$sum;    /* BUG: 16 bits */
uint8_t FilterC$count;   /* samples in the window */
uint16_t FilterC$min = 0xFFFF;
uint16_t FilterC$max;
uint16_t FilterC$avg;    /* the last window's average */
uint16_t FilterC$taken;  /* samples taken since boot (statistics only) */
uint8_t FilterC$windows; /* windows reported */

WSN_DECLARE_INVARIANT(avg_bounds);

__attribute__((noinline)) void FilterC$add(uint16_t v) {
  FilterC$sum += v;
  if (v < FilterC$min)
    FilterC$min = v;
  if (v > FilterC$max)
    FilterC$max = v;
  FilterC$count++;
  FilterC$taken++;
}

__attribute__((noinline)) void FilterC$finish(void) {
  FilterC$avg = FilterC$sum / FilterC$count;
}

void FilterC$sample$runTask(void) {
  uint16_t v;
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    v = FilterC$raw;
    __nesc_atomic_end(a);
  }
  if (FilterC$count == FILTER_WINDOW)
    return; /* the window is full: its report is pending */
  FilterC$add(v);
  if (FilterC$count == FILTER_WINDOW) {
    FilterC$finish();
    SchedulerBasicP$TaskBasic$postTask(FilterC$report);
  }
}

void FilterC$report$runTask(void) {
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    WSN_CHECK(avg_bounds);
    __nesc_atomic_end(a);
  }
  hal_uart_put((uint8_t)(FilterC$avg >> 8));
  hal_uart_put((uint8_t)FilterC$avg);
  FilterC$windows++;
  FilterC$sum = 0;
  FilterC$count = 0;
  FilterC$min = 0xFFFF;
  FilterC$max = 0;
}

void SchedulerBasicP$TaskBasic$runTask(uint8_t id) {
  switch (id) {
  case FilterC$sample:
    FilterC$sample$runTask();
    break;
  case FilterC$report:
    FilterC$report$runTask();
    break;
  default:
    break;
  }
}

/* Tick handler: an ADC conversion every 16 ticks (Timer.fired -> Read.read). */
HAL_TIMER_ISR() {
  FilterC$ticks++;
  if ((FilterC$ticks & 15) == 0)
    hal_adc_start();
}

/* Read.readDone: interrupt context. */
HAL_ADC_ISR() {
  FilterC$raw = hal_adc_result();
  SchedulerBasicP$TaskBasic$postTask(FilterC$sample);
}

void RealMainP$SoftwareInit$init(void) {
  hal_leds_set(0);
  hal_uart_init();
}

void RealMainP$Boot$booted(void) { hal_timer_start(); }
