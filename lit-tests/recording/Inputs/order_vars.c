/* order_vars.c: nesC-shaped state (each component's variables together, components in the
 * order nesC emits them) that the record tables list across components: each skipped
 * callee writes some variables of several components, the timer handler others, and main's
 * checkpoint holds what main reads. In module order every list alternates with the others,
 * so its variables are many (address, size) pairs; ordered by the lists they are in
 * (spec/instrumentation.md section 10, "Variables ordered by their lists") they are few. */
#include "hal.h"
#include <wsn/invariant.h>

/* RadioP */
uint8_t RadioP$state;          /* RadioP$send, the timer handler */
uint8_t RadioP$seq;            /* RadioP$send */
uint16_t RadioP$retries;       /* SenseP$read */
uint8_t RadioP$buf[5];         /* RadioP$send */
uint16_t RadioP$backoff = 9;   /* the timer handler */
/* TimerP */
uint16_t TimerP$ticks;         /* the timer handler */
uint8_t TimerP$pending;        /* RadioP$send */
uint16_t TimerP$alarm = 40;    /* SenseP$read */
/* SenseP */
uint16_t SenseP$reading;       /* SenseP$read */
uint8_t SenseP$samples;        /* SenseP$read, the timer handler */
uint8_t SenseP$filter[3];      /* RadioP$send */
/* CountP */
uint16_t CountP$counter;       /* main */
uint8_t CountP$busy;           /* RadioP$send */
uint16_t CountP$sum;           /* SenseP$read */

WSN_DECLARE_INVARIANT(counter_bounded);

__attribute__((noinline)) void RadioP$send(uint8_t x) {
  for (volatile uint8_t i = 0; i < 40; ++i)
    ;
  RadioP$state = (uint8_t)(RadioP$state + 1u);
  RadioP$seq++;
  RadioP$buf[x % 5u] = (uint8_t)(x ^ RadioP$seq);
  TimerP$pending = 1;
  SenseP$filter[x % 3u] += RadioP$buf[0];
  CountP$busy = (uint8_t)(x & 1u);
}

__attribute__((noinline)) uint16_t SenseP$read(uint8_t x) {
  for (volatile uint8_t i = 0; i < 30; ++i)
    ;
  SenseP$reading = (uint16_t)(SenseP$reading * 3u + x);
  SenseP$samples++;
  RadioP$retries += (uint16_t)(SenseP$reading & 7u);
  TimerP$alarm = (uint16_t)(TimerP$alarm + SenseP$samples);
  CountP$sum += SenseP$reading;
  return SenseP$reading;
}

HAL_TIMER_ISR() {
  TimerP$ticks++;
  RadioP$state ^= 0x40u;
  RadioP$backoff = (uint16_t)(RadioP$backoff * 5u + 1u);
  SenseP$samples = (uint8_t)(SenseP$samples + 2u);
}

int main(void) {
  uint8_t n = 0;
  hal_init();
  hal_timer_start();
  __nesc_enable_interrupt();
  for (;;) {
    RadioP$send(n);
    uint16_t r = SenseP$read(n++);
    __nesc_atomic_t a = __nesc_atomic_start();
    CountP$counter = (uint16_t)(CountP$counter + (r & 3u) + RadioP$state + RadioP$seq +
                                RadioP$buf[1] + RadioP$backoff + TimerP$ticks +
                                TimerP$pending + TimerP$alarm + SenseP$samples +
                                SenseP$filter[2] + CountP$busy + CountP$sum +
                                RadioP$retries);
    WSN_CHECK(counter_bounded);
    __nesc_atomic_end(a);
  }
}

WSN_INVARIANT(counter_bounded) { return CountP$counter != 0xffffu || TimerP$ticks == 0u; }
