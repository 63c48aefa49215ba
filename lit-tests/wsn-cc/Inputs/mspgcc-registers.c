#define nx_struct struct
/* A nesC-shaped TelosB (msp430f1611) program in the mspgcc dialect whose registers are
 * declared the way msp430mcu's iomacros.h and nesC's telosb output declare them: external
 * variables named by an asm label, `extern volatile T X __asm("__X")`, whose addresses only
 * the link's periph.x gives. Timer_A CCR0 interrupts (wakeup) post a task through a
 * SchedulerBasicP-like FIFO; the task reads the switches on P2IN (an input), toggles an LED
 * on P5OUT (a latch: read-modify-write) and acknowledges P1IFG; main sleeps in LPM0 when no
 * task is queued. With P2 held at 3, SampleC$sum passes 150 at the 51st tick. */
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
extern volatile unsigned int TACCR0 __asm("__""TACCR0");
extern const volatile unsigned char P2IN __asm("__""P2IN");
extern volatile unsigned char P1IFG __asm("__""P1IFG");
extern volatile unsigned char P5OUT __asm("__""P5OUT");
extern volatile unsigned char P5DIR __asm("__""P5DIR");

enum { SchedulerBasicP$NUM_TASKS = 1, SchedulerBasicP$NO_TASK = 255, SampleC$sample = 0 };
uint8_t SchedulerBasicP$m_head = SchedulerBasicP$NO_TASK;
uint8_t SchedulerBasicP$m_next[SchedulerBasicP$NUM_TASKS] = {SchedulerBasicP$NO_TASK};
uint16_t SampleC$ticks;
uint16_t SampleC$sum;
uint8_t SampleC$led;

WSN_INVARIANT(sum_small) { return SampleC$sum <= 150; }

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
    SchedulerBasicP$m_next[id] = SchedulerBasicP$NO_TASK;
  }
  return id;
}

static uint8_t SchedulerBasicP$postTask(uint8_t id) {
  __nesc_atomic_t a = __nesc_atomic_start();
  uint8_t ok = SchedulerBasicP$m_head == SchedulerBasicP$NO_TASK;
  if (ok)
    SchedulerBasicP$m_head = id;
  __nesc_atomic_end(a);
  return ok;
}

static void SampleC$sample$runTask(void) {
  SampleC$sum += P2IN & 0x0F;
  P5OUT ^= 0x10; /* red LED */
  SampleC$led = (P5OUT & 0x10) != 0;
  P1IFG &= ~0x01;
  WSN_CHECK(sum_small);
}

static void SchedulerBasicP$runTask(uint8_t id) {
  switch (id) {
  case SampleC$sample:
    SampleC$sample$runTask();
    break;
  }
}

void sig_TIMERA0_VECTOR(void) __attribute((wakeup)) __attribute((interrupt(0x000C)));
void sig_TIMERA0_VECTOR(void) {
  SampleC$ticks++;
  SchedulerBasicP$postTask(SampleC$sample);
}

int main(void) {
  WDTCTL = 0x5A80;
  P5DIR |= 0x70;
  P5OUT |= 0x70;
  TACCR0 = 6000; /* leaves the traced build idle time in each period (LPM0) */
  TACCTL0 = 0x0010;        /* CCIE */
  TACTL = 0x0200 | 0x0010; /* SMCLK, up mode */
  __eint();
  for (;;) {
    uint8_t id;
    __nesc_atomic_t a = __nesc_atomic_start();
    while ((id = SchedulerBasicP$popTask()) == SchedulerBasicP$NO_TASK) {
      __bis_status_register(0x0018); /* LPM0 + GIE; the wakeup handler clears CPUOFF */
      __dint();
      __nop();
    }
    __nesc_atomic_end(a);
    SchedulerBasicP$runTask(id);
  }
}
