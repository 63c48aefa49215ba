; On IR without trace ops or !wsn metadata, wsn-verify changes and reports nothing.
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-verify -S %s 2>&1 | FileCheck %s
; CHECK-NOT: error
; CHECK: define i16 @main()
; CHECK-NEXT: %v = load volatile i8, ptr @x
; CHECK-NOT: wsn.
@x = global i8 0
define i16 @main() {
  %v = load volatile i8, ptr @x
  ret i16 0
}
