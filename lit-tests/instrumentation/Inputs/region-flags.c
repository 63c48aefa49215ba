/* An invariant whose last comparison is inside a counted region (progfuzz
 * --mcu msp430f1611, program 9, reduced): the region's loads and the compare
 * of buf[2] sit between `dint` and the region end, and the result is read
 * from SR's Z flag after it. The region end must not write the flags back. */
#include <stdint.h>
#include <wsn/invariant.h>

typedef struct { uint8_t tag; uint16_t val; uint32_t acc; } rec_t;
uint32_t v3;
rec_t rec;
uint8_t buf[8];

WSN_INVARIANT(shape) {
  return v3 != 62583u && (uint16_t)(v3 + rec.acc) != 16144u && buf[2] != 27u;
}

__attribute__((interrupt(54), used)) void timer_a0(void) {
  ++v3;
  rec.acc += v3;
  buf[2] = (uint8_t)v3;
}

int main(void) {
  for (;;)
    WSN_CHECK(shape);
}
