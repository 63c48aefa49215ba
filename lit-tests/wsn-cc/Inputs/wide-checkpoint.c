/* main reads a 1500-byte table in every round: every checkpoint carries it, and two segments
 * that hold it do not fit the atmega128's 4 KiB beside the table itself. */
#include <stdint.h>
#include <wsn/invariant.h>
uint8_t WideC$table[1500];
uint16_t WideC$i;
WSN_INVARIANT(small) { return WideC$i < 1500; }
int main(void) {
  for (;;) {
    WideC$table[WideC$i] += WideC$table[(WideC$i + 7) % 1500];
    WideC$i = (WideC$i + 1) % 1500;
    WSN_CHECK(small);
  }
}
