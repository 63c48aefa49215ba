// Rule: a global written only through a pointer loaded from memory (unknown
// points-to: every address-taken global) is still found; a global whose
// address is never taken is not affected by that store.
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output %t.ll | FileCheck %s
#include <wsn/invariant.h>
#define NI __attribute__((noinline))
int target;
int other;
int *volatile cursor = &target;
NI void poke(int v) { *cursor = v; }
NI void bump(void) { other = other + 1; }
WSN_INVARIANT(small) { return target < 10; }
int main(void) {
  poke(4);
  bump();
  WSN_CHECK(small);
  return 0;
}
// CHECK-DAG: function @poke level=1 slice selected
// CHECK-DAG: reason memory: store in @poke <- needed by load in @wsn_invariant_small
// CHECK-DAG: function @bump level=-{{$}}
// CHECK-DAG: global @target
// CHECK-NOT: global @other
