//===- Repl.cpp - wsn-replay -i (in progress: see issue 6) ----------------===//
#include "Repl.h"

namespace wsn {
int runRepl(ReplayRunner &, const PreprocessedTrace &, const TraceMap &,
            llvm::raw_ostream &, llvm::raw_ostream &Err) {
  Err << "wsn-replay: -i: the REPL is not available in this build yet\n";
  return 2;
}
} // namespace wsn
