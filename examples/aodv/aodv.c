/* aodv.c - route discovery and data delivery with AODV (Ad hoc On-demand Distance Vector), one
 * firmware for every node, written for this project in the style of nesC-generated C
 * (component$function names, a FIFO task queue, an async receive event, atomic sections).
 * It reproduces the three faults of the thesis's AODV case study (thesis section 5.3.1, Table
 * 5.1), each behind a compile-time switch:
 *   -DERROR1  add_route_table updates an existing route only when the new one is strictly
 *             fresher or strictly shorter: when the source is one hop from the destination the
 *             reverse route the RREQ brings equals the neighbour route just learnt from the same
 *             frame, the update is refused and the destination never answers with an RREP.
 *   -DERROR2  after the first DATA frame is delivered, the pointer the receive path reads
 *             frames through is replaced by the application's buffer (the buffer-swap of
 *             TinyOS's Receive.receive done wrong): later frames are read at the wrong place
 *             and never delivered again.
 *   -DERROR3  a relay counts the hop of a received RREQ twice when it forwards it: the RREQ
 *             expires after half of AODV_MAX_HOP hops.
 * Without any of them the program is the correct protocol.
 *
 * Protocol (a small subset of RFC 3561, enough for the thesis's properties): the source
 * (AODV_SOURCE) floods an RREQ for the destination (AODV_DEST, the base station); every node
 * that hears it for the first time keeps a reverse route to the source and broadcasts it on
 * with one hop more, up to AODV_MAX_HOP; the destination answers with an RREP that travels
 * back along the reverse routes, leaving forward routes to the destination behind it. Then the
 * source sends a DATA frame every DATA_PERIOD ms along that route. Without a route the source
 * repeats the RREQ every RREQ_RETRY ms with a new sequence number.
 *
 * Properties (thesis Table 3.3, decomposed into local checks as the thesis's Figure 3.5 does):
 *   link_creation     TC1-Link Creation, the destination's local rule Send_rule(0, 1, rrep):
 *                     every RREQ of the source that the destination accepts is answered by an
 *                     RREP (checked when the RREQ has been handled).
 *   data_interval     TC1-Message Transmission on the destination: once the first DATA frame of
 *                     the source has arrived, the next one arrives within DATA_LIMIT ms
 *                     (checked every CHECK_PERIOD ms).
 *   data_delivery     the same property's receive rule (Recv_rule(0, 1, data)) on the
 *                     destination: every frame the source sends to it (unicast: only DATA once
 *                     the route exists) reaches the application (checked after each frame).
 *   rreq_arrival      TC1-Link Creation's other rule on the destination, Recv_rule(0, 1, rreq,
 *                     LESS_THAN LINK_DEADLINE): an RREQ of the source has arrived by then
 *                     (checked every CHECK_PERIOD ms; the thesis's deadline is 20 s).
 *   rreq_hop_count    the relays' Routing_rule (thesis section 3.3): a relay forwards an RREQ
 *                     with the hop count it received plus one (checked when it forwards).
 * -DAODV_NO_ROUTING_RULE leaves the relays' rule out, as the thesis's 150-node network had it
 * (no #NETWORK segment, so only nodes 0 and 1 get local rules).
 * -DAODV_SENSORC replaces these hand-written checks by sensorc's generated ones: build each
 * node with its node_<id>.c of a Figure 3.5 spec over this program (examples/sensorc/radio/
 * fig3_5_aodv.sg, aliases AodvC$rreqKind / AodvC$rrepKind); the program calls the generated
 * monitors' hooks (sensorc_note_send/receive/relay_in/relay_out) where frames are sent,
 * received and forwarded, runs sensorc_check_all every CHECK_PERIOD ms on every node, and
 * carries sensorc's remote-value messages in CC2420 frames (AM type AM_SENSORC).
 * -DAODV_DROP_RELAY=N (with AODV_SENSORC): node N takes RREPs to forward but never forwards
 * them, which the relays' Routing_rule (a relay forwards within SENSORC_FORWARD_DEADLINE_MS)
 * catches on node N.
 * No trace call is written by hand: the SEND/RECV records (LOG 6) come from radio.h's marks.
 * Target: AVR atmega128 (MicaZ) with examples/radio/cc2420.c. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#include "radio.h"
#include "wsn/invariant.h"

#ifndef AODV_SOURCE
#define AODV_SOURCE 1
#endif
#ifndef AODV_DEST
#define AODV_DEST 0
#endif
#ifndef AODV_MAX_HOP
#define AODV_MAX_HOP 10
#endif
#ifndef RREQ_START
#define RREQ_START 50 /* ms after boot */
#endif
#ifndef RREQ_RETRY
#define RREQ_RETRY 1000 /* ms */
#endif
#ifndef DATA_PERIOD
#define DATA_PERIOD 200 /* ms */
#endif
#ifndef DATA_LIMIT
#define DATA_LIMIT 300 /* ms: 1.5 periods */
#endif
#ifndef LINK_DEADLINE
#define LINK_DEADLINE 1000 /* ms: before the source repeats its RREQ */
#endif
#ifndef CHECK_PERIOD
#define CHECK_PERIOD 50 /* ms */
#endif

/* A 100 Hz tick: a traced timer interrupt writes two records per tick, and a slower tick lets
 * the 2304-byte ring hold a longer stretch of the run. */
#define TICK_MS 10
#define AM_AODV 0x30
#define AODV_ROUTE_TABLE_SIZE 6
#define AODV_SEEN_SIZE 4
#define AODV_QUEUE_SIZE 4

enum { AODV_RREQ = 1, AODV_RREP = 2, AODV_DATA = 3 };

/* Every AODV frame starts with this header; DATA frames carry the application's bytes after it. */
typedef struct {
  uint8_t type;
  uint8_t hop;   /* hops the frame has travelled when it is received */
  uint16_t src;  /* originator (RREQ, DATA) or replier (RREP) */
  uint16_t dest; /* the node the frame is for */
  uint8_t seq;   /* the originator's sequence number */
} __attribute__((packed)) aodv_hdr_t;

#define AODV_MSG_HEADER_LEN ((uint8_t)sizeof(aodv_hdr_t))
#define AODV_DATA_LEN 4 /* the application sends a 2-byte reading; small buffers keep checkpoints small */

typedef struct {
  aodv_hdr_t hdr;
  uint8_t data[AODV_DATA_LEN];
} __attribute__((packed)) aodv_msg_t;

typedef struct {
  uint16_t dest, next;
  uint8_t seq, hop;
} aodv_route_t;

typedef struct {
  uint16_t to; /* next hop or RADIO_BROADCAST */
  uint8_t len;
  aodv_msg_t msg;
} aodv_out_t;

#ifdef AODV_SENSORC
#define AODV_CHECK(inv) ((void)0) /* sensorc's checks instead (aodv_sensorc.h) */
#else
#define AODV_CHECK(inv) WSN_CHECK(inv)
#endif
/* ---- scheduler (TinySchedulerC-like FIFO of task ids): nesc_sched.h ---- */
enum { TASK_RREQ = 0, TASK_SEND = 1, TASK_DATA = 2, TASK_CHECK = 3, NUM_TASKS = 4, NO_TASK = 255 };
/* Touched only inside atomic sections: not volatile (a volatile load is a recorded input). */
#define SCHED_STATE
#define SCHED_POST_ATTRS inline __attribute__((always_inline))
#define SCHED_TAIL_OK(t) ((t) < NUM_TASKS)
#include "nesc_sched.h"

/* ---- AodvC: routing state ---- */
aodv_route_t AodvC$route_table_[AODV_ROUTE_TABLE_SIZE];
uint8_t AodvC$seq_;                        /* this node's sequence number */
uint16_t AodvC$seenSrc[AODV_SEEN_SIZE];    /* RREQs already handled: (originator, seq) */
uint8_t AodvC$seenSeq[AODV_SEEN_SIZE], AodvC$seenNext, AodvC$seenUsed;
uint8_t AodvC$routeReady;                  /* the source has a route to the destination */
aodv_msg_t AodvC$rxBuf;                    /* the frame being handled (copied from the radio) */
aodv_msg_t *AodvC$rxPkt = &AodvC$rxBuf;    /* ... and the pointer the receive path reads it by */
aodv_msg_t AodvC$appMsg;                   /* what is handed to the application */
static aodv_out_t AodvC$queue[AODV_QUEUE_SIZE];
static uint8_t AodvC$qHead, AodvC$qCount; /* changed inside atomic sections only */
uint16_t AodvC$sent, AodvC$dropped;
/* what the local checks read (SensorC's aliases of the thesis's p_rreq_msg_/p_rrep_msg_) */
uint16_t AodvC$rreqsForMe; /* RREQs of the source accepted by the destination */
uint16_t AodvC$rrepsQueued;
uint8_t AodvC$rxHop, AodvC$fwdHop; /* hop count of the RREQ a relay received and forwarded */
uint16_t AodvC$unicastFromSource;  /* frames the destination's radio got from the source for it */

/* ---- AppC: the application on top (periodic data from the source, a sink at the base) ---- */
uint16_t AppC$clock; /* TIMER0 ticks (TICK_MS each) since boot; tasks read it atomically */
uint16_t AppC$now;   /* the clock as the check task read it */
uint16_t AppC$lastArrival;           /* clock at the last DATA frame delivered */
uint8_t AppC$started;                /* the first DATA frame has arrived */
uint16_t AppC$received;
uint16_t AppC$reading;

#ifdef AODV_SENSORC
#include "aodv_sensorc.h" /* sensorc's generated checks instead of the ones below */
#else
WSN_INVARIANT(link_creation) { return AodvC$rrepsQueued == AodvC$rreqsForMe; }
WSN_INVARIANT(data_interval) {
  return !AppC$started || (uint16_t)(AppC$now - AppC$lastArrival) < DATA_LIMIT / TICK_MS;
}
WSN_INVARIANT(data_delivery) { return AppC$received == AodvC$unicastFromSource; }
WSN_INVARIANT(rreq_arrival) {
  return AppC$now < LINK_DEADLINE / TICK_MS || AodvC$rreqsForMe != 0;
}
WSN_INVARIANT(rreq_hop_count) { return AodvC$fwdHop == (uint8_t)(AodvC$rxHop + 1); }
#endif

/* The application's receive event: takes the message, returns the buffer it gives back. */
static aodv_msg_t *AppC$Receive$receive(aodv_msg_t *msg, uint8_t len) {
  if (len >= 2)
    AppC$reading = (uint16_t)(msg->data[0] | ((uint16_t)msg->data[1] << 8));
  AppC$lastArrival = AppC$clock;
  AppC$started = 1;
  ++AppC$received;
  return msg;
}

static uint8_t AodvC$find(uint16_t dest) {
  uint8_t id;
  for (id = 0; id < AODV_ROUTE_TABLE_SIZE; ++id)
    if (AodvC$route_table_[id].hop && AodvC$route_table_[id].dest == dest)
      break;
  return id;
}

/* Learn or refresh a route; true when the table now holds it (an RREQ is answered only then). */
static uint8_t AodvC$add_route_table(uint8_t seq, uint16_t dest, uint16_t nexthop, uint8_t hop) {
  uint8_t id = AodvC$find(dest);
  if (id != AODV_ROUTE_TABLE_SIZE) {
    aodv_route_t *r = &AodvC$route_table_[id];
#ifdef ERROR1
    /* ERROR#1 (thesis Figure 5.4): an equally fresh, equally short route is refused */
    if (r->seq < seq || r->hop > hop) {
#else
    if ((int8_t)(seq - r->seq) > 0 || (seq == r->seq && hop <= r->hop)) {
#endif
      r->seq = seq;
      r->next = nexthop;
      r->hop = hop;
      return 1;
    }
    return 0;
  }
  for (id = 0; id < AODV_ROUTE_TABLE_SIZE; ++id)
    if (!AodvC$route_table_[id].hop)
      break;
  if (id == AODV_ROUTE_TABLE_SIZE)
    return 0; /* table full */
  AodvC$route_table_[id].dest = dest;
  AodvC$route_table_[id].next = nexthop;
  AodvC$route_table_[id].seq = seq;
  AodvC$route_table_[id].hop = hop;
  return 1;
}

/* Queue a frame for TASK_SEND (the radio's send blocks: never from interrupt context). The
 * header comes as scalars: the tasks that call this are inlined into main's loop, and a local
 * aggregate there would be part of every checkpoint. */
static uint8_t AodvC$enqueue(uint16_t to, uint8_t type, uint8_t hop, uint16_t src, uint16_t dest,
                             uint8_t seq, const uint8_t *data, uint8_t n) {
  aodv_out_t *o;
  uint8_t i;
  __nesc_atomic_t s = __nesc_atomic_start();
  if (AodvC$qCount >= AODV_QUEUE_SIZE) {
    ++AodvC$dropped;
    __nesc_atomic_end(s);
    return 0;
  }
  o = &AodvC$queue[(uint8_t)((AodvC$qHead + AodvC$qCount) % AODV_QUEUE_SIZE)];
  o->to = to;
  o->msg.hdr.type = type;
  o->msg.hdr.hop = hop;
  o->msg.hdr.src = src;
  o->msg.hdr.dest = dest;
  o->msg.hdr.seq = seq;
  for (i = 0; i < n; ++i)
    o->msg.data[i] = data[i];
  o->len = (uint8_t)(AODV_MSG_HEADER_LEN + n);
  ++AodvC$qCount;
  __nesc_atomic_end(s);
  SchedulerBasicP$post(TASK_SEND);
  return 1;
}

static uint8_t AodvC$seen(uint16_t src, uint8_t seq) {
  uint8_t i;
  for (i = 0; i < AodvC$seenUsed; ++i)
    if (AodvC$seenSrc[i] == src && AodvC$seenSeq[i] == seq)
      return 1;
  AodvC$seenSrc[AodvC$seenNext] = src;
  AodvC$seenSeq[AodvC$seenNext] = seq;
  AodvC$seenNext = (uint8_t)((AodvC$seenNext + 1) % AODV_SEEN_SIZE);
  if (AodvC$seenUsed < AODV_SEEN_SIZE)
    ++AodvC$seenUsed;
  return 0;
}

static void AodvC$recvRREQ(uint16_t prev) {
  uint16_t me = RadioC$nodeId();
  aodv_msg_t *pkt = AodvC$rxPkt;
  uint8_t accepted, hop;
  if (pkt->hdr.src == me || AodvC$seen(pkt->hdr.src, pkt->hdr.seq))
    return;
  AodvC$rxHop = pkt->hdr.hop;
  if (prev == pkt->hdr.src) /* heard from its originator: a neighbour */
    AodvC$add_route_table(pkt->hdr.seq, prev, prev, 1);
  accepted = AodvC$add_route_table(pkt->hdr.seq, pkt->hdr.src, prev, pkt->hdr.hop);
  if (pkt->hdr.dest == me) {
    if (pkt->hdr.src == AODV_SOURCE)
      ++AodvC$rreqsForMe;
    if (accepted) {
      if (AodvC$enqueue(prev, AODV_RREP, 1, me, pkt->hdr.src, ++AodvC$seq_, 0, 0) &&
          pkt->hdr.src == AODV_SOURCE)
        ++AodvC$rrepsQueued;
    }
    AODV_CHECK(link_creation);
    return;
  }
#ifdef ERROR3
  ++pkt->hdr.hop; /* the reverse route's distance, counted into the received header */
#endif
  hop = (uint8_t)(pkt->hdr.hop + 1);
  if (hop > AODV_MAX_HOP)
    return; /* expired */
  AodvC$fwdHop = hop;
#ifndef AODV_NO_ROUTING_RULE
  AODV_CHECK(rreq_hop_count);
#endif
#ifdef AODV_SENSORC
  sensorc_note_relay_in(pkt->hdr.src, pkt->hdr.dest);
#endif
  AodvC$enqueue(RADIO_BROADCAST, AODV_RREQ, hop, pkt->hdr.src, pkt->hdr.dest, pkt->hdr.seq, 0, 0);
}

static void AodvC$recvRREP(uint16_t prev) {
  aodv_msg_t *pkt = AodvC$rxPkt;
  uint8_t id;
  AodvC$add_route_table(pkt->hdr.seq, pkt->hdr.src, prev, pkt->hdr.hop);
  if (pkt->hdr.dest == RadioC$nodeId()) {
    if (pkt->hdr.src == AODV_DEST)
      AodvC$routeReady = 1;
    return;
  }
  id = AodvC$find(pkt->hdr.dest); /* the reverse route the RREQ left */
  if (id == AODV_ROUTE_TABLE_SIZE)
    return;
#ifdef AODV_SENSORC
  sensorc_note_relay_in(pkt->hdr.src, pkt->hdr.dest);
#ifdef AODV_DROP_RELAY
  if (RadioC$nodeId() == AODV_DROP_RELAY)
    return; /* the injected fault: taken for forwarding, never forwarded */
#endif
#endif
  AodvC$enqueue(AodvC$route_table_[id].next, AODV_RREP, (uint8_t)(pkt->hdr.hop + 1), pkt->hdr.src,
                pkt->hdr.dest, pkt->hdr.seq, 0, 0);
}

static void AodvC$recvDATA(uint8_t len) {
  aodv_msg_t *pkt = AodvC$rxPkt;
  uint8_t n = (uint8_t)(len - AODV_MSG_HEADER_LEN), id;
  if (pkt->hdr.dest == RadioC$nodeId()) {
    for (id = 0; id < n; ++id) /* a byte loop: counted references, each interrupt-exact */
      AodvC$appMsg.data[id] = pkt->data[id];
#ifdef ERROR2
    /* ERROR#2 (thesis Figure 5.5): the buffer the application gives back replaces the
     * receive path's pointer */
    AodvC$rxPkt = AppC$Receive$receive(&AodvC$appMsg, n);
#else
    (void)AppC$Receive$receive(&AodvC$appMsg, n);
#endif
    return;
  }
  id = AodvC$find(pkt->hdr.dest);
  if (id == AODV_ROUTE_TABLE_SIZE)
    return;
  AodvC$enqueue(AodvC$route_table_[id].next, AODV_DATA, (uint8_t)(pkt->hdr.hop + 1), pkt->hdr.src,
                pkt->hdr.dest, pkt->hdr.seq, pkt->data, n);
}

/* Async event (FIFOP interrupt): the radio's frame is copied into the receive buffer and read
 * through AodvC$rxPkt. */
void RadioC$Receive$receive(const radio_msg_t *msg) {
  uint8_t i;
#ifdef AODV_SENSORC
  if (msg->type == AM_SENSORC && msg->len == sizeof(sensorc_msg_t)) {
    const sensorc_msg_t *m = (const sensorc_msg_t *)msg->data;
    if (m->kind == 2)
      sensorc_on_reply(m); /* a remote value */
    else if (!SensorcC$requestPending) {
      for (i = 0; i < sizeof(sensorc_msg_t); ++i)
        ((uint8_t *)&SensorcC$request)[i] = msg->data[i];
      SensorcC$requestPending = 1;
      SchedulerBasicP$post(TASK_CHECK);
    }
    return;
  }
#endif
  if (msg->type != AM_AODV || msg->len < AODV_MSG_HEADER_LEN || msg->len > sizeof(aodv_msg_t))
    return;
  for (i = 0; i < msg->len; ++i)
    ((uint8_t *)&AodvC$rxBuf)[i] = msg->data[i];
  switch (AodvC$rxPkt->hdr.type) {
  case AODV_RREQ:
    AodvC$recvRREQ(msg->src);
    break;
  case AODV_RREP:
    AodvC$recvRREP(msg->src);
    break;
  case AODV_DATA:
    AodvC$recvDATA(msg->len);
    break;
  default:
    break;
  }
#ifdef AODV_SENSORC
  if (AodvC$rxBuf.hdr.dest == RadioC$nodeId()) /* a frame for this node, from its originator */
    sensorc_note_receive(AodvC$rxBuf.hdr.src, AodvC$rxBuf.hdr.type);
#endif
  if (RadioC$nodeId() == AODV_DEST && msg->src == AODV_SOURCE && msg->dest == AODV_DEST) {
    ++AodvC$unicastFromSource;
    AODV_CHECK(data_delivery);
  }
}

/* One queued frame per run, sent from its queue slot (no copy on main's stack), reposted while
 * more wait (the scheduler loop runs in between). */
static void AodvC$sendTask(void) {
  aodv_out_t *o;
  __nesc_atomic_t s = __nesc_atomic_start();
  uint8_t more;
  if (!AodvC$qCount) {
    __nesc_atomic_end(s);
    return;
  }
  o = &AodvC$queue[AodvC$qHead];
  __nesc_atomic_end(s);
  if (RadioC$send(o->to, AM_AODV, &o->msg, o->len) == RADIO_SUCCESS) {
    ++AodvC$sent;
#ifdef AODV_SENSORC
    if (o->msg.hdr.src == RadioC$nodeId())
      sensorc_note_send(o->msg.hdr.dest, o->msg.hdr.type);
    else
      sensorc_note_relay_out(o->msg.hdr.src, o->msg.hdr.dest);
#endif
  }
  s = __nesc_atomic_start();
  AodvC$qHead = (uint8_t)((AodvC$qHead + 1) % AODV_QUEUE_SIZE);
  more = --AodvC$qCount;
  __nesc_atomic_end(s);
  if (more)
    SchedulerBasicP$post(TASK_SEND);
}

/* The source: a new RREQ for the destination (AODV increments its sequence number first). */
static void AodvC$rreqTask(void) {
  uint8_t seq = ++AodvC$seq_;
  AodvC$seen(RadioC$nodeId(), seq);
  AodvC$enqueue(RADIO_BROADCAST, AODV_RREQ, 1, RadioC$nodeId(), AODV_DEST, seq, 0, 0);
}

/* The source: one DATA frame to the destination along the route. */
uint8_t AppC$payload[2];
static void AppC$dataTask(void) {
  uint8_t id = AodvC$find(AODV_DEST);
  if (id == AODV_ROUTE_TABLE_SIZE)
    return;
  __nesc_atomic_t s = __nesc_atomic_start();
  AppC$payload[0] = (uint8_t)AppC$clock;
  AppC$payload[1] = (uint8_t)(AppC$clock >> 8);
  __nesc_atomic_end(s);
  AodvC$enqueue(AodvC$route_table_[id].next, AODV_DATA, 1, RadioC$nodeId(), AODV_DEST, AodvC$seq_,
                AppC$payload, 2);
}

static void AppC$checkTask(void) {
  __nesc_atomic_t s = __nesc_atomic_start();
  AppC$now = AppC$clock;
  __nesc_atomic_end(s);
#ifdef AODV_SENSORC
  if (SensorcC$requestPending) {
    sensorc_msg_t reply;
    if (sensorc_serve(&SensorcC$request, &reply))
      (void)RadioC$send(reply.target, AM_SENSORC, &reply, sizeof reply);
    SensorcC$requestPending = 0;
  }
  sensorc_poll();
  sensorc_check_all();
#else
  AODV_CHECK(data_interval);
  AODV_CHECK(rreq_arrival);
#endif
}

ISR(TIMER0_COMP_vect) {
  uint16_t me = RadioC$nodeId(), t = ++AppC$clock;
  if (me == AODV_SOURCE) {
    if (!AodvC$routeReady && t >= RREQ_START / TICK_MS &&
        (uint16_t)(t - RREQ_START / TICK_MS) % (RREQ_RETRY / TICK_MS) == 0)
      SchedulerBasicP$post(TASK_RREQ);
    else if (AodvC$routeReady && t % (DATA_PERIOD / TICK_MS) == 0)
      SchedulerBasicP$post(TASK_DATA);
  } else if (me == AODV_DEST && t % (CHECK_PERIOD / TICK_MS) == 0) {
    SchedulerBasicP$post(TASK_CHECK);
  }
#ifdef AODV_SENSORC
  if (me != AODV_DEST && t % (CHECK_PERIOD / TICK_MS) == 0)
    SchedulerBasicP$post(TASK_CHECK); /* sensorc's checks run on every node */
#endif
}

int main(void) {
  RadioC$init();
  TCCR0 = _BV(WGM01) | _BV(CS02) | _BV(CS01) | _BV(CS00); /* TIMER0: CTC, clk/1024 */
  OCR0 = 71;                                               /* 7.3728 MHz / 1024 / 72 = 100 Hz */
  TIMSK |= _BV(OCIE0);
  set_sleep_mode(SLEEP_MODE_IDLE);
  sei();
  for (;;) {
    uint8_t t;
    SCHED_NEXT_TASK(t);
    if (t == TASK_RREQ)
      AodvC$rreqTask();
    else if (t == TASK_SEND)
      AodvC$sendTask();
    else if (t == TASK_DATA)
      AppC$dataTask();
    else if (t == TASK_CHECK)
      AppC$checkTask();
  }
}
