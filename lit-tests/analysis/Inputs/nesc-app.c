/* The shape of nesC's generated C for a small TinyOS application (written for the tests, not
 * taken from TinyOS): static inline tasks, commands and events joined by '$' (or "__" with
 * -DUSCORE, as other nesC versions write them), the scheduler's FIFO queue, its dispatcher
 * SchedulerBasicP$TaskBasic$runTask(id) switching on the task id, postTask in an atomic
 * section, a timer interrupt that signals a fired event, and main's task loop. */
#include <stdint.h>
#include <wsn/invariant.h>

#ifdef USCORE
#define N2(a, b) a##__##b
#define N3(a, b, c) a##__##b##__##c
#define N4(a, b, c, d) a##__##b##__##c##__##d
#else
#define N2(a, b) a##$##b
#define N3(a, b, c) a##$##b##$##c
#define N4(a, b, c, d) a##$##b##$##c##$##d
#endif

typedef uint8_t __nesc_atomic_t;
static inline __nesc_atomic_t __nesc_atomic_start(void) {
  __nesc_atomic_t s = *(volatile uint8_t *)0x5F;
  __asm__ __volatile__("cli" ::: "memory");
  return s;
}
static inline void __nesc_atomic_end(__nesc_atomic_t s) {
  __asm__ __volatile__("" ::: "memory");
  *(volatile uint8_t *)0x5F = s;
}

enum { TASK_SEND = 0, TASK_BLINK = 1, TASK_LOG = 2, NUM_TASKS = 3, NO_TASK = 255 };
uint8_t N2(SchedulerBasicP, m_head) = NO_TASK, N2(SchedulerBasicP, m_tail) = NO_TASK;
uint8_t N2(SchedulerBasicP, m_next)[NUM_TASKS] = {NO_TASK, NO_TASK, NO_TASK};

uint16_t N2(AppC, counter), N2(AppC, sent), N2(AppC, shown), N2(AppC, logged);
uint8_t N2(AppC, leds);
volatile uint8_t N2(AppC, ticks);

WSN_DECLARE_INVARIANT(sent_le_counter);

static inline uint8_t N2(SchedulerBasicP, popTask)(void) {
  uint8_t id = N2(SchedulerBasicP, m_head);
  if (id != NO_TASK) {
    N2(SchedulerBasicP, m_head) = N2(SchedulerBasicP, m_next)[id];
    if (N2(SchedulerBasicP, m_head) == NO_TASK)
      N2(SchedulerBasicP, m_tail) = NO_TASK;
    N2(SchedulerBasicP, m_next)[id] = NO_TASK;
  }
  return id;
}

static inline uint8_t N3(SchedulerBasicP, TaskBasic, postTask)(uint8_t id) {
  __nesc_atomic_t a = __nesc_atomic_start();
  uint8_t ok = 0;
  if (N2(SchedulerBasicP, m_next)[id] == NO_TASK && N2(SchedulerBasicP, m_tail) != id) {
    if (N2(SchedulerBasicP, m_head) == NO_TASK)
      N2(SchedulerBasicP, m_head) = id;
    else
      N2(SchedulerBasicP, m_next)[N2(SchedulerBasicP, m_tail)] = id;
    N2(SchedulerBasicP, m_tail) = id;
    ok = 1;
  }
  __nesc_atomic_end(a);
  return ok;
}

/* Commands and events: one-line wrappers, as nesC writes them. */
static inline void N3(LedsP, Leds, set)(uint8_t v) { *(volatile uint8_t *)0x3B = v; }
static inline void N3(AppC, Leds, set)(uint8_t v) { N3(LedsP, Leds, set)(v); }
static inline uint8_t N3(AppC, send, postTask)(void) {
  return N3(SchedulerBasicP, TaskBasic, postTask)(TASK_SEND);
}

static inline void N3(AppC, send, runTask)(void) {
  N2(AppC, sent) = N2(AppC, counter);
  WSN_CHECK(sent_le_counter);
}
static inline void N3(AppC, blink, runTask)(void) {
  N2(AppC, shown)++;
  N3(AppC, Leds, set)((uint8_t)N2(AppC, shown));
}
static inline void N3(AppC, log, runTask)(void) { N2(AppC, logged) += 2; }

static inline void N3(AppC, Timer, fired)(void) {
  N2(AppC, counter)++;
  N3(AppC, send, postTask)();
  N3(SchedulerBasicP, TaskBasic, postTask)(TASK_BLINK);
}

static void N3(SchedulerBasicP, TaskBasic, runTask)(uint8_t id) {
  switch (id) {
  case TASK_SEND: N3(AppC, send, runTask)(); break;
  case TASK_BLINK: N3(AppC, blink, runTask)(); break;
  case TASK_LOG: N3(AppC, log, runTask)(); break;
  default: break;
  }
}

static inline uint8_t N3(SchedulerBasicP, Scheduler, runNextTask)(void) {
  __nesc_atomic_t a = __nesc_atomic_start();
  uint8_t id = N2(SchedulerBasicP, popTask)();
  __nesc_atomic_end(a);
  if (id == NO_TASK)
    return 0;
  N3(SchedulerBasicP, TaskBasic, runTask)(id);
  return 1;
}

__attribute__((signal, used)) void __vector_15(void) {
  N2(AppC, ticks)++;
  N3(AppC, Timer, fired)();
}

WSN_INVARIANT(sent_le_counter) { return N2(AppC, sent) <= N2(AppC, counter); }

int main(void) {
  __asm__ __volatile__("sei" ::: "memory");
  for (;;) {
    while (N3(SchedulerBasicP, Scheduler, runNextTask)())
      ;
    __asm__ __volatile__("sleep" ::: "memory");
  }
}
