// Rule: -wsn-check-at=writes inserts a check of the invariant after every
// store to a global it reads (here: two stores to temp), never after a store
// to an unrelated global nor inside the invariant itself.
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-insert-checks -wsn-check-at=writes -S %t.ll | FileCheck %s
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-insert-checks -S %t.ll | FileCheck %s --check-prefix=NONE
#include <wsn/invariant.h>
int temp, other;
__attribute__((noinline)) void heat(void) { temp = temp + 5; }
__attribute__((noinline)) void cool(void) { temp = temp - 3; other = 1; }
WSN_INVARIANT(temp_ok) { return temp < 80; }
int main(void) {
  heat();
  cool();
  return 0;
}
// CHECK-LABEL: define {{.*}} @heat()
// CHECK: store i16 %{{.*}}, ptr @temp
// CHECK-NEXT: call {{.*}} @wsn_invariant_temp_ok()
// CHECK-NEXT: zext
// CHECK-NEXT: store volatile i8
// CHECK-LABEL: define {{.*}} @cool()
// CHECK: store i16 %{{.*}}, ptr @temp
// CHECK-NEXT: call {{.*}} @wsn_invariant_temp_ok()
// CHECK-NEXT: zext
// CHECK-NEXT: store volatile i8
// CHECK: store i16 1, ptr @other
// CHECK-NOT: @wsn_invariant_temp_ok()
// CHECK-LABEL: define {{.*}} @wsn_invariant_temp_ok()
// CHECK-NOT: call
// CHECK: ret
// NONE-NOT: call {{.*}} @wsn_invariant_temp_ok()
