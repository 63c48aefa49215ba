/* A traced program that runs off into erased flash (a wild function pointer) after 100
 * checks: the simulated core crashes mid-run. */
#include <stdint.h>
#include <wsn/invariant.h>
uint16_t count;
WSN_INVARIANT(count_small) { return count < 60000; }
int main(void) {
  for (;;) {
    count++;
    WSN_CHECK(count_small);
    if (count == 100)
      ((void (*)(void))0xF000)(); /* word address: byte 0x1E000, never programmed */
  }
}
