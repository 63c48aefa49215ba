; Unknown inline asm is an error naming the source location and the asm text.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes='wsn-lower<replay>' -disable-output %s 2>&1 | FileCheck %s
; CHECK: error: wsn-lower<replay>: radio.c:42:5 (in main): unsupported inline asm statement 'lpm r24,z+' in "lpm r24, Z+" (avr)

target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"
target triple = "avr"

define void @main() addrspace(1) !dbg !5 {
  %v = call addrspace(0) i8 asm sideeffect "lpm r24, Z+", "=r"(), !dbg !8
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "radio.c", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "main", file: !1, line: 40, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !{})
!8 = !DILocation(line: 42, column: 5, scope: !5)
