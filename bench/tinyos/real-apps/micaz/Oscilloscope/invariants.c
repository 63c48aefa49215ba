/* invariants.c - Oscilloscope (TinyOS apps/Oscilloscope, micaz) for bench/tinyos/run.py.
 * Every 256 ms the timer reads the sensor into OscilloscopeC__local.readings[reading++]; when
 * the 10 readings are full the app sends them, sets reading back to 0 and advances
 * local.count (a message from another mote with a higher count moves local.count forward:
 * the receive path). readings taken = count * 10 + reading; the deliberately violable bound
 * "fewer than 12 readings taken" fails at the 12th read (about 3 s after boot). local is a
 * network-order (big-endian) nx_struct: version, interval, id, count, readings[10]. */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint8_t OscilloscopeC__local[28];
extern uint8_t OscilloscopeC__reading;

WSN_INVARIANT(readings_below_12) {
  uint16_t count = (uint16_t)((OscilloscopeC__local[6] << 8) | OscilloscopeC__local[7]);
  return (uint32_t)count * 10u + OscilloscopeC__reading < 12u;
}
