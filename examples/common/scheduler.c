/* scheduler.c - TinyOS 2 SchedulerBasicP and RealMainP, written the way nesC emits them.
 *
 * The queue is a linked list threaded through m_next (one slot per task id), so posting is
 * O(1) and a task already queued is refused with EBUSY. taskLoop is the compile-time infinite
 * loop whose header the analyses take as the anchor site (thesis chapter 4, LOG 4).
 */
#include "scheduler.h"

uint8_t SchedulerBasicP$m_head;
uint8_t SchedulerBasicP$m_tail;
uint8_t SchedulerBasicP$m_next[SCHEDULER_NUM_TASKS];

static inline uint8_t SchedulerBasicP$popTask(void) {
  if (SchedulerBasicP$m_head != SCHEDULER_NO_TASK) {
    uint8_t id = SchedulerBasicP$m_head;
    SchedulerBasicP$m_head = SchedulerBasicP$m_next[SchedulerBasicP$m_head];
    if (SchedulerBasicP$m_head == SCHEDULER_NO_TASK)
      SchedulerBasicP$m_tail = SCHEDULER_NO_TASK;
    SchedulerBasicP$m_next[id] = SCHEDULER_NO_TASK;
    return id;
  }
  return SCHEDULER_NO_TASK;
}

static inline bool_t SchedulerBasicP$isWaiting(uint8_t id) {
  return SchedulerBasicP$m_next[id] != SCHEDULER_NO_TASK || SchedulerBasicP$m_tail == id;
}

static inline bool_t SchedulerBasicP$pushTask(uint8_t id) {
  if (!SchedulerBasicP$isWaiting(id)) {
    if (SchedulerBasicP$m_head == SCHEDULER_NO_TASK) {
      SchedulerBasicP$m_head = id;
      SchedulerBasicP$m_tail = id;
    } else {
      SchedulerBasicP$m_next[SchedulerBasicP$m_tail] = id;
      SchedulerBasicP$m_tail = id;
    }
    return TRUE;
  }
  return FALSE;
}

void SchedulerBasicP$Scheduler$init(void) {
  __nesc_atomic_t a = __nesc_atomic_start();
  for (uint8_t i = 0; i < SCHEDULER_NUM_TASKS; ++i)
    SchedulerBasicP$m_next[i] = SCHEDULER_NO_TASK;
  SchedulerBasicP$m_head = SCHEDULER_NO_TASK;
  SchedulerBasicP$m_tail = SCHEDULER_NO_TASK;
  __nesc_atomic_end(a);
}

bool_t SchedulerBasicP$Scheduler$runNextTask(void) {
  uint8_t id;
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    id = SchedulerBasicP$popTask();
    __nesc_atomic_end(a);
  }
  if (id == SCHEDULER_NO_TASK)
    return FALSE;
  SchedulerBasicP$TaskBasic$runTask(id);
  return TRUE;
}

error_t SchedulerBasicP$TaskBasic$postTask(uint8_t id) {
  error_t r;
  __nesc_atomic_t a = __nesc_atomic_start();
  r = SchedulerBasicP$pushTask(id) ? SUCCESS : EBUSY;
  __nesc_atomic_end(a);
  return r;
}

/* McuSleep: sleep only if nothing was posted since the last runNextTask (checked with
 * interrupts off, so a post from a handler cannot slip between the check and the sleep). */
static void SchedulerBasicP$McuSleep$sleep(void) {
  __nesc_atomic_t a = __nesc_atomic_start();
  if (SchedulerBasicP$m_head == SCHEDULER_NO_TASK)
    hal_sleep();
  __nesc_atomic_end(a);
}

void SchedulerBasicP$Scheduler$taskLoop(void) {
  for (;;) {
    while (SchedulerBasicP$Scheduler$runNextTask())
      ;
    SchedulerBasicP$McuSleep$sleep();
  }
}

/* RealMainP: boot with interrupts off, then enable them and run the scheduler forever. */
int main(void) {
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    hal_init();
    SchedulerBasicP$Scheduler$init();
    RealMainP$SoftwareInit$init();
    while (SchedulerBasicP$Scheduler$runNextTask())
      ;
    __nesc_atomic_end(a);
  }
  __nesc_enable_interrupt();
  RealMainP$Boot$booted();
  SchedulerBasicP$Scheduler$taskLoop();
}
