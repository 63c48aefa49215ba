/* netrelay.c - sense, relay and collect over two hops: one firmware for every node.
 *
 * Node 0 is the base station. Every other node senses (1 kHz timer, one ADC conversion each
 * SENSE_PERIOD ms) and sends its reading to its parent: node 4 (far from the base station in
 * examples/radio/netsense.topo) sends to node 3, which relays it; the others send to node 0.
 * A relay's receive event queues the message and a task forwards it, origin and reading
 * unchanged, hop count plus one. The base station keeps the largest reading per origin.
 *
 * Invariant (WSN_INVARIANT, checked with WSN_CHECK; build with wsn-cc):
 *   readings_in_range (base): every reading that arrives is below BASE_LIMIT. A reading of
 *   node 4 that breaks it reaches the base station through node 3: wsn-replay net follows
 *   the RECV on node 0 to node 3's SEND, node 3's RECVs to node 4's SENDs (thesis chapter 5,
 *   condition C2: a node receives an incorrect message and forwards it).
 * No trace call is written by hand: the SEND/RECV records (LOG 6) come from radio.h's marks.
 *
 * Written in the style of nesC-generated C (component$function names, a FIFO task queue, a
 * sleep-when-idle main loop, atomic sections that save and restore SREG). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#include "radio.h"
#include "wsn/invariant.h"

#ifndef SENSE_PERIOD
#define SENSE_PERIOD 50 /* ms */
#endif
#ifndef BASE_LIMIT
#define BASE_LIMIT 1000
#endif
#define MAX_NODES 8
#define AM_RELAYED 0x22
#define RELAY_NODE 3
#define FAR_NODE 4

typedef struct {
  uint16_t origin, reading;
  uint8_t hops;
} __attribute__((packed)) relay_payload_t;

/* ---- scheduler (TinySchedulerC-like FIFO of task ids): nesc_sched.h ---- */
enum { TASK_SENSE = 0, TASK_FORWARD = 1, NUM_TASKS = 2, NO_TASK = 255 };
#include "nesc_sched.h"

/* ---- routing: a fixed tree ---- */
static uint16_t RouteC$parent(void) {
  return RadioC$nodeId() == FAR_NODE ? RELAY_NODE : 0;
}

/* ---- sensing ---- */
uint16_t SenseC$reading;
uint16_t SenseC$sent;
static volatile uint16_t SenseC$ticks;

static void SenseC$senseTask(void) {
  relay_payload_t p;
  __nesc_atomic_t s = __nesc_atomic_start();
  p.reading = SenseC$reading;
  __nesc_atomic_end(s);
  p.origin = RadioC$nodeId();
  p.hops = 1;
  if (RadioC$send(RouteC$parent(), AM_RELAYED, &p, sizeof p) == RADIO_SUCCESS)
    ++SenseC$sent;
}

ISR(ADC_vect) {
  SenseC$reading = ADC;
  SchedulerBasicP$post(TASK_SENSE);
}

ISR(TIMER0_COMP_vect) {
  if (RadioC$nodeId() != 0 && ++SenseC$ticks >= SENSE_PERIOD) {
    SenseC$ticks = 0;
    ADCSRA |= _BV(ADSC) | _BV(ADIE);
  }
}

/* ---- relay and base station: a queue filled by the receive event ---- */
static volatile uint8_t RelayC$qCount, RelayC$qHead;
static relay_payload_t RelayC$queue[4];
uint16_t RelayC$forwarded;
uint16_t BaseC$maxReading[MAX_NODES];
uint16_t BaseC$worst; /* the largest reading that arrived */
uint16_t BaseC$total;

WSN_INVARIANT(readings_in_range) { return BaseC$worst < BASE_LIMIT; }

void RadioC$Receive$receive(const radio_msg_t *msg) {
  /* async event (interrupt context): copy the payload into the queue, post the task */
  const relay_payload_t *p = (const relay_payload_t *)msg->data;
  uint8_t slot;
  if (msg->type != AM_RELAYED || msg->len != sizeof(relay_payload_t) || RelayC$qCount >= 4)
    return;
  slot = (uint8_t)((RelayC$qHead + RelayC$qCount) & 3);
  RelayC$queue[slot].origin = p->origin;
  RelayC$queue[slot].reading = p->reading;
  RelayC$queue[slot].hops = p->hops;
  ++RelayC$qCount;
  SchedulerBasicP$post(TASK_FORWARD);
}

/* One message per run, reposted while the queue holds more (as TinyOS's forwarding engines
 * do): the scheduler loop runs between two blocking sends, so a busy relay still reaches its
 * anchor and its trace keeps checkpoints. */
static void RelayC$forwardTask(void) {
  relay_payload_t p;
  __nesc_atomic_t s = __nesc_atomic_start();
  if (!RelayC$qCount) {
    __nesc_atomic_end(s);
    return;
  }
  p = RelayC$queue[RelayC$qHead];
  RelayC$qHead = (uint8_t)((RelayC$qHead + 1) & 3);
  if (--RelayC$qCount)
    SchedulerBasicP$post(TASK_FORWARD);
  __nesc_atomic_end(s);
  if (RadioC$nodeId() != 0) {
    /* a relay: pass it on towards the base station */
    ++p.hops;
    if (RadioC$send(RouteC$parent(), AM_RELAYED, &p, sizeof p) == RADIO_SUCCESS)
      ++RelayC$forwarded;
    return;
  }
  if (p.origin < MAX_NODES && p.reading > BaseC$maxReading[p.origin])
    BaseC$maxReading[p.origin] = p.reading;
  if (p.reading > BaseC$worst)
    BaseC$worst = p.reading;
  ++BaseC$total;
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
    if (t == TASK_SENSE)
      SenseC$senseTask();
    else if (t == TASK_FORWARD)
      RelayC$forwardTask();
  }
}
