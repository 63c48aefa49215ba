/* The application of separate-invariant.test; WSN_CHECK names an invariant
 * defined in another module. */
#include <wsn/invariant.h>
WSN_DECLARE_INVARIANT(battery_ok);
int battery = 100;
int leds;
__attribute__((noinline)) void drain(void) { battery = battery - 1; }
__attribute__((noinline)) void blink(void) { leds = leds ^ 1; }
int main(void) {
  for (;;) {
    drain();
    blink();
    WSN_CHECK(battery_ok);
  }
}
