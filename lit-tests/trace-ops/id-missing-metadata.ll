; Every id an op carries is listed in the metadata, for the op's function.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.func.entry (fid 1): fid 1 is missing from !wsn.funcs
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.sched (task 4): task 4 is missing from !wsn.tasks
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.send (site 7): site 7 is missing from !wsn.sites
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.recv (site 8): !wsn.sites gives site 8 kind 'send', the op writes kind 'recv'
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.anchor (anchor 2): anchor 2 is missing from !wsn.anchors
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.check (inv 3): inv 3 is missing from !wsn.invariants
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.irq.entry (irq 6): irq 6 is missing from !wsn.irqs
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.input.bytes (site 9): !wsn.sites gives site 9 to function 'other'

@buf = global [4 x i8] zeroinitializer

define void @f() {
  call void @wsn.func.entry(i32 1)
  call void @wsn.irq.entry(i32 6)
  call void (i32, ...) @wsn.anchor(i32 2)
  call void @wsn.sched(i32 4)
  call void @wsn.send(i32 7, i32 1, i32 1)
  call void @wsn.recv(i32 8, i32 1, i32 1)
  call void @wsn.input.bytes(i32 9, ptr @buf, i32 4)
  %ok = call i1 @inv()
  call void @wsn.check(i32 3, i1 %ok)
  call void @wsn.func.exit(i32 1)
  ret void
}
define void @other() {
  ret void
}
declare i1 @inv()
declare void @wsn.func.entry(i32)
declare void @wsn.func.exit(i32)
declare void @wsn.irq.entry(i32)
declare void @wsn.anchor(i32, ...)
declare void @wsn.sched(i32)
declare void @wsn.send(i32, i32, i32)
declare void @wsn.recv(i32, i32, i32)
declare void @wsn.input.bytes(i32, ptr, i32)
declare void @wsn.check(i32, i1)
!wsn.module = !{!0}
!wsn.sites = !{!1, !2}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 8, !"send", ptr @f, !"", i32 0, i32 0}
!2 = !{i32 9, !"input.bytes", ptr @other, !"", i32 0, i32 0}
