; `elpm` (flash above 64 KiB through RAMPZ: avr-libc's pgm_read_byte_far) is refused with
; the source location and the statement. No TinyOS micaz code and none of the real micaz
; applications uses it (spec/replay.md section 2, "elpm"); the sequence here is the one
; pgm_read_byte_far expands to.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes='wsn-lower<replay>' -disable-output %s 2>&1 | FileCheck %s
; CHECK: error: wsn-lower<replay>: far.c:12:7 (in main): unsupported inline asm statement 'out 0x3b,${1:c}' in "out 0x3b, ${1:C}
; CHECK-NEXT: movw r30, $1
; CHECK-NEXT: elpm $0, Z+" (avr): it reads program memory above 64 KiB with elpm (RAMPZ), which replay does not model

target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"
target triple = "avr"

define void @main() addrspace(1) !dbg !5 {
  %v = call addrspace(0) i8 asm sideeffect "out 0x3b, ${1:C}\0A\09movw r30, $1\0A\09elpm $0, Z+", "=r,r,~{r30},~{r31}"(i32 65536), !dbg !8
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "far.c", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "main", file: !1, line: 10, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !{})
!8 = !DILocation(line: 12, column: 7, scope: !5)
