; Every ret of an instrumented function is immediately preceded by its exit op,
; with the entry's id; exit ops sit right before a ret.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: in function 'f': ret without wsn.func.exit in a function instrumented by wsn.func.entry (fid 1)
; CHECK-DAG: error: wsn-verify: in function 'g': wsn.func.exit (fid 9): differs from the function's entry op wsn.func.entry (fid 2)
; CHECK-DAG: error: wsn-verify: in function 'h': wsn.func.exit (fid 3): must be immediately followed by a ret
; CHECK-DAG: error: wsn-verify: in function 'u': wsn.func.exit (fid 3): exit op in a function without an entry op
; CHECK-DAG: error: wsn-verify: in function 'irq': ret without wsn.irq.exit in a function instrumented by wsn.irq.entry (irq 1)
; CHECK-DAG: error: wsn-verify: in function 'irq': wsn.func.exit (fid 1): does not match the function's entry op wsn.irq.entry (irq 1)

@x = global i8 0

define void @f(i1 %c) {
  call void @wsn.func.entry(i32 1)
  br i1 %c, label %a, label %b
a:
  call void @wsn.func.exit(i32 1)
  ret void
b:
  ret void
}
define void @g() {
  call void @wsn.func.entry(i32 2)
  call void @wsn.func.exit(i32 9)
  ret void
}
define void @h() {
  call void @wsn.func.entry(i32 3)
  call void @wsn.func.exit(i32 3)
  store i8 1, ptr @x
  ret void
}
define void @u() {
  call void @wsn.func.exit(i32 3)
  ret void
}
define void @irq() {
  call void @wsn.irq.entry(i32 1)
  call void @wsn.func.exit(i32 1)
  ret void
}
declare void @wsn.func.entry(i32)
declare void @wsn.func.exit(i32)
declare void @wsn.irq.entry(i32)
!wsn.module = !{!0}
!wsn.funcs = !{!1, !2, !3}
!wsn.irqs = !{!4}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, ptr @f}
!2 = !{i32 2, ptr @g}
!3 = !{i32 3, ptr @h}
!4 = !{i32 1, ptr @irq, i32 3, !"INT0"}
