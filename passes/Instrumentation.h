//===- Instrumentation.h - wsn-trace: insert the trace ops ---------------===//
//
// The instrumentation step of `-passes=wsn-trace` (spec/instrumentation.md).
// Given the PFDG analysis (Pfdg.h: which functions are selected, which globals
// are interrupt-shared, the anchor sites, the uninstrumented callees and the
// invariant inputs) it inserts trace ops (spec/trace-ops.md) and their
// metadata, and nothing else: no runtime call is emitted here. The record
// lowering (RecordLowering.h) and the replay lowering give the ops meaning.
//
// What is inserted (thesis section 4.1, LOG types 1-5; section 4.4 for the
// multi-level effects; DESIGN-BRIEF section 4 for the refinements):
//  - LOG 1: wsn.func.entry / wsn.func.exit in selected non-handler functions;
//  - LOG 2: wsn.irq.entry / wsn.irq.exit in selected handlers, and an atomic
//    region (wsn.region.begin / wsn.region.end n) around each run of counted
//    references to interrupt-shared globals inside one basic block;
//  - LOG 3: wsn.sched before task calls, only when -wsn-record-sched is given
//    (the FIFO scheduler of TinyOS needs none);
//  - LOG 4: wsn.anchor at the headers of compile-time infinite loops, after
//    the values live across the header were demoted to stack slots;
//  - LOG 5: wsn.input.iN after volatile / I/O-register loads (with the mask of
//    the bits the program uses, from DemandedBits), and wsn.input.bytes of the
//    globals an annotated input handler writes;
//  - multi-level: wsn.skip.begin / skip.end / effect around calls to callees
//    that are not instrumented;
//  - wsn.check after every call of an invariant-checking function;
//  - LOG 6: wsn.send / wsn.recv in the radio interface's send function and
//    receive event (MessageSites.h).
//
// The module is then marked (`!wsn.module`) and hashed; a marked module is
// left alone, so running the pipeline twice adds nothing.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_INSTRUMENTATION_H
#define WSN_PASSES_INSTRUMENTATION_H

#include "llvm/IR/PassManager.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace wsn {

class PfdgResult;

struct InstrumentOptions {
  /// Ring and segment size the runtime is built with (WSN_TRACE_BUF_SIZE /
  /// WSN_TRACE_SEG_SIZE); recorded in `!wsn.module`. Checkpoint and effect
  /// records larger than SegSize - 8 bytes are rejected at compile time.
  uint32_t BufSize = 1024;
  uint32_t SegSize = 256;
  /// At most this many counted references share one atomic region.
  unsigned MaxBatch = 8;
  /// Record LOG 3 (task choice) for non-FIFO schedulers.
  bool RecordSched = false;
  /// Small memcpy/memset/memmove (constant length up to this many bytes) that
  /// touch interrupt-shared globals are expanded into byte accesses so that
  /// they can be counted inside a region.
  unsigned MaxExpandBytes = 32;
  /// Also instrument every function through which the program reaches a
  /// selected function (spec/instrumentation.md section 2).
  bool InstrumentCallers = false;
};

/// Options from the command line (-wsn-buf-size, -wsn-seg-size,
/// -wsn-max-batch, -wsn-record-sched, -wsn-instrument-callers).
InstrumentOptions instrumentOptionsFromCommandLine();

/// What was inserted (for tests and -wsn-stats).
struct InstrumentStats {
  unsigned Functions = 0, Handlers = 0, Regions = 0, CountedRefs = 0,
           Anchors = 0, Inputs = 0, InputBuffers = 0, Skips = 0, Checks = 0,
           Scheds = 0, Demoted = 0, Callers = 0, StackWriters = 0,
           Rematerialized = 0, IndirectTargets = 0, Sends = 0, Recvs = 0;
  /// Nondeterministic reads in main's boot code, left unrecorded (replay
  /// starts at a checkpoint; spec/instrumentation.md, "Boot code").
  unsigned BootInputs = 0;
  /// Calls of input functions recorded as one INPUT each (InputFunctions.h).
  unsigned InputCalls = 0;
  /// Calls of uninstrumented code left unrecorded because replay runs them itself
  /// (spec/instrumentation.md section 7.2).
  unsigned Computed = 0;
  /// Functions other than handlers found entered with interrupts off (section 7.1).
  unsigned EnteredOff = 0;
  /// Instrumented functions left without ENTRY/EXIT (section 7.3).
  unsigned NoEntry = 0;
  /// Locals left out of a checkpoint: dead at its anchor (lifetime.start on
  /// every path to their uses; spec/instrumentation.md section 5).
  unsigned DeadAtAnchor = 0;
  std::vector<std::string> Warnings;
  bool AlreadyInstrumented = false;
  /// The largest checkpoint, effect or input-buffer record body (bytes; a
  /// segment must hold it plus 8) and what it is, e.g. "checkpoint in main".
  /// wsn-cc sizes the trace segment from it (spec/wsn-cc.md, trace geometry).
  uint64_t LargestRecord = 0;
  std::string LargestRecordWhat;
  void noteRecord(uint64_t Size, const std::string &What) {
    if (Size > LargestRecord) {
      LargestRecord = Size;
      LargestRecordWhat = What;
    }
  }
};

/// Instruments M according to R. Does nothing when M is already instrumented
/// (isInstrumented). Errors name the function / instruction at fault.
llvm::Expected<InstrumentStats> instrumentModule(llvm::Module &M,
                                                 const PfdgResult &R,
                                                 const InstrumentOptions &Opts);

/// `-passes=wsn-instrument`: PFDG analysis + instrumentation (no lowering).
struct InstrumentPass : llvm::PassInfoMixin<InstrumentPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// `-passes=wsn-trace`: analysis + instrumentation + record lowering; with
/// -wsn-keep-trace-ops the ops are kept (the replay module).
struct WsnTracePass : llvm::PassInfoMixin<WsnTracePass> {
  /// KeepOps: keep the trace ops regardless of -wsn-keep-trace-ops.
  /// FromEP: run from a clang extension point (leaves instrumented modules
  /// completely alone).
  explicit WsnTracePass(bool KeepOps = false, bool FromEP = false)
      : KeepOps(KeepOps), FromEP(FromEP) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
  bool KeepOps;
  bool FromEP;
};

/// True when -wsn-keep-trace-ops was given.
bool keepTraceOpsFromCommandLine();

} // namespace wsn

#endif
