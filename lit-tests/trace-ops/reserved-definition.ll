; The program may not define a function with a reserved trace-op name.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s 2>&1 | FileCheck %s
; CHECK: error: wsn-verify: 'wsn.sched' is a reserved trace-op name and must not be defined

define void @wsn.sched(i32 %t) {
  ret void
}
