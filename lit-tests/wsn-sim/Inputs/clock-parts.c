/* Measures the chip's two clocks as TinyOS's Msp430ClockP does when it calibrates the DCO:
 * Timer_A counts ACLK (LFXT1, the 32.768 kHz crystal), Timer_B counts SMCLK (the DCO). The
 * SMCLK ticks in 8 ACLK periods give the DCO's frequency; the polls until ACLK's first tick
 * show the crystal's phase against the CPU. Results in globals, read from sram.bin.
 * nesC-shaped: component$variable names; no trace runtime needed. */
#include <stdint.h>

#define REG16(a) (*(volatile uint16_t *)(a))
#define WDTCTL REG16(0x0120)
#define TACTL REG16(0x0160)
#define TAR REG16(0x0170)
#define TBCTL REG16(0x0180)
#define TBR REG16(0x0190)

volatile uint16_t ClockC$first_tick_polls;
volatile uint16_t ClockC$smclk_per_8_aclk;
volatile uint8_t ClockC$done;

int main(void) {
  WDTCTL = 0x5A80;                  /* hold the watchdog */
  TBCTL = 0x0200 | 0x0020 | 0x0004; /* SMCLK, continuous, clear */
  TACTL = 0x0100 | 0x0020 | 0x0004; /* ACLK, continuous, clear */
  uint16_t polls = 0;
  while (TAR == 0)
    ++polls;
  ClockC$first_tick_polls = polls;
  uint16_t a = TAR;
  while (TAR == a) /* to an ACLK edge */
    ;
  uint16_t t0 = TBR, a0 = TAR;
  while ((uint16_t)(TAR - a0) < 8)
    ;
  ClockC$smclk_per_8_aclk = (uint16_t)(TBR - t0);
  ClockC$done = 1;
  for (;;)
    ;
}
