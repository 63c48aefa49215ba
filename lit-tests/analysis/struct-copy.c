// Rule: a struct copy (a memcpy in IR) carries the dependence from the source
// object to the destination: the writer of the source struct is sliced.
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output %t.ll | FileCheck %s
#include <wsn/invariant.h>
#define NI __attribute__((noinline))
struct reading { int id; int value; int pad[4]; };
struct reading latest, shown;
int unrelated;
NI void sample(int v) { latest.value = v; latest.id++; }
NI void publish(void) { shown = latest; }
NI void other(void) { unrelated = 7; }
WSN_INVARIANT(sane) { return shown.value < 1000; }
int main(void) {
  for (;;) {
    sample(10);
    other();
    publish();
    WSN_CHECK(sane);
  }
}
// CHECK-DAG: function @sample level={{[0-9]+}} slice
// CHECK-DAG: reason memory: store in @sample <- needed by call @llvm.memcpy.p0.p0.i16 in @publish
// CHECK-DAG: function @publish level=1 slice selected
// CHECK-DAG: function @other level=-{{$}}
// CHECK-DAG: global @latest reason memory: call @llvm.memcpy.p0.p0.i16 in @publish
