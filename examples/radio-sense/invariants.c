/* invariants.c - radio-sense's invariant: no sample is overwritten before it is sent. */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint16_t RadioSenseC$samples;
extern uint16_t RadioSenseC$sent;

/* When the send task starts, only the newest sample is waiting. */
WSN_INVARIANT(no_sample_lost) { return (uint16_t)(RadioSenseC$samples - RadioSenseC$sent) <= 1; }
