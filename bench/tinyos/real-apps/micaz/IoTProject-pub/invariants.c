/* invariants.c - IoTProject-pub (LorenzoVela/IoT_Project's committed build/micaz/app.c, a
 * smart-bracelet pairing app) for bench/tinyos/run.py. Until a bracelet is paired (phase 0;
 * the receive handler moves it to 1 when its partner's key arrives, sendDone to 2 when the
 * confirmation is acked) the 250 ms TimerPairing advances SmartBraceletC__counter and
 * broadcasts the pairing key. The deliberately violable bound "an unpaired bracelet sends
 * fewer than 12 pairing beacons" fails at about 3 s after boot when no partner answers. The
 * second term (a send in flight, `busy`, comes after at least one beacon) always holds; it
 * puts the send and sendDone paths into the slice, and every write of `busy` is a check. */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint16_t SmartBraceletC__counter;
extern uint8_t SmartBraceletC__phase;
extern uint8_t SmartBraceletC__busy;

WSN_INVARIANT(pairing_beacons_below_12) {
  return (SmartBraceletC__phase != 0 || SmartBraceletC__counter < 12) &&
         (!SmartBraceletC__busy || SmartBraceletC__counter > 0);
}
