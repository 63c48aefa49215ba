; Recognised MSP430 inline asm: dint/eint clear/set GIE (bit 3) of the
; modelled SR, `mov r2, x` reads it, `bis #imm, r2` sets bits (low-power bits
; are not kept: entering low-power mode is reported to the engine's hook, which
; ends the replay when every record is consumed, as for AVR sleep), nop vanishes.
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes='wsn-lower<replay>' -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes='wsn-lower<replay;no-inline-log>' -S %s | FileCheck %s --check-prefix=CB

target datalayout = "e-m:e-p:16:16-i32:16-i64:16-f32:16-f64:16-a:8-n8:16-S16"
target triple = "msp430"

@saved = global i16 0

; CHECK: @__wsn_sr = global i16 0
; CHECK-LABEL: define void @main()
; CHECK-NOT: asm
; CHECK: %[[A:.*]] = load i16, ptr @__wsn_sr
; CHECK: and i16 %[[A]], -9
; CHECK: %[[S:.*]] = load i16, ptr @__wsn_sr
; CHECK: store i16 %[[S]], ptr getelementptr inbounds (i8, ptr @__wsn_mem, i64 4352)
; CHECK: or i16 %{{.*}}, 8
; CHECK: call void @__wsn_replay_lpm(i32 16)
; CB: call void @__wsn_replay_lpm(i32 16)
; CHECK: or i16 %{{.*}}, 8
; CHECK: ret void
define void @main() {
  call void asm sideeffect "dint\0A\09nop", "~{memory}"()
  %s = call i16 asm sideeffect "mov r2, $0", "=r"()
  store i16 %s, ptr @saved
  call void asm sideeffect "eint", "~{memory}"()
  call void asm sideeffect "bis #24, r2", "~{memory}"()
  ret void
}
