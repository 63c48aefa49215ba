/* invariants.c - sense-and-send's invariant: samples are taken periodically. */
#include <stdint.h>
#include <wsn/invariant.h>

#define SENSE_PERIOD 64u /* as in SenseC.c */
#define SENSE_SLACK 3u   /* ticks of ADC and scheduling latency tolerated */

extern uint16_t SenseC$period;
extern uint16_t SenseC$samples;

/* From the second sample on, the time between two samples stays within the period plus the
 * slack. */
WSN_INVARIANT(sample_period) {
  return SenseC$samples < 2 ||
         (SenseC$period >= SENSE_PERIOD && SenseC$period <= SENSE_PERIOD + SENSE_SLACK);
}
