; Every trace op (spec/trace-ops.md) becomes a __wsn_replay_* callback; value
; ops return the recorded value; the call between wsn.skip.begin/end is not
; executed (its effect comes from the EFFECT record). That is the lowering with
; no-inline-log; by default (second RUN) ENTRY/EXIT/IRQ/IRQ_EXIT/INPUT records,
; count updates and anchor visits are first tried inline through
; @__wsn_replay_cursor (spec/replay-log.md section 2.7), and the callback is
; the fallback.
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes='wsn-lower<replay;no-inline-log>' -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes='wsn-lower<replay>' -S %s | FileCheck %s --check-prefix=INL

target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"
target triple = "avr"

@v = global i8 0
@buf = global [8 x i8] zeroinitializer

; CHECK-LABEL: define i16 @main()
; CHECK: call void @__wsn_replay_func_entry(i32 1)
; The register read stays (it is harmless), its value comes from the trace.
; CHECK: load volatile i8, ptr getelementptr inbounds (i8, ptr @__wsn_mem, i64 57)
; CHECK: %[[I:.*]] = call i64 @__wsn_replay_input(i32 3, i32 8)
; CHECK: %y = trunc i64 %[[I]] to i8
; CHECK: store i8 %y, ptr getelementptr inbounds (i8, ptr @__wsn_mem, i64 256)
; CHECK: call void @__wsn_replay_input_bytes(i32 4, i32 257, i32 8)
; CHECK: call void @__wsn_replay_region_begin(i32 5)
; CHECK: call void @__wsn_replay_region_end(i32 5, i32 1)
; CHECK: call void @__wsn_replay_skip_begin(i32 6)
; CHECK-NOT: @ext
; CHECK: call void @__wsn_replay_skip_end(i32 6)
; CHECK: %[[E:.*]] = call i64 @__wsn_replay_effect(i32 6, i32 16)
; CHECK: %r = trunc i64 %[[E]] to i16
; CHECK: call void @__wsn_replay_send(i32 7, i32 65535, i32 2)
; CHECK: call void @__wsn_replay_recv(i32 8, i32 3, i32 9)
; CHECK: call void @__wsn_replay_sched(i32 2)
; CHECK: call void @__wsn_replay_anchor(i32 1, i32 1, ptr %wsn.anchor.locals)
; CHECK: call void @__wsn_replay_check(i32 0, i32 1)
; CHECK: call void @__wsn_replay_func_exit(i32 1)
; CHECK-NEXT: store i16 %wsn.sp0, ptr @__wsn_sp
; CHECK-NEXT: ret i16 %r
; INL: @__wsn_replay_cursor = external global [168 x i8]
; INL-LABEL: define i16 @main()
; The ENTRY key (0x81000000 | fid 1) is compared with the cursor's record.
; INL: [[RECS:%.*]] = load ptr, ptr @__wsn_replay_cursor
; INL: [[N:%.*]] = load i32, ptr getelementptr inbounds (i8, ptr @__wsn_replay_cursor, i32 8)
; INL: [[KEY:%.*]] = load i32, ptr
; INL: icmp eq i32 [[KEY]], -2130706431
; INL: call void @__wsn_replay_func_entry(i32 1)
; INPUT key 0x87000000 | site 3; the inline value is the record's Val.
; INL: icmp eq i32 {{.*}}, -2030043133
; INL: call i64 @__wsn_replay_input(i32 3, i32 8)
; INL: call void @__wsn_replay_input_bytes(i32 4, i32 257, i32 8)
; Nothing at a region's start; the count update is compared with IrqAt.
; INL-NOT: @__wsn_replay_region_begin
; INL: load i32, ptr getelementptr inbounds (i8, ptr @__wsn_replay_cursor, i32 16)
; INL: call void @__wsn_inline_region_due(i32 5, i32 1)
; INL: call void @__wsn_replay_skip_begin(i32 6)
; INL: call i64 @__wsn_replay_effect(i32 6, i32 16)
; An anchor visit calls back unless the record's quiet flag is set.
; INL: and i32 {{.*}}, 1
; INL: call void @__wsn_replay_anchor(i32 1, i32 1, ptr %wsn.anchor.locals)
; INL: call void @__wsn_replay_check(i32 0, i32 1)
; INL: icmp eq i32 {{.*}}, -2113929215
; INL: call void @__wsn_replay_func_exit(i32 1)
; INL: ret i16
; INL-NOT: define internal {{.*}}@__wsn_inline_{{[a-z_]+}}_{{entry|exit|input|anchor}}
; The count reached IrqAt: the due interrupt's handler runs from here, or the callback decides.
; INL-LABEL: define internal void @__wsn_inline_region_due(i32 %0, i32 %1)
; INL: call void %{{.*}}()
; INL: call void @__wsn_replay_irq_unconsumed(
; INL: call void @__wsn_replay_region_end(i32 %0, i32 %1)
define i16 @main() addrspace(1) {
  %loc = alloca i16
  call addrspace(1) void @wsn.func.entry(i32 1)
  %x = load volatile i8, ptr inttoptr (i16 57 to ptr)
  %y = call addrspace(1) i8 @wsn.input.i8(i32 3, i8 %x, i8 -1)
  store i8 %y, ptr @v
  call addrspace(1) void @wsn.input.bytes(i32 4, ptr @buf, i32 8)
  call addrspace(1) void @wsn.region.begin(i32 5)
  store i8 1, ptr @v
  call addrspace(1) void @wsn.region.end(i32 5, i32 1)
  call addrspace(1) void @wsn.skip.begin(i32 6)
  %c = call addrspace(1) i16 @ext()
  call addrspace(1) void @wsn.skip.end(i32 6)
  %r = call addrspace(1) i16 @wsn.effect.i16(i32 6, i16 %c)
  call addrspace(1) void @wsn.send(i32 7, i32 65535, i32 2)
  call addrspace(1) void @wsn.recv(i32 8, i32 3, i32 9)
  call addrspace(1) void @wsn.sched(i32 2)
  call addrspace(1) void (i32, ...) @wsn.anchor(i32 1, ptr %loc)
  call addrspace(1) void @wsn.check(i32 0, i1 true)
  call addrspace(1) void @wsn.func.exit(i32 1)
  ret i16 %r
}

declare i16 @ext() addrspace(1)
declare void @wsn.func.entry(i32) addrspace(1)
declare void @wsn.func.exit(i32) addrspace(1)
declare i8 @wsn.input.i8(i32, i8, i8) addrspace(1)
declare void @wsn.input.bytes(i32, ptr, i32) addrspace(1)
declare void @wsn.region.begin(i32) addrspace(1)
declare void @wsn.region.end(i32, i32) addrspace(1)
declare void @wsn.skip.begin(i32) addrspace(1)
declare void @wsn.skip.end(i32) addrspace(1)
declare i16 @wsn.effect.i16(i32, i16) addrspace(1)
declare void @wsn.send(i32, i32, i32) addrspace(1)
declare void @wsn.recv(i32, i32, i32) addrspace(1)
declare void @wsn.sched(i32) addrspace(1)
declare void @wsn.anchor(i32, ...) addrspace(1)
declare void @wsn.check(i32, i1) addrspace(1)
