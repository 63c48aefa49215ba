; A site id belongs to one op (except region and skip groups), even across functions.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: in function 'g': wsn.send (site 1): site 1: a site id belongs to a single op (found wsn.send in 'f', wsn.send in 'g')
; CHECK-DAG: error: wsn-verify: in function 'g': wsn.send (site 1): !wsn.sites gives site 1 to function 'f'

define void @f() {
  call void @wsn.send(i32 1, i32 1, i32 1)
  ret void
}
define void @g() {
  call void @wsn.send(i32 1, i32 1, i32 1)
  ret void
}
declare void @wsn.send(i32, i32, i32)
!wsn.module = !{!0}
!wsn.sites = !{!1}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, !"send", ptr @f, !"", i32 0, i32 0}
