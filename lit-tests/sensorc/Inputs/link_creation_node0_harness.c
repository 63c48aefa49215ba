/* Drives the generated C of node 0 (Figure 3.5): Recv_rule and Send_rule
 * monitors with LESS_THAN 20 s. */
#include <stdio.h>
#include <stdlib.h>
#include <wsn/invariant.h>
#include "link_creation_app.h"

/* The message layout of spec/sensorc.md (the generated file has its own copy). */
typedef struct sensorc_msg {
  uint16_t origin, target;
  uint8_t kind, item_hi, item_lo;
  uint8_t value[4];
} sensorc_msg_t;

struct aodv_msg p_rreq_msg_ = {7}, p_rrep_msg_ = {8};
static uint32_t now;
uint32_t sensorc_now_ms(void) { return now; }
void sensorc_send(const sensorc_msg_t *m) { (void)m; exit(2); }

void sensorc_note_send(uint16_t dest, uint8_t type);
void sensorc_note_receive(uint16_t src, uint8_t type);
WSN_DECLARE_INVARIANT(sensorc_node0_check0); /* Recv_rule(0, 1, rreq) */
WSN_DECLARE_INVARIANT(sensorc_node0_check1); /* Send_rule(0, 1, rrep) */

#define EXPECT(c)                                                           \
  do {                                                                      \
    if (!(c)) {                                                             \
      printf("FAILED line %d: %s\n", __LINE__, #c);                         \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

int main(void) {
  now = 1000;
  EXPECT(WSN_INVARIANT_FN(sensorc_node0_check0)());
  EXPECT(WSN_INVARIANT_FN(sensorc_node0_check1)());
  /* Wrong source, wrong type: no effect. */
  now = 2000;
  sensorc_note_receive(3, 7);
  sensorc_note_receive(1, 8);
  now = 3000;
  sensorc_note_receive(1, 7); /* the RREQ from 1 */
  now = 19999;
  EXPECT(WSN_INVARIANT_FN(sensorc_node0_check1)());
  now = 20000; /* 20 s passed without the RREP sent to 1 */
  EXPECT(WSN_INVARIANT_FN(sensorc_node0_check0)());
  EXPECT(!WSN_INVARIANT_FN(sensorc_node0_check1)());
  /* Sending it late does not satisfy LESS_THAN 20. */
  sensorc_note_send(1, 8);
  EXPECT(!WSN_INVARIANT_FN(sensorc_node0_check1)());
  printf("link creation node 0: ok\n");
  return 0;
}
