/* Drives every CC2420 pin of the Z1 board (spec/z1.md) from the msp430f2617, as
 * TinyOS's z1 platform wires them: VREG_EN P4.5, RESETn P4.6, CSn P3.0, SPI on USCI_B0,
 * FIFOP P1.2 (port 1 interrupt), FIFO P1.3, CCA P1.4, SFD P4.1 (Timer_B capture CCI1A).
 * The program is msp430-pins.c. */
#include "z1-cc2420.h"

#include "msp430-pins.c"
