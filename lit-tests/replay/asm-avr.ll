; Recognised AVR inline asm becomes replay operations on the modelled SREG
; (data address 0x5F = 95): sei/cli set/clear bit 7, `in r, 0x3f` reads it,
; `out 0x3f, r` writes it, nop/wdr vanish. sleep calls the engine's hook (a
; waking interrupt runs when its count comes due; with every record consumed the
; hook ends the replay: a node stopped in TinyOS's idle loop), in both lowerings.
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes='wsn-lower<replay>' -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes='wsn-lower<replay;no-inline-log>' -S %s | FileCheck %s --check-prefix=CB

target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"
target triple = "avr"

@saved = global i8 0

; CHECK-LABEL: define void @main()
; CHECK-NOT: asm
; cli
; CHECK: %[[A:.*]] = load i8, ptr getelementptr inbounds (i8, ptr @__wsn_mem, i64 95)
; CHECK: and i8 %[[A]], 127
; in r24, 0x3f (nesC atomic start saves SREG)
; CHECK: %[[S:.*]] = load i8, ptr getelementptr inbounds (i8, ptr @__wsn_mem, i64 95)
; CHECK: store i8 %[[S]], ptr getelementptr inbounds (i8, ptr @__wsn_mem, i64 256)
; sei
; CHECK: or i8 %{{.*}}, -128
; out 0x3f, r (restore, operand given as an "I" constant)
; CHECK: store i8 %[[S]], ptr getelementptr inbounds (i8, ptr @__wsn_mem, i64 95)
; CHECK: call void @__wsn_replay_sleep()
; CHECK-NEXT: ret void
; CB-LABEL: define void @main()
; CB: call void @__wsn_replay_sleep()
; CB-NEXT: ret void
define void @main() addrspace(1) {
  call addrspace(0) void asm sideeffect "cli", "~{memory}"()
  %s = call addrspace(0) i8 asm sideeffect "in $0, __SREG__", "=r"()
  store i8 %s, ptr @saved
  call addrspace(0) void asm sideeffect "sei", "~{memory}"()
  call addrspace(0) void asm sideeffect "nop\0A\09wdr", ""()
  call addrspace(0) void asm sideeffect "out $1, $0", "r,I,~{memory}"(i8 %s, i8 63)
  call addrspace(0) void asm sideeffect "sleep", ""()
  ret void
}
