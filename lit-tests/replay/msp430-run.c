// MSP430 IR runs under the JIT with the MSP430 layout (RAM from 0x1100, i32
// aligned to 2), without assuming AVR.
// RUN: %clang --target=msp430 -mmcu=msp430f1611 -O1 -g -emit-llvm -c %s -o %t.bc
// RUN: wsn-replay %t.bc --stop-at done --print-layout --dump-mem %t.mem | FileCheck %s
// RUN: %python -c "import sys,struct; m=open(sys.argv[1],'rb').read(); print('rec', m[0x1100], struct.unpack_from('<i', m, 0x1102)[0], struct.unpack_from('<H', m, 0x1106)[0])" %t.mem | FileCheck %s --check-prefix=MEM
// CHECK: target msp430f1611 stack 0x3900
// CHECK: global rec 0x1100 8 free
// CHECK: replay: reached the stop marker
// MEM: rec 3 -70000 4362
#include <stdint.h>
struct r { uint8_t tag; int32_t v; uint16_t *p; };
struct r rec;
uint16_t cells[4];
__attribute__((noinline)) void done(void) { __asm__ __volatile__("" ::: "memory"); }
int main(void) {
  rec.tag = 3;
  rec.v = -70000;
  rec.p = &cells[1];
  done();
  for (;;) {}
}
