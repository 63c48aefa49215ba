/* idle-ticks.c: a project-written program in the shape of nescc's output for MicaZ (one C
 * file, Component__function names, tasks dispatched by a switch, the idle loop that sleeps
 * inside an atomic section). It is not TinyOS code.
 *
 * What it reproduces (issue 17): a timer interrupt wakes the mote many times between two
 * task runs. Each wake-up records the handler (IRQ, its input, IRQ_EXIT) but posts no task,
 * so the scheduler loop's own header is passed only once per task; the interrupts of one
 * idle stretch fill more than the whole ring. Only an anchor at the header of the sleep loop
 * (passed at every wake-up) keeps a checkpoint in the retained tail.
 *
 * Behaviour: Timer0 (CTC, clk/1024, OCR0 = 7: 900 Hz) counts ticks and samples PINC; every
 * IdleTicksC__PERIOD ticks it posts the task that adds the sampled bits to the counter. The
 * invariant (counter below IdleTicksC__LIMIT) is violated after about LIMIT task runs. */
#include <stdint.h>
#include <avr/io.h>
#include <wsn/invariant.h>

typedef uint8_t __nesc_atomic_t;

static inline __attribute__((always_inline)) __nesc_atomic_t __nesc_atomic_start(void) {
  __nesc_atomic_t saved = SREG;
  __asm__ __volatile__("cli" ::: "memory");
  return saved;
}
static inline __attribute__((always_inline)) void __nesc_atomic_end(__nesc_atomic_t saved) {
  __asm__ __volatile__("" ::: "memory");
  SREG = saved;
}

enum {
  IdleTicksC__count = 0U,
  IdleTicksC__report = 1U,
  SchedulerBasicP__NUM_TASKS = 2U,
  SchedulerBasicP__NO_TASK = 255
};
enum { IdleTicksC__PERIOD = 96U, IdleTicksC__LIMIT = 12U };

uint8_t SchedulerBasicP__m_head;
uint8_t SchedulerBasicP__m_tail;
uint8_t SchedulerBasicP__m_next[SchedulerBasicP__NUM_TASKS];

volatile uint8_t HplTimer0P__ticks;
volatile uint8_t HplTimer0P__sample;
uint16_t IdleTicksC__counter;
uint8_t IdleTicksC__reports;

static inline uint8_t SchedulerBasicP__popTask(void) {
  uint8_t id = SchedulerBasicP__m_head;
  if (id != SchedulerBasicP__NO_TASK) {
    SchedulerBasicP__m_head = SchedulerBasicP__m_next[id];
    if (SchedulerBasicP__m_head == SchedulerBasicP__NO_TASK)
      SchedulerBasicP__m_tail = SchedulerBasicP__NO_TASK;
    SchedulerBasicP__m_next[id] = SchedulerBasicP__NO_TASK;
  }
  return id;
}

__attribute__((noinline)) uint8_t SchedulerBasicP__TaskBasic__postTask(uint8_t id) {
  __nesc_atomic_t s = __nesc_atomic_start();
  uint8_t ok = 0;
  if (SchedulerBasicP__m_next[id] == SchedulerBasicP__NO_TASK && SchedulerBasicP__m_tail != id) {
    if (SchedulerBasicP__m_head == SchedulerBasicP__NO_TASK)
      SchedulerBasicP__m_head = id;
    else
      SchedulerBasicP__m_next[SchedulerBasicP__m_tail] = id;
    SchedulerBasicP__m_tail = id;
    ok = 1;
  }
  __nesc_atomic_end(s);
  return ok ? 0 : 1;
}

static void IdleTicksC__count__runTask(void);
static void IdleTicksC__report__runTask(void);

__attribute__((noinline)) void SchedulerBasicP__TaskBasic__runTask(uint8_t id) {
  switch (id) {
  case IdleTicksC__count:
    IdleTicksC__count__runTask();
    break;
  case IdleTicksC__report:
    IdleTicksC__report__runTask();
    break;
  default:
    break;
  }
}

/* McuSleepC: sei; sleep; cli (inlined: the idle loop then calls no function). */
static inline void McuSleepC__McuSleep__sleep(void) {
  __asm__ __volatile__("sei\n\tsleep\n\tcli" ::: "memory");
}

static void SchedulerBasicP__Scheduler__taskLoop(void) {
  for (;;) {
    uint8_t id;
    __nesc_atomic_t s = __nesc_atomic_start();
    while ((id = SchedulerBasicP__popTask()) == SchedulerBasicP__NO_TASK)
      McuSleepC__McuSleep__sleep();
    __nesc_atomic_end(s);
    SchedulerBasicP__TaskBasic__runTask(id);
  }
}

void __vector_15(void) __attribute__((signal, used)); /* TIMER0_COMP */
void __vector_15(void) {
  uint8_t t = (uint8_t)(HplTimer0P__ticks + 1);
  HplTimer0P__sample = (uint8_t)(HplTimer0P__sample + (PINC & 0x03));
  if (t == IdleTicksC__PERIOD) {
    t = 0;
    SchedulerBasicP__TaskBasic__postTask(IdleTicksC__count);
  }
  HplTimer0P__ticks = t;
}

static void IdleTicksC__count__runTask(void) {
  __nesc_atomic_t s = __nesc_atomic_start();
  uint8_t sample = HplTimer0P__sample;
  HplTimer0P__sample = 0;
  __nesc_atomic_end(s);
  IdleTicksC__counter = (uint16_t)(IdleTicksC__counter + 1 + (sample & 1));
  if ((IdleTicksC__counter & 3) == 0)
    SchedulerBasicP__TaskBasic__postTask(IdleTicksC__report);
}

static void IdleTicksC__report__runTask(void) { IdleTicksC__reports++; }

WSN_INVARIANT(counter_below_limit) { return IdleTicksC__counter < IdleTicksC__LIMIT; }

int main(void) {
  for (uint8_t i = 0; i < SchedulerBasicP__NUM_TASKS; i++)
    SchedulerBasicP__m_next[i] = SchedulerBasicP__NO_TASK;
  SchedulerBasicP__m_head = SchedulerBasicP__NO_TASK;
  SchedulerBasicP__m_tail = SchedulerBasicP__NO_TASK;
  MCUCR |= (uint8_t)(1 << SE); /* idle sleep */
  TCCR0 = (uint8_t)((1 << WGM01) | (1 << CS02) | (1 << CS01) | (1 << CS00));
  OCR0 = 7;
  TIMSK |= (uint8_t)(1 << OCIE0);
  __asm__ __volatile__("sei" ::: "memory");
  SchedulerBasicP__Scheduler__taskLoop();
  return -1;
}
