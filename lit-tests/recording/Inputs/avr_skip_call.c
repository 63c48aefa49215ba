/* The AVR skipped-call helper of the trace runtime (trace-runtime/src/trace.c,
 * __wsn_rt_skip_call; spec/instrumentation.md section 10), called the way the record lowering
 * calls it: the callee's four arguments in r25:r24, r23:r22, r21:r20, r19:r18, then the
 * words site, effect table (flash byte address) and callee (byte address) after the call.
 * The callee (skip_call_common.h) stores its arguments in `seen` and returns their sum;
 * main records what came back in r25:r24 as INPUT 100 and ends with a violation. */
/* The table goes to flash: avr-libc's linker script puts .progmem.* there (clang ignores
 * __progmem__). */
#define SKIP_CALL_TABLE_ATTR __attribute__((section(".progmem.data"), used))
#include "skip_call_common.h"

int main(void) {
  __asm__ __volatile__("ldi r24, 0x11\n\tldi r25, 0x11\n\tldi r22, 0x22\n\tldi r23, 0x22\n\t"
                       "ldi r20, 0x33\n\tldi r21, 0x33\n\tldi r18, 0x44\n\tldi r19, 0x44\n\t"
                       "call __wsn_rt_skip_call\n\t.word 9, effect_table, callee\n\t"
                       "sts result, r24\n\tsts result+1, r25"
                       :
                       :
                       : "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "r26", "r27",
                         "r30", "r31", "memory");
  __wsn_rt_input16(100, result);
  /* Again with the last argument's low byte changed: the call changes one byte of `seen`
   * (the snapshot taken before it holds the rest), so the effect is an EFFECT_C. */
  __asm__ __volatile__("ldi r24, 0x11\n\tldi r25, 0x11\n\tldi r22, 0x22\n\tldi r23, 0x22\n\t"
                       "ldi r20, 0x33\n\tldi r21, 0x33\n\tldi r18, 0x55\n\tldi r19, 0x44\n\t"
                       "call __wsn_rt_skip_call\n\t.word 10, effect_table, callee\n\t"
                       "sts result, r24\n\tsts result+1, r25"
                       :
                       :
                       : "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "r26", "r27",
                         "r30", "r31", "memory");
  __wsn_rt_input16(101, result);
  __wsn_rt_check(1, 0, 0);
  for (;;)
    ;
}
