/* BlinkC.c - the Blink test case (thesis TC1, section 4.5), written as nesC emits C.
 *
 * A periodic timer interrupt counts a tick and posts the toggle task; the task shows the
 * ticks it has not shown yet on the three LEDs (a 3-bit counter) and checks the invariant
 * blink_pattern (invariants.c): every tick is either shown or still pending, and the LEDs
 * show the low bits of the shown count.
 *
 * The bug (real, and data-dependent): the task copies BlinkC$backlog, works through it, and
 * writes the copy back without an atomic section. When the counter wraps (every 8 ticks) the
 * task runs a software fade whose length depends on the switch inputs; a tick that arrives
 * during the fade increments backlog, and the write-back then erases it: the LED pattern
 * skips a step and the invariant fails at the next check. With the switches low the fade is
 * short and the window rarely hit; with them high it spans a whole timer period.
 * (The fix: decrement backlog inside an atomic section, once per shown tick.)
 */
#include "scheduler.h"

#include <wsn/invariant.h>

enum { BlinkC$toggle = 0 };

uint16_t BlinkC$ticks;  /* timer interrupts taken */
uint8_t BlinkC$backlog; /* ticks not yet shown */
uint16_t BlinkC$shown;  /* ticks shown on the LEDs */
uint8_t BlinkC$leds;    /* LED bits last shown */

WSN_DECLARE_INVARIANT(blink_pattern);

static inline error_t BlinkC$toggle$postTask(void) {
  return SchedulerBasicP$TaskBasic$postTask(BlinkC$toggle);
}

/* Timer.fired: interrupt context (async). */
void BlinkC$Timer$fired(void) {
  BlinkC$ticks++;
  BlinkC$backlog++;
  BlinkC$toggle$postTask();
}

/* Software PWM fade at each wrap of the counter: 16 + 8 * switches steps. */
static void BlinkC$fade(uint8_t bits, uint8_t switches) {
  uint16_t steps = 16 + 8 * (uint16_t)(switches & 0x3F);
  for (uint16_t i = 0; i < steps; ++i)
    hal_leds_set((i & 1) ? bits : 0);
}

void BlinkC$toggle$runTask(void) {
  uint8_t pending = BlinkC$backlog; /* BUG: read here ... */
  while (pending) {
    BlinkC$shown++;
    BlinkC$leds = (uint8_t)(BlinkC$shown & 7);
    if (BlinkC$leds == 0)
      BlinkC$fade(7, hal_input_bits());
    hal_leds_set(BlinkC$leds);
    pending--;
  }
  BlinkC$backlog = pending; /* ... written back here, not atomically */
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    WSN_CHECK(blink_pattern);
    __nesc_atomic_end(a);
  }
}

void SchedulerBasicP$TaskBasic$runTask(uint8_t id) {
  switch (id) {
  case BlinkC$toggle:
    BlinkC$toggle$runTask();
    break;
  default:
    break;
  }
}

HAL_TIMER_ISR() { BlinkC$Timer$fired(); }

void RealMainP$SoftwareInit$init(void) { hal_leds_set(0); }

void RealMainP$Boot$booted(void) { hal_timer_start(); }
