/* A custom radio stack marked with wsn/net.h: a global sequence counter, a receive event that
 * gets a pointer to the message, a broadcast that always counts as sent. */
#include <stdint.h>

#include "wsn/net.h"

typedef struct {
  uint16_t dest, src, seq;
  uint8_t len, data[8];
} msg_t;

uint16_t Radio$seqno;
uint8_t Radio$hw(const msg_t *m);

WSN_MSG_SEND("arg0", "@Radio$seqno")
uint8_t Radio$send(uint16_t dest, msg_t *m) {
  m->dest = dest;
  m->seq = ++Radio$seqno;
  return Radio$hw(m);
}

WSN_MSG_SEND_ANY("arg0[0:2]", "arg0[4:2]")
void Radio$bcast(msg_t *m) { Radio$hw(m); }

uint16_t App$last;
WSN_MSG_RECV("arg0[2:2]", "arg0[4:2]")
void Radio$Receive$receive(const msg_t *m) { App$last = m->src; }

/* An invariant over what the stack writes, a receive interrupt and a main loop: the program
 * the analysis traces. */
#include <avr/interrupt.h>
#include "wsn/invariant.h"
WSN_INVARIANT(stack_sane) { return App$last != 0xFFFF && Radio$seqno != 0xFFFF; }
static msg_t Radio$rx, App$tx;
ISR(INT6_vect) { Radio$Receive$receive(&Radio$rx); }
int main(void) {
  sei();
  for (;;) {
    Radio$send(3, &App$tx);
    Radio$bcast(&App$tx);
    WSN_CHECK(stack_sane);
  }
}
