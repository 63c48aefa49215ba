/* CountToLeds: a project-written program in the shape of the nesC compiler's output for MicaZ
 * (build/micaz/app.c), used to test bench/tinyos/run.py. It is not TinyOS code: it imitates
 * what nesC emits so the pipeline sees the same constructs -- one C file, module state as
 * global variables named Component__variable (nescc -fnesc-separator=__), commands and events
 * as functions Component__Interface__function, tasks dispatched by a switch in
 * SchedulerBasicP__TaskBasic__runTask, a FIFO task queue, atomic sections that save SREG, the
 * idle loop that sleeps when no task is queued, and a timer interrupt handler.
 *
 * Behaviour: Timer0 (CTC, clk/1024, 900 Hz) ticks a virtual millisecond timer; every
 * CountToLedsC__PERIOD ticks its fired() event adds 1 to the counter, or 2 when switch PC0 is
 * closed (read at the fire, so `wsn-sim run --switches C:MEAN` varies the run per seed; the
 * sim-args file beside this one gives run.py that option), and
 * posts the task that shows the counter's low three bits on the LEDs (PA0..PA2, lit low). */
#include <stdint.h>
#include <avr/io.h>

typedef uint8_t __nesc_atomic_t;

/* ---- nesC's atomic sections on the ATmega128 ---- */
static inline __attribute__((always_inline)) __nesc_atomic_t __nesc_atomic_start(void) {
  __nesc_atomic_t saved = SREG;
  __asm__ __volatile__("cli" ::: "memory");
  return saved;
}
static inline __attribute__((always_inline)) void __nesc_atomic_end(__nesc_atomic_t saved) {
  __asm__ __volatile__("" ::: "memory");
  SREG = saved;
}
static inline void __nesc_enable_interrupt(void) { __asm__ __volatile__("sei" ::: "memory"); }

/* ---- task identifiers, as nesC numbers them ---- */
enum {
  CountToLedsC__show = 0U,
  VirtualizeTimerC__0__updateFromTimer = 1U,
  SchedulerBasicP__NUM_TASKS = 2U,
  SchedulerBasicP__NO_TASK = 255
};

/* ---- module state ---- */
uint8_t SchedulerBasicP__m_head;
uint8_t SchedulerBasicP__m_tail;
uint8_t SchedulerBasicP__m_next[SchedulerBasicP__NUM_TASKS];

volatile uint8_t HplAtm128Timer0P__pendingTicks;
uint16_t VirtualizeTimerC__0__now;
uint16_t VirtualizeTimerC__0__t0;
uint16_t VirtualizeTimerC__0__dt;
uint8_t VirtualizeTimerC__0__running;

enum { CountToLedsC__PERIOD = 8U };
uint16_t CountToLedsC__counter;
uint8_t CountToLedsC__busy;
uint8_t LedsP__state;

/* ---- LedsP: three active-low LEDs on port A ---- */
static inline void LedsP__Init__init(void) {
  DDRA |= 0x07;
  PORTA |= 0x07;
  LedsP__state = 0;
}
static inline void LedsP__Leds__set(uint8_t val) {
  __nesc_atomic_t s = __nesc_atomic_start();
  LedsP__state = (uint8_t)(val & 0x07);
  PORTA = (uint8_t)((PORTA & ~0x07) | (~val & 0x07));
  __nesc_atomic_end(s);
}

/* ---- SchedulerBasicP: the FIFO task queue ---- */
static inline void SchedulerBasicP__Scheduler__init(void) {
  __nesc_atomic_t s = __nesc_atomic_start();
  for (uint8_t i = 0; i < SchedulerBasicP__NUM_TASKS; i++)
    SchedulerBasicP__m_next[i] = SchedulerBasicP__NO_TASK;
  SchedulerBasicP__m_head = SchedulerBasicP__NO_TASK;
  SchedulerBasicP__m_tail = SchedulerBasicP__NO_TASK;
  __nesc_atomic_end(s);
}

static inline uint8_t SchedulerBasicP__isWaiting(uint8_t id) {
  return SchedulerBasicP__m_next[id] != SchedulerBasicP__NO_TASK ||
         SchedulerBasicP__m_tail == id;
}

static uint8_t SchedulerBasicP__pushTask(uint8_t id) {
  if (SchedulerBasicP__isWaiting(id))
    return 0;
  if (SchedulerBasicP__m_head == SchedulerBasicP__NO_TASK) {
    SchedulerBasicP__m_head = id;
    SchedulerBasicP__m_tail = id;
  } else {
    SchedulerBasicP__m_next[SchedulerBasicP__m_tail] = id;
    SchedulerBasicP__m_tail = id;
  }
  return 1;
}

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

/* The post command of every task (SUCCESS is 0, FAIL 1, as in TinyOS's error_t). */
__attribute__((noinline)) uint8_t SchedulerBasicP__TaskBasic__postTask(uint8_t id) {
  __nesc_atomic_t s = __nesc_atomic_start();
  uint8_t ok = SchedulerBasicP__pushTask(id);
  __nesc_atomic_end(s);
  return ok ? 0 : 1;
}

static void CountToLedsC__show__runTask(void);
static void VirtualizeTimerC__0__updateFromTimer__runTask(void);

/* nesC's generated dispatcher: one case per task. */
__attribute__((noinline)) void SchedulerBasicP__TaskBasic__runTask(uint8_t id) {
  switch (id) {
  case CountToLedsC__show:
    CountToLedsC__show__runTask();
    break;
  case VirtualizeTimerC__0__updateFromTimer:
    VirtualizeTimerC__0__updateFromTimer__runTask();
    break;
  default:
    break;
  }
}

/* McuSleepC: sei; sleep; cli. The sleep runs before a pending interrupt is taken, so a
 * wake-up between the queue check and the sleep is not lost. */
static inline void McuSleepC__McuSleep__sleep(void) {
  __asm__ __volatile__("sei\n\tsleep\n\tcli" ::: "memory");
}

static uint8_t SchedulerBasicP__Scheduler__runNextTask(void) {
  uint8_t id;
  __nesc_atomic_t s = __nesc_atomic_start();
  id = SchedulerBasicP__popTask();
  __nesc_atomic_end(s);
  if (id == SchedulerBasicP__NO_TASK)
    return 0;
  SchedulerBasicP__TaskBasic__runTask(id);
  return 1;
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

/* ---- HplAtm128Timer0P: Timer0 compare match, CTC at clk/1024, OCR0 = 7 (900 Hz) ---- */
static inline void HplAtm128Timer0P__Init__init(void) {
  TCCR0 = (uint8_t)((1 << WGM01) | (1 << CS02) | (1 << CS01) | (1 << CS00));
  OCR0 = 7;
  TIMSK |= (uint8_t)(1 << OCIE0);
}

void __vector_15(void) __attribute__((signal, used)); /* TIMER0_COMP */
void __vector_15(void) {
  HplAtm128Timer0P__pendingTicks++;
  SchedulerBasicP__TaskBasic__postTask(VirtualizeTimerC__0__updateFromTimer);
}

/* ---- VirtualizeTimerC: one periodic timer in ticks ---- */
static void CountToLedsC__MilliTimer__fired(void);

static inline void VirtualizeTimerC__0__Timer__startPeriodic(uint16_t dt) {
  VirtualizeTimerC__0__t0 = VirtualizeTimerC__0__now;
  VirtualizeTimerC__0__dt = dt;
  VirtualizeTimerC__0__running = 1;
}

__attribute__((noinline)) void VirtualizeTimerC__0__fireTimers(uint16_t now) {
  if (VirtualizeTimerC__0__running &&
      (uint16_t)(now - VirtualizeTimerC__0__t0) >= VirtualizeTimerC__0__dt) {
    VirtualizeTimerC__0__t0 = (uint16_t)(VirtualizeTimerC__0__t0 + VirtualizeTimerC__0__dt);
    CountToLedsC__MilliTimer__fired();
  }
}

static void VirtualizeTimerC__0__updateFromTimer__runTask(void) {
  uint8_t ticks;
  __nesc_atomic_t s = __nesc_atomic_start();
  ticks = HplAtm128Timer0P__pendingTicks;
  HplAtm128Timer0P__pendingTicks = 0;
  __nesc_atomic_end(s);
  while (ticks--) {
    VirtualizeTimerC__0__now++;
    VirtualizeTimerC__0__fireTimers(VirtualizeTimerC__0__now);
  }
}

/* ---- CountToLedsC: the application module ---- */
static void CountToLedsC__Boot__booted(void) {
  DDRC &= (uint8_t)~0x01; /* PC0: the switch */
  VirtualizeTimerC__0__Timer__startPeriodic(CountToLedsC__PERIOD);
}

static void CountToLedsC__MilliTimer__fired(void) {
  uint8_t step = (PINC & 0x01) ? 2 : 1;
  CountToLedsC__counter = (uint16_t)(CountToLedsC__counter + step);
  if (!CountToLedsC__busy &&
      SchedulerBasicP__TaskBasic__postTask(CountToLedsC__show) == 0)
    CountToLedsC__busy = 1;
}

static void CountToLedsC__show__runTask(void) {
  LedsP__Leds__set((uint8_t)CountToLedsC__counter);
  CountToLedsC__busy = 0;
}

/* ---- RealMainP ---- */
int main(void) {
  __nesc_atomic_t s = __nesc_atomic_start();
  MCUCR |= (uint8_t)(1 << SE); /* idle sleep */
  SchedulerBasicP__Scheduler__init();
  LedsP__Init__init();
  HplAtm128Timer0P__Init__init();
  while (SchedulerBasicP__Scheduler__runNextTask())
    ;
  __nesc_atomic_end(s);
  __nesc_enable_interrupt();
  CountToLedsC__Boot__booted();
  SchedulerBasicP__Scheduler__taskLoop();
  return -1;
}
