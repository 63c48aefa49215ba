/* The MSP430 skipped-call helper of the trace runtime (trace-runtime/src/trace.c,
 * __wsn_rt_skip_call; spec/instrumentation.md section 10), called the way the record lowering
 * calls it: the callee's four arguments in r12-r15, then the words site, effect table and
 * callee after the call. The callee (skip_call_common.h) stores its arguments in `seen` and
 * returns their sum; main records what came back in r12 as INPUT 100. */
#define SKIP_CALL_TABLE_ATTR
#include "skip_call_common.h"

int main(void) {
  __asm__ __volatile__("mov #0x1111, r12\n\tmov #0x2222, r13\n\tmov #0x3333, r14\n\t"
                       "mov #0x4444, r15\n\t"
                       "call #__wsn_rt_skip_call\n\t.word 9, effect_table, callee\n\t"
                       "mov r12, &result"
                       :
                       :
                       : "r11", "r12", "r13", "r14", "r15", "memory");
  __wsn_rt_input16(100, result);
  /* Again with the last argument's low byte changed: the call changes one byte of `seen`
   * (the snapshot taken before it holds the rest), so the effect is an EFFECT_C. */
  __asm__ __volatile__("mov #0x1111, r12\n\tmov #0x2222, r13\n\tmov #0x3333, r14\n\t"
                       "mov #0x4455, r15\n\t"
                       "call #__wsn_rt_skip_call\n\t.word 10, effect_table, callee\n\t"
                       "mov r12, &result"
                       :
                       :
                       : "r11", "r12", "r13", "r14", "r15", "memory");
  __wsn_rt_input16(101, result);
  for (;;)
    ;
}
