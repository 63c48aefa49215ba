/* The invariants of separate-invariant.test, compiled as their own module. */
#include <wsn/invariant.h>
extern int battery;
WSN_INVARIANT(battery_ok) { return battery > 10; }
