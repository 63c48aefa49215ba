/* wsn/net.h - marking a radio stack's send and receive for wsn-trace (LOG 6).
 *
 * The instrumentation writes a SEND record when a message has been sent and a RECV record when
 * one has been received (thesis section 5.1), naming the message by its sender's sequence
 * number; wsn-replay net follows RECV -> SEND links back to the nodes that may have caused a
 * violation. TinyOS's CC2420 stack is recognised by name; any other stack marks its send
 * function and its receive event (spec/instrumentation.md section 7):
 *
 *   WSN_MSG_SEND("arg0", "@RadioC$seqno")
 *   uint8_t RadioC$send(uint16_t dest, uint8_t type, const void *payload, uint8_t len);
 *
 *   WSN_MSG_RECV("arg0[2:2]", "arg0[4:2]")
 *   void RadioC$Receive$receive(const radio_msg_t *msg);
 *
 * With WSN_MSG_SEND_PAYLOAD / WSN_MSG_RECV_PAYLOAD (below) the payload is named too.
 * A field is argN (the N-th argument, an integer), argN[OFF:SIZE] (SIZE = 1 or 2 bytes, little
 * endian, at byte OFF of what pointer argument N points to) or @NAME (a global integer of at
 * most 16 bits). Send fields are read when the function returns, and the SEND record is
 * written only when it returns 0 (WSN_MSG_SEND_ANY: always); receive fields are read on entry.
 * The annotation must be on the definition (or on a declaration the defining file includes).
 */
#ifndef WSN_NET_H
#define WSN_NET_H

#define WSN_MSG_SEND(dest, seq) __attribute__((annotate("wsn.send dest=" dest " seq=" seq)))
#define WSN_MSG_SEND_ANY(dest, seq)                                                     \
  __attribute__((annotate("wsn.send dest=" dest " seq=" seq " ok=any")))
#define WSN_MSG_RECV(sender, seq) __attribute__((annotate("wsn.recv sender=" sender " seq=" seq)))
/* The same with the message's payload: P = argN or argN+OFF (a pointer argument, OFF bytes on),
 * LEN a field as above. Replay then keeps each message's payload bytes (nothing more is recorded),
 * and wsn-replay net compares what the sender's replay sent with what the receiver's replay got,
 * byte for byte. */
#define WSN_MSG_SEND_PAYLOAD(dest, seq, p, len)                                          \
  __attribute__((annotate("wsn.send dest=" dest " seq=" seq " payload=" p " len=" len)))
#define WSN_MSG_RECV_PAYLOAD(sender, seq, p, len)                                        \
  __attribute__((annotate("wsn.recv sender=" sender " seq=" seq " payload=" p " len=" len)))

#endif
