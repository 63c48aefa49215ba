#include <stdint.h>
#include "wsn/net.h"
#ifdef BAD_FIELD
WSN_MSG_RECV("arg0[2:3]", "arg0[4:2]")
#elif defined(NO_ARG)
WSN_MSG_RECV("arg1", "arg0[4:2]")
#elif defined(NO_GLOBAL)
WSN_MSG_SEND("arg0[0:2]", "@nowhere")
#elif defined(PAYLOAD_NO_LEN)
__attribute__((annotate("wsn.recv sender=arg0[2:2] seq=arg0[4:2] payload=arg0+8")))
#elif defined(PAYLOAD_NOT_ARG)
WSN_MSG_RECV_PAYLOAD("arg0[2:2]", "arg0[4:2]", "@buf", "arg0[7:1]")
#elif defined(PAYLOAD_NOT_PTR)
WSN_MSG_RECV_PAYLOAD("arg0[2:2]", "arg0[4:2]", "arg1", "arg0[7:1]")
#else
WSN_MSG_RECV("arg0[2:2]", "@seq")
#endif
uint8_t recv(uint16_t *m) { return 0; }
