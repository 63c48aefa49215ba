; wsn.check follows the call to its invariant's function and takes its result.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.check (inv 1): must immediately follow a direct call to the invariant function
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.check (inv 1): follows a call to 'inv_b', but inv 1 is 'inv_a'
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.check (inv 2): the ok operand is not the result of the invariant call

@g = global i8 0

define void @f(i1 %c) {
  %a = call i1 @inv_a()
  store i8 1, ptr @g
  call void @wsn.check(i32 1, i1 %a)
  %b = call i1 @inv_b()
  call void @wsn.check(i32 1, i1 %b)
  %b2 = call i1 @inv_b()
  call void @wsn.check(i32 2, i1 %c)
  ret void
}
define i1 @inv_a() {
  ret i1 true
}
define i1 @inv_b() {
  ret i1 true
}
declare void @wsn.check(i32, i1)
!wsn.module = !{!0}
!wsn.invariants = !{!1, !2}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, ptr @inv_a}
!2 = !{i32 2, ptr @inv_b}
