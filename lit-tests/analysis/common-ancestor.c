// Rule: Algorithm 3, step 2. The invariant (under a -> b) and the writer
// (under c -> d) meet only at main: the dependence becomes the chain
// inv -> b -> a -> c -> d -> w, and levels grow along it.
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output %t.ll | FileCheck %s
#include <wsn/invariant.h>
#define NI __attribute__((noinline))
int g;
NI void w(int v) { g = v; }
NI void d(int v) { w(v + 1); }
NI void c(int v) { d(v); }
WSN_INVARIANT(pos) { return g > 0; }
NI void b(void) { WSN_CHECK(pos); }
NI void a(void) { b(); }
int main(void) {
  c(3);
  a();
  return 0;
}
// CHECK-DAG: function @w level=5 slice{{$}}
// CHECK-DAG: function @d level=4 slice{{$}}
// CHECK-DAG: function @c level=3 slice{{$}}
// CHECK-DAG: function @b level=1 slice selected boundary
// CHECK-DAG: function @a level=2 slice{{$}}
// CHECK-DAG: dep @wsn_invariant_pos -> @b
// CHECK-DAG: dep @b -> @a
// CHECK-DAG: dep @a -> @c
// CHECK-DAG: dep @c -> @d
// CHECK-DAG: dep @d -> @w
