// Rule: an interrupt handler that writes a sliced global is in the slice and
// is always selected; a handler touching nothing the selected code uses is
// not. Globals the selected handler reads or writes are interrupt-shared.
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output %t.ll | FileCheck %s
#include <avr/interrupt.h>
#include <wsn/invariant.h>
volatile unsigned char ticks;
unsigned char unrelated;
WSN_INVARIANT(ticks_ok) { return ticks < 200; }
ISR(TIMER0_OVF_vect) { ticks = ticks + 1; }
ISR(INT0_vect) { unrelated = 1; }
int main(void) {
  for (;;)
    WSN_CHECK(ticks_ok);
}
// CHECK-DAG: function @__vector_16 level=2 slice selected interrupt(avr-signal,16) inline=no(interrupt handler)
// CHECK-DAG: reason memory: store in @__vector_16 <- needed by load in @wsn_invariant_ticks_ok
// CHECK-DAG: function @__vector_1 level=- interrupt(avr-signal,1){{$}}
// CHECK-DAG: interrupt-shared @ticks
// CHECK-DAG: invariant-inputs @wsn_invariant_ticks_ok: @ticks
// CHECK-NOT: interrupt-shared @unrelated
