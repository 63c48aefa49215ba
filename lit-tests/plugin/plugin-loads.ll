; The plugin loads into LLVM 19's opt and registers its passes without disturbing
; a module that carries no trace ops.
; RUN: %opt -load-pass-plugin=%wsn_plugin -passes=verify -S %s | FileCheck %s
; CHECK: define i16 @main()
define i16 @main() {
  ret i16 0
}
