; An input op takes the load/call result right before it, and is its only use.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.input.i8 (site 1): the value operand must be the result of the load or call immediately before the op
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.input.i16 (site 2): the loaded value has uses that bypass the op (all uses must go through its result)
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.input.i8 (site 3): the value operand must be the result of the load or call immediately before the op
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.input.i8 (site 4): the mask is zero

@g = global i8 0
@h = global i16 0

define i16 @f(i8 %arg) {
  %a = load volatile i8, ptr @g
  store i8 0, ptr @g
  %a.rec = call i8 @wsn.input.i8(i32 1, i8 %a, i8 -1)
  %b = load volatile i16, ptr @h
  %b.rec = call i16 @wsn.input.i16(i32 2, i16 %b, i16 -1)
  %sum = add i16 %b, %b.rec
  %c.rec = call i8 @wsn.input.i8(i32 3, i8 %arg, i8 -1)
  %d = load volatile i8, ptr @g
  %d.rec = call i8 @wsn.input.i8(i32 4, i8 %d, i8 0)
  ret i16 %sum
}
declare i8 @wsn.input.i8(i32, i8, i8)
declare i16 @wsn.input.i16(i32, i16, i16)
!wsn.module = !{!0}
!wsn.sites = !{!1, !2, !3, !4}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, !"input", ptr @f, !"", i32 0, i32 0}
!2 = !{i32 2, !"input", ptr @f, !"", i32 0, i32 0}
!3 = !{i32 3, !"input", ptr @f, !"", i32 0, i32 0}
!4 = !{i32 4, !"input", ptr @f, !"", i32 0, i32 0}
