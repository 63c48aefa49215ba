; Regions do not nest.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: error: wsn-verify: in function 'f': wsn.region.begin (site 2): opens a region nested in the region of site 1

@g = global i8 0

define void @f() {
  call void @wsn.region.begin(i32 1)
  call void @wsn.region.begin(i32 2)
  %v = load i8, ptr @g
  call void @wsn.region.end(i32 2, i32 1)
  call void @wsn.region.end(i32 1, i32 1)
  ret void
}
declare void @wsn.region.begin(i32)
declare void @wsn.region.end(i32, i32)
!wsn.module = !{!0}
!wsn.sites = !{!1, !2}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, !"region", ptr @f, !"", i32 0, i32 0}
!2 = !{i32 2, !"region", ptr @f, !"", i32 0, i32 0}
