/* main reads a 12-byte history on every round: its checkpoint cannot fit a 16-byte
 * segment. */
#include <stdint.h>
#include <wsn/invariant.h>

uint8_t history[12];
uint8_t n;

WSN_INVARIANT(n_ok) { return n < 12; }

int main(void) {
  for (;;) {
    history[n % 12] += 1;
    n = history[0] % 12;
    WSN_CHECK(n_ok);
  }
}
