; One entry op per function, first non-alloca instruction; a fid belongs to one function.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.func.entry (fid 1): second entry op in the function (first: wsn.func.entry (fid 1))
; CHECK-DAG: error: wsn-verify: in function 'g': wsn.func.entry (fid 1): fid 1 is already entered in function 'f'
; CHECK-DAG: error: wsn-verify: in function 'g': wsn.func.entry (fid 1): !wsn.funcs gives fid 1 to function 'f'
; CHECK-DAG: error: wsn-verify: in function 'h': wsn.func.entry (fid 3): must be the first non-alloca instruction of the entry block
; CHECK-DAG: error: wsn-verify: in function 'k': wsn.irq.entry (irq 1): second entry op in the function (first: wsn.func.entry (fid 4))

@g0 = global i8 0

define void @f() {
  call void @wsn.func.entry(i32 1)
  call void @wsn.func.entry(i32 1)
  call void @wsn.func.exit(i32 1)
  ret void
}
define void @g() {
  call void @wsn.func.entry(i32 1)
  call void @wsn.func.exit(i32 1)
  ret void
}
define void @h() {
  %a = alloca i8
  store i8 0, ptr %a
  call void @wsn.func.entry(i32 3)
  call void @wsn.func.exit(i32 3)
  ret void
}
define void @k() {
  call void @wsn.func.entry(i32 4)
  call void @wsn.irq.entry(i32 1)
  call void @wsn.func.exit(i32 4)
  ret void
}
declare void @wsn.func.entry(i32)
declare void @wsn.func.exit(i32)
declare void @wsn.irq.entry(i32)
!wsn.module = !{!0}
!wsn.funcs = !{!1, !2, !4}
!wsn.irqs = !{!3}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, ptr @f}
!2 = !{i32 3, ptr @h}
!3 = !{i32 1, ptr @k, i32 7, !"TIMER"}
!4 = !{i32 4, ptr @k}
