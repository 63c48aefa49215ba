/* route_app.c - route building over the CC2420 stack, checked by sensorc's generated code.
 *
 * One firmware per node: this file, the node's generated checks (sensorc decompose
 * fig3_2_radio.sg -> node_<id>.c) and examples/radio/cc2420.c. Node 0 is the destination:
 * it broadcasts a beacon (sequence number ROUTE_SEQ, hop count 0) every BEACON_PERIOD ms.
 * Another node adopts a beacon from neighbour m when it has no route yet or the beacon
 * offers fewer hops for the same sequence number: next = m, seq, hop = beacon hop + 1
 * (RouteC$entry), and then beacons its own route too.
 *
 * The checks exchange remote values in real radio messages (AM type AM_SENSORC):
 * sensorc_send transmits the generated code's request to its target with RadioC$send, the
 * receive event queues every frame, and a task answers requests (sensorc_serve) and hands
 * replies to sensorc_on_reply. sensorc_now_ms is the TIMER0 clock (10 ms ticks). Every CHECK_PERIOD
 * ms a task asks for what the checks need (sensorc_poll) and runs them (sensorc_check_all,
 * WSN_CHECK: a failed check is a VIOLATION record, which stops wsn-sim net).
 *
 * Injected fault (-DROUTE_FAULT=N): node N adopts a route without adding its own hop, so
 * its hop count equals its next hop's, which Figure 3.2's property forbids.
 *
 * Written in the style of nesC-generated C (component$function names, a FIFO task queue, a
 * sleep-when-idle main loop, atomic sections that save and restore SREG). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#include "radio.h"
#include "route_app.h"

#ifndef BEACON_PERIOD
#define BEACON_PERIOD 1000 /* ms */
#endif
#ifndef CHECK_PERIOD
#define CHECK_PERIOD 100 /* ms */
#endif
#ifndef ROUTE_SEQ
#define ROUTE_SEQ 1
#endif
#define AM_BEACON 0x30
#define AM_SENSORC 0x31
#define NO_NODE 0xFFFFu

/* sensorc's generated code (node_<id>.c). */
typedef struct sensorc_msg {
  uint16_t origin, target;
  uint8_t kind;
  uint8_t item_hi, item_lo;
  uint8_t value[4];
} sensorc_msg_t;
void sensorc_check_all(void);
void sensorc_poll(void);
void sensorc_on_reply(const sensorc_msg_t *msg);
uint8_t sensorc_serve(const sensorc_msg_t *req, sensorc_msg_t *reply);
#define SENSORC_MSG_REQUEST 1u
#define SENSORC_MSG_REPLY 2u

typedef struct {
  uint16_t seq;
  uint8_t hop;
} __attribute__((packed)) beacon_t;

/* ---- scheduler (TinySchedulerC-like FIFO of task ids): nesc_sched.h ---- */
enum { TASK_BEACON = 0, TASK_RX = 1, TASK_CHECK = 2, NUM_TASKS = 3, NO_TASK = 255 };
#include "nesc_sched.h"

/* ---- the clock: TIMER0 at 100 Hz, 10 ms per tick ---- */
#define TICK_MS 10
/* Shared with the timer interrupt through atomic sections (nesC's rule), not volatile. */
static uint32_t ClockC$ms;
static uint16_t ClockC$beaconTicks, ClockC$checkTicks;

uint32_t sensorc_now_ms(void) {
  __nesc_atomic_t s = __nesc_atomic_start();
  uint32_t t = ClockC$ms;
  __nesc_atomic_end(s);
  return t;
}

/* ---- routing ---- */
struct route_entry RouteC$entry = {NO_NODE, NO_NODE, 0, 0xFF};
uint16_t RouteC$beaconsSent;

static void RouteC$beaconTask(void) {
  beacon_t b;
  __nesc_atomic_t s = __nesc_atomic_start();
  b.seq = RouteC$entry.seq;
  b.hop = RouteC$entry.hop;
  __nesc_atomic_end(s);
  if (RouteC$entry.dest != 0)
    return; /* no route yet: nothing to offer */
  if (RadioC$send(RADIO_BROADCAST, AM_BEACON, &b, sizeof b) == RADIO_SUCCESS)
    ++RouteC$beaconsSent;
}

static void RouteC$onBeacon(uint16_t from, const beacon_t *b) {
  uint8_t hop = (uint8_t)(b->hop + 1);
#ifdef ROUTE_FAULT
  if (RadioC$nodeId() == ROUTE_FAULT)
    hop = b->hop; /* the injected fault: its own hop is not counted */
#endif
  if (RadioC$nodeId() == 0)
    return;
  if (RouteC$entry.dest == 0 && b->seq == RouteC$entry.seq && hop >= RouteC$entry.hop)
    return; /* no better than the route it has */
  if (RouteC$entry.dest == 0 && b->seq < RouteC$entry.seq)
    return; /* stale */
  RouteC$entry.dest = 0;
  RouteC$entry.next = from;
  RouteC$entry.seq = b->seq;
  RouteC$entry.hop = hop;
  SchedulerBasicP$post(TASK_BEACON);
}

/* ---- remote values over the radio (sensorc) ---- */
uint16_t SensorcC$sent, SensorcC$served, SensorcC$replies;

void sensorc_send(const sensorc_msg_t *msg) {
  if (RadioC$send(msg->target, AM_SENSORC, msg, sizeof *msg) == RADIO_SUCCESS)
    ++SensorcC$sent;
}

static void SensorcC$onMessage(const sensorc_msg_t *m) {
  sensorc_msg_t reply;
  if (m->kind == SENSORC_MSG_REQUEST) {
    if (sensorc_serve(m, &reply) &&
        RadioC$send(reply.target, AM_SENSORC, &reply, sizeof reply) == RADIO_SUCCESS)
      ++SensorcC$served;
  } else if (m->kind == SENSORC_MSG_REPLY) {
    sensorc_on_reply(m);
    ++SensorcC$replies;
    SchedulerBasicP$post(TASK_CHECK);
  }
}

static void SensorcC$checkTask(void) {
  sensorc_poll();
  sensorc_check_all();
}

/* ---- the receive queue: filled by the receive event, drained by a task ---- */
typedef struct {
  uint16_t src;
  uint8_t type, len;
  uint8_t data[sizeof(sensorc_msg_t)];
} frame_t;
static volatile uint8_t RxC$count, RxC$head;
static frame_t RxC$queue[4];

void RadioC$Receive$receive(const radio_msg_t *msg) {
  /* async event (interrupt context): copy the frame, post the task */
  uint8_t slot, i;
  if (RxC$count >= 4 || msg->len > sizeof RxC$queue[0].data)
    return;
  if (msg->type != AM_BEACON && msg->type != AM_SENSORC)
    return;
  slot = (uint8_t)((RxC$head + RxC$count) & 3);
  RxC$queue[slot].src = msg->src;
  RxC$queue[slot].type = msg->type;
  RxC$queue[slot].len = msg->len;
  for (i = 0; i < msg->len; ++i)
    RxC$queue[slot].data[i] = msg->data[i];
  ++RxC$count;
  SchedulerBasicP$post(TASK_RX);
}

static void RxC$rxTask(void) {
  frame_t f;
  __nesc_atomic_t s = __nesc_atomic_start();
  if (!RxC$count) {
    __nesc_atomic_end(s);
    return;
  }
  f = RxC$queue[RxC$head];
  RxC$head = (uint8_t)((RxC$head + 1) & 3);
  if (--RxC$count)
    SchedulerBasicP$post(TASK_RX);
  __nesc_atomic_end(s);
  if (f.type == AM_BEACON && f.len == sizeof(beacon_t))
    RouteC$onBeacon(f.src, (const beacon_t *)f.data);
  else if (f.type == AM_SENSORC && f.len == sizeof(sensorc_msg_t))
    SensorcC$onMessage((const sensorc_msg_t *)f.data);
}

ISR(TIMER0_COMP_vect) {
  ClockC$ms += TICK_MS;
  /* beacons staggered by node id, so that neighbours do not always collide */
  if (++ClockC$beaconTicks >= (BEACON_PERIOD + 30 * RadioC$nodeId()) / TICK_MS) {
    ClockC$beaconTicks = 0;
    SchedulerBasicP$post(TASK_BEACON);
  }
  if (++ClockC$checkTicks >= CHECK_PERIOD / TICK_MS) {
    ClockC$checkTicks = 0;
    SchedulerBasicP$post(TASK_CHECK);
  }
}

int main(void) {
  RadioC$init();
  if (RadioC$nodeId() == 0) {
    RouteC$entry.dest = 0; /* the destination: no next hop */
    RouteC$entry.seq = ROUTE_SEQ;
    RouteC$entry.hop = 0;
  }
  /* TIMER0: CTC, clk/1024 (7.3728 MHz: 7200 Hz), OCR0 71: 100 Hz (ATmega128 datasheet,
   * Timer/Counter0 CTC mode: f = clk / (N * (1 + OCR0))) */
  TCCR0 = _BV(WGM01) | _BV(CS02) | _BV(CS01) | _BV(CS00);
  OCR0 = 71;
  TIMSK |= _BV(OCIE0);
  set_sleep_mode(SLEEP_MODE_IDLE);
  sei();
  for (;;) {
    uint8_t t;
    SCHED_NEXT_TASK(t);
    if (t == TASK_BEACON)
      RouteC$beaconTask();
    else if (t == TASK_RX)
      RxC$rxTask();
    else if (t == TASK_CHECK)
      SensorcC$checkTask();
  }
}
