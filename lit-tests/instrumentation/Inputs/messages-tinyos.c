/* The unique send and receive layers of TinyOS's CC2420 stack as nesC writes them (a
 * project-written imitation: the names, signatures and the cc2420_header_t layout of TinyOS
 * 2.1.2, nothing else). SEP is "__" (nesC 1.3) or "$" (older nesC). */
#include <avr/interrupt.h>
#include <stdint.h>

#include "wsn/invariant.h"

#ifdef DOLLAR
#define N(c, i, f) c##$##i##$##f
#else
#define N(c, i, f) c##__##i##__##f
#endif

typedef uint8_t error_t;
enum { SUCCESS = 0, EBUSY = 2 };
typedef struct {
  uint8_t length, fcf[2], dsn, destpan[2], dest[2], src[2], network, type;
} __attribute__((packed)) cc2420_header_t;
typedef struct {
  uint8_t header[sizeof(cc2420_header_t)];
  uint8_t data[28];
  uint8_t footer[2];
  uint8_t metadata[7];
} __attribute__((packed)) message_t;

uint8_t N(UniqueSendP, State, busy);
uint8_t UniqueSendP$localSendId;
error_t N(CC2420CsmaP, Send, send)(message_t *msg, uint8_t len);
message_t *N(AppC, Receive, receive)(message_t *msg, void *payload, uint8_t len);

static inline error_t N(UniqueSendP, Send, send)(message_t *msg, uint8_t len) {
  error_t error;
  if (N(UniqueSendP, State, busy))
    return EBUSY;
  ((cc2420_header_t *)msg->header)->dsn = UniqueSendP$localSendId++;
  if ((error = N(CC2420CsmaP, Send, send)(msg, len)) == SUCCESS)
    N(UniqueSendP, State, busy) = 1;
  return error;
}

uint8_t N(AppC, received, count);
message_t *N(UniqueReceiveP, Receive, receive)(message_t *msg, void *payload, uint8_t len) {
  ++N(AppC, received, count);
  return N(AppC, Receive, receive)(msg, payload, len);
}

message_t *N(UniqueReceiveP, SubReceive, receive)(message_t *msg, void *payload, uint8_t len) {
  return N(UniqueReceiveP, Receive, receive)(msg, payload, len);
}

error_t N(AppC, AMSend, send)(message_t *msg) { return N(UniqueSendP, Send, send)(msg, 4); }

/* The invariant reads what both functions write, so the analysis traces them. */
WSN_INVARIANT(counts_sane) {
  return UniqueSendP$localSendId != 255 && N(AppC, received, count) != 255;
}
void N(AppC, check, runTask)(void) { WSN_CHECK(counts_sane); }

/* The radio's receive interrupt and the scheduler loop: the program the analysis traces. */
static message_t N(CC2420ReceiveP, m, buf);
ISR(INT6_vect) {
  message_t *m = &N(CC2420ReceiveP, m, buf);
  N(UniqueReceiveP, SubReceive, receive)(m, m->data, 4);
}
static message_t N(AppC, m, buf);
int main(void) {
  sei();
  for (;;) {
    N(AppC, AMSend, send)(&N(AppC, m, buf));
    N(AppC, check, runTask)();
  }
}
