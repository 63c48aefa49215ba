/* Two motes, one image per MCU, talking through their CC2420s and wsn-sim's 802.15.4 medium
 * (spec/cc2420.md, spec/telosb.md); the TelosB twin of cc2420-link.c, so either can be the
 * sender in a mixed MicaZ + TelosB network. Node 1 sends one frame whose payload byte is
 * PAYLOAD; node 2 listens, polls FIFOP (P1.0), reads the frame from the RXFIFO over USART0 and
 * shows the payload's low three bits on its LEDs (Led0 bit 0 ... Led2 bit 2; lit = pin driven
 * low). The program is msp430-link.c. */
#include "telosb-cc2420.h"

#include "msp430-link.c"
