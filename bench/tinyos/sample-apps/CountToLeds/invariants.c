/* invariants.c - CountToLeds's invariant for bench/tinyos/run.py: a deliberately violable
 * bound (the counter stays below 40), so that record and replay have a violation to reproduce.
 * Checked at every write of the counter (run.py builds with --check-at=writes). */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint16_t CountToLedsC__counter;

WSN_INVARIANT(counter_below_40) { return CountToLedsC__counter < 40; }
