/* hal_host_in.c - serial receive and the external interrupt line of the host HAL (hal_host.h):
 * a pseudo-random byte every 100..500 us once hal_uart_rx_start() was called, an external
 * interrupt every 1..9 ms once hal_ext_start() was called, from a generator of their own
 * (seeded from WSN_HOST_SEED). Kept apart from hal_host.c so that programs without these
 * sources (blink, sense-send) keep exactly their simulated hardware, and their traced host
 * builds the same records. Empty on mote targets. */
#if !defined(__AVR__) && !defined(__MSP430__)
#include "hal.h"

#include <stdlib.h>

void hal_host_uart_rx_isr(void) __attribute__((weak));
void hal_host_ext_isr(void) __attribute__((weak));

static struct {
  unsigned long next_rx, next_ext, rng;
  int rx_on, ext_on;
  uint8_t rx_byte;
} hal_host_in;

static unsigned hal_host_in_random(void) {
  hal_host_in.rng = hal_host_in.rng * 1103515245ul + 12345ul;
  return (unsigned)((hal_host_in.rng >> 16) & 0x7FFF);
}

/* Seeds the generator once, at the first of the two starts. */
static void hal_host_in_seed(void) {
  if (!hal_host_in.rx_on && !hal_host_in.ext_on) {
    const char *s = getenv("WSN_HOST_SEED");
    hal_host_in.rng = (s ? strtoul(s, NULL, 10) : 1) ^ 0x5A5Aul;
  }
}

/* Called by hal_host.c: the earliest pending event (ULONG_MAX: none) ... */
unsigned long hal_host_in_next(void) {
  unsigned long t = (unsigned long)-1;
  if (hal_host_in.rx_on && hal_host_in.next_rx < t)
    t = hal_host_in.next_rx;
  if (hal_host_in.ext_on && hal_host_in.next_ext < t)
    t = hal_host_in.next_ext;
  return t;
}

/* ... and delivery of one event due at `now` (1) or none (0). Handlers do not nest. */
int hal_host_in_deliver(unsigned long now) {
  if (hal_host_in.rx_on && hal_host_in.next_rx <= now) {
    hal_host_in.next_rx += 100 + hal_host_in_random() % 401;
    hal_host_in.rx_byte = (uint8_t)hal_host_in_random();
    if (hal_host_uart_rx_isr)
      hal_host_uart_rx_isr();
    return 1;
  }
  if (hal_host_in.ext_on && hal_host_in.next_ext <= now) {
    hal_host_in.next_ext += 1000 + hal_host_in_random() % 8001;
    if (hal_host_ext_isr)
      hal_host_ext_isr();
    return 1;
  }
  return 0;
}

/* hal_host.h's receive and external-line functions. The current time is not visible here:
 * the first event is scheduled relative to 0, i.e. due at once when started later. */
void hal_uart_rx_start(void) {
  hal_host_in_seed();
  hal_host_in.rx_on = 1;
  hal_host_in.next_rx = 100 + hal_host_in_random() % 401;
}

uint8_t hal_uart_rx_byte(void) { return hal_host_in.rx_byte; }

void hal_ext_start(void) {
  hal_host_in_seed();
  hal_host_in.ext_on = 1;
  hal_host_in.next_ext = 1000 + hal_host_in_random() % 8001;
}

void hal_ext_ack(void) {}
#endif
