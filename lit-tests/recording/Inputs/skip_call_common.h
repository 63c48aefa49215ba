/* What the skipped-call programs for both MCUs share (avr_skip_call.c, msp430_skip_call.c):
 * the callee the runtime's __wsn_rt_skip_call calls, and the effect table it records.
 * The callee stores its four arguments in `seen` (the effect's one variable) and returns
 * their sum. Define SKIP_CALL_TABLE_ATTR first: where the target keeps the table. */
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
} effect_table SKIP_CALL_TABLE_ATTR = {10, 2, 1, (uint16_t)(uintptr_t)seen, 8};

__attribute__((noinline, used)) uint16_t callee(uint16_t a, uint16_t b, uint16_t c,
                                                 uint16_t d) {
  seen[0] = a;
  seen[1] = b;
  seen[2] = c;
  seen[3] = d;
  return (uint16_t)(a + b + c + d);
}
