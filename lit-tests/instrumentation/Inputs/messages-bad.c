#include <stdint.h>
#include "wsn/net.h"
#ifdef BAD_FIELD
WSN_MSG_RECV("arg0[2:3]", "arg0[4:2]")
#elif defined(NO_ARG)
WSN_MSG_RECV("arg1", "arg0[4:2]")
#elif defined(NO_GLOBAL)
WSN_MSG_SEND("arg0[0:2]", "@nowhere")
#else
WSN_MSG_RECV("arg0[2:2]", "@seq")
#endif
uint8_t recv(uint16_t *m) { return 0; }
