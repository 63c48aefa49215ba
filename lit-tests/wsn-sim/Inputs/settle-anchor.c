/* settle-anchor.c: the scheduler loop in the shape nescc emits for micaz (TinyOS's
 * SchedulerBasicP$taskLoop), with a task that always posts itself again, so main never
 * sleeps, and a stretch of main code with no record after the task (the gap between a
 * record and the next anchor in which the TelosB runtime's record end lets pending
 * interrupts in). The Timer0 compare handler writes a few INPUT records; when they cross a
 * segment boundary while main is in that stretch, main's next anchor visit writes a
 * checkpoint that main's own records did not arm. Project-written, not TinyOS code. */
#include <stdint.h>
#include <avr/io.h>
#include <avr/interrupt.h>
#include <wsn/invariant.h>

#ifndef TIMER_TOP
#define TIMER_TOP 255
#endif
#ifndef SPIN
#define SPIN 120
#endif
#define NO_TASK 255
#define NTASKS 2
uint8_t SchedulerBasicP$m_head = NO_TASK;
uint8_t SchedulerBasicP$m_tail = NO_TASK;
uint8_t SchedulerBasicP$m_next[NTASKS] = {NO_TASK, NO_TASK};
uint16_t CountC$fired;
uint16_t CountC$ticks;
uint16_t CountC$spin;
uint8_t CountC$sample;

static uint8_t SchedulerBasicP$popTask(void) {
  if (SchedulerBasicP$m_head == NO_TASK)
    return NO_TASK;
  uint8_t id = SchedulerBasicP$m_head;
  SchedulerBasicP$m_head = SchedulerBasicP$m_next[id];
  if (SchedulerBasicP$m_head == NO_TASK)
    SchedulerBasicP$m_tail = NO_TASK;
  SchedulerBasicP$m_next[id] = NO_TASK;
  return id;
}

static void SchedulerBasicP$postTask(uint8_t id) {
  if (SchedulerBasicP$m_next[id] != NO_TASK || SchedulerBasicP$m_tail == id)
    return;
  if (SchedulerBasicP$m_head == NO_TASK)
    SchedulerBasicP$m_head = id;
  else
    SchedulerBasicP$m_next[SchedulerBasicP$m_tail] = id;
  SchedulerBasicP$m_tail = id;
}

/* Three reads of the running counter: three INPUT records per interrupt, in the slice of
 * the invariant through CountC$fired. */
ISR(TIMER0_COMP_vect) {
  CountC$ticks++;
  CountC$sample = TCNT0;
  CountC$sample ^= TCNT0;
  CountC$sample += TCNT0;
}

WSN_INVARIANT(fired_small) { return CountC$fired < 60000; }

__attribute__((noinline)) static void CountC$count$runTask(void) {
  CountC$fired += 1 + (CountC$sample & 1);
  WSN_CHECK(fired_small);
  SchedulerBasicP$postTask(0);
}

static void McuSleepC$McuSleep$sleep(void) {
  MCUCR |= 1 << SE; /* idle mode */
  __asm__ __volatile__("sei" ::: "memory");
  __asm__ __volatile__("sleep" ::: "memory");
  __asm__ __volatile__("cli" ::: "memory");
  MCUCR &= (uint8_t)~(1 << SE);
}

int main(void) {
  TCCR0 = (1 << WGM01) | (1 << CS01) | (1 << CS00); /* CTC, clk/32: every 32 * (OCR0 + 1) */
  OCR0 = TIMER_TOP;
  TIMSK |= (1 << OCIE0);
  SchedulerBasicP$postTask(0);
  for (;;) {
    uint8_t t;
    cli();
    while ((t = SchedulerBasicP$popTask()) == NO_TASK)
      McuSleepC$McuSleep$sleep();
    sei();
    if (t == 0)
      CountC$count$runTask();
    /* A few thousand cycles of main code that writes no record and calls nothing. */
    uint16_t s = CountC$spin;
    for (uint16_t i = 0; i < CountC$fired % 16 + SPIN; ++i)
      s = (uint16_t)(s * 3u + i);
    CountC$spin = s;
  }
}
