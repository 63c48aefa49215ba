/* netchain.c - a reading carried over a line of relays: one firmware for every node.
 *
 * Node 0 is the base station, node CHAIN_SOURCE (3 in examples/radio/netchain.topo, a line
 * 0 - 1 - 2 - 3) senses, and every node between them relays towards node 0 (its parent is
 * the node numbered one below). The source sends each reading with hop count 1; a relay's
 * receive event queues the message, and a task forwards it with the hop count plus one.
 * The base station keeps the last message's reading and hop count.
 *
 * Injected fault (the thesis's AODV ERROR#3 in miniature, Wang 2013 section 5.3.1: a relay
 * passes on a wrong hop count): with -DFAULTY_RELAY=N, relay N adds two instead of one from
 * its FAULT_AFTER-th forwarded message on.
 *
 * Invariant (WSN_INVARIANT, checked with WSN_CHECK; build with wsn-cc):
 *   hops_match (base): a message from the source arrived over exactly CHAIN_SOURCE hops.
 * A violation is detected on node 0; the REPL's `why BaseC$lastHops` (wsn-replay net -i)
 * follows the hop count back through node 1's and node 2's forwarding to node 3's send,
 * and shows node 2's line that added two.
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
#define SENSE_PERIOD 100 /* ms */
#endif
#ifndef CHAIN_SOURCE
#define CHAIN_SOURCE 3
#endif
#ifndef FAULT_AFTER
#define FAULT_AFTER 3
#endif
#define AM_CHAIN 0x23

typedef struct {
  uint16_t origin, reading;
  uint8_t hops;
} __attribute__((packed)) chain_payload_t;

/* ---- scheduler (TinySchedulerC-like FIFO of task ids): nesc_sched.h ---- */
enum { TASK_SENSE = 0, TASK_FORWARD = 1, NUM_TASKS = 2, NO_TASK = 255 };
#include "nesc_sched.h"

/* ---- sensing (the source only) ---- */
uint16_t SenseC$reading;
uint16_t SenseC$sent;
static volatile uint16_t SenseC$ticks;

static void SenseC$senseTask(void) {
  chain_payload_t p;
  __nesc_atomic_t s = __nesc_atomic_start();
  p.reading = SenseC$reading;
  __nesc_atomic_end(s);
  p.origin = RadioC$nodeId();
  p.hops = 1;
  if (RadioC$send(RadioC$nodeId() - 1, AM_CHAIN, &p, sizeof p) == RADIO_SUCCESS)
    ++SenseC$sent;
}

ISR(ADC_vect) {
  SenseC$reading = ADC;
  SchedulerBasicP$post(TASK_SENSE);
}

ISR(TIMER0_COMP_vect) {
  if (RadioC$nodeId() == CHAIN_SOURCE && ++SenseC$ticks >= SENSE_PERIOD) {
    SenseC$ticks = 0;
    ADCSRA |= _BV(ADSC) | _BV(ADIE);
  }
}

/* ---- relays and base station: a queue filled by the receive event ---- */
static volatile uint8_t RelayC$qCount, RelayC$qHead;
static chain_payload_t RelayC$queue[4];
uint16_t RelayC$forwarded;
uint16_t BaseC$lastReading;
uint8_t BaseC$lastHops;
uint16_t BaseC$total;

WSN_INVARIANT(hops_match) { return BaseC$total == 0 || BaseC$lastHops == CHAIN_SOURCE; }

void RadioC$Receive$receive(const radio_msg_t *msg) {
  /* async event (interrupt context): copy the payload into the queue, post the task */
  const chain_payload_t *p = (const chain_payload_t *)msg->data;
  uint8_t slot;
  if (msg->type != AM_CHAIN || msg->len != sizeof(chain_payload_t) || RelayC$qCount >= 4)
    return;
  slot = (uint8_t)((RelayC$qHead + RelayC$qCount) & 3);
  RelayC$queue[slot].origin = p->origin;
  RelayC$queue[slot].reading = p->reading;
  RelayC$queue[slot].hops = p->hops;
  ++RelayC$qCount;
  SchedulerBasicP$post(TASK_FORWARD);
}

static void RelayC$forwardTask(void) {
  chain_payload_t p;
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
#ifdef FAULTY_RELAY
    if (RadioC$nodeId() == FAULTY_RELAY && RelayC$forwarded >= FAULT_AFTER)
      p.hops += 2; /* the injected fault */
    else
#endif
      p.hops += 1;
    if (RadioC$send(RadioC$nodeId() - 1, AM_CHAIN, &p, sizeof p) == RADIO_SUCCESS)
      ++RelayC$forwarded;
    return;
  }
  BaseC$lastReading = p.reading;
  BaseC$lastHops = p.hops;
  ++BaseC$total;
  WSN_CHECK(hops_match);
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
