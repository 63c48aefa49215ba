/* The AVR skipped-call helper of the trace runtime (trace-runtime/src/trace.c,
 * __wsn_rt_skip_call; spec/instrumentation.md section 10), called the way the record lowering
 * calls it: the callee's four arguments in r25:r24, r23:r22, r21:r20, r19:r18, then the
 * words site, effect table (flash byte address) and callee (byte address) after the call.
 * The callee stores its arguments in `seen` (the effect's one variable) and returns their
 * sum; main records what came back in r25:r24 as INPUT 100 and ends with a violation. */
#include <stdint.h>
#include <wsn/trace.h>

uint16_t seen[4];
uint16_t result;

/* Effect table (trace.c, "Table-driven records"), in flash (avr-libc's linker script puts
 * .progmem.* there; clang ignores __progmem__): len u16 (2 return bytes + 8),
 * ret-bytes u8, n u8, then (addr u16, size u8) for seen. */
const struct __attribute__((packed)) {
  uint16_t len;
  uint8_t ret_bytes, n;
  uint16_t addr;
  uint8_t size;
} effect_table __attribute__((section(".progmem.data"), used)) = {10, 2, 1, (uint16_t)(uintptr_t)seen, 8};

__attribute__((noinline, used)) uint16_t callee(uint16_t a, uint16_t b, uint16_t c,
                                                 uint16_t d) {
  seen[0] = a;
  seen[1] = b;
  seen[2] = c;
  seen[3] = d;
  return (uint16_t)(a + b + c + d);
}

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
  __wsn_rt_check(1, 0, 0);
  for (;;)
    ;
}
