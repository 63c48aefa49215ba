/* Calls replay computes (spec/instrumentation.md section 7.2), written the way nesC emits C.
 *
 * The timer handler (entered with interrupts off) makes three calls of uninstrumented code:
 *   - CompC$enqueue: an atomic section over the queue, which the task reads, so every
 *     checkpoint holds it: replay computes it (no skip span, no effect record);
 *   - SchedulerBasicP$TaskBasic$postTask: the task queue, scheduler state: computed too;
 *   - CompC$tallyUp: reads CompC$tally, which no code replay runs reads (no checkpoint holds
 *     it): skipped;
 * and the handler reads the switches through CompC$pins (an input, recorded).
 * The task calls CompC$enqueue once more, with interrupts on: a handler may run inside that
 * call, so it is skipped and recorded. */
#include "scheduler.h"

#include <wsn/invariant.h>

enum { CompC$drain = 0 };

uint16_t CompC$ticks;
uint8_t CompC$queue[8];
uint8_t CompC$head;
uint8_t CompC$count;
uint16_t CompC$drained;
uint16_t CompC$tally; /* only CompC$tallyUp reads it */
uint8_t CompC$pinsSeen;

WSN_INVARIANT(queue_ok) { return CompC$count <= 8 && CompC$head < 8; }

__attribute__((noinline)) bool_t CompC$enqueue(uint8_t v) {
  bool_t ok;
  __nesc_atomic_t a = __nesc_atomic_start();
  ok = CompC$count < 8;
  if (ok) {
    CompC$queue[(uint8_t)(CompC$head + CompC$count) & 7] = v;
    CompC$count++;
  }
  __nesc_atomic_end(a);
  return ok;
}

__attribute__((noinline)) void CompC$tallyUp(void) { CompC$tally += 3; }

/* Inlined into the handler, or (-DCOMP_OUT_OF_LINE) called from it, as nesC output often
 * leaves an async event: then it is a function entered with interrupts off (section 7.1). */
#ifdef COMP_OUT_OF_LINE
__attribute__((noinline)) void CompC$Timer$fired(void) {
#else
static inline __attribute__((always_inline)) void CompC$Timer$fired(void) {
#endif
  CompC$ticks++;
  CompC$enqueue((uint8_t)CompC$ticks);
  CompC$tallyUp();
  CompC$pinsSeen = hal_input_bits();
  SchedulerBasicP$TaskBasic$postTask(CompC$drain);
}

void CompC$drain$runTask(void) {
  for (;;) {
    uint8_t v;
    __nesc_atomic_t a = __nesc_atomic_start();
    if (CompC$count == 0) {
      __nesc_atomic_end(a);
      break;
    }
    v = CompC$queue[CompC$head];
    CompC$head = (uint8_t)((CompC$head + 1) & 7);
    CompC$count--;
    __nesc_atomic_end(a);
    CompC$drained += v;
  }
  if ((CompC$drained & 3) == 0)
    CompC$enqueue((uint8_t)(CompC$pinsSeen + 1));
  WSN_CHECK(queue_ok);
}

void SchedulerBasicP$TaskBasic$runTask(uint8_t id) {
  if (id == CompC$drain)
    CompC$drain$runTask();
}

HAL_TIMER_ISR() { CompC$Timer$fired(); }

void RealMainP$SoftwareInit$init(void) {}

void RealMainP$Boot$booted(void) { hal_timer_start(); }
