// Rule: recursion. The members of a call-graph cycle share one level and are
// selected together; they are never inlined.
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output %t.ll | FileCheck %s
#include <wsn/invariant.h>
#define NI __attribute__((noinline))
int depth;
NI void odd(int n);
NI void even(int n) { if (n > 0) odd(n - 1); else depth = depth + 1; }
NI void odd(int n) { if (n > 0) even(n - 1); }
WSN_INVARIANT(shallow) { return depth < 5; }
int main(void) {
  for (;;) {
    even(4);
    WSN_CHECK(shallow);
  }
}
// CHECK-DAG: function @even level=[[L:[0-9]+]] slice selected recursive inline=no(recursive)
// CHECK-DAG: function @odd level=[[L]] slice selected recursive inline=no(recursive)
