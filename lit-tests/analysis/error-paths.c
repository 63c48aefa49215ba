// Rule: Algorithm 4. At level 2 with the level-1 error path inv -> left, only
// the level-2 function next to that path (deep_left) joins; deep_right, at
// level 2 too, stays out. A bad path file is an error naming file and line.
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output -wsn-level=2 %t.ll | FileCheck %s --check-prefix=ALL
// RUN: echo "# from the level-1 replay" > %t.paths
// RUN: echo "wsn_invariant_sum -> left" >> %t.paths
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output -wsn-level=2 -wsn-error-paths=%t.paths %t.ll | FileCheck %s --check-prefix=PATH
// RUN: echo "wsn_invariant_sum -> nosuch" > %t.bad
// RUN: not %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output -wsn-level=2 -wsn-error-paths=%t.bad %t.ll 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %opt -load-pass-plugin=%wsn_plugin -passes='print<wsn-pfdg>' -disable-output -wsn-error-paths=%t.missing %t.ll 2>&1 | FileCheck %s --check-prefix=MISSING
#include <wsn/invariant.h>
#define NI __attribute__((noinline))
int a, b;
NI void deep_left(void) { a = a + 1; }
NI void deep_right(void) { b = b + 2; }
NI void left(void) { deep_left(); }
NI void right(void) { deep_right(); }
WSN_INVARIANT(sum) { return a + b < 1000; }
int main(void) {
  for (;;) {
    left();
    right();
    WSN_CHECK(sum);
  }
}
// ALL-DAG: function @deep_left level=2 slice selected
// ALL-DAG: function @deep_right level=2 slice selected
// PATH-DAG: function @deep_left level=2 slice selected
// PATH-DAG: function @deep_right level=2 slice{{$}}
// PATH-DAG: function @right level=1 slice{{$}}
// PATH-DAG: function @left level=1 slice selected
// BAD: error: wsn-pfdg: {{.*}}.bad:1: function 'nosuch' is not a node of the PFDG
// MISSING: error: wsn-pfdg: cannot read error-path file '{{.*}}.missing'
