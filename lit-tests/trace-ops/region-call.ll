; An atomic region contains no call other than input trace ops (thesis 4.1: the
; reference and its count update form one atomic operation).
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: app.c:4:2: in function 'f': wsn.region.begin (site 1): region contains a call to 'work'
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.region.begin (site 2): region contains a call (indirect)
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.send (site 4): is inside the region of site 3
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.region.begin (site 6): region contains a call to inline asm
; Intrinsics are allowed: site 7 is not reported.
; CHECK-NOT: site 7

@g = global i8 0

define void @f(ptr %fp) !dbg !10 {
  call void @wsn.region.begin(i32 1), !dbg !13
  %v = load i8, ptr @g
  call void @work()
  call void @wsn.region.end(i32 1, i32 1)
  call void @wsn.region.begin(i32 2)
  store i8 1, ptr @g
  call void %fp()
  call void @wsn.region.end(i32 2, i32 1)
  call void @wsn.region.begin(i32 3)
  %w = load volatile i8, ptr @g
  %w.rec = call i8 @wsn.input.i8(i32 5, i8 %w, i8 -1)
  call void @wsn.send(i32 4, i32 1, i32 2)
  call void @wsn.region.end(i32 3, i32 1)
  call void @wsn.region.begin(i32 6)
  store i8 1, ptr @g
  call void asm sideeffect "sei", ""()
  call void @wsn.region.end(i32 6, i32 1)
  call void @wsn.region.begin(i32 7)
  call void @llvm.memset.p0.i16(ptr @g, i8 0, i16 1, i1 false)
  call void @wsn.region.end(i32 7, i32 1)
  ret void
}
declare void @work()
declare void @llvm.memset.p0.i16(ptr, i8, i16, i1)
declare void @wsn.region.begin(i32)
declare void @wsn.region.end(i32, i32)
declare void @wsn.send(i32, i32, i32)
declare i8 @wsn.input.i8(i32, i8, i8)
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!wsn.module = !{!20}
!wsn.sites = !{!21, !22, !23, !24, !25, !26, !27}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "app.c", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!10 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 3, type: !11, spFlags: DISPFlagDefinition, unit: !0)
!11 = !DISubroutineType(types: !{null})
!13 = !DILocation(line: 4, column: 2, scope: !10)
!20 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!21 = !{i32 1, !"region", ptr @f, !"app.c", i32 4, i32 2}
!22 = !{i32 2, !"region", ptr @f, !"", i32 0, i32 0}
!23 = !{i32 3, !"region", ptr @f, !"", i32 0, i32 0}
!24 = !{i32 4, !"send", ptr @f, !"", i32 0, i32 0}
!25 = !{i32 5, !"input", ptr @f, !"", i32 0, i32 0}
!26 = !{i32 6, !"region", ptr @f, !"", i32 0, i32 0}
!27 = !{i32 7, !"region", ptr @f, !"", i32 0, i32 0}
