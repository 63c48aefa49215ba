; Unsupported constructs are errors naming the function (or file:line) and the
; construct; all of them are reported at once.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes='wsn-lower<replay>' -disable-output %s 2>&1 | FileCheck %s
; CHECK: error: wsn-lower<replay>: function 'vsum': variadic function definitions are not supported
; CHECK: function 'main' (no debug location): read of I/O address 0x39 without a wsn.input trace op
; CHECK: function 'main' (no debug location): call to external function 'radio_send', which has no IR body
; CHECK: function 'main' (no debug location): unsupported instruction 'atomicrmw'

target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"
target triple = "avr"

@v = global i8 0

define i16 @vsum(i16 %n, ...) addrspace(1) {
  ret i16 %n
}

define void @main() addrspace(1) {
  %x = load volatile i8, ptr inttoptr (i16 57 to ptr)
  store i8 %x, ptr @v
  call addrspace(1) void @radio_send(i8 %x)
  %o = atomicrmw add ptr @v, i8 1 seq_cst
  ret void
}
declare void @radio_send(i8) addrspace(1)
