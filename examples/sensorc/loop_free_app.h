/* Application globals aliased by fig3_2_loop_free.sg (a stand-in for the
 * AODV module's state): the route entry the node keeps for destination d. */
#ifndef LOOP_FREE_APP_H
#define LOOP_FREE_APP_H
#include <stdint.h>

struct aodv_route_entry {
  uint16_t dest; /* destination node */
  uint16_t next; /* next hop towards dest */
  uint16_t seq;  /* destination sequence number */
  uint8_t hop;   /* hop count to dest */
};

extern struct aodv_route_entry AODV_M__route_table_;

#endif
