/* nesc_sched.h - the nesC-style glue of the radio examples (netsense.c, netrelay.c and
 * examples/aodv/aodv.c, AVR): atomic sections that save and restore SREG, a TinySchedulerC-like
 * FIFO of task ids, and main's sleep-when-idle wait for the next task.
 *
 * Before including it, a program declares its task ids 0 .. NUM_TASKS-1, NUM_TASKS and
 * NO_TASK (255) in an enum, and may define:
 *   SCHED_STATE       the qualifier of the queue's variables (default volatile; aodv.c
 *                     leaves it empty: it touches them only inside atomic sections, and a
 *                     volatile load is a recorded input);
 *   SCHED_POST_ATTRS  attributes of SchedulerBasicP$post (default none; aodv.c inlines it);
 *   SCHED_TAIL_OK(t)  whether the queue's tail t may index next[] (default always; aodv.c
 *                     checks t < NUM_TASKS, so the analysis sees the store stay in the array).
 * Everything here is static: each firmware has its own copy, as nesC generates it. */
#ifndef EXAMPLES_RADIO_NESC_SCHED_H
#define EXAMPLES_RADIO_NESC_SCHED_H

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#ifndef SCHED_STATE
#define SCHED_STATE volatile
#endif
#ifndef SCHED_POST_ATTRS
#define SCHED_POST_ATTRS
#endif
#ifndef SCHED_TAIL_OK
#define SCHED_TAIL_OK(t) 1
#endif

typedef uint8_t __nesc_atomic_t;
static inline __nesc_atomic_t __nesc_atomic_start(void) {
  __nesc_atomic_t s = SREG;
  cli();
  return s;
}
static inline void __nesc_atomic_end(__nesc_atomic_t s) { SREG = s; }

static SCHED_STATE uint8_t SchedulerBasicP$head = NO_TASK, SchedulerBasicP$tail = NO_TASK;
static SCHED_STATE uint8_t SchedulerBasicP$next[NUM_TASKS] = {[0 ... NUM_TASKS - 1] = NO_TASK};

static SCHED_POST_ATTRS uint8_t SchedulerBasicP$post(uint8_t id) {
  __nesc_atomic_t s = __nesc_atomic_start();
  uint8_t ok = 0;
  if (SchedulerBasicP$next[id] == NO_TASK && SchedulerBasicP$tail != id) {
    if (SchedulerBasicP$head == NO_TASK)
      SchedulerBasicP$head = id;
    else if (SCHED_TAIL_OK(SchedulerBasicP$tail))
      SchedulerBasicP$next[SchedulerBasicP$tail] = id;
    SchedulerBasicP$tail = id;
    ok = 1;
  }
  __nesc_atomic_end(s);
  return ok;
}

static uint8_t SchedulerBasicP$popTask(void) {
  uint8_t id = SchedulerBasicP$head;
  if (id != NO_TASK) {
    SchedulerBasicP$head = SchedulerBasicP$next[id];
    if (SchedulerBasicP$head == NO_TASK)
      SchedulerBasicP$tail = NO_TASK;
    SchedulerBasicP$next[id] = NO_TASK;
  }
  return id;
}

/* The head of main's `for (;;)`: takes the next task into t, with interrupts on; with none,
 * the mote sleeps in idle mode (sei, then sleep: the instruction after sei runs before any
 * interrupt, so no wake-up is lost) and the loop starts again (`continue`). A statement
 * macro, not a function: main keeps the one loop it had when this was written out there (an
 * anchor at its header, spec/instrumentation.md section 5), and its code stays the same. */
#define SCHED_NEXT_TASK(t)                                                                       \
  cli();                                                                                         \
  t = SchedulerBasicP$popTask();                                                                 \
  if (t == NO_TASK) {                                                                            \
    sleep_enable();                                                                              \
    sei();                                                                                       \
    sleep_cpu();                                                                                 \
    sleep_disable();                                                                             \
    continue;                                                                                    \
  }                                                                                              \
  sei()

#endif
