//===- Pfdg.h - wsn::PfdgAnalysis: what to record, at which level ---------===//
//
// The module analysis consumed by instrumentation (wsn-trace). It combines
//  - function roles (InterruptInfo.h): handlers, tasks, invariants, main;
//  - the backward slice from the invariants (Slice.h, thesis 4.1);
//  - the invariant-based PFDG, levels and boundary functions (PfdgGraph.h,
//    thesis 4.4.1, Definitions 4-7, Algorithm 3);
//  - the selection of functions to instrument at the chosen level (Algorithm 4
//    plus main, invariant functions and the handlers that may modify globals
//    used by selected functions);
//  - the inlining decision (Equation 4.1, Inlining.h).
//
// Usage from a pass:
//   const wsn::PfdgResult &R = MAM.getResult<wsn::PfdgAnalysis>(M);
//   if (const wsn::FunctionInfo *FI = R.lookup(&F); FI && FI->Selected) ...
//
// Options (opt command line): -wsn-level=N (default 1), -wsn-error-paths=FILE
// (error-propagation paths of earlier levels; format in spec/analysis.md),
// -wsn-pfdg-dot=FILE and -wsn-pfdg-json=FILE (written when the analysis runs).
// An unreadable or malformed error-path file is reported through
// LLVMContext::emitError (opt exits non-zero); R.Error then holds the message.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_PFDG_H
#define WSN_PASSES_PFDG_H

#include "InterruptInfo.h"
#include "Inlining.h"
#include "PfdgGraph.h"
#include "Slice.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/PassManager.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class LoopInfo;
class raw_ostream;
} // namespace llvm

namespace wsn {

/// A callee a selected function calls but that is not instrumented: the call
/// becomes a skip span, and its effects (return value, the final values of the
/// globals it may write) are recorded.
struct CalleeEffect {
  const llvm::Function *Callee = nullptr;
  /// Globals the callee (with everything it calls) may write, module order.
  /// When the callee writes through an unknown pointer every address-taken
  /// global is listed and WritesUnknown is set.
  std::vector<const llvm::GlobalVariable *> MayWrite;
  bool WritesUnknown = false;
  bool External = false; ///< a declaration: its effects are not modeled
};

/// Header of a compile-time infinite loop (no exit edge) in a selected
/// function, or of a loop directly inside one that calls a function (a task
/// dispatch loop): where LOG 4 anchors (checkpoints) go.
struct AnchorSite {
  const llvm::Function *F = nullptr;
  const llvm::BasicBlock *Header = nullptr;
};

/// The anchor headers of one function, outer loops first (spec/analysis.md
/// section 7): every loop without exit blocks, and each loop directly nested
/// in one that contains a call of a non-intrinsic function. Without the
/// second kind a scheduler loop whose inner `while (runNextTask())` is its
/// own loop (-O0, -O2) would reach its anchor only when the task queue
/// empties, and a busy mote would keep no checkpoint. Also the innermost loop
/// around each sleep (asmMaySleep) inside such a loop: the idle loop, whose
/// interrupts would otherwise fill the ring with no anchor between them.
void collectAnchorHeaders(const llvm::LoopInfo &LI,
                          std::vector<llvm::BasicBlock *> &Out);

struct FunctionInfo {
  const llvm::Function *F = nullptr;
  FunctionRole Role; ///< isInterrupt(), Vector, IsInvariant, IsTask, IsMain...
  bool InSlice = false;
  std::optional<SliceReason> Reason; ///< why it is in the slice
  std::optional<unsigned> Level;     ///< Definition 6 (invariants: 0)
  bool Boundary = false;             ///< Definition 7, for the chosen level
  bool Selected = false;             ///< instrumented at the chosen level
  bool Recursive = false;            ///< member of a call-graph cycle
  bool AddressTaken = false;         ///< may be called through a pointer
  InlineDecision Inline;             ///< Equation 4.1 (only if Selected)
  /// Only for selected functions: callees that are not instrumented.
  std::vector<CalleeEffect> UninstrumentedCallees;

  bool isInterrupt() const { return Role.isInterrupt(); }
  int vector() const { return Role.Vector; }
  bool isInvariant() const { return Role.IsInvariant; }
  bool isTask() const { return Role.IsTask; }
  bool isMain() const { return Role.IsMain; }
};

struct PfdgOptions {
  unsigned Level = 1;
  /// Error-propagation paths of earlier levels (Algorithm 4). Either given
  /// directly or read from PathsFile.
  std::vector<ErrorPath> Paths;
  std::string PathsFile;
  /// Print -wsn-pfdg-stats' line (off for analyses of scratch copies of the module, such as
  /// -wsn-order-vars' instrumented clone, so the line is printed once per module).
  bool PrintStats = true;
};

class PfdgResult {
public:
  unsigned Level = 1;
  /// Every defined function, in module order.
  std::vector<FunctionInfo> Functions;
  /// Globals the slice reads (the invariants depend on them), with reasons.
  llvm::MapVector<const llvm::GlobalVariable *, SliceReason> SliceGlobals;
  /// Globals in the mod/ref set of some selected handler (DESIGN-BRIEF 4):
  /// references to these are counted in #gv_reference.
  llvm::SetVector<const llvm::GlobalVariable *> InterruptShared;
  /// Per invariant-checking function, the globals it (and its callees) read.
  llvm::MapVector<const llvm::Function *,
                  std::vector<const llvm::GlobalVariable *>>
      InvariantInputs;
  /// Per invariant-checking function, the receive functions of the radio
  /// interface (MessageSites.h) whose received data reaches the invariant's
  /// values (its value slice): the compiler's R_OP, thesis section 5.1.
  /// Empty map when the program has no receive function.
  llvm::MapVector<const llvm::Function *, std::vector<const llvm::Function *>>
      InvariantRecvs;
  std::vector<AnchorSite> Anchors;
  /// The PFDG itself (nodes are the functions of the slice).
  PfdgGraph Graph;
  /// Non-empty when the analysis failed (e.g. a bad error-path file).
  std::string Error;

  const FunctionInfo *lookup(const llvm::Function *F) const;
  FunctionInfo *lookup(const llvm::Function *F);

  /// Stable text (print<wsn-pfdg>).
  void print(llvm::raw_ostream &OS) const;
  void writeDot(llvm::raw_ostream &OS) const;
  void writeJson(llvm::raw_ostream &OS) const;

  bool invalidate(llvm::Module &, const llvm::PreservedAnalyses &PA,
                  llvm::ModuleAnalysisManager::Invalidator &);

private:
  llvm::DenseMap<const llvm::Function *, unsigned> Index;
  friend llvm::Expected<PfdgResult> computePfdg(llvm::Module &,
                                                llvm::ModuleAnalysisManager &,
                                                const PfdgOptions &);
};

/// Library entry: computes the whole result. Fails (with file and line) on a
/// bad error-path file.
llvm::Expected<PfdgResult> computePfdg(llvm::Module &M,
                                       llvm::ModuleAnalysisManager &MAM,
                                       const PfdgOptions &Opts);

/// Options as given on the command line (-wsn-level, -wsn-error-paths).
PfdgOptions pfdgOptionsFromCommandLine();

class PfdgAnalysis : public llvm::AnalysisInfoMixin<PfdgAnalysis> {
  friend llvm::AnalysisInfoMixin<PfdgAnalysis>;
  static llvm::AnalysisKey Key;

public:
  using Result = PfdgResult;
  Result run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

/// print<wsn-pfdg>
class PfdgPrinterPass : public llvm::PassInfoMixin<PfdgPrinterPass> {
  llvm::raw_ostream &OS;

public:
  explicit PfdgPrinterPass(llvm::raw_ostream &OS) : OS(OS) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

} // namespace wsn

#endif
