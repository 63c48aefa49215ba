; Id operands and region counts must be constants.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: error: wsn-verify: in function 'f': wsn.func.entry: the fid operand is not a constant
; CHECK: error: wsn-verify: in function 'f': wsn.region.end (site 1): the count operand is not a constant
; CHECK: error: wsn-verify: in function 'f': wsn.input.i8 (site 2): the mask operand is not a constant

@g = global i8 0

define void @f(i32 %id, i32 %n, i8 %m) {
  call void @wsn.func.entry(i32 %id)
  call void @wsn.region.begin(i32 1)
  %v = load i8, ptr @g
  call void @wsn.region.end(i32 1, i32 %n)
  %w = load volatile i8, ptr inttoptr (i64 59 to ptr)
  %w.rec = call i8 @wsn.input.i8(i32 2, i8 %w, i8 %m)
  call void @wsn.func.exit(i32 1)
  ret void
}
declare void @wsn.func.entry(i32)
declare void @wsn.func.exit(i32)
declare void @wsn.region.begin(i32)
declare void @wsn.region.end(i32, i32)
declare i8 @wsn.input.i8(i32, i8, i8)
!wsn.module = !{!0}
!wsn.funcs = !{!1}
!wsn.sites = !{!2, !3}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, ptr @f}
!2 = !{i32 1, !"region", ptr @f, !"", i32 0, i32 0}
!3 = !{i32 2, !"input", ptr @f, !"", i32 0, i32 0}
