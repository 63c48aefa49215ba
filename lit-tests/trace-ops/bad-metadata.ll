; Malformed metadata is reported with the node, the entry and the operand.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: !wsn.module entry 0: target 'z80' is not avr, msp430 or host
; CHECK-DAG: error: wsn-verify: !wsn.funcs entry 1: operand 1 (function) is not a function (deleted?)
; CHECK-DAG: error: wsn-verify: !wsn.sites entry 1: duplicate id 2 (also entry 0)
; CHECK-DAG: error: wsn-verify: !wsn.anchors entry 0: global 'g' listed after a local (globals come first)
; CHECK-DAG: error: wsn-verify: !wsn.effects entry 0: variable operand 3 has kind 'local', expected 'global'

@g = global i16 0

define void @f() {
  ret void
}
!wsn.module = !{!0}
!wsn.funcs = !{!1, !2}
!wsn.sites = !{!3, !3}
!wsn.anchors = !{!4}
!wsn.effects = !{!7}
!0 = !{i32 1, !"z80", i32 0, i32 256, i32 64}
!1 = !{i32 1, ptr @f}
!2 = !{i32 2, !"f"}
!3 = !{i32 2, !"send", ptr @f, !"", i32 0, i32 0}
!4 = !{i32 1, ptr @f, !5, !6}
!5 = !{!"local", !"i", i32 2, !""}
!6 = !{!"global", ptr @g, i32 2, !""}
!7 = !{i32 1, !"ext", i32 0, !5}
