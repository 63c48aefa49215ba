/* invariants.c - FtspSensorData-pub (arpan-g/timeSync-SensorData's committed build/micaz/app.c:
 * TinyOS's TestFtsp with MTS300 photo/temperature/microphone readings) for bench/tinyos/run.py.
 * FTSP's beacon timer (TIMESYNC_RATE=3: about every 3 s) advances TimeSyncP's heartBeats while
 * the mote has heard no root; a time-sync message from a root (the receive path) sets it back
 * to 0, and after ROOT_TIMEOUT (5) beats the mote makes itself root. The deliberately violable
 * bound "fewer than 2 beats without a root" fails at the second beacon-timer fire (about 6 s
 * after boot) when the mote is alone. The second term (the three 10-bit ADC readings the 1 s
 * Check timer stores) always holds; it puts the sensor path into the slice, and every
 * reading stored is a check. */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint8_t TimeSyncP__0__heartBeats;
extern uint16_t TestFtspC__lightSensor, TestFtspC__tempSensor, TestFtspC__micSensor;

WSN_INVARIANT(heartbeats_below_2) {
  return TimeSyncP__0__heartBeats < 2 && TestFtspC__lightSensor <= 1023 &&
         TestFtspC__tempSensor <= 1023 && TestFtspC__micSensor <= 1023;
}
