/* nesC-shaped boot code: main measures a clock against a timer register in a busy loop
 * (as TinyOS's MeasureClockC / Msp430ClockP do) before its scheduler loop. */
#include <stdint.h>
#include <wsn/invariant.h>
#define TCNT1 (*(volatile uint16_t *)0x4C)
#define PINC (*(volatile uint8_t *)0x33)
uint16_t MeasureClockC$cycles;
uint16_t AppC$ticks;
WSN_INVARIANT(ticks_small) { return AppC$ticks < 60000u; }
static uint16_t MeasureClockC$measure(void) {
  uint16_t start = TCNT1;
  while ((uint16_t)(TCNT1 - start) < 100) {
  }
  return (uint16_t)(TCNT1 - start);
}
#define TCCR1B (*(volatile uint8_t *)0x4E)
int main(void) {
  TCCR1B = 1; /* timer 1 counts the CPU clock */
  MeasureClockC$cycles = MeasureClockC$measure();
  for (;;) {
    AppC$ticks += (uint8_t)(MeasureClockC$cycles + PINC);
    WSN_CHECK(ticks_small);
  }
}
