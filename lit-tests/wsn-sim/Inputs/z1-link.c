/* The Z1 twin of telosb-link.c (spec/z1.md): node 1 sends one frame whose payload byte is
 * PAYLOAD; node 2 listens, polls FIFOP (P1.2), reads the frame from the RXFIFO over USCI_B0
 * and shows the payload's low three bits on its LEDs (Led0 P5.4 bit 0, Led1 P5.6 bit 1, Led2
 * P5.5 bit 2; lit = pin driven low). The program is msp430-link.c. */
#include "z1-cc2420.h"

#include "msp430-link.c"
