/* settle-wake.c: the scheduler loop in the shape nescc emits for micaz (TinyOS's
 * SchedulerBasicP$taskLoop and McuSleepC$McuSleep$sleep): the task queue is read in an atomic
 * section and, while it is empty, the core sleeps with `sei; sleep; cli`. The Timer0 compare
 * handler posts a task while main sleeps; after the handler returns into the instruction after
 * SLEEP, main pops the task (the queue's head and tail change) and runs it. Project-written,
 * not TinyOS code. */
#include <stdint.h>
#include <avr/io.h>
#include <avr/interrupt.h>
#include <wsn/invariant.h>

#define NO_TASK 255
#define NTASKS 2
uint8_t SchedulerBasicP$m_head = NO_TASK;
uint8_t SchedulerBasicP$m_tail = NO_TASK;
uint8_t SchedulerBasicP$m_next[NTASKS] = {NO_TASK, NO_TASK};
uint16_t CountC$fired;
uint16_t CountC$odd;

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

ISR(TIMER0_COMP_vect) { SchedulerBasicP$postTask(CountC$fired & 1); }

WSN_INVARIANT(fired_small) { return CountC$fired < 60000; }

__attribute__((noinline)) static void CountC$count$runTask(void) {
  CountC$fired++;
  WSN_CHECK(fired_small);
}

__attribute__((noinline)) static void CountC$odd$runTask(void) {
  CountC$odd++;
  CountC$fired++;
}

static void McuSleepC$McuSleep$sleep(void) {
  MCUCR |= 1 << SE; /* idle mode */
  __asm__ __volatile__("sei" ::: "memory");
  __asm__ __volatile__("sleep" ::: "memory");
  __asm__ __volatile__("cli" ::: "memory");
  MCUCR &= (uint8_t)~(1 << SE);
}

int main(void) {
  TCCR0 = (1 << WGM01) | (1 << CS01) | (1 << CS00); /* CTC, clk/32: every 6432 cycles */
  OCR0 = 200;
  TIMSK |= (1 << OCIE0);
  for (;;) {
    uint8_t t;
    cli();
    while ((t = SchedulerBasicP$popTask()) == NO_TASK)
      McuSleepC$McuSleep$sleep();
    sei();
    if (t == 0)
      CountC$count$runTask();
    else
      CountC$odd$runTask();
  }
}
