/* hal_host.c - the simulated hardware behind hal_host.h (empty on mote targets). */
#if !defined(__AVR__) && !defined(__MSP430__)
#include "hal.h"

#include <stdio.h>
#include <stdlib.h>

/* Handlers defined by the program; weak so a program without an ADC handler links. */
void hal_host_timer_isr(void) __attribute__((weak));
void hal_host_adc_isr(void) __attribute__((weak));
/* Extra interrupt sources (hal_host_in.c, linked by programs that use serial receive or the
 * external line): the time of the next one (ULONG_MAX: none), and delivery of those due. */
unsigned long hal_host_in_next(void) __attribute__((weak));
int hal_host_in_deliver(unsigned long now) __attribute__((weak));

/* Simulated time in microseconds: LED writes cost 2 us, a serial byte 87 us (115200 baud),
 * the timer fires every 1000 us, an ADC conversion takes 20 us. Time advances inside
 * hal_leds_set/hal_uart_put too, so a tick can interrupt a long task, as on a mote. */
enum { HOST_TICK_US = 1000, HOST_LED_US = 2, HOST_BYTE_US = 87, HOST_ADC_US = 20 };

static struct {
  unsigned long now, next_tick, adc_done, ticks, max_ticks;
  unsigned long rng;
  int verbose, timer_on, adc_pending, in_isr;
  uint16_t adc_value;
  uint8_t leds;
} hal_host;

static unsigned hal_host_random(void) {
  hal_host.rng = hal_host.rng * 1103515245ul + 12345ul;
  return (unsigned)((hal_host.rng >> 16) & 0x7FFF);
}

/* Deliver every interrupt due by now (handlers do not nest, as on the motes). */
static void hal_host_interrupts(void) {
  if (hal_host.in_isr)
    return;
  hal_host.in_isr = 1;
  for (;;) {
    if (hal_host.adc_pending && hal_host.adc_done <= hal_host.now &&
        (!hal_host.timer_on || hal_host.adc_done <= hal_host.next_tick)) {
      hal_host.adc_pending = 0;
      hal_host.adc_value = (uint16_t)(hal_host_random() & 0x0FFF); /* 12-bit sample */
      if (hal_host_adc_isr)
        hal_host_adc_isr();
    } else if (hal_host.timer_on && hal_host.next_tick <= hal_host.now) {
      hal_host.next_tick += HOST_TICK_US;
      if (++hal_host.ticks > hal_host.max_ticks) {
        fflush(stdout);
        exit(0);
      }
      if (hal_host_timer_isr)
        hal_host_timer_isr();
    } else if (!hal_host_in_deliver || !hal_host_in_deliver(hal_host.now)) {
      break;
    }
  }
  hal_host.in_isr = 0;
}

static void hal_host_spend(unsigned long us) {
  hal_host.now += us;
  hal_host_interrupts();
}

void hal_init(void) {
  const char *t = getenv("WSN_HOST_TICKS"), *s = getenv("WSN_HOST_SEED"),
             *v = getenv("WSN_HOST_VERBOSE");
  hal_host.max_ticks = t ? strtoul(t, NULL, 10) : 200;
  hal_host.rng = s ? strtoul(s, NULL, 10) : 1;
  hal_host.verbose = v && *v == '1';
}

void hal_leds_set(uint8_t v) {
  v &= 7;
  if (hal_host.verbose && v != hal_host.leds)
    printf("tick %lu: leds %u%u%u\n", hal_host.ticks, (v >> 2) & 1, (v >> 1) & 1, v & 1);
  hal_host.leds = v;
  hal_host_spend(HOST_LED_US);
}

uint8_t hal_input_bits(void) { return (uint8_t)hal_host_random(); }

void hal_timer_start(void) {
  hal_host.timer_on = 1;
  hal_host.next_tick = hal_host.now + HOST_TICK_US;
}

void hal_adc_start(void) {
  hal_host.adc_pending = 1;
  hal_host.adc_done = hal_host.now + HOST_ADC_US;
}

uint16_t hal_adc_result(void) { return hal_host.adc_value; }
void hal_uart_init(void) {}

uint8_t hal_uart_put(uint8_t b) {
  static int in_frame;
  printf("%02x", b);
  if (b == 0x7E) {
    if (in_frame)
      putchar('\n');
    in_frame = !in_frame;
  }
  hal_host_spend(HOST_BYTE_US);
  return 1;
}

/* Idle: jump to the next event. Called with (simulated) interrupts off from a task context. */
void hal_sleep(void) {
  unsigned long in = hal_host_in_next ? hal_host_in_next() : (unsigned long)-1;
  if (in != (unsigned long)-1 && (!hal_host.timer_on || in < hal_host.next_tick) &&
      (!hal_host.adc_pending || in < hal_host.adc_done)) {
    hal_host.now = in > hal_host.now ? in : hal_host.now;
    hal_host_interrupts();
    return;
  }
  if (hal_host.adc_pending && (!hal_host.timer_on || hal_host.adc_done <= hal_host.next_tick))
    hal_host.now = hal_host.adc_done > hal_host.now ? hal_host.adc_done : hal_host.now;
  else if (hal_host.timer_on)
    hal_host.now = hal_host.next_tick;
  else {
    fprintf(stderr, "hal_host: idle with no interrupt source enabled; stopping\n");
    exit(1);
  }
  hal_host_interrupts();
}
#endif
