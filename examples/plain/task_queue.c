/* Deterministic mote program in the shape of nesC-generated C: a FIFO task
   queue, a const table of function pointers, struct assignment, structs
   passed and returned by value, a union. Ends at done(). */
#include <stdint.h>
#include "mote_string.h"

typedef void (*task_fn)(void);
typedef struct {
  uint8_t id;
  uint16_t reading;
  int8_t delta[3];
} msg_t;

typedef union {
  uint32_t word;
  uint8_t bytes[4];
  struct { uint16_t lo, hi; } half;
} packed_u;

enum { QLEN = 8 };
uint8_t SchedulerBasicP$m_head, SchedulerBasicP$m_tail, SchedulerBasicP$m_size;
uint8_t SchedulerBasicP$m_queue[QLEN];
msg_t SensorP$last, SensorP$history[4];
uint8_t SensorP$count;
packed_u AppP$word;
uint16_t AppP$log[16];
uint8_t AppP$log_len;

__attribute__((noinline)) void done(void) { __asm__ __volatile__("" ::: "memory"); }

static void AppP$log_value(uint16_t v) {
  if (AppP$log_len < 16)
    AppP$log[AppP$log_len++] = v;
}

__attribute__((noinline)) static msg_t SensorP$make(uint8_t id, msg_t prev) {
  msg_t m = prev;
  m.id = id;
  m.reading = (uint16_t)(prev.reading * 3u + id);
  for (uint8_t i = 0; i < 3; ++i)
    m.delta[i] = (int8_t)(prev.delta[i] - (int8_t)(id + i));
  return m;
}

static int SchedulerBasicP$post(uint8_t t);

static void SensorP$read_task(void) {
  SensorP$last = SensorP$make(SensorP$count, SensorP$last);
  SensorP$history[SensorP$count & 3] = SensorP$last;
  AppP$log_value(SensorP$last.reading);
  if (++SensorP$count < 6)
    SchedulerBasicP$post(1);
}
static void AppP$pack_task(void) {
  AppP$word.half.lo = SensorP$last.reading;
  AppP$word.bytes[3] = (uint8_t)SensorP$count;
  AppP$log_value((uint16_t)(AppP$word.word >> 8));
}
static void AppP$start_task(void) {
  memset(&SensorP$last, 0, sizeof SensorP$last);
  SensorP$last.reading = 7;
  SchedulerBasicP$post(1);
  SchedulerBasicP$post(2);
}

static const task_fn SchedulerBasicP$tasks[3] = {AppP$start_task, SensorP$read_task,
                                                 AppP$pack_task};
task_fn AppP$current;

static int SchedulerBasicP$post(uint8_t t) {
  if (SchedulerBasicP$m_size == QLEN)
    return 0;
  SchedulerBasicP$m_queue[SchedulerBasicP$m_tail] = t;
  SchedulerBasicP$m_tail = (uint8_t)((SchedulerBasicP$m_tail + 1) % QLEN);
  ++SchedulerBasicP$m_size;
  return 1;
}

static int SchedulerBasicP$run_next(void) {
  if (!SchedulerBasicP$m_size)
    return 0;
  uint8_t t = SchedulerBasicP$m_queue[SchedulerBasicP$m_head];
  SchedulerBasicP$m_head = (uint8_t)((SchedulerBasicP$m_head + 1) % QLEN);
  --SchedulerBasicP$m_size;
  AppP$current = SchedulerBasicP$tasks[t];
  AppP$current();
  return 1;
}

int main(void) {
  SchedulerBasicP$post(0);
  while (SchedulerBasicP$run_next()) {
  }
  done();
  for (;;) {
  }
}
