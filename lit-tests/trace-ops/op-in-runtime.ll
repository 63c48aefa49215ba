; No trace op in the runtime's own functions (__wsn_*) nor in wsn_noinstrument ones.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: in function '__wsn_flush': wsn.sched (task 1): trace ops are not allowed in runtime or wsn_noinstrument functions
; CHECK-DAG: error: wsn-verify: in function 'quiet': wsn.sched (task 1): trace ops are not allowed
; CHECK-DAG: error: wsn-verify: in function 'annotated': wsn.sched (task 1): trace ops are not allowed

@.str = private constant [17 x i8] c"wsn_noinstrument\00"
@.file = private constant [6 x i8] c"app.c\00"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @annotated, ptr @.str, ptr @.file, i32 1, ptr null }], section "llvm.metadata"

define void @__wsn_flush() {
  call void @wsn.sched(i32 1)
  ret void
}
define void @quiet() "wsn_noinstrument" {
  call void @wsn.sched(i32 1)
  ret void
}
define void @annotated() {
  call void @wsn.sched(i32 1)
  ret void
}
define void @task() {
  ret void
}
declare void @wsn.sched(i32)
!wsn.module = !{!0}
!wsn.tasks = !{!1}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, ptr @task}
