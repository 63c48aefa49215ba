// Rule: an indirect call may reach every address-taken function of the same
// arity and return kind. Both handlers installed in the table are possible
// callees; the function with another signature is not.
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output %t.ll | FileCheck %s
#include <wsn/invariant.h>
#define NI __attribute__((noinline))
int count;
int spare;
NI void inc(void) { count = count + 1; }
NI void reset(void) { count = 0; }
NI int other_sig(int a) { spare = a; return a; }
void (*volatile table[2])(void) = {inc, reset};
int (*volatile keep)(int) = other_sig;
WSN_INVARIANT(limit) { return count < 100; }
int main(void) {
  for (unsigned char i = 0;; i++) {
    table[i & 1]();
    WSN_CHECK(limit);
  }
}
// CHECK-DAG: function @inc level={{[0-9]+}} slice
// CHECK-DAG: function @reset level={{[0-9]+}} slice
// CHECK-DAG: function @other_sig level=-{{$}}
// CHECK-DAG: call @main -> @inc
// CHECK-DAG: call @main -> @reset
// CHECK-NOT: call @main -> @other_sig
