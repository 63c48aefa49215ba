; wsn-write-map needs an output file and an instrumented module.
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-write-map -disable-output %s 2>&1 | FileCheck %s --check-prefix=NOFILE
; NOFILE: error: wsn-write-map: no output file (use -wsn-map-file=PATH)
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-write-map -wsn-map-file=%t.wmap -disable-output %s 2>&1 | FileCheck %s --check-prefix=NOTINST
; NOTINST: error: wsn-write-map: module '{{.*}}write-map-errors.ll': no !wsn.module record (not instrumented)
; RUN: not %opt -load-pass-plugin=%wsn_plugin -passes=wsn-write-map -wsn-map-file=%t.nodir/x.wmap -disable-output %S/well-formed.ll 2>&1 | FileCheck %s --check-prefix=NODIR
; NODIR: error: wsn-write-map: {{.*}}x.wmap: cannot write:
define i16 @main() {
  ret i16 0
}
