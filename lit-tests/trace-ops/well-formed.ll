; A module that uses every trace op, as instrumentation would leave it, is
; accepted by wsn-verify, and wsn-write-map produces its trace map.
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -disable-output %s
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-write-map -wsn-map-file=%t.wmap -disable-output %s
; RUN: FileCheck %s --input-file=%t.wmap
; The map can also go to stdout.
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify,wsn-write-map -wsn-map-file=- -disable-output %s | FileCheck %s

; CHECK:      "digest": "fnv1a64:{{[0-9a-f]+}}",
; CHECK-NEXT: "format": "wsn-trace-map",
; CHECK-NEXT: "version": 1,
; CHECK-NEXT: "target": "avr",
; CHECK-NEXT: "module_hash": 305419896,
; CHECK-NEXT: "buf_size": 512,
; CHECK-NEXT: "seg_size": 128,
; CHECK-NEXT: "functions": [
; CHECK-NEXT: {"id":1,"name":"main","file":"app.c","line":10},
; CHECK-NEXT: {"id":2,"name":"task_a","file":"","line":0}
; CHECK-NEXT: ],
; CHECK-NEXT: "irqs": [
; CHECK-NEXT: {"id":1,"function":"__vector_5","vector":5,"vector_name":"TIMER2_COMP"}
; CHECK-NEXT: ],
; CHECK-NEXT: "sites": [
; CHECK-NEXT: {"id":1,"kind":"region","function":"main","file":"app.c","line":12,"col":7},
; CHECK-NEXT: {"id":2,"kind":"input","function":"__vector_5","file":"","line":0,"col":0},
; CHECK-NEXT: {"id":3,"kind":"region","function":"__vector_5","file":"","line":0,"col":0},
; CHECK-NEXT: {"id":4,"kind":"input.bytes","function":"__vector_5","file":"","line":0,"col":0},
; CHECK-NEXT: {"id":5,"kind":"skip","function":"main","file":"app.c","line":14,"col":3},
; CHECK-NEXT: {"id":6,"kind":"send","function":"main","file":"app.c","line":15,"col":3},
; CHECK-NEXT: {"id":7,"kind":"recv","function":"__vector_5","file":"","line":0,"col":0},
; CHECK-NEXT: {"id":8,"kind":"input","function":"task_a","file":"","line":0,"col":0}
; CHECK-NEXT: ],
; CHECK-NEXT: "anchors": [
; CHECK-NEXT: {"id":1,"function":"main","vars":[{"kind":"global","name":"counter","size":2,"ctype":"uint16_t"},{"kind":"local","name":"i","size":2,"ctype":"int"}]}
; CHECK-NEXT: ],
; CHECK-NEXT: "invariants": [
; CHECK-NEXT: {"id":1,"function":"wsn_invariant_ok","inputs":[{"kind":"global","name":"counter","size":2,"ctype":"uint16_t"},{"kind":"global","name":"rxbuf","size":8,"ctype":""}]}
; CHECK-NEXT: ],
; CHECK-NEXT: "effects": [
; CHECK-NEXT: {"site":5,"callee":"ext_read","return_size":2,"writes":[{"kind":"global","name":"flag","size":1,"ctype":""}]}
; CHECK-NEXT: ],
; CHECK-NEXT: "tasks": [
; CHECK-NEXT: {"id":1,"function":"task_a"}
; CHECK-NEXT: ]
; CHECK-NEXT: }

target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"
target triple = "avr"

@counter = global i16 0, !dbg !20
@flag = global i8 0
@rxbuf = global [8 x i8] zeroinitializer

define i16 @main() addrspace(1) !dbg !10 {
entry:
  %i = alloca i16
  call addrspace(1) void @wsn.func.entry(i32 1), !dbg !13
  call addrspace(1) void @llvm.dbg.declare(metadata ptr %i, metadata !30, metadata !DIExpression()), !dbg !13
  br label %loop

loop:
  call addrspace(1) void (i32, ...) @wsn.anchor(i32 1, ptr %i), !dbg !13
  call addrspace(1) void @wsn.region.begin(i32 1), !dbg !14
  %c = load i16, ptr @counter, !dbg !14
  call addrspace(1) void @wsn.region.end(i32 1, i32 1), !dbg !14
  call addrspace(1) void @wsn.sched(i32 1), !dbg !14
  call addrspace(1) void @task_a(), !dbg !14
  %ok = call addrspace(1) i1 @wsn_invariant_ok(), !dbg !14
  call addrspace(1) void @wsn.check(i32 1, i1 %ok), !dbg !14
  call addrspace(1) void @wsn.skip.begin(i32 5), !dbg !15
  %r = call addrspace(1) i16 @ext_read(), !dbg !15
  call addrspace(1) void @wsn.skip.end(i32 5), !dbg !15
  %r.rec = call addrspace(1) i16 @wsn.effect.i16(i32 5, i16 %r), !dbg !15
  %dest = zext i16 %r.rec to i32
  call addrspace(1) void @wsn.send(i32 6, i32 %dest, i32 1), !dbg !16
  %done = icmp eq i16 %c, 0
  br i1 %done, label %out, label %loop

out:
  call addrspace(1) void @wsn.func.exit(i32 1), !dbg !17
  ret i16 0, !dbg !17
}

define void @task_a() addrspace(1) {
  call addrspace(1) void @wsn.func.entry(i32 2)
  %b = call addrspace(1) i1 @ext_bool()
  %b.rec = call addrspace(1) i1 @wsn.input.i1(i32 8, i1 %b, i1 true)
  br i1 %b.rec, label %yes, label %no
yes:
  call addrspace(1) void @wsn.func.exit(i32 2)
  ret void
no:
  call addrspace(1) void @wsn.func.exit(i32 2)
  ret void
}

define void @__vector_5() addrspace(1) {
  call addrspace(1) void @wsn.irq.entry(i32 1)
  %v = load volatile i8, ptr inttoptr (i16 59 to ptr)
  %v.rec = call addrspace(1) i8 @wsn.input.i8(i32 2, i8 %v, i8 15)
  %w = zext i8 %v.rec to i16
  call addrspace(1) void @wsn.region.begin(i32 3)
  store i16 %w, ptr @counter
  call addrspace(1) void @wsn.region.end(i32 3, i32 1)
  call addrspace(1) void @wsn.input.bytes(i32 4, ptr @rxbuf, i32 8)
  %seq = zext i16 %w to i32
  call addrspace(1) void @wsn.recv(i32 7, i32 2, i32 %seq)
  call addrspace(1) void @wsn.irq.exit(i32 1)
  ret void
}

define i1 @wsn_invariant_ok() addrspace(1) {
  %c = load i16, ptr @counter
  %ok = icmp ult i16 %c, 100
  ret i1 %ok
}

declare i16 @ext_read() addrspace(1)
declare i1 @ext_bool() addrspace(1)
declare void @llvm.dbg.declare(metadata, metadata, metadata) addrspace(1)
declare void @wsn.func.entry(i32) addrspace(1)
declare void @wsn.func.exit(i32) addrspace(1)
declare void @wsn.irq.entry(i32) addrspace(1)
declare void @wsn.irq.exit(i32) addrspace(1)
declare void @wsn.region.begin(i32) addrspace(1)
declare void @wsn.region.end(i32, i32) addrspace(1)
declare void @wsn.sched(i32) addrspace(1)
declare void @wsn.anchor(i32, ...) addrspace(1)
declare i8 @wsn.input.i8(i32, i8, i8) addrspace(1)
declare i1 @wsn.input.i1(i32, i1, i1) addrspace(1)
declare void @wsn.input.bytes(i32, ptr, i32) addrspace(1)
declare void @wsn.send(i32, i32, i32) addrspace(1)
declare void @wsn.recv(i32, i32, i32) addrspace(1)
declare void @wsn.skip.begin(i32) addrspace(1)
declare void @wsn.skip.end(i32) addrspace(1)
declare i16 @wsn.effect.i16(i32, i16) addrspace(1)
declare void @wsn.check(i32, i1) addrspace(1)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}
!wsn.module = !{!40}
!wsn.funcs = !{!41, !42}
!wsn.irqs = !{!43}
!wsn.sites = !{!44, !45, !46, !47, !48, !49, !50, !51}
!wsn.anchors = !{!52}
!wsn.invariants = !{!55}
!wsn.effects = !{!56}
!wsn.tasks = !{!57}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, globals: !22)
!1 = !DIFile(filename: "app.c", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 7, !"Dwarf Version", i32 4}
!10 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 10, type: !11, scopeLine: 10, spFlags: DISPFlagDefinition, unit: !0)
!11 = !DISubroutineType(types: !12)
!12 = !{!25}
!13 = !DILocation(line: 11, column: 3, scope: !10)
!14 = !DILocation(line: 12, column: 7, scope: !10)
!15 = !DILocation(line: 14, column: 3, scope: !10)
!16 = !DILocation(line: 15, column: 3, scope: !10)
!17 = !DILocation(line: 16, column: 3, scope: !10)
!20 = !DIGlobalVariableExpression(var: !21, expr: !DIExpression())
!21 = distinct !DIGlobalVariable(name: "counter", scope: !0, file: !1, line: 3, type: !23, isLocal: false, isDefinition: true)
!22 = !{!20}
!23 = !DIDerivedType(tag: DW_TAG_typedef, name: "uint16_t", file: !1, line: 1, baseType: !24)
!24 = !DIBasicType(name: "unsigned int", size: 16, encoding: DW_ATE_unsigned)
!25 = !DIBasicType(name: "int", size: 16, encoding: DW_ATE_signed)
!30 = !DILocalVariable(name: "i", scope: !10, file: !1, line: 11, type: !25)
!40 = !{i32 1, !"avr", i32 305419896, i32 512, i32 128}
!41 = !{i32 1, ptr addrspace(1) @main}
!42 = !{i32 2, ptr addrspace(1) @task_a}
!43 = !{i32 1, ptr addrspace(1) @__vector_5, i32 5, !"TIMER2_COMP"}
!44 = !{i32 1, !"region", ptr addrspace(1) @main, !"app.c", i32 12, i32 7}
!45 = !{i32 2, !"input", ptr addrspace(1) @__vector_5, !"", i32 0, i32 0}
!46 = !{i32 3, !"region", ptr addrspace(1) @__vector_5, !"", i32 0, i32 0}
!47 = !{i32 4, !"input.bytes", ptr addrspace(1) @__vector_5, !"", i32 0, i32 0}
!48 = !{i32 5, !"skip", ptr addrspace(1) @main, !"app.c", i32 14, i32 3}
!49 = !{i32 6, !"send", ptr addrspace(1) @main, !"app.c", i32 15, i32 3}
!50 = !{i32 7, !"recv", ptr addrspace(1) @__vector_5, !"", i32 0, i32 0}
!51 = !{i32 8, !"input", ptr addrspace(1) @task_a, !"", i32 0, i32 0}
!52 = !{i32 1, ptr addrspace(1) @main, !53, !54}
!53 = !{!"global", ptr @counter, i32 2, !"uint16_t"}
!54 = !{!"local", !"i", i32 2, !"int"}
!55 = !{i32 1, ptr addrspace(1) @wsn_invariant_ok, !53, !58}
!56 = !{i32 5, !"ext_read", i32 2, !59}
!57 = !{i32 1, ptr addrspace(1) @task_a}
!58 = !{!"global", ptr @rxbuf, i32 8, !""}
!59 = !{!"global", ptr @flag, i32 1, !""}
