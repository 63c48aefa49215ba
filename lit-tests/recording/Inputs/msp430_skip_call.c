/* The MSP430 skipped-call helper of the trace runtime (trace-runtime/src/trace.c,
 * __wsn_rt_skip_call; spec/instrumentation.md section 10), called the way the record lowering
 * calls it: the callee's four arguments in r12-r15, then the words site, effect table and
 * callee after the call. The callee stores its arguments in `seen` (the effect's one
 * variable) and returns their sum; main records what came back in r12 as INPUT 100. */
#include <stdint.h>
#include <wsn/trace.h>

uint16_t seen[4];
uint16_t result;

/* Effect table (trace.c, "Table-driven records"): len u16 (2 return bytes + 8), ret-bytes u8,
 * n u8, then (addr u16, size u8) for seen. */
const struct __attribute__((packed)) {
  uint16_t len;
  uint8_t ret_bytes, n;
  uint16_t addr;
  uint8_t size;
} effect_table = {10, 2, 1, (uint16_t)(uintptr_t)seen, 8};

__attribute__((noinline, used)) uint16_t callee(uint16_t a, uint16_t b, uint16_t c,
                                                 uint16_t d) {
  seen[0] = a;
  seen[1] = b;
  seen[2] = c;
  seen[3] = d;
  return (uint16_t)(a + b + c + d);
}

int main(void) {
  __asm__ __volatile__("mov #0x1111, r12\n\tmov #0x2222, r13\n\tmov #0x3333, r14\n\t"
                       "mov #0x4444, r15\n\t"
                       "call #__wsn_rt_skip_call\n\t.word 9, effect_table, callee\n\t"
                       "mov r12, &result"
                       :
                       :
                       : "r11", "r12", "r13", "r14", "r15", "memory");
  __wsn_rt_input16(100, result);
  for (;;)
    ;
}
