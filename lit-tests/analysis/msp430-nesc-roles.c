// Rule: MSP430 handlers (interrupt calling convention, vector from the
// attribute), nesC tasks (Component$task$runTask without argument) and the
// WSN_INTERRUPT annotation fallback are recognized.
// RUN: %clang --target=msp430 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output %t.ll | FileCheck %s
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output -wsn-level=2 %t.ll | FileCheck %s --check-prefix=L2
#include <wsn/invariant.h>
unsigned readings, pending;
__attribute__((interrupt(9))) void TimerA_isr(void) { pending = 1; }
WSN_INTERRUPT(3) void soft_isr(void) { readings = 0; }
__attribute__((noinline)) void SenseC$read$runTask(void) {
  if (pending) { readings++; pending = 0; }
}
__attribute__((noinline)) void SchedulerBasicP$TaskBasic$runTask(unsigned char id) {
  if (id == 0) SenseC$read$runTask();
}
WSN_INVARIANT(few) { return readings < 1000; }
int main(void) {
  for (;;) {
    SchedulerBasicP$TaskBasic$runTask(0);
    WSN_CHECK(few);
  }
}
// At level 1 the timer handler writes only `pending`, which no selected
// function uses; at level 2 the task reading it is selected, so is the handler.
// CHECK-DAG: function @TimerA_isr level=2 slice interrupt(msp430,9){{$}}
// CHECK-DAG: function @soft_isr level=2 slice selected interrupt(annotated,3)
// CHECK-DAG: function @SenseC$read$runTask level=2 slice task{{$}}
// CHECK-DAG: function @SchedulerBasicP$TaskBasic$runTask level=1 slice selected inline
// L2-DAG: function @TimerA_isr level=2 slice selected interrupt(msp430,9)
// L2-DAG: function @SenseC$read$runTask level=2 slice selected task
