//===- Repl.h - wsn-replay -i: the interactive replay REPL -----------------===//
#ifndef WSN_TOOLS_REPL_H
#define WSN_TOOLS_REPL_H

#include "Preprocessor.h"
#include "ReplayEngine.h"
#include "TraceMap.h"

#include "llvm/Support/raw_ostream.h"

namespace wsn {
/// Reads commands from stdin until `quit` or EOF; returns the exit code.
int runRepl(ReplayRunner &R, const PreprocessedTrace &P, const TraceMap &Map,
            llvm::raw_ostream &OS, llvm::raw_ostream &Err);
} // namespace wsn

#endif
