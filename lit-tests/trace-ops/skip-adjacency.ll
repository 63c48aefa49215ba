; skip.begin / call / skip.end are adjacent with one site, the effect op follows
; skip.end, records the call's result, and agrees with !wsn.effects.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.skip.begin (site 1): must be immediately followed by the call it skips
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.skip.end (site 1): must immediately follow a call preceded by wsn.skip.begin with site 1
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.skip.begin (site 2): the skipped call must be immediately followed by wsn.skip.end with site 2
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.effect.i16 (site 3): !wsn.effects gives return size 1, the op records 2 bytes
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.effect.i16 (site 3): !wsn.effects names callee 'other', the skipped call is to 'ext'
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.effect.void (site 4): must immediately follow wsn.skip.end with site 4
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.effect.i16 (site 5): the ret operand is not the skipped call's result
; CHECK-DAG: error: wsn-verify: in function 'f': wsn.effect.void (site 6): site 6 is missing from !wsn.effects

@g = global i8 0

define i16 @f(i16 %x) {
  call void @wsn.skip.begin(i32 1)
  store i8 1, ptr @g
  %r1 = call i16 @ext()
  call void @wsn.skip.end(i32 1)
  call void @wsn.skip.begin(i32 2)
  %r2 = call i16 @ext()
  store i8 2, ptr @g
  call void @wsn.skip.end(i32 2)
  call void @wsn.skip.begin(i32 3)
  %r3 = call i16 @ext()
  call void @wsn.skip.end(i32 3)
  %r3.rec = call i16 @wsn.effect.i16(i32 3, i16 %r3)
  call void @wsn.skip.begin(i32 4)
  %r4 = call i16 @ext()
  call void @wsn.skip.end(i32 4)
  store i8 4, ptr @g
  call void @wsn.effect.void(i32 4)
  call void @wsn.skip.begin(i32 5)
  %r5 = call i16 @ext()
  call void @wsn.skip.end(i32 5)
  %r5.rec = call i16 @wsn.effect.i16(i32 5, i16 %x)
  call void @wsn.skip.begin(i32 6)
  call void @vext()
  call void @wsn.skip.end(i32 6)
  call void @wsn.effect.void(i32 6)
  ret i16 %r5
}
declare i16 @ext()
declare void @vext()
declare void @wsn.skip.begin(i32)
declare void @wsn.skip.end(i32)
declare i16 @wsn.effect.i16(i32, i16)
declare void @wsn.effect.void(i32)
!wsn.module = !{!0}
!wsn.sites = !{!1, !2, !3, !4, !5, !6}
!wsn.effects = !{!7, !8, !9}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, !"skip", ptr @f, !"", i32 0, i32 0}
!2 = !{i32 2, !"skip", ptr @f, !"", i32 0, i32 0}
!3 = !{i32 3, !"skip", ptr @f, !"", i32 0, i32 0}
!4 = !{i32 4, !"skip", ptr @f, !"", i32 0, i32 0}
!5 = !{i32 5, !"skip", ptr @f, !"", i32 0, i32 0}
!6 = !{i32 6, !"skip", ptr @f, !"", i32 0, i32 0}
!7 = !{i32 3, !"other", i32 1}
!8 = !{i32 4, !"ext", i32 2}
!9 = !{i32 5, !"ext", i32 2}
