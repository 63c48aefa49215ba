; LOG 2 regions (spec/instrumentation.md section 3): consecutive counted references of a
; block share a region and one `+= n`, at most -wsn-max-batch of them; calls and other
; trace ops close a region, lifetime markers do not; a small memset of an
; interrupt-shared global is expanded so that each byte store is counted; references to
; globals no handler touches are not counted; an AVR `interrupt` handler (interrupts
; re-enabled) counts its own references.
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-instrument %s -S -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %t.ll
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-instrument -wsn-max-batch=1 %s -S | FileCheck %s --check-prefix=ONE
target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"
target triple = "avr"

@shared = global i16 0
@buf = global [4 x i8] zeroinitializer
@private = global i8 0

define zeroext i1 @wsn_invariant_ok() addrspace(1) {
  %a = load i16, ptr @shared
  %b = load i8, ptr @buf
  %c = zext i8 %b to i16
  %r = icmp ule i16 %c, %a
  ret i1 %r
}

define avr_intrcc void @__vector_5() addrspace(1) {
  %v = load i16, ptr @shared
  %n = add i16 %v, 1
  store i16 %n, ptr @shared
  store i8 1, ptr @buf
  ret void
}

declare void @ext() addrspace(1)
declare void @llvm.memset.p0.i16(ptr, i8, i16, i1) addrspace(1)
declare void @llvm.lifetime.start.p0(i64, ptr) addrspace(1)

define i16 @main() addrspace(1) {
  %slot = alloca i8
  %s0 = load i16, ptr @shared
  store i16 %s0, ptr @shared
  call void @llvm.lifetime.start.p0(i64 1, ptr %slot)
  %s1 = load i16, ptr @shared
  store i16 %s1, ptr @shared
  %p = load i8, ptr @private
  store i8 %p, ptr @private
  %s2 = load i16, ptr @shared
  store i16 %s2, ptr @shared
  %s3 = load i16, ptr @shared
  store i16 %s3, ptr @shared
  store i8 2, ptr @buf
  call void @ext()
  %s4 = load i16, ptr @shared
  call void @llvm.memset.p0.i16(ptr @buf, i8 0, i16 4, i1 false)
  %ok = call zeroext i1 @wsn_invariant_ok()
  ret i16 0
}

; CHECK-LABEL: define zeroext i1 @wsn_invariant_ok()
; CHECK-NEXT:    call addrspace(1) void @wsn.func.entry(i32 [[F:[0-9]+]])
; CHECK-NEXT:    call addrspace(1) void @wsn.region.begin(i32 [[R:[0-9]+]])
; CHECK-NEXT:    load i16, ptr @shared
; CHECK-NEXT:    load i8, ptr @buf
; CHECK-NEXT:    call addrspace(1) void @wsn.region.end(i32 [[R]], i32 2)

; CHECK-LABEL: define avr_intrcc void @__vector_5()
; CHECK-NEXT:    call addrspace(1) void @wsn.irq.entry(i32 1)
; CHECK-NEXT:    call addrspace(1) void @wsn.region.begin(i32 [[H:[0-9]+]])
; CHECK-NEXT:    load i16, ptr @shared
; CHECK-NEXT:    add i16
; CHECK-NEXT:    store i16 %n, ptr @shared
; CHECK-NEXT:    store i8 1, ptr @buf
; CHECK-NEXT:    call addrspace(1) void @wsn.region.end(i32 [[H]], i32 3)
; CHECK-NEXT:    call addrspace(1) void @wsn.irq.exit(i32 1)

; Eight references in the first region (the lifetime marker and the uncounted @private
; accesses stay inside), the ninth opens the next one, which the call to @ext closes.
; CHECK-LABEL: define i16 @main()
; CHECK:         call addrspace(1) void @wsn.func.entry
; CHECK-NEXT:    call addrspace(1) void @wsn.region.begin(i32 [[A:[0-9]+]])
; CHECK-NEXT:    %s0 = load i16, ptr @shared
; CHECK-NEXT:    store i16 %s0
; CHECK-NEXT:    call addrspace(1) void @llvm.lifetime.start
; CHECK-NEXT:    %s1 = load
; CHECK-NEXT:    store i16 %s1
; CHECK-NEXT:    %p = load i8, ptr @private
; CHECK-NEXT:    store i8 %p, ptr @private
; CHECK-NEXT:    %s2 = load
; CHECK-NEXT:    store i16 %s2
; CHECK-NEXT:    %s3 = load
; CHECK-NEXT:    store i16 %s3
; CHECK-NEXT:    call addrspace(1) void @wsn.region.end(i32 [[A]], i32 8)
; CHECK-NEXT:    call addrspace(1) void @wsn.region.begin(i32 [[B:[0-9]+]])
; CHECK-NEXT:    store i8 2, ptr @buf
; CHECK-NEXT:    call addrspace(1) void @wsn.region.end(i32 [[B]], i32 1)
; CHECK-NEXT:    call addrspace(1) void @wsn.skip.begin
; CHECK-NEXT:    call addrspace(1) void @ext()
; CHECK-NEXT:    call addrspace(1) void @wsn.skip.end
; The handler may run during @ext: its write to @shared comes from the effect record.
; CHECK-NEXT:    call addrspace(1) void @wsn.effect.void
; The memset became four counted byte stores, batched with the load before it.
; CHECK-NEXT:    call addrspace(1) void @wsn.region.begin(i32 [[C:[0-9]+]])
; CHECK-NEXT:    %s4 = load i16, ptr @shared
; CHECK-NEXT:    store i8 0, ptr @buf
; CHECK-NEXT:    store i8 0, ptr getelementptr (i8, ptr @buf, i16 1)
; CHECK-NEXT:    store i8 0, ptr getelementptr (i8, ptr @buf, i16 2)
; CHECK-NEXT:    store i8 0, ptr getelementptr (i8, ptr @buf, i16 3)
; CHECK-NEXT:    call addrspace(1) void @wsn.region.end(i32 [[C]], i32 5)
; CHECK-NEXT:    %ok = call zeroext addrspace(1) i1 @wsn_invariant_ok()
; CHECK-NEXT:    call addrspace(1) void @wsn.check(i32 1, i1 %ok)
; CHECK-NOT:     llvm.memset

; ONE-LABEL: define i16 @main()
; ONE:         call addrspace(1) void @wsn.region.begin(i32 [[A:[0-9]+]])
; ONE-NEXT:    %s0 = load i16, ptr @shared
; ONE-NEXT:    call addrspace(1) void @wsn.region.end(i32 [[A]], i32 1)
; ONE-NEXT:    call addrspace(1) void @wsn.region.begin(i32 [[B:[0-9]+]])
; ONE-NEXT:    store i16 %s0, ptr @shared
; ONE-NEXT:    call addrspace(1) void @wsn.region.end(i32 [[B]], i32 1)
