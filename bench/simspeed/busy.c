/* busy.c - a firmware that never sleeps, for measuring wsn-sim's instruction throughput:
 * CRC over a buffer in a loop, an invariant check every round, a 1 kHz timer interrupt. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>

#include "wsn/trace.h"

static uint8_t buf[64];
volatile uint16_t ticks;
volatile uint16_t crc;

ISR(TIMER0_COMP_vect) { ++ticks; }

int main(void) {
  uint8_t i;
  TCCR0 = _BV(WGM01) | _BV(CS02);
  OCR0 = 114;
  TIMSK |= _BV(OCIE0);
  for (i = 0; i < sizeof buf; ++i)
    buf[i] = i;
  sei();
  for (;;) {
    crc = __wsn_crc16(0xFFFF, buf, sizeof buf);
    buf[crc & 63] ^= (uint8_t)ticks;
    __wsn_rt_check(1, 1, crc);
  }
}
