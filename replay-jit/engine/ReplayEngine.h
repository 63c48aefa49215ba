//===- ReplayEngine.h - run replay-lowered mote IR under ORC LLJIT --------===//
//
// The engine owns the replay memory (the host mirror of the mote data space),
// implements the __wsn_replay_* callbacks the lowered IR calls (thesis
// section 4.2: the processLOG routines), and runs the program under LLJIT.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_REPLAY_ENGINE_REPLAYENGINE_H
#define WSN_REPLAY_ENGINE_REPLAYENGINE_H

#include "ReplayLog.h"
#include "ReplayLowering.h"
#include "TraceFormat.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
namespace orc {
class LLJIT;
}
} // namespace llvm

namespace wsn {

struct TraceMap;

enum class ReplayStop {
  Returned,   ///< the entry function returned
  Marker,     ///< the stop-at function was entered
  Error,      ///< a replay error (bad pointer, stack overflow, trap, ...)
  Timeout,    ///< the wall-clock limit expired
  Stopped,    ///< trace replay: the stop record (violation / K-th check) was reproduced
  EndOfTrace, ///< trace replay: the program needed a record past the last one
  Diverged,   ///< trace replay: the execution left the recorded one
  Breakpoint, ///< ReplayRunOptions::BreakAt asked to stop
};

/// One step of the replayed execution, as the trace records it (for the
/// report, the REPL and `why`).
struct ReplayEvent {
  enum Kind : uint8_t {
    Entry, Exit, IrqEntry, IrqExit, Check, Violation, Input, Effect,
    Checkpoint, Sched, Send, Recv,
  };
  Kind K = Entry;
  uint32_t Id = 0;       ///< fid / irq / inv / site / anchor / task
  size_t Record = 0;     ///< index of the record consumed (PreprocessedTrace::Records)
  unsigned Depth = 0;    ///< handler nesting depth when it happened
  uint32_t Instance = 0; ///< Entry/IrqEntry: 1-based instance of that function/irq
  uint32_t Value = 0;    ///< Input: the value
};
llvm::StringRef eventKindName(ReplayEvent::Kind K);

struct ReplayOutcome {
  ReplayStop Reason = ReplayStop::Returned;
  int32_t ReturnValue = 0; ///< for Returned (sign-extended mote int)
  std::string Message;     ///< what and where
  size_t RecordsConsumed = 0;
  /// Trace replay: index of the record at which replay stopped (the stop
  /// record for Stopped, the diverging one for Diverged).
  size_t StopRecord = 0;
  uint32_t ChecksReplayed = 0;
  /// Points where replay is not guaranteed exact (ReplayLog::warnings()).
  std::vector<std::string> Warnings;
};

struct ReplayRunOptions {
  std::string Entry = "main";
  /// Wall-clock limit for one run, in seconds (0: none).
  unsigned TimeoutSeconds = 20;
  /// Register JIT'd code with gdb (GDB JIT interface).
  bool DebuggerSupport = false;
  /// Directory of compiled objects keyed by the lowered module's content
  /// (empty: compile every time; not used with DebuggerSupport).
  std::string JitCacheDir;
  /// Trace replay (thesis 4.2): the preprocessed trace and the program's
  /// trace map. Replay then starts at the trace's start checkpoint: the
  /// anchor's function is called and resumes at the anchor. Both must outlive
  /// the runner.
  const PreprocessedTrace *Trace = nullptr;
  const TraceMap *Map = nullptr;
  ReplayLogOptions LogOptions = [] {
    ReplayLogOptions O;
    O.CheckpointResetsCount = true; // the record lowering resets it
    return O;
  }();
  /// Called after every event; returning true stops the run (Breakpoint).
  /// Setting it makes the events live (below).
  std::function<bool(const ReplayEvent &, size_t Index)> BreakAt;
  /// Build the event list while the program runs (the REPL: breakpoints and
  /// the store watch's event numbers), so every record goes through its
  /// callback. Off (and no BreakAt): the lowered program consumes the common
  /// records inline, and ReplayRunner::events() rebuilds the same list from
  /// the consumed records after the run (spec/replay-log.md section 2.7).
  bool LiveEvents = false;
};

//===-- Store watch (wsn-replay -i, the REPL's `why`) ---------------------===//
/// With ReplayLoweringOptions::WatchStores, the lowered code reports every
/// store into the data space through __wsn_replay_store(addr, size, loc); the
/// engine keeps the last writer of each byte.
struct StoreWriter {
  const char *Loc = nullptr; ///< "file:line:col (in f)"; null: not written this run
  /// ReplayMachine::Events.size() when the store happened: it came after
  /// event EventsBefore-1 and before event EventsBefore.
  uint32_t EventsBefore = 0;
  uint64_t Seq = 0; ///< 1-based number of the store in the run (orders stores)
};
/// A source of a stored value (ReplayLoweringOptions::WatchStores and
/// __wsn_replay_store_src): bytes a load of the value's computation read, or
/// flags only (Size 0). Flags: replayabi::SrcCopy / SrcPartial / SrcInput.
struct StoreSource {
  uint32_t Addr = 0, Size = 0, Flags = 0;
};
/// One write in the order of the run (StoreWatch::KeepHistory): a program
/// store (Loc set) or the engine's write of a skipped call's effect
/// (EffectSite >= 0).
struct StoreEvent {
  uint32_t Addr = 0, Size = 0;
  const char *Loc = nullptr;
  int32_t EffectSite = -1;
  uint32_t EventsBefore = 0;
  uint64_t Seq = 0; ///< StoreWatch::Stores when it happened (effects: the last store's)
  uint32_t SrcBegin = 0, SrcCount = 0; ///< into StoreWatch::Sources
};
struct StoreWatch {
  std::vector<StoreWriter> Writers; ///< by data address; empty until a store
  uint64_t Stores = 0;              ///< stores seen this run
  /// Keep every write with its value's sources (the REPL's `why` across
  /// messages, spec/replay.md section 9.1). Set by the tool; kept by reset().
  bool KeepHistory = false;
  std::vector<StoreEvent> History;
  std::vector<StoreSource> Sources;
  std::vector<StoreSource> Pending; ///< store_src calls for the next store
  void reset() {
    std::fill(Writers.begin(), Writers.end(), StoreWriter());
    Stores = 0;
    History.clear();
    Sources.clear();
    Pending.clear();
  }
  void note(uint32_t Addr, uint32_t Size, const char *Loc, uint32_t EventsBefore);
  /// Applying skipped call Site's effect changed the bytes [Addr, Addr+Size)
  /// (bytes it wrote back unchanged are not noted).
  void noteEffect(uint32_t Addr, uint32_t Size, uint32_t Site, uint32_t EventsBefore);
  /// The writer of the byte at Addr (null when no watched store wrote it).
  const StoreWriter *lastWriter(uint32_t Addr) const {
    return Addr < Writers.size() && Writers[Addr].Loc ? &Writers[Addr] : nullptr;
  }
};
/// Where a message's payload lay when wsn.msg.payload ran (KeepHistory).
struct MsgBuffer {
  uint32_t Buf = 0, Len = 0;
  size_t HistoryBefore = 0; ///< StoreWatch::History.size() then
  uint32_t EventsBefore = 0; ///< events then
};
//===----------------------------------------------------------------------===//

/// The state shared with the JIT'd code through the callbacks.
struct ReplayMachine {
  uint8_t *Mem = nullptr; ///< ReplayMemBytes: the mote data space (@__wsn_mem)
  const MoteTarget *Target = nullptr; ///< the runner's ReplayLoweringResult::Target
  uint32_t StackLimit = 0;  ///< the replay stack may not go below this
  std::unique_ptr<ReplayLog> Log; ///< trace replay only
  const TraceMap *Map = nullptr;
  /// Resolved from the map: (address, size) lists.
  struct Var {
    bool Global = true;
    uint32_t Addr = 0, Size = 0;
    /// A status-register copy (map kind "status"): the bits replay models
    /// (the interrupt-enable bit), little endian; 0 for any other variable.
    uint16_t StatusMask = 0;
  };
  /// Data-space addresses that are padding bytes of a global (ReplayGlobal::PaddingOffsets):
  /// their values are unspecified, so a checkpoint's bytes there are adopted, not compared.
  std::vector<bool> PaddingByte;
  std::vector<std::vector<Var>> InvInputs;   ///< by invariant id
  std::vector<std::vector<Var>> AnchorVars;  ///< by anchor id (locals: Global=false)
  /// The status-register copies among an anchor's variables (StatusMask set):
  /// offset in the record, the variable's index among the anchor's locals (or
  /// -1 and its address for a global), size and mask.
  struct StatusVar {
    uint32_t Off = 0;
    int32_t Local = -1;
    uint32_t Addr = 0, Size = 0;
    uint16_t Mask = 0;
  };
  std::vector<std::vector<StatusVar>> AnchorStatus; ///< by anchor id
  std::vector<std::vector<Var>> EffectVars;  ///< by site id
  /// By site id: the short form's variables and payload size (0: the site has none), for
  /// records of that size (spec/trace-format.md section 2.1, "Short effects").
  std::vector<std::vector<Var>> EffectShortVars;
  std::vector<uint32_t> EffectShortSize;
  std::vector<uint32_t> EffectRet;           ///< return size by site id
  std::vector<void (*)()> Handlers;          ///< by irq id
  std::vector<std::string> HandlerNames;     ///< by irq id
  /// By irq id: why there is no handler to run, naming the map entry (or its absence).
  std::vector<std::string> NoHandlerWhy;
  std::string MapName; ///< the map's file ("" when it came from the IR), for messages
  uint32_t ResumeAnchor = 0; ///< returned once by __wsn_replay_resume
  /// The status register model (AVR: mem's SREG cell; MSP430: the
  /// lowering's __wsn_sr), set from the start checkpoint; null if none.
  uint8_t *StatusCell = nullptr;
  /// The log's position and counts, read and advanced by the inline code
  /// (@__wsn_replay_cursor); zero records when there is no log.
  replayabi::ReplayCursor Cursor{};
  /// Events are added as they happen (else rebuilt after the run).
  bool LiveEvents = true;
  /// Events holds the run's events (live, or rebuilt by events()).
  bool EventsValid = true;
  std::vector<ReplayEvent> Events;
  std::vector<uint32_t> FnInstances, IrqInstances;
  uint32_t Checks = 0;
  unsigned HandlerDepth = 0;
  std::function<bool(const ReplayEvent &, size_t)> BreakAt;
  /// Set by a callback before it ends the run.
  bool Pending = false;
  ReplayStop StopReason = ReplayStop::Returned;
  std::string StopMessage;
  /// The message is "stop reached at record StopRecord: <record>", formatted
  /// after the run (formatting inside it would be timed as replay work).
  bool StopDescribeRecord = false;
  size_t StopRecord = 0;
  StoreWatch Watch; ///< last writer per byte (WatchStores only); reset by run()
  /// LOG 6 payloads (wsn.msg.payload, spec/trace-ops.md): the bytes of each
  /// message, by the index of its SEND/RECV record. The payload op leaves its
  /// bytes pending, by site, for the site's next send/recv op.
  std::map<size_t, std::vector<uint8_t>> MsgPayloads;
  std::map<uint32_t, std::vector<uint8_t>> PendingPayloads;
  /// With Watch.KeepHistory: where each message's payload was, by the index
  /// of its SEND/RECV record.
  std::map<size_t, MsgBuffer> MsgBuffers;
  std::map<uint32_t, MsgBuffer> PendingBuffers;
};

/// A lowered module loaded into LLJIT, ready to run.
/// $XDG_CACHE_HOME/wsn-trace/jit (or ~/.cache/...), "" when there is no home.
std::string defaultJitCacheDir();

class ReplayObjectCache;
/// Writes the concatenated Parts to Path through a temporary file and a
/// rename; false (and nothing written) on any failure.
bool writeCacheFile(llvm::StringRef Path, llvm::ArrayRef<llvm::StringRef> Parts);
/// The intact compiled object stored under Key in the object cache Dir, or null.
std::unique_ptr<llvm::MemoryBuffer> readCachedObject(llvm::StringRef Dir, llvm::StringRef Key);

class ReplayRunner {
public:
  ~ReplayRunner();
  /// The program's code came from the object cache (no JIT compilation).
  bool usedCachedObject() const;
  /// Takes a module already lowered by lowerModuleForReplay (with its
  /// context), and JIT-compiles it.
  static llvm::Expected<std::unique_ptr<ReplayRunner>>
  create(std::unique_ptr<llvm::LLVMContext> Ctx,
         std::unique_ptr<llvm::Module> Lowered, const ReplayLoweringResult &Info,
         ReplayRunOptions Opts = {});

  /// Loads code that create() compiled before (the object cache's entry) with
  /// what create() derived from the module: the replay start cache
  /// (ReplayStartCache.h). Opts.Entry must be in FnArgs without parameters.
  static llvm::Expected<std::unique_ptr<ReplayRunner>>
  createFromObject(std::unique_ptr<llvm::MemoryBuffer> Object,
                   const std::string &DataLayoutStr, const ReplayLoweringResult &Info,
                   std::map<std::string, unsigned> FnArgs, unsigned EntryBits,
                   ReplayRunOptions Opts);
  /// The object cache's key of the compiled code ("replay-<hash>"); empty
  /// without the cache.
  const std::string &objectKey() const { return ObjectKey; }
  /// The host data layout the code was compiled for (with objectKey()).
  const std::string &dataLayout() const { return DataLayoutStr; }
  /// Defined functions: name -> number of parameters.
  const std::map<std::string, unsigned> &functionArgs() const { return FnArgs; }
  unsigned entryBits() const { return EntryBits; }
  /// Started from the replay start cache (no parsing, lowering or compiling).
  bool fromStartCache() const { return FromStartCache; }

  /// Zeroes the memory, writes the initial image, runs Entry until it
  /// returns, the marker is reached, or a replay error stops it.
  llvm::Expected<ReplayOutcome> run();
  /// Resolves the trace map against the program and builds the trace's
  /// inline table; run() does it when the trace or map changed. Separate so
  /// that a caller can load everything before timing a run.
  llvm::Error prepare();
  /// The events of the last run, in order.
  const std::vector<ReplayEvent> &events();

  ReplayMachine &machine() { return *Machine; }
  const ReplayRunOptions &options() const { return Opts; }
  /// Replaces the trace / breakpoint options for the next run().
  void setTrace(const PreprocessedTrace *T, const TraceMap *Map) {
    Opts.Trace = T;
    Opts.Map = Map;
    PreparedTrace = nullptr;
    PreparedMap = nullptr;
  }
  void setBreakAt(std::function<bool(const ReplayEvent &, size_t)> F) {
    Opts.BreakAt = std::move(F);
  }
  llvm::ArrayRef<uint8_t> memory() const {
    return llvm::ArrayRef<uint8_t>(Machine->Mem, ReplayMemBytes);
  }
  const ReplayLoweringResult &info() const { return Info; }
  /// The address of a function of the JIT'd program (wsn-replay --check's
  /// compiled expressions).
  llvm::Expected<void *> lookupFunction(llvm::StringRef Name);

private:
  ReplayRunner() = default;
  /// The JIT with the engine's callbacks defined; CompileCache: compile
  /// through the object cache.
  static llvm::Expected<std::unique_ptr<ReplayRunner>>
  makeRunner(const ReplayLoweringResult &Info, ReplayRunOptions Opts, bool CompileCache,
             const std::string *ObjectDataLayout);
  llvm::Error lookupEntryPoints();
  std::string ObjectKey, DataLayoutStr;
  bool FromStartCache = false;
  std::unique_ptr<ReplayObjectCache> Cache; // declared before J: outlives it
  std::unique_ptr<llvm::orc::LLJIT> J;
  std::unique_ptr<ReplayMachine> Machine;
  ReplayLoweringResult Info;
  ReplayRunOptions Opts;
  void (*InitFn)() = nullptr;
  void *EntryFn = nullptr;
  unsigned EntryBits = 0;
  /// Defined functions: name -> number of parameters (to call an anchor's
  /// function when replay resumes there).
  std::map<std::string, unsigned> FnArgs;
  llvm::Error prepareTrace();
  const PreprocessedTrace *PreparedTrace = nullptr;
  const TraceMap *PreparedMap = nullptr;
  std::tuple<size_t, size_t, size_t> PreparedShape;
  std::unique_ptr<ReplayFastTable> FastTable;
  void *StartFn = nullptr; ///< the start anchor's function
  /// The last run: where the rebuilt event list ends.
  size_t EventsEnd = 0;
  bool Ran = false; ///< run() was called before (memory must be cleared)
};

/// A program read from an IR file, with the context that owns it.
struct ParsedProgram {
  std::unique_ptr<llvm::LLVMContext> Ctx;
  std::unique_ptr<llvm::Module> M;
};

/// Reads an IR file (.ll or .bc). LLVM's bitcode reader is not hardened
/// against damaged files and can crash on them; the read runs under a
/// CrashRecoveryContext, and a crash becomes an error naming the file (the
/// half-built context is then abandoned, never destroyed).
llvm::Expected<ParsedProgram> parseProgramIR(llvm::StringRef IRPath);

/// The program's own trace map (TraceMap::fromModule), read under a
/// CrashRecoveryContext: metadata the reader accepted from a damaged file can
/// still be garbage (a string whose length runs off the buffer). On a crash
/// the program is abandoned (P is left empty).
llvm::Expected<TraceMap> traceMapOfProgram(ParsedProgram &P);

/// Lowers a parsed program for replay (in place) and JITs it.
llvm::Expected<std::unique_ptr<ReplayRunner>>
loadForReplay(ParsedProgram Program, llvm::StringRef IRPath,
              const ReplayLoweringOptions &LOpts, ReplayRunOptions ROpts = {},
              std::string *LoweredIR = nullptr);

/// parseProgramIR, then the above.
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
/// Only: when non-null, only the globals named in it are compared.
CompareSummary compareGlobals(const ReplayLoweringResult &Info,
                              llvm::ArrayRef<uint8_t> Replay,
                              llvm::ArrayRef<uint8_t> Snapshot,
                              bool IncludeUnplaced = false,
                              const std::vector<std::string> *Only = nullptr);

std::string describeMismatch(const GlobalMismatch &M);

} // namespace wsn

#endif
