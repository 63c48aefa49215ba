/* An invariant clang can prove true (a 3-bit field is never 42) is folded away with its check:
 * wsn-cc builds the firmware without a warning, but it records no check and links no check or
 * violation hook, and wsn-sim then refuses it: "firmware has no trace runtime ... build it with
 * wsn-cc", although it was built with wsn-cc. Not a replay bug: a silent loss of the checks. */
#include <avr/io.h>
#include <stdint.h>
#include <wsn/invariant.h>
struct FoldC$bits_s { uint8_t a : 3; } FoldC$bits;
uint8_t FoldC$n;
WSN_INVARIANT(never_false) { return FoldC$bits.a != 42u; }
int main(void) {
  for (;;) {
    FoldC$n++;
    FoldC$bits.a = FoldC$n;
    WSN_CHECK(never_false);
  }
}
