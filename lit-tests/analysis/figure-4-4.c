// Rule: the program shape of thesis Figure 4.4. main calls f1, f2 and the
// invariant; f1 calls f3 and f2 calls f4, which write what the invariant reads.
// The dependences reach f3/f4 through their closest common ancestor main, so
// f1, f2 are level 1 and f3, f4 level 2; main is the level-1 boundary.
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output %t.ll | FileCheck %s
#include <wsn/invariant.h>
#define NI __attribute__((noinline))
int x, y;
NI void f3(void) { x = x + 1; }
NI void f4(void) { y = 2; }
NI void f1(void) { f3(); }
NI void f2(void) { f4(); }
WSN_INVARIANT(xy) { return x < y; }
int main(void) {
  for (;;) {
    f1();
    f2();
    WSN_CHECK(xy);
  }
}
// CHECK-LABEL: wsn-pfdg: level 1
// CHECK-DAG: function @f3 level=2 slice{{$}}
// CHECK-DAG: function @f4 level=2 slice
// CHECK-DAG: function @f1 level=1 slice selected inline=no(noinline)
// CHECK-DAG: function @f2 level=1 slice selected
// CHECK-DAG: function @wsn_invariant_xy level=0 slice selected invariant
// CHECK-DAG: function @main level=1 slice selected boundary main
// CHECK-DAG: dep @wsn_invariant_xy -> @f1
// CHECK-DAG: dep @f1 -> @f3
// CHECK-DAG: dep @wsn_invariant_xy -> @f2
// CHECK-DAG: dep @f2 -> @f4
// CHECK-DAG: global @x reason memory: load in @wsn_invariant_xy
// CHECK-DAG: global @y reason memory: load in @wsn_invariant_xy
// CHECK-DAG: anchor @main
// CHECK-NOT: dep @wsn_invariant_xy -> @f3
// CHECK-NOT: dep @wsn_invariant_xy -> @f4
