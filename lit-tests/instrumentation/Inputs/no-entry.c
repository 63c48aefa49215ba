/* Functions without ENTRY/EXIT records (spec/instrumentation.md section 7.3), written the way
 * nesC emits C.
 *
 * The timer handler counts ticks and posts the show task. The task:
 *   - calls NoEntC$relay, which the analysis selects (its callee, skipped, writes an input of
 *     the invariant): a selected function keeps its pair whatever it counts;
 *   - in an atomic section, calls NoEntC$mark (selected: it writes NoEntC$seen, another input;
 *     entered and kept with interrupts off, no shared global): it keeps its pair too;
 *   - checks the invariant with interrupts off: the CHECK stands for the invariant's call,
 *     which writes no ENTRY/EXIT (7.3 a).
 * The scheduler's task dispatcher, instrumented only because it reaches the task, counts no
 * reference of its own: no pair (7.3 b). */
#include "scheduler.h"

#include <wsn/invariant.h>

enum { NoEntC$show = 0 };

uint16_t NoEntC$ticks; /* the handler's */
uint16_t NoEntC$shown; /* ticks the task has accounted for */
uint16_t NoEntC$seen;  /* the count the task last marked */

WSN_INVARIANT(shown_ok) { return NoEntC$shown <= NoEntC$ticks && NoEntC$seen <= NoEntC$shown; }

__attribute__((noinline)) void NoEntC$account(void) {
  __nesc_atomic_t a = __nesc_atomic_start();
  NoEntC$shown = NoEntC$ticks;
  __nesc_atomic_end(a);
}

__attribute__((noinline)) void NoEntC$relay(void) { NoEntC$account(); }

__attribute__((noinline)) void NoEntC$mark(void) { NoEntC$seen = NoEntC$shown; }

void NoEntC$show$runTask(void) {
  NoEntC$relay();
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    NoEntC$mark();
    WSN_CHECK(shown_ok);
    __nesc_atomic_end(a);
  }
}

void SchedulerBasicP$TaskBasic$runTask(uint8_t id) {
  if (id == NoEntC$show)
    NoEntC$show$runTask();
}

HAL_TIMER_ISR() {
  NoEntC$ticks++;
  SchedulerBasicP$TaskBasic$postTask(NoEntC$show);
}

void RealMainP$SoftwareInit$init(void) {}

void RealMainP$Boot$booted(void) { hal_timer_start(); }
