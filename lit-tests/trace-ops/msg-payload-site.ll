; wsn.msg.payload (replay only) names the payload of a send or recv site; the verifier accepts it
; there and rejects it on any other site (here an input site). It is not a site of its own:
; a send and its payload share site 1.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK-NOT: in function 'ok'
; CHECK: error: wsn-verify: in function 'bad': wsn.msg.payload (site 2): site 2 is not a send or recv site in !wsn.sites
; CHECK-NOT: error

define void @ok(ptr %p, i8 %len) {
  %n = zext i8 %len to i32
  call void @wsn.msg.payload(i32 1, ptr %p, i32 %n)
  call void @wsn.send(i32 1, i32 0, i32 7)
  ret void
}
define void @bad(ptr %p) {
  %v = call i8 @wsn.input.i8(i32 2, i8 0, i8 -1)
  call void @wsn.msg.payload(i32 2, ptr %p, i32 4)
  ret void
}
declare void @wsn.msg.payload(i32, ptr, i32)
declare void @wsn.send(i32, i32, i32)
declare i8 @wsn.input.i8(i32, i8, i8)
!wsn.module = !{!0}
!wsn.sites = !{!1, !2}
!0 = !{i32 1, !"host", i32 0, i32 256, i32 64}
!1 = !{i32 1, !"send", ptr @ok, !"", i32 0, i32 0}
!2 = !{i32 2, !"input", ptr @bad, !"", i32 0, i32 0}
