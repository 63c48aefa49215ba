/* Application for fig3_2_loop_free.sg: maintains one AODV route table entry. */
#include "loop_free_app.h"
#include "app_common.h"

struct aodv_route_entry AODV_M__route_table_;

static void step(uint32_t now) {
  AODV_M__route_table_.dest = 0;
  AODV_M__route_table_.next = (uint16_t)((now / 10) & 3);
  AODV_M__route_table_.seq = (uint16_t)(now / 100);
  AODV_M__route_table_.hop = (uint8_t)((now / 10) & 7);
}

int main(void) { app_loop(step); }
