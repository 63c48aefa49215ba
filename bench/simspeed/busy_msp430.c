/* busy_msp430.c - a firmware that never sleeps, for comparing the MSP430 core's instruction
 * throughput with mspdebug's simulator (bench/simspeed/msp430.py): a CRC-16 and a multiply-
 * accumulate over a buffer in a loop. No interrupts: mspdebug sim has no Timer we share. */
#include <stdint.h>

static uint8_t buf[64];
volatile uint16_t crc;
volatile uint32_t acc;

static uint16_t crc16(uint16_t c, const uint8_t *p, uint8_t n) {
  while (n--) {
    c ^= *p++;
    for (uint8_t k = 0; k < 8; ++k)
      c = (c & 1) ? (c >> 1) ^ 0xA001 : c >> 1;
  }
  return c;
}

int main(void) {
  for (uint8_t i = 0; i < sizeof buf; ++i)
    buf[i] = i;
  for (;;) {
    crc = crc16(0xFFFF, buf, sizeof buf);
    uint32_t a = acc;
    for (uint8_t i = 0; i < 8; ++i)
      a += (uint32_t)buf[i] * crc;
    acc = a;
    buf[crc & 63] ^= (uint8_t)a;
  }
}
