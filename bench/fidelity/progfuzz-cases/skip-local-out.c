/* An out-of-line function that writes only through its pointer argument, into a local array
 * of its caller. It writes no global, so it is not instrumented: the call is skipped in
 * replay, and its effect record carries no bytes for the caller's local. */
#include <avr/io.h>
#include <stdint.h>
#include <wsn/invariant.h>

uint8_t LocalOutC$x;
uint16_t LocalOutC$loops;

WSN_INVARIANT(x_ok) { return LocalOutC$x != 0xEEu; }

__attribute__((noinline)) void LocalOutC$fill(uint8_t *out, uint8_t n) {
  for (uint8_t i = 0; i < 2; ++i)
    out[i] = (uint8_t)(n + i * 7u);
}

int main(void) {
  for (;;) {
    uint8_t tmp[2];
    LocalOutC$fill(tmp, LocalOutC$x);
    LocalOutC$x = (uint8_t)(tmp[0] + tmp[1]);
    LocalOutC$loops++;
    WSN_CHECK(x_ok);
  }
}
