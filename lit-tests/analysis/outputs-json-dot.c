// Rule: -wsn-pfdg-json and -wsn-pfdg-dot write the PFDG (schema in
// spec/analysis.md, section 9).
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -S -emit-llvm -I%wsn_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%wsn_plugin -passes=wsn-pfdg -wsn-pfdg-json=%t.json -wsn-pfdg-dot=%t.dot -disable-output %t.ll
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); f={x['name']:x for x in d['functions']}; print('main', f['main']['level'], f['main']['boundary'], f['main']['selected']); print('fill', f['fill']['level'], f['fill']['selected'], f['fill']['interrupt'], f['fill']['invariant']); print('idle', f['idle']['level']); print('inv', f['wsn_invariant_full']['invariant'], f['wsn_invariant_full']['level']); print('globals', sorted(d['slice_globals']))" %t.json | FileCheck %s --check-prefix=JSON
// RUN: FileCheck %s --check-prefix=DOT < %t.dot
#include <wsn/invariant.h>
int level_cm, idle_count;
__attribute__((noinline)) void fill(int v) { level_cm = level_cm + v; }
__attribute__((noinline)) void idle(void) { idle_count++; }
WSN_INVARIANT(full) { return level_cm < 300; }
int main(void) {
  for (;;) {
    fill(2);
    idle();
    WSN_CHECK(full);
  }
}
// JSON: main 1 True True
// JSON: fill 1 True False False
// JSON: idle None
// JSON: inv True 0
// JSON: globals ['level_cm']
// DOT: digraph pfdg {
// DOT-DAG: [label="fill\nL1", style=filled, fillcolor=lightblue];
// DOT-DAG: [style=dotted];
// DOT-DAG: [style=solid];
