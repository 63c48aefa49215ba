/* Drives every CC2420 pin of the TelosB board (spec/telosb.md) from the msp430f1611, as
 * TinyOS's telosb platform wires them: VREG_EN P4.5, RESETn P4.6, CSn P4.2, SPI on USART0,
 * FIFOP P1.0 (port 1 interrupt), FIFO P1.3, CCA P1.4, SFD P4.1 (Timer_B capture CCI1A).
 * The program is msp430-pins.c. */
#include "telosb-cc2420.h"

#include "msp430-pins.c"
