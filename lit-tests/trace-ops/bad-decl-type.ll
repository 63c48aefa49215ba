; A reserved declaration with another type than the spec's, and a use of an op
; other than as a call, are rejected with the name and both types.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: error: wsn-verify: 'wsn.func.entry' is declared with type 'void (i16)', the trace-op type is 'void (i32)'
; CHECK: error: wsn-verify: 'wsn.input.i24' uses the reserved prefix 'wsn.' but is not a trace op
; CHECK: error: wsn-verify: in function 'f': 'wsn.sched' is used other than as a direct call of its declared type

@fp = global ptr null

define void @f() {
  call void @wsn.func.entry(i16 1)
  store ptr @wsn.sched, ptr @fp
  ret void
}
declare void @wsn.func.entry(i16)
declare i24 @wsn.input.i24(i32, i24, i24)
declare void @wsn.sched(i32)
!wsn.module = !{!0}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
