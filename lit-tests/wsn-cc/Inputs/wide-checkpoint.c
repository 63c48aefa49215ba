/* main reads a 1500-byte table (WIDE_BYTES) in every round: every checkpoint carries it, and
 * two segments that hold it do not fit the atmega128's 4 KiB beside the table itself. */
#include <stdint.h>
#include <wsn/invariant.h>
#ifndef WIDE_BYTES
#define WIDE_BYTES 1500
#endif
uint8_t WideC$table[WIDE_BYTES];
uint16_t WideC$i;
WSN_INVARIANT(small) { return WideC$i < WIDE_BYTES; }
int main(void) {
  for (;;) {
    WideC$table[WideC$i] += WideC$table[(WideC$i + 7) % WIDE_BYTES];
    WideC$i = (WideC$i + 1) % WIDE_BYTES;
    WSN_CHECK(small);
  }
}
