/* radio.h - the mote side of wsn-sim's radio: framed packets over a UART.
 *
 * Written the way nesC-generated C names things (component$interface$command), so it drops
 * into nesC-style programs. The frame format is spec/radio.md:
 *   0x7E | LEN | DEST(2) | SRC(2) | SEQ(2) | TYPE | PAYLOAD[LEN] | CRC(2)
 * (multi-byte fields little-endian; CRC-16/CCITT-FALSE over LEN..PAYLOAD).
 *
 * Wiring: the application defines the event RadioC$Receive$receive, which the driver signals
 * from the UART receive interrupt (an async event: copy what you need, post a task).
 * Target: AVR (atmega128, USART1 by default; -DRADIO_UART=0 for USART0). */
#ifndef WSN_RADIO_H
#define WSN_RADIO_H

#include <stdint.h>

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

/* This node's id (the runtime's __wsn_node_id, which wsn-sim stores before reset). */
uint16_t RadioC$nodeId(void);
/* Configure the UART (230400 baud at 7.3728 MHz, 8N1) and enable reception. */
void RadioC$init(void);
/* Send one frame (blocking, polled transmitter). Returns RADIO_SUCCESS, or RADIO_FAIL when
 * len > RADIO_MAX_PAYLOAD. The frame's sequence number is RadioC$lastSeq() afterwards. */
uint8_t RadioC$send(uint16_t dest, uint8_t type, const void *payload, uint8_t len);
/* Sequence number of the last frame sent (per-node counter, starts at 1). */
uint16_t RadioC$lastSeq(void);
/* Frames dropped by the receiver: bad length or CRC. */
uint16_t RadioC$rxErrors(void);

/* Event signalled for each good frame addressed to this node or broadcast; defined by the
 * application. Runs in interrupt context; msg is valid only during the call. */
void RadioC$Receive$receive(const radio_msg_t *msg);

#ifdef __cplusplus
}
#endif

#endif /* WSN_RADIO_H */
