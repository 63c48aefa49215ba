#define nx_struct struct
/* settle-chain.c: two Timer_A interrupts that come due in the same cycle while main sleeps in
 * LPM0, in the mspgcc dialect of nesC's telosb output. CCR0 and CCR1 both match at TAR ==
 * TACCR0 (up mode), so TIMERA0 (the higher priority, MSP430x1xx family user's guide SLAU049
 * section 2.2.3: the highest vector address wins) is taken from the sleep, clears the stacked
 * CPUOFF (wakeup) and returns; TIMERA1, pending since the same cycle, is then taken at once,
 * before the instruction after the sleep runs, with a stacked SR that no longer has CPUOFF.
 * Both handlers post a task. Project-written, nesC-shaped (SchedulerBasicP's FIFO, TinyOS's
 * scheduler loop), not TinyOS code. */
#include <stdint.h>
#include <wsn/invariant.h>

typedef uint8_t __nesc_atomic_t;
unsigned int __read_status_register(void);
void __dint(void);
void __nop(void);
void __eint(void);
void __bis_status_register(unsigned int);

extern volatile unsigned int WDTCTL __asm("__""WDTCTL");
extern volatile unsigned int TACTL __asm("__""TACTL");
extern volatile unsigned int TACCTL0 __asm("__""TACCTL0");
extern volatile unsigned int TACCTL1 __asm("__""TACCTL1");
extern volatile unsigned int TACCR0 __asm("__""TACCR0");
extern volatile unsigned int TACCR1 __asm("__""TACCR1");
extern volatile unsigned int TAIV __asm("__""TAIV");

enum { SchedulerBasicP$NUM_TASKS = 2, SchedulerBasicP$NO_TASK = 255 };
enum { TickC$tick = 0, TickC$late = 1 };
uint8_t SchedulerBasicP$m_head = SchedulerBasicP$NO_TASK;
uint8_t SchedulerBasicP$m_tail = SchedulerBasicP$NO_TASK;
uint8_t SchedulerBasicP$m_next[SchedulerBasicP$NUM_TASKS] = {SchedulerBasicP$NO_TASK,
                                                             SchedulerBasicP$NO_TASK};
uint16_t TickC$ticks;
uint16_t TickC$lates;
uint16_t TickC$sum;

WSN_INVARIANT(sum_small) { return TickC$sum < 60000; }

static inline __nesc_atomic_t __nesc_atomic_start(void) {
  __nesc_atomic_t on = (__read_status_register() & 0x0008) != 0;
  __dint();
  __nop();
  __asm__ __volatile__("" ::: "memory");
  return on;
}

static inline void __nesc_atomic_end(__nesc_atomic_t on) {
  __asm__ __volatile__("" ::: "memory");
  if (on)
    __eint();
}

static uint8_t SchedulerBasicP$popTask(void) {
  uint8_t id = SchedulerBasicP$m_head;
  if (id != SchedulerBasicP$NO_TASK) {
    SchedulerBasicP$m_head = SchedulerBasicP$m_next[id];
    if (SchedulerBasicP$m_head == SchedulerBasicP$NO_TASK)
      SchedulerBasicP$m_tail = SchedulerBasicP$NO_TASK;
    SchedulerBasicP$m_next[id] = SchedulerBasicP$NO_TASK;
  }
  return id;
}

static void SchedulerBasicP$postTask(uint8_t id) {
  __nesc_atomic_t a = __nesc_atomic_start();
  if (SchedulerBasicP$m_next[id] == SchedulerBasicP$NO_TASK && SchedulerBasicP$m_tail != id) {
    if (SchedulerBasicP$m_head == SchedulerBasicP$NO_TASK)
      SchedulerBasicP$m_head = id;
    else
      SchedulerBasicP$m_next[SchedulerBasicP$m_tail] = id;
    SchedulerBasicP$m_tail = id;
  }
  __nesc_atomic_end(a);
}

static void TickC$tick$runTask(void) {
  TickC$sum += 1;
  WSN_CHECK(sum_small);
}

static void TickC$late$runTask(void) {
  TickC$sum += TickC$lates & 3;
  WSN_CHECK(sum_small);
}

static void SchedulerBasicP$runTask(uint8_t id) {
  switch (id) {
  case TickC$tick:
    TickC$tick$runTask();
    break;
  case TickC$late:
    TickC$late$runTask();
    break;
  }
}

void sig_TIMERA0_VECTOR(void) __attribute((wakeup)) __attribute((interrupt(0x000C)));
void sig_TIMERA0_VECTOR(void) {
  TickC$ticks++;
  SchedulerBasicP$postTask(TickC$tick);
}

/* CCR1 through TAIV (reading it clears the flag it names, SLAU049 section 11.2.6). */
void sig_TIMERA1_VECTOR(void) __attribute((wakeup)) __attribute((interrupt(0x000A)));
void sig_TIMERA1_VECTOR(void) {
  if (TAIV == 2) {
    TickC$lates++;
    SchedulerBasicP$postTask(TickC$late);
  }
}

int main(void) {
  WDTCTL = 0x5A80;
  TACCR0 = 20000;
  TACCR1 = 20000;          /* matches in the same cycle as CCR0 */
  TACCTL0 = 0x0010;        /* CCIE */
  TACCTL1 = 0x0010;        /* CCIE */
  TACTL = 0x0200 | 0x0010; /* SMCLK, up mode */
  __eint();
  for (;;) {
    uint8_t id;
    __nesc_atomic_t a = __nesc_atomic_start();
    while ((id = SchedulerBasicP$popTask()) == SchedulerBasicP$NO_TASK) {
      __bis_status_register(0x0018); /* LPM0 + GIE; the wakeup handlers clear CPUOFF */
      __dint();
      __nop();
    }
    __nesc_atomic_end(a);
    SchedulerBasicP$runTask(id);
  }
}
