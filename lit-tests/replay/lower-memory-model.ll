; The mote memory model: globals become addresses in @__wsn_mem, pointers are
; i16, GEP offsets come from the AVR layout (packed), pointer loads/stores are
; 16-bit, allocas live on the replay stack, function pointers use the table.
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes='wsn-lower<replay>' -S %s | FileCheck %s

target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"
target triple = "avr"

%struct.s = type { i8, i32, ptr }
@g = global %struct.s { i8 7, i32 0, ptr @g }
@h = global i16 0
@fp = global ptr addrspace(1) @f

; CHECK: @__wsn_mem = global [65552 x i8] zeroinitializer, align 16
; CHECK: @__wsn_sp = internal global i16 4352
; CHECK-NOT: @g =
; CHECK-NOT: @h =
; The initial image: @g = { 7, 0, 0x100 }, @fp = the synthetic address of @f.
; CHECK: @wsn.init.g = private constant [7 x i8] c"\07\00\00\00\00\00\01"
; CHECK: @wsn.init.fp = private constant [2 x i8] c"\00\7F"
; CHECK-LABEL: define internal ptr @__wsn_replay_fnptr(i32 %0, ptr %1)
; CHECK: switch i32 %0, label %bad [
; CHECK-NEXT: i32 32512, label %fn.f
; CHECK: call void @__wsn_replay_bad_fnptr(i32 %0, ptr %1)

define i16 @f(i16 %x) addrspace(1) {
  ret i16 %x
}

; CHECK-LABEL: define i16 @main(i8 %i)
; CHECK: %wsn.sp0 = load i16, ptr @__wsn_sp
; CHECK: call i32 @__wsn_replay_stack_alloc(i32 %{{.*}}, i32 2, i32 1)
; The i32 field of @g (0x100) is at offset 1: address 0x101 = 257.
; CHECK: store i32 5, ptr getelementptr inbounds (i8, ptr @__wsn_mem, i64 257), align 1
; The pointer field at offset 5 is loaded as an i16.
; CHECK: %p = load i16, ptr getelementptr inbounds (i8, ptr @__wsn_mem, i64 261), align 1
; CHECK: %[[I:.*]] = sext i8 %i to i16
; CHECK: %[[S:.*]] = mul i16 %[[I]], 7
; CHECK: add i16 %p, %[[S]]
; CHECK: %f = load i16, ptr getelementptr inbounds (i8, ptr @__wsn_mem, i64 265)
; CHECK: %wsn.fn = call ptr @__wsn_replay_fnptr(i32 %{{.*}}, ptr @wsn.loc)
; CHECK: call i16 %wsn.fn(i16 3)
; CHECK: store i16 %wsn.sp0, ptr @__wsn_sp
; CHECK: ret i16
define i16 @main(i8 %i) addrspace(1) {
  %l = alloca i16
  %f1 = getelementptr inbounds %struct.s, ptr @g, i16 0, i32 1
  store i32 5, ptr %f1
  %f2 = getelementptr inbounds %struct.s, ptr @g, i16 0, i32 2
  %p = load ptr, ptr %f2
  %e = getelementptr inbounds %struct.s, ptr %p, i8 %i
  store ptr %e, ptr %l
  %f = load ptr addrspace(1), ptr @fp
  %r = call addrspace(1) i16 %f(i16 3)
  ret i16 %r
}

; CHECK-LABEL: define void @__wsn_replay_init_memory()
; CHECK: call void @llvm.memcpy.p0.p0.i64(ptr align 1 getelementptr inbounds (i8, ptr @__wsn_mem, i64 256), ptr align 1 @wsn.init.g, i64 7, i1 false)
; CHECK: call void @llvm.memset.p0.i64(ptr align 1 getelementptr inbounds (i8, ptr @__wsn_mem, i64 263), i8 0, i64 2, i1 false)
; CHECK: store i16 4352, ptr @__wsn_sp
