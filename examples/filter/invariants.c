/* invariants.c - the averaging filter's invariant: an average lies within its samples. */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint16_t FilterC$avg;
extern uint16_t FilterC$min;
extern uint16_t FilterC$max;

/* Checked by the report task, once per full window. */
WSN_INVARIANT(avg_bounds) { return FilterC$min <= FilterC$avg && FilterC$avg <= FilterC$max; }
