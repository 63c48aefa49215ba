/* drive.c - a fixed mix of trace records for bench/tracecost (the cost of the runtime's
 * writer per record, on the motes). ITER times: ENTRY, SCHED, INPUT, SEND, an 8-byte EFFECT
 * (begin/put/end), CHECK, EXIT; then one VIOLATION, where wsn-sim stops (AVR), and the MSP430
 * build goes to sleep (LPM4), where msp430-run stops. RECORDS=0 leaves the records out
 * (the loop's own cost). */
#include "wsn/trace.h"

#ifndef ITER
#define ITER 200
#endif
#ifndef RECORDS
#define RECORDS 1
#endif

volatile uint16_t sink;
static uint8_t payload[8] = {1, 2, 3, 4, 5, 6, 7, 8};

int main(void) {
  uint16_t i;
  for (i = 0; i < ITER; ++i) {
#if RECORDS
    __wsn_rt_entry(3);
    __wsn_rt_sched(i & 7);
    __wsn_rt_input16(5, i);
    __wsn_rt_send(2, 0xFFFF, i);
    __wsn_rt_effect_begin(9, sizeof payload);
    __wsn_rt_put(payload, sizeof payload);
    __wsn_rt_record_end();
    __wsn_rt_check(1, 1, i);
    __wsn_rt_exit(3);
#else
    sink = i;
#endif
  }
  __wsn_rt_check(2, 0, 0);
#if defined(__MSP430__)
  __asm__ __volatile__("bis #0xF0, r2"); /* LPM4: msp430-run stops here */
#endif
  for (;;)
    ;
}
