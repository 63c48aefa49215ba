// The oracle skips padding bytes (ReplayGlobal::PaddingOffsets): on MSP430 a uint16_t after a
// uint8_t leaves a hole, and a struct copy carries whatever the source's hole held (stack bytes
// on the mote, other stack bytes in replay): C leaves it unspecified. progfuzz --mcu msp430f1611
// (program 9) reported such a byte of a copied struct as a difference. Here a snapshot that
// differs from the replayed memory only in holes (rec +1; arr[0] +1 and +5 (tail), arr[1] the
// same) compares equal; a difference in a member byte is still found. The globals sit where the
// image (wsn-cc --no-trace) puts them: rec at 0x1100, arr at 0x1108.
// RUN: rm -rf %t && mkdir -p %t
// RUN: wsn-cc --target=msp430 --mcu=msp430f1611 --no-trace -O1 -o %t/p %s
// RUN: %clang --target=msp430 -mmcu=msp430f1611 -O1 -g -emit-llvm -c %s -o %t/p.bc
// RUN: wsn-replay %t/p.bc --elf %t/p.elf --stop-at done --dump-mem %t/mem | FileCheck %s --check-prefix=RUN1
// RUN1: replay: reached the stop marker
// RUN: %python -c "import sys; m=bytearray(open(sys.argv[1],'rb').read()); [m.__setitem__(a, m[a]^0xA5) for a in (0x1101, 0x1109, 0x110D, 0x110F, 0x1113)]; open(sys.argv[2],'wb').write(m)" %t/mem %t/holes
// RUN: wsn-replay %t/p.bc --elf %t/p.elf --stop-at done --compare-snapshot %t/holes | FileCheck %s --check-prefix=HOLES
// HOLES: replay: reached the stop marker
// HOLES: compare: 2 globals, 0 differ
// RUN: %python -c "import sys; m=bytearray(open(sys.argv[1],'rb').read()); m[0x1102]^=1; open(sys.argv[2],'wb').write(m)" %t/mem %t/member
// RUN: not wsn-replay %t/p.bc --elf %t/p.elf --stop-at done --compare-snapshot %t/member 2>&1 | FileCheck %s --check-prefix=MEMBER
// MEMBER: rec @0x1100 (8 bytes): 1 byte(s) differ, first at +2
#include <stdint.h>
struct r { uint8_t tag; uint16_t val; uint32_t acc; };       // hole at +1
struct s { uint8_t a; uint16_t b; uint8_t c; } ;            // holes at +1, +5 (tail)
struct r rec;
struct s arr[2];
__attribute__((noinline)) void done(void) { __asm__ __volatile__("" ::: "memory"); }
int main(void) {
  rec.tag = 1;
  rec.val = 0x1234;
  rec.acc = 0x89ABCDEF;
  arr[0].a = 2;
  arr[1].c = 3;
  done();
  for (;;) {}
}
