//===- ReplayEngine.h - run replay-lowered mote IR under ORC LLJIT --------===//
//
// The engine owns the replay memory (the host mirror of the mote data space),
// implements the __wsn_replay_* callbacks the lowered IR calls (thesis
// section 4.2: the processLOG routines), and runs the program under LLJIT.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_REPLAY_ENGINE_REPLAYENGINE_H
#define WSN_REPLAY_ENGINE_REPLAYENGINE_H

#include "ReplayLowering.h"
#include "TraceFormat.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
namespace orc {
class LLJIT;
}
} // namespace llvm

namespace wsn {

enum class ReplayStop {
  Returned, ///< the entry function returned
  Marker,   ///< the stop-at function was entered
  Error,    ///< a replay error (divergence, bad pointer, stack overflow, ...)
  Timeout,  ///< the wall-clock limit expired
};

struct ReplayOutcome {
  ReplayStop Reason = ReplayStop::Returned;
  int32_t ReturnValue = 0; ///< for Returned (sign-extended mote int)
  std::string Message;     ///< for Marker / Error / Timeout: what and where
  size_t RecordsConsumed = 0;
};

struct ReplayRunOptions {
  std::string Entry = "main";
  /// Wall-clock limit for one run, in seconds (0: none).
  unsigned TimeoutSeconds = 20;
  /// Register JIT'd code with gdb (GDB JIT interface).
  bool DebuggerSupport = false;
};

/// The state shared with the JIT'd code through the callbacks.
struct ReplayMachine {
  uint8_t *Mem = nullptr; ///< ReplayMemBytes: the mote data space (@__wsn_mem)
  uint32_t StackLimit = 0;  ///< the replay stack may not go below this
  /// Decoded trace records consumed in order by the trace-op callbacks.
  std::vector<TraceRecord> Records;
  size_t Next = 0;
  uint32_t GvReference = 0; ///< #gv_reference (thesis section 4.1)
  std::vector<std::string> Log; ///< notable events (sleep, checks)
  /// Set by a callback before it ends the run.
  ReplayStop StopReason = ReplayStop::Returned;
  std::string StopMessage;
};

/// A lowered module loaded into LLJIT, ready to run.
class ReplayRunner {
public:
  ~ReplayRunner();
  /// Takes a module already lowered by lowerModuleForReplay (with its
  /// context), and JIT-compiles it.
  static llvm::Expected<std::unique_ptr<ReplayRunner>>
  create(std::unique_ptr<llvm::LLVMContext> Ctx,
         std::unique_ptr<llvm::Module> Lowered, const ReplayLoweringResult &Info,
         ReplayRunOptions Opts = {});

  /// Zeroes the memory, writes the initial image, runs Entry until it
  /// returns, the marker is reached, or a replay error stops it.
  llvm::Expected<ReplayOutcome> run();

  ReplayMachine &machine() { return *Machine; }
  llvm::ArrayRef<uint8_t> memory() const {
    return llvm::ArrayRef<uint8_t>(Machine->Mem, ReplayMemBytes);
  }
  const ReplayLoweringResult &info() const { return Info; }

private:
  ReplayRunner() = default;
  std::unique_ptr<llvm::orc::LLJIT> J;
  std::unique_ptr<ReplayMachine> Machine;
  ReplayLoweringResult Info;
  ReplayRunOptions Opts;
  void (*InitFn)() = nullptr;
  void *EntryFn = nullptr;
  unsigned EntryBits = 0;
};

/// Reads an IR file (.ll or .bc), lowers it for replay, and JITs it.
llvm::Expected<std::unique_ptr<ReplayRunner>>
loadForReplay(llvm::StringRef IRPath, const ReplayLoweringOptions &LOpts,
              ReplayRunOptions ROpts = {}, std::string *LoweredIR = nullptr);

/// A global whose replayed bytes differ from a reference image.
struct GlobalMismatch {
  std::string Name;
  uint32_t Addr = 0, Size = 0;
  uint32_t FirstDiff = 0; ///< offset in the global
  uint8_t Expected = 0, Actual = 0;
  unsigned DiffBytes = 0;
};

struct CompareSummary {
  std::vector<GlobalMismatch> Mismatches;
  unsigned Compared = 0;
  /// Pointer fields holding a stack address on both sides (each side's own
  /// stack): equal up to the placement of stack frames, not compared.
  unsigned StackPointers = 0;
};

/// Compares every global placed from the firmware image (or every global when
/// IncludeUnplaced) between the replay memory and a snapshot of the mote's
/// data space (index = data address). The fidelity oracle of DESIGN-BRIEF
/// section 3.
/// Pointer fields (ReplayGlobal::PointerOffsets) whose mote and replay values
/// both point into the stack area [StackLimit, RAM end) are counted in
/// StackPointers instead.
CompareSummary compareGlobals(const ReplayLoweringResult &Info,
                              llvm::ArrayRef<uint8_t> Replay,
                              llvm::ArrayRef<uint8_t> Snapshot,
                              bool IncludeUnplaced = false);

std::string describeMismatch(const GlobalMismatch &M);

} // namespace wsn

#endif
