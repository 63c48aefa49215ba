// Rule: control dependence. mode only decides whether the write to level
// happens; the write is control dependent on the branch, so the function
// that sets mode is in the slice although mode never flows into level.
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output %t.ll | FileCheck %s
#include <wsn/invariant.h>
#define NI __attribute__((noinline))
int mode, level, noise;
NI void set_mode(int m) { mode = m; }
NI void step(void) {
  noise = noise + 3;
  if (mode)
    level = level + 1;
}
NI void jitter(void) { noise = noise * 2; }
WSN_INVARIANT(bounded) { return level < 50; }
int main(void) {
  for (;;) {
    set_mode(1);
    jitter();
    step();
    WSN_CHECK(bounded);
  }
}
// CHECK-DAG: function @set_mode level={{[0-9]+}} slice
// CHECK-DAG: reason memory: store in @set_mode <- needed by load in @step
// CHECK-DAG: function @jitter level=-{{$}}
// CHECK-DAG: global @mode reason memory: load in @step
// CHECK-NOT: global @noise
