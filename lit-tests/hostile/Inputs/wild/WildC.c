/* WildC.c - a program whose bug writes into the trace ring (issue 21, fault injection).
 *
 * A timer interrupt counts ticks and posts the sample task; the task keeps the last four
 * tick counts in a history and counts what it handled. Two bugs, as nesC emits C:
 * - a stale pointer: WildC$stale was taken to point at a byte of an earlier buffer; on the
 *   fifth task it increments whatever it points to now. Built normally it points at
 *   WildC$scratch (harmless); the wild build points it into the trace ring, the way a wild
 *   pointer in the firmware being debugged hits the runtime's RAM (the address comes from
 *   the ELF: ring-byte.py writes a header the wild build includes with -include);
 * - a double count on the ninth task, which the invariant wild_count catches.
 */
#include "scheduler.h"

#include <wsn/invariant.h>

enum { WildC$sample = 0 };

uint16_t WildC$ticks;     /* timer interrupts taken */
uint16_t WildC$handled;   /* samples handled */
uint8_t WildC$next;       /* samples stored in the history */
uint8_t WildC$history[4]; /* the last four tick counts */
uint8_t WildC$scratch;    /* the byte the stale pointer was meant for */

#ifndef WILD_ADDR
#define WILD_ADDR (&WildC$scratch)
#endif
/* Initialised either way, so that both builds have the same data layout. */
uint8_t *WildC$stale = WILD_ADDR;

WSN_DECLARE_INVARIANT(wild_count);

static inline error_t WildC$sample$postTask(void) {
  return SchedulerBasicP$TaskBasic$postTask(WildC$sample);
}

void WildC$Timer$fired(void) {
  WildC$ticks++;
  WildC$sample$postTask();
}

void WildC$sample$runTask(void) {
  uint16_t t;
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    t = WildC$ticks;
    __nesc_atomic_end(a);
  }
  WildC$history[WildC$next & 3] = (uint8_t)t;
  WildC$next++;
  WildC$handled++;
  if (WildC$handled == 5)
    (*WildC$stale)++; /* BUG 1: the stale pointer */
  if (WildC$handled == 9)
    WildC$handled++; /* BUG 2: counted twice */
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    WSN_CHECK(wild_count);
    __nesc_atomic_end(a);
  }
}

void SchedulerBasicP$TaskBasic$runTask(uint8_t id) {
  switch (id) {
  case WildC$sample:
    WildC$sample$runTask();
    break;
  default:
    break;
  }
}

HAL_TIMER_ISR() { WildC$Timer$fired(); }

void RealMainP$SoftwareInit$init(void) { hal_leds_set(0); }

void RealMainP$Boot$booted(void) { hal_timer_start(); }
