/* route_app.h - the globals fig3_2_radio.sg aliases, as nesC names them (RouteC$entry). */
#ifndef SENSORC_ROUTE_APP_H
#define SENSORC_ROUTE_APP_H
#include <stdint.h>

/* The route this node keeps towards the base station (destination 0). */
struct route_entry {
  uint16_t dest; /* destination node (0 once a route is known) */
  uint16_t next; /* next hop towards dest */
  uint16_t seq;  /* destination sequence number of the route */
  uint8_t hop;   /* hop count to dest */
};

extern struct route_entry RouteC$entry;

#endif
