//===- PassRegistry.h - registration hooks of the wsn-trace passes --------===//
#ifndef WSN_PASSES_PASSREGISTRY_H
#define WSN_PASSES_PASSREGISTRY_H

namespace llvm {
class PassBuilder;
}

namespace wsn {
/// Registers every wsn-trace pass (pipeline-parsing callbacks, analyses and
/// extension points). Implemented in PassRegistry.cpp, which calls the
/// per-component hooks below.
void registerAllPasses(llvm::PassBuilder &PB);

// Per-component hooks; each lives next to the passes it registers.
void registerTraceOpPasses(llvm::PassBuilder &PB);   // TraceOps*.cpp: wsn-verify, ...
void registerAnalysisPasses(llvm::PassBuilder &PB);  // analyses: wsn-pfdg, print<wsn-pfdg>
void registerInstrumentationPasses(llvm::PassBuilder &PB); // wsn-trace, wsn-lower<...>
void registerPreInstrumentPasses(llvm::PassBuilder &PB); // PreInstrument.cpp: wsn-pre-instrument
void registerReplayPasses(llvm::PassBuilder &PB); // ReplayPasses.cpp: wsn-lower<replay>
} // namespace wsn

#endif
