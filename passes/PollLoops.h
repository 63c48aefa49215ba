//===- PollLoops.h - polling loops become input functions ------*- C++ -*-===//
//
// A polling loop waits on a register: `while (!(IFG1 & URXIFG0));` after
// each SPI byte on the TelosB, `while (!(SPSR & 0x80));` on the MicaZ. In an
// instrumented function every read of the register is an INPUT record, so
// the trace holds one record per iteration and the loop runs many times
// slower than untraced (each record costs more than the byte takes on the
// wire, so the loop iterates more, and writes more).
//
// wsn-outline-polls (part of wsn-pre-instrument, after the inliner) moves
// each such loop into a function of its own, which is then an input function
// (InputFunctions.h): the loop's only live-out value, if any, becomes the
// function's result and is recorded once by the call's INPUT record; a loop
// with no live-out becomes a void input function whose call records nothing
// and which replay does not run. The mote runs the loop unchanged (the
// optimiser inlines it back into its caller after the instrumentation).
//
// A loop is a polling loop when (spec/instrumentation.md section 6, "Polling
// loops"): it has one exit block; it reads at least one register (a volatile
// load or a constant address in the MCU's I/O range); it stores nothing,
// calls nothing but intrinsics that write no memory, holds no inline asm;
// and at most one value it defines is used after it, an integer of a width
// the trace records.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_POLLLOOPS_H
#define WSN_PASSES_POLLLOOPS_H

#include "llvm/IR/PassManager.h"

namespace wsn {

/// The attribute that marks a function outlined from a polling loop.
inline constexpr const char *PollLoopAttr = "wsn-poll-loop";

struct OutlinePollLoopsPass : llvm::PassInfoMixin<OutlinePollLoopsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

} // namespace wsn

#endif
