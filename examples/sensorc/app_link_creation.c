/* Application for fig3_5_link_creation*.sg: builds route request/reply messages. */
#include "link_creation_app.h"
#include "app_common.h"

struct aodv_msg p_rreq_msg_;
struct aodv_msg p_rrep_msg_;

static void step(uint32_t now) {
  p_rreq_msg_.type = 1;
  p_rreq_msg_.seq = (uint16_t)(now / 10);
  p_rrep_msg_.type = 2;
  p_rrep_msg_.hop = (uint8_t)(now & 7);
}

int main(void) { app_loop(step); }
