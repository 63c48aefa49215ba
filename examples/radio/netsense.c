/* netsense.c - sense-and-send over wsn-sim's radio: one firmware for every node.
 *
 * Node 0 is the base station; every other node is a sensor. A sensor's 1 kHz timer counts
 * SENSE_PERIOD ticks, starts an ADC conversion, and the ADC handler posts a task that sends
 * the reading to the base station (dest 0) through RadioC. The base station's receive event
 * queues the message and posts a task that accounts for it.
 *
 * Invariants (WSN_INVARIANT, checked with WSN_CHECK; build with wsn-cc):
 *   reading_sane (sensors): the last reading is below SENSE_LIMIT (the sensor saturates
 *     above; the seeded ADC input decides when this fails);
 *   seq_increases (base): per sender, sequence numbers strictly increase;
 *   readings_in_range (base): every reading received is below BASE_LIMIT (by default above
 *     any 10-bit reading; built with a lower BASE_LIMIT and SENSE_LIMIT=1024 the violation is
 *     detected at the base station and caused by a sensor's message, the case wsn-replay net
 *     follows back to the sender).
 * No trace call is written by hand: the instrumentation records the ADC input (a volatile
 * register read), and the SEND / RECV records of LOG 6 (Wang 2013 section 5.1) at RadioC's
 * send function and receive event, which radio.h marks (wsn/net.h).
 *
 * Written in the style of nesC-generated C: component$function names, a FIFO task queue and
 * a sleep-when-idle main loop, atomic sections that save and restore SREG. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#include "radio.h"
#include "wsn/invariant.h"

#ifndef SENSE_PERIOD
#define SENSE_PERIOD 50 /* ms */
#endif
#ifndef SENSE_LIMIT
#define SENSE_LIMIT 1000
#endif
#ifndef BASE_LIMIT
#define BASE_LIMIT 1024
#endif
#define MAX_NODES 16
#define AM_READING 0x21


/* ---- scheduler (TinySchedulerC-like FIFO of task ids): nesc_sched.h ---- */
enum { TASK_SEND = 0, TASK_DELIVER = 1, NUM_TASKS = 2, NO_TASK = 255 };
#include "nesc_sched.h"

/* ---- sensor ---- */
uint16_t SenseC$reading;   /* last ADC reading */
uint16_t SenseC$sent;      /* readings sent */
static volatile uint16_t SenseC$ticks;

WSN_INVARIANT(reading_sane) { return SenseC$reading < SENSE_LIMIT; }

static void SenseC$sendTask(void) {
  uint16_t payload[2];
  __nesc_atomic_t s = __nesc_atomic_start();
  payload[0] = SenseC$reading;
  __nesc_atomic_end(s);
  payload[1] = ++SenseC$sent;
  RadioC$send(0, AM_READING, payload, sizeof payload);
  WSN_CHECK(reading_sane);
}

ISR(ADC_vect) {
  SenseC$reading = ADC;
  SchedulerBasicP$post(TASK_SEND);
}

ISR(TIMER0_COMP_vect) {
  if (RadioC$nodeId() != 0 && ++SenseC$ticks >= SENSE_PERIOD) {
    SenseC$ticks = 0;
    ADCSRA |= _BV(ADSC) | _BV(ADIE);
  }
}

/* ---- base station ---- */
uint16_t BaseC$lastSeq[MAX_NODES];
uint16_t BaseC$received[MAX_NODES];
uint16_t BaseC$total;
uint8_t BaseC$bad; /* set when a sequence number did not increase */
uint16_t BaseC$maxReading; /* the largest reading received */
static volatile uint8_t BaseC$qCount;
static volatile uint8_t BaseC$qHead;
static radio_msg_t BaseC$queue[4];

WSN_INVARIANT(seq_increases) { return !BaseC$bad; }
WSN_INVARIANT(readings_in_range) { return BaseC$maxReading < BASE_LIMIT; }

void RadioC$Receive$receive(const radio_msg_t *msg) {
  /* async event (interrupt context): copy into the queue, post the task */
  uint8_t slot, i;
  if (RadioC$nodeId() != 0 || msg->type != AM_READING || BaseC$qCount >= 4)
    return;
  slot = (uint8_t)((BaseC$qHead + BaseC$qCount) & 3);
  BaseC$queue[slot].src = msg->src;
  BaseC$queue[slot].seq = msg->seq;
  BaseC$queue[slot].len = msg->len;
  for (i = 0; i < msg->len; ++i)
    BaseC$queue[slot].data[i] = msg->data[i];
  ++BaseC$qCount;
  SchedulerBasicP$post(TASK_DELIVER);
}

/* One message per run, reposted while the queue holds more (as TinyOS's queues do): the
 * scheduler loop runs between messages, so a busy base station still reaches its anchor and
 * its trace keeps checkpoints (with a loop over the whole queue, a base station flooded by
 * four sensors could fill its ring without one). */
static void BaseC$deliverTask(void) {
  radio_msg_t *m;
  uint16_t src, seq, reading;
  __nesc_atomic_t s = __nesc_atomic_start();
  if (!BaseC$qCount) {
    __nesc_atomic_end(s);
    return;
  }
  m = &BaseC$queue[BaseC$qHead];
  src = m->src;
  seq = m->seq;
  reading = (uint16_t)(m->data[0] | (uint16_t)m->data[1] << 8);
  BaseC$qHead = (uint8_t)((BaseC$qHead + 1) & 3);
  if (--BaseC$qCount)
    SchedulerBasicP$post(TASK_DELIVER);
  __nesc_atomic_end(s);
  if (src < MAX_NODES) {
    if (seq <= BaseC$lastSeq[src])
      BaseC$bad = 1;
    BaseC$lastSeq[src] = seq;
    ++BaseC$received[src];
  }
  ++BaseC$total;
  if (reading > BaseC$maxReading)
    BaseC$maxReading = reading;
  WSN_CHECK(seq_increases);
  WSN_CHECK(readings_in_range);
}

int main(void) {
  RadioC$init();
  TCCR0 = _BV(WGM01) | _BV(CS02); /* TIMER0: CTC, clk/64, 1 kHz */
  OCR0 = 114;
  TIMSK |= _BV(OCIE0);
  ADMUX = _BV(REFS0);
  ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1);
  set_sleep_mode(SLEEP_MODE_IDLE);
  sei();
  for (;;) {
    uint8_t t;
    SCHED_NEXT_TASK(t);
    if (t == TASK_SEND)
      SenseC$sendTask();
    else if (t == TASK_DELIVER)
      BaseC$deliverTask();
  }
}
