/* The MSP430 input-site helpers of the trace runtime (trace-runtime/src/trace.c,
 * __wsn_rt_in8_at / __wsn_rt_in16_at; spec/instrumentation.md section 10), called the way the
 * record lowering calls them: the words after the call give the site, the register's address
 * and the mask. Before each call r11 and r13-r15 hold marker values; afterwards every register
 * the helper may touch is saved and then recorded as an INPUT of its own (sites 100-109), so
 * the trace shows what the helper recorded, what it returned in r12 and that it preserved the
 * others. The registers read are the word at 0x3000 (RAM no other code uses) and P1OUT
 * (0x21, a byte register below 0x100 that reads back what was written), set first. */
#include <stdint.h>
#include <wsn/trace.h>

uint16_t regs[10];

int main(void) {
  __asm__ __volatile__(
      "mov #0x1234, &0x3000\n\tmov.b #0xa5, &0x21\n\t"
      "mov #0x1111, r11\n\tmov #0x3333, r13\n\tmov #0x4444, r14\n\tmov #0x5555, r15\n\t"
      "call #__wsn_rt_in16_at\n\t.word 7, 0x3000, 0x0ff0\n\t"
      "mov r11, &regs\n\tmov r12, &regs+2\n\tmov r13, &regs+4\n\tmov r14, &regs+6\n\t"
      "mov r15, &regs+8\n\t"
      "mov #0x1111, r11\n\tmov #0x3333, r13\n\tmov #0x4444, r14\n\tmov #0x5555, r15\n\t"
      "call #__wsn_rt_in8_at\n\t.word 8, 0xf021\n\t"
      "mov r11, &regs+10\n\tmov r12, &regs+12\n\tmov r13, &regs+14\n\tmov r14, &regs+16\n\t"
      "mov r15, &regs+18\n\t"
      :
      :
      : "r11", "r12", "r13", "r14", "r15", "memory");
  for (uint16_t i = 0; i < 10; ++i)
    __wsn_rt_input16((uint16_t)(100 + i), regs[i]);
  for (;;)
    ;
}
