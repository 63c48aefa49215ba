/* Main samples the timer's counter through a plain (non-volatile) pointer taken from a table:
 * the instrumentation cannot see that the load reads a register, so its value is not recorded.
 * Replay must not read a stale cell there; it stops at the read with an error naming it
 * (lit replay/io-pointer.test). */
#include <avr/io.h>
#include <stdint.h>
#include <wsn/invariant.h>

static uint8_t *const RegPtrC$regs[2] = {(uint8_t *)&TCNT0, (uint8_t *)&OCR0};
static uint8_t RegPtrC$which;
uint8_t RegPtrC$sample;
uint16_t RegPtrC$loops;

WSN_INVARIANT(sample_ok) { return RegPtrC$loops < 60000u || RegPtrC$sample != 0xff; }

int main(void) {
  OCR0 = 200;
  TCCR0 = (1 << WGM01) | (1 << CS01); /* CTC, clk/8 */
  for (;;) {
    RegPtrC$sample = *RegPtrC$regs[RegPtrC$which & 1];
    RegPtrC$which ^= 2; /* stays on TCNT0 */
    RegPtrC$loops++;
    WSN_CHECK(sample_ok);
  }
}
