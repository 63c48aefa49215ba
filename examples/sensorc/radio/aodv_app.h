/* aodv_app.h - what fig3_5_aodv.sg aliases in examples/aodv/aodv.c (built with
 * -DAODV_SENSORC): the frame kinds whose .type the message rules match. The layout is
 * aodv.c's aodv_hdr_t. */
#ifndef SENSORC_AODV_APP_H
#define SENSORC_AODV_APP_H
#include <stdint.h>

typedef struct {
  uint8_t type;
  uint8_t hop;
  uint16_t src;
  uint16_t dest;
  uint8_t seq;
} __attribute__((packed)) aodv_kind_t;

extern aodv_kind_t AodvC$rreqKind; /* .type: the RREQ frame type */
extern aodv_kind_t AodvC$rrepKind; /* .type: the RREP frame type */

#endif
