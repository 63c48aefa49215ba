/* Drives the generated C of node 1 (Figure 3.2, 3 nodes) on the host:
 * remote values are requested only when the local guard holds, replies
 * decide the check, stale values are fetched again, requests are served.
 * Item ids (names in order): 0 rt.dest, 1 rt.hop, 2 rt.next, 3 rt.seq. */
#include <stdio.h>
#include <stdlib.h>
#include <wsn/invariant.h>
#include "loop_free_app.h"

/* The message layout of spec/sensorc.md (the generated file has its own copy). */
typedef struct sensorc_msg {
  uint16_t origin, target;
  uint8_t kind, item_hi, item_lo;
  uint8_t value[4];
} sensorc_msg_t;

struct aodv_route_entry AODV_M__route_table_;
static uint32_t now;
static sensorc_msg_t sent[16];
static int nsent;

uint32_t sensorc_now_ms(void) { return now; }
void sensorc_send(const sensorc_msg_t *m) { sent[nsent++] = *m; }

void sensorc_poll(void);
void sensorc_on_reply(const sensorc_msg_t *msg);
uint8_t sensorc_serve(const sensorc_msg_t *req, sensorc_msg_t *reply);
WSN_DECLARE_INVARIANT(sensorc_node1_check0);

#define EXPECT(c)                                                           \
  do {                                                                      \
    if (!(c)) {                                                             \
      printf("FAILED line %d: %s\n", __LINE__, #c);                         \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

static void reply(uint16_t from, uint8_t item, int32_t v) {
  sensorc_msg_t m = {from, 1, 2, 0, item, {(uint8_t)v, (uint8_t)(v >> 8),
                                           (uint8_t)(v >> 16), (uint8_t)(v >> 24)}};
  sensorc_on_reply(&m);
}

int main(void) {
  /* No route to 0 yet: the guard is false, nothing is requested. */
  AODV_M__route_table_.dest = 2;
  now = 100;
  sensorc_poll();
  EXPECT(nsent == 0);
  EXPECT(WSN_INVARIANT_FN(sensorc_node1_check0)());

  /* Route to 0 through 2: ask node 2 for seq and hop, nobody else. */
  AODV_M__route_table_.dest = 0;
  AODV_M__route_table_.next = 2;
  AODV_M__route_table_.seq = 5;
  AODV_M__route_table_.hop = 3;
  sensorc_poll();
  EXPECT(nsent == 2);
  for (int i = 0; i < nsent; ++i)
    EXPECT(sent[i].target == 2 && sent[i].origin == 1 && sent[i].kind == 1);
  /* Until the replies arrive the check cannot fail. */
  EXPECT(WSN_INVARIANT_FN(sensorc_node1_check0)());
  /* Polling again right away does not repeat the requests. */
  sensorc_poll();
  EXPECT(nsent == 2);

  /* Same seq, next hop not closer: a loop is possible -> violation. */
  reply(2, 3, 5);
  reply(2, 1, 3);
  EXPECT(!WSN_INVARIANT_FN(sensorc_node1_check0)());
  /* Next hop is closer: fine. A reply from a node never asked is ignored. */
  reply(2, 1, 2);
  reply(0, 1, 9);
  EXPECT(WSN_INVARIANT_FN(sensorc_node1_check0)());
  /* Newer sequence number at the next hop: fine whatever the hops. */
  reply(2, 3, 6);
  reply(2, 1, 7);
  EXPECT(WSN_INVARIANT_FN(sensorc_node1_check0)());
  /* Older one at the next hop: violation even with fewer hops. */
  reply(2, 3, 4);
  reply(2, 1, 0);
  EXPECT(!WSN_INVARIANT_FN(sensorc_node1_check0)());

  /* Values older than SENSORC_REMOTE_MAX_AGE_MS are fetched again. */
  now += 6000;
  sensorc_poll();
  EXPECT(nsent == 4);

  /* Node 0 asks node 1 for its seq: served as int32 little endian. */
  AODV_M__route_table_.seq = 0x1234;
  sensorc_msg_t req = {0, 1, 1, 0, 3, {0, 0, 0, 0}}, out;
  EXPECT(sensorc_serve(&req, &out));
  EXPECT(out.target == 0 && out.origin == 1 && out.kind == 2);
  EXPECT(out.value[0] == 0x34 && out.value[1] == 0x12 && out.value[2] == 0);
  /* Items nobody requests from node 1 and requests for others are refused. */
  req.item_lo = 0;
  EXPECT(!sensorc_serve(&req, &out));
  req.item_lo = 3;
  req.target = 2;
  EXPECT(!sensorc_serve(&req, &out));
  printf("loop-free node 1: ok\n");
  return 0;
}
