; region.begin/region.end pair up in one block with the same site and n >= 1.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: in function 'open': wsn.region.begin (site 1): region is not closed in its block
; CHECK-DAG: error: wsn-verify: in function 'open': wsn.region.end (site 1): closes a region that was not opened in this block
; CHECK-DAG: error: wsn-verify: in function 'mismatch': wsn.region.end (site 3): closes the region opened with site 2
; CHECK-DAG: error: wsn-verify: in function 'zero': wsn.region.end (site 4): the count must be at least 1
; CHECK-DAG: error: wsn-verify: in function 'twice': wsn.region.end (site 5): site 5: a region site needs exactly one wsn.region.begin and one wsn.region.end (found wsn.region.begin in 'twice', wsn.region.end in 'twice', wsn.region.end in 'twice')

@g = global i8 0

define void @open(i1 %c) {
  call void @wsn.region.begin(i32 1)
  %v = load i8, ptr @g
  br label %next
next:
  call void @wsn.region.end(i32 1, i32 1)
  ret void
}
define void @mismatch() {
  call void @wsn.region.begin(i32 2)
  %v = load i8, ptr @g
  call void @wsn.region.end(i32 3, i32 1)
  ret void
}
define void @zero() {
  call void @wsn.region.begin(i32 4)
  %v = load i8, ptr @g
  call void @wsn.region.end(i32 4, i32 0)
  ret void
}
define void @twice() {
  call void @wsn.region.begin(i32 5)
  %v = load i8, ptr @g
  call void @wsn.region.end(i32 5, i32 1)
  %w = load i8, ptr @g
  call void @wsn.region.end(i32 5, i32 1)
  ret void
}
declare void @wsn.region.begin(i32)
declare void @wsn.region.end(i32, i32)
!wsn.module = !{!0}
!wsn.sites = !{!1, !2, !3, !4, !5}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, !"region", ptr @open, !"", i32 0, i32 0}
!2 = !{i32 2, !"region", ptr @mismatch, !"", i32 0, i32 0}
!3 = !{i32 3, !"region", ptr @mismatch, !"", i32 0, i32 0}
!4 = !{i32 4, !"region", ptr @zero, !"", i32 0, i32 0}
!5 = !{i32 5, !"region", ptr @twice, !"", i32 0, i32 0}
