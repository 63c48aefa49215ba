/* Application globals aliased by fig3_5_link_creation*.sg: the AODV route
 * request and reply messages the node builds; .type is the AM type. */
#ifndef LINK_CREATION_APP_H
#define LINK_CREATION_APP_H
#include <stdint.h>

struct aodv_msg {
  uint8_t type; /* AM type of the message */
  uint16_t src, dest;
  uint16_t seq;
  uint8_t hop;
};

extern struct aodv_msg p_rreq_msg_;
extern struct aodv_msg p_rrep_msg_;

#endif
