/* radio.h - RadioC: send and receive active messages over the CC2420 (cc2420.c).
 *
 * Written the way nesC-generated C names things (component$interface$command), so it drops
 * into nesC-style programs. Frames are IEEE 802.15.4 data frames (cc2420.c describes the
 * layout); unicast frames are acknowledged and retransmitted, broadcast ones are not.
 *
 * Wiring: the application defines the event RadioC$Receive$receive, which the driver signals
 * from the FIFOP interrupt (an async event: copy what you need, post a task).
 * Targets: atmega128 (MicaZ, spec/micaz.md), msp430f1611 (TelosB, spec/telosb.md) and
 * msp430f2617 (Z1, spec/z1.md); cc2420.c says where each board's wiring is. */
#ifndef WSN_RADIO_H
#define WSN_RADIO_H

#include <stddef.h>
#include <stdint.h>

#include "wsn/net.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RADIO_SYNC 0x7E
#define RADIO_MAX_PAYLOAD 28 /* TOSH_DATA_LENGTH */
#define RADIO_BROADCAST 0xFFFFu
#define RADIO_SUCCESS 0
#define RADIO_FAIL 1

typedef struct radio_msg {
  uint16_t dest;
  uint16_t src;
  uint16_t seq;
  uint8_t type;
  uint8_t len;
  uint8_t data[RADIO_MAX_PAYLOAD];
} radio_msg_t;
/* The receive event's LOG 6 annotation reads src, seq, len and data at these offsets. */
_Static_assert(offsetof(radio_msg_t, src) == 2 && offsetof(radio_msg_t, seq) == 4 &&
                   offsetof(radio_msg_t, len) == 7 && offsetof(radio_msg_t, data) == 8,
               "radio_msg_t layout (WSN_MSG_RECV_PAYLOAD below)");

/* This node's id (TOS_NODE_ID, which wsn-sim, like tos-set-symbols, stores before reset). */
uint16_t RadioC$nodeId(void);
/* Power up and configure the CC2420 (address recognition, auto CRC and ACK) and listen. */
void RadioC$init(void);
/* Send one frame (blocking: CSMA, transmission and, for unicast, the acknowledgement wait).
 * Returns RADIO_SUCCESS, or RADIO_FAIL when len > RADIO_MAX_PAYLOAD or the channel stayed
 * busy. The frame's sequence number is RadioC$lastSeq() afterwards.
 * LOG 6: a successful send is a SEND record (dest, RadioC$seqno) (wsn/net.h); its payload
 * (len bytes at payload) is what wsn-replay net compares with the receiver's. */
WSN_MSG_SEND_PAYLOAD("arg0", "@RadioC$seqno", "arg2", "arg3")
uint8_t RadioC$send(uint16_t dest, uint8_t type, const void *payload, uint8_t len);
/* Sequence number of the last frame sent (per-node counter, starts at 1). */
uint16_t RadioC$lastSeq(void);
/* Frames dropped by the receiver: bad length or CRC, or RX FIFO overflows. */
uint16_t RadioC$rxErrors(void);

/* Event signalled for each good frame addressed to this node or broadcast; defined by the
 * application. Runs in interrupt context; msg is valid only during the call.
 * LOG 6: each call is a RECV record (msg->src, msg->seq) (wsn/net.h), with the payload
 * msg->data[0 .. msg->len). */
WSN_MSG_RECV_PAYLOAD("arg0[2:2]", "arg0[4:2]", "arg0+8", "arg0[7:1]")
void RadioC$Receive$receive(const radio_msg_t *msg);

#ifdef __cplusplus
}
#endif

#endif /* WSN_RADIO_H */
