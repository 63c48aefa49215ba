/* The only WSN_CHECK sits in code the compiler removes (a debug switch that is off), so the
 * firmware checks nothing. */
#include <stdint.h>
#include <wsn/invariant.h>
#define DEBUG_CHECKS 0
uint8_t DeadC$n;
WSN_INVARIANT(small) { return DeadC$n < 200; }
int main(void) {
  for (;;) {
    DeadC$n++;
    if (DEBUG_CHECKS)
      WSN_CHECK(small);
  }
}
