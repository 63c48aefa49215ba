; The anchor's variadic operands are allocas of its function, as many as the
; locals listed for it in !wsn.anchors; an anchor id has one op.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.anchor (anchor 1): variadic operand 2 is not an alloca of this function
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.anchor (anchor 1): !wsn.anchors lists 1 locals, the op passes 2
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.anchor (anchor 1): anchor 1 is used by more than one op

@g = global i16 0

define void @f(ptr %p) {
  %i = alloca i16
  call void (i32, ...) @wsn.anchor(i32 1, ptr %i, ptr %p)
  call void (i32, ...) @wsn.anchor(i32 1, ptr %i)
  ret void
}
declare void @wsn.anchor(i32, ...)
!wsn.module = !{!0}
!wsn.anchors = !{!1}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, ptr @f, !2, !3}
!2 = !{!"global", ptr @g, i32 2, !""}
!3 = !{!"local", !"i", i32 2, !""}
