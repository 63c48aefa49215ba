; With -wsn-instrument-callers, functions through which the program reaches a selected
; function are instrumented too (spec/instrumentation.md section 2): otherwise the level-1
; task would run inside the skip span of the uninstrumented scheduler and its loop would
; carry no anchor. On by default; -wsn-instrument-callers=false turns it off.
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-instrument -wsn-instrument-callers -wsn-stats %s -S -o %t.ll 2>%t.stats
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=STATS < %t.stats
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %t.ll
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-instrument -wsn-instrument-callers=false %s -S | FileCheck %s --check-prefix=OFF
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@period = global i16 0

define zeroext i1 @wsn_invariant_ok() {
  %v = load i16, ptr @period
  %c = icmp ult i16 %v, 100
  ret i1 %c
}
define void @task() {
  store i16 5, ptr @period
  %r = call zeroext i1 @wsn_invariant_ok()
  ret void
}
define void @dispatch(i8 %id) {
  %z = icmp eq i8 %id, 0
  br i1 %z, label %run, label %done
run:
  call void @task()
  br label %done
done:
  ret void
}
define void @loop() {
entry:
  br label %l
l:
  call void @dispatch(i8 0)
  br label %l
}
define i16 @main() {
  call void @loop()
  ret i16 0
}

; STATS: callers=2
; The dispatcher counts no reference of its own: no ENTRY/EXIT (section 7.3; the task's
; own records and the counts place everything around it).
; CHECK-LABEL: define void @dispatch(i8 %id)
; CHECK-NOT:     wsn.func.entry
; CHECK:         call void @task()
; CHECK-LABEL: define void @loop()
; CHECK:         call void @wsn.func.entry
; CHECK:       l:
; CHECK-NEXT:    call void (i32, ...) @wsn.anchor(i32 1)
; CHECK-NEXT:    call void @dispatch(i8 0)
; CHECK-LABEL: define i16 @main()
; CHECK-NOT:     wsn.skip.begin
; CHECK:         call void @loop()

; OFF-LABEL: define i16 @main()
; OFF:         call void @wsn.skip.begin
; OFF-NEXT:    call void @loop()
