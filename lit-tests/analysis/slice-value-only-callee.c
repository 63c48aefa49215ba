// Slice precision (issue 19, Deliver 5): a function sliced only for the value it returns
// matters at the call sites whose value the slice uses. Here readScale's result feeds the
// counter the invariant reads (in the ADC handler); the timer handler's busy work calls it
// too but the slice never uses that result. Classic slicing leaves the busy work, the tick
// counter guarding it and the timer handler out; so does the slice now (before, the call
// rule pulled every call site of readScale in, then busy's caller, the branch on tick, tick
// and the timer handler, which every level then had to record).
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output -wsn-level=3 %t.ll | FileCheck %s
// CHECK: function @readScale level=3 slice
// CHECK-NEXT: reason return: ret in @readScale <- needed by call @readScale in @__vector_21
// CHECK-NEXT: function @busy level=-{{$}}
// CHECK-NEXT: function @__vector_15 level=- interrupt(avr-signal,15){{$}}
// CHECK-NEXT: function @__vector_21 level=2 slice selected
// CHECK-NOT: global @tick
// CHECK-NOT: global @busyCount
// A callee with a sliced effect (a write of the counter) still pulls every call site in.
// CHECK: global @counter
#include <stdint.h>
#include <wsn/invariant.h>

uint16_t tick, counter, scale = 3, busyCount;
WSN_DECLARE_INVARIANT(cnt);
WSN_INVARIANT(cnt) { return counter < 1000; }

__attribute__((noinline)) uint16_t readScale(void) { return scale * 2; }
__attribute__((noinline)) void busy(void) { busyCount += readScale(); }

void __vector_15(void) __attribute__((signal, used));
void __vector_15(void) {
  tick++;
  if (tick % 10 == 0)
    busy();
}

void __vector_21(void) __attribute__((signal, used));
void __vector_21(void) { counter += readScale(); }

int main(void) {
  for (;;) {
    WSN_CHECK(cnt);
  }
}
