//===- ReplayLowering.h - wsn-lower<replay>: mote IR to host IR -----------===//
//
// The replay lowering rewrites a mote module (avr or msp430, possibly carrying
// trace ops, spec/trace-ops.md) into a module that runs on the host under ORC
// (thesis section 4.2: the replay program is the mote program recompiled for
// the desktop, with every log-writing operation replaced by a log-reading
// one). The mote memory model is kept: see spec/replay.md.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_REPLAYLOWERING_H
#define WSN_PASSES_REPLAYLOWERING_H

#include "MoteMemoryModel.h"

#include "llvm/IR/PassManager.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace wsn {

/// Names shared by the lowered IR and the replay engine (replay-jit/engine).
namespace replayabi {
/// `[ReplayMemBytes x i8]` global defined by the lowering: the host array
/// mirroring the data space (the engine finds it by name after JIT linking).
inline constexpr const char *Mem = "__wsn_mem";
/// Defined by the lowering: `void ()`, writes every global's initial bytes
/// into mem and resets the replay stack pointer.
inline constexpr const char *InitMemory = "__wsn_replay_init_memory";
/// Defined by the lowering: `ptr (i32 codeaddr)`, the function-pointer table.
inline constexpr const char *FnPtr = "__wsn_replay_fnptr";
/// Defined by the lowering: i16 replay stack pointer (a mote data address).
inline constexpr const char *StackPtr = "__wsn_sp";
/// Defined by the lowering on MSP430: the i16 status register model (AVR's
/// is the SREG cell of mem). The engine sets it at the start checkpoint.
inline constexpr const char *StatusReg = "__wsn_sr";
/// Callback prefix; every callback is `__wsn_replay_<name>`.
inline constexpr const char *CallbackPrefix = "__wsn_replay_";
/// The replay log's cursor (a ReplayCursor the engine defines). The lowering
/// consumes the common records inline through it and calls the callback of
/// the op only when the inline test fails (spec/replay-log.md section 2.7).
inline constexpr const char *Cursor = "__wsn_replay_cursor";

/// One record as inline code sees it (16 bytes, fields at 0/4/8/12).
struct FastRecord {
  /// FastKeyBit | kind << 24 | id when the op of that kind and id may consume
  /// the record inline; 0 when it must go through the callback.
  uint32_t Key;
  /// INPUT: the value; IRQ: the recorded count.
  uint32_t Val;
  /// The cursor's IrqAt after consuming this record inline.
  uint32_t IrqAt;
  /// FastAnchorQuiet: an anchor visit with the cursor at this record writes
  /// and checks nothing (the recorder wrote no checkpoint there).
  /// FastIrqDispatch: an IRQ record whose handler (irq id in bits 8-31) the
  /// count update that reaches its count may call directly.
  uint32_t Flags;
};
inline constexpr uint32_t FastKeyBit = 0x80000000u;
inline constexpr uint32_t FastAnchorQuiet = 1;
inline constexpr uint32_t FastIrqDispatch = 2;
inline constexpr uint32_t FastMaxDepth = 32;
inline constexpr uint32_t fastKey(uint8_t Kind, uint32_t Id) {
  return Id < (1u << 24) ? FastKeyBit | uint32_t(Kind) << 24 | Id : 0;
}

/// The cursor shared by the ReplayLog and the inline code.
struct ReplayCursor {
  const FastRecord *Recs; ///< 0: indexed by Next; all zero when inline is off
  uint32_t Next;          ///< 8: index of the next record to consume
  uint32_t Count;         ///< 12: #gv_reference of the current context
  /// 16: a count update may stay inline while the new count is below this.
  uint32_t IrqAt;
  uint32_t Depth;                  ///< 20: handler nesting depth
  uint32_t Saved[FastMaxDepth];    ///< 24: counts of the interrupted contexts
  void (*const *Handlers)();       ///< 152: handler by irq id (null: none)
  uint32_t NHandlers;              ///< 160
};
namespace cursoroff {
inline constexpr unsigned Recs = 0, Next = 8, Count = 12, IrqAt = 16, Depth = 20,
                          Saved = 24, Handlers = 152, NHandlers = 160;
}
static_assert(sizeof(FastRecord) == 16, "inline code indexes records by 16 bytes");
static_assert(offsetof(ReplayCursor, Next) == cursoroff::Next &&
                  offsetof(ReplayCursor, Count) == cursoroff::Count &&
                  offsetof(ReplayCursor, IrqAt) == cursoroff::IrqAt &&
                  offsetof(ReplayCursor, Depth) == cursoroff::Depth &&
                  offsetof(ReplayCursor, Saved) == cursoroff::Saved &&
                  offsetof(ReplayCursor, Handlers) == cursoroff::Handlers &&
                  offsetof(ReplayCursor, NHandlers) == cursoroff::NHandlers,
              "the inline code's offsets");
/// Flags of `__wsn_replay_store_src(addr, size, flags)` (WatchStores): a
/// source of the value the next `__wsn_replay_store` writes.
enum : uint32_t {
  SrcCopy = 1,    ///< the store writes exactly the bytes read at [addr, addr+size)
  SrcPartial = 2, ///< part of the value comes from a phi, a call or an argument
  SrcInput = 4,   ///< part of the value is an input read from the trace
};
} // namespace replayabi

struct ReplayLoweringOptions {
  /// Linked firmware ELF giving the global and function addresses. Empty: the
  /// lowering lays the globals out itself from the start of SRAM.
  std::string ElfPath;
  /// MCU override (default: the module's target-cpu or the triple's default).
  std::string MCU;
  /// Function whose entry ends the replay (a marker such as `done`).
  std::string StopAt;
  /// Let volatile / I/O-register reads without a wsn.input op read mem instead
  /// of being an error (for programs that poll registers without tracing).
  bool AllowUntracedIO = false;
  /// With an ELF: a defined global missing from its symbol table is an error
  /// (default: it is placed in the free RAM above the image, with a warning).
  bool RequireElfPlacement = false;
  /// Host triple / data layout written into the lowered module (defaults: the
  /// process triple and an empty layout, which the JIT fills in).
  std::string HostTriple;
  std::string HostDataLayout;
  /// wsn-replay -i (`why GLOBAL`): before every store, memcpy/memmove/memset
  /// (intrinsic or libc), strcpy/strncpy, byval copy and wsn.input.bytes into
  /// the data space, call `__wsn_replay_store(i32 addr, i32 size, ptr loc)`
  /// (loc: "file:line:col (in function)"). Off by default, and then nothing
  /// is emitted: the replay code is the same as without the option.
  bool WatchStores = false;
  /// Consume ENTRY/EXIT/IRQ/IRQ_EXIT/INPUT records, count updates and quiet
  /// anchor visits inline through the cursor (replayabi::Cursor), calling
  /// the callback only when the inline test fails. Off: every op calls its
  /// callback (the lowered IR of earlier versions).
  bool InlineLog = true;
  /// Run the IR verifier on the lowered module. The replay engine turns it off
  /// and verifies itself unless its object cache already holds code compiled
  /// from exactly this module (whose verification then passed before).
  bool Verify = true;
  /// Keep a frame pointer in every lowered function (for debuggers walking
  /// the JIT'd stack; wsn-replay --gdb). Off: the host ABI's default.
  bool FramePointers = false;
};

/// Where one mote global lives in the replay memory.
struct ReplayGlobal {
  std::string Name;
  uint32_t Addr = 0;
  uint32_t Size = 0;
  bool FromElf = false;
  bool Constant = false;
  /// Offsets of the data-pointer fields inside the global (mote layout).
  /// The oracle uses them: a pointer to a local differs between the mote
  /// stack and the replay stack without the replay being wrong.
  std::vector<uint32_t> PointerOffsets;
  /// Offsets of the padding bytes inside the global (mote layout: on MSP430
  /// a uint16_t after a uint8_t leaves a hole). C leaves their values
  /// unspecified (a struct copy carries whatever the source's padding held,
  /// e.g. stack bytes), so the oracle does not compare them.
  std::vector<uint32_t> PaddingOffsets;
};

/// What the lowering decided; the engine uses it to compare memory images.
struct ReplayLoweringResult {
  MoteTarget Target;
  std::vector<ReplayGlobal> Globals;
  /// Functions reachable through pointers: (name, mote pointer value).
  std::vector<std::pair<std::string, uint32_t>> FunctionTable;
  uint32_t StackTop = 0;
  uint32_t StackLimit = 0; // one past the highest global
  std::vector<std::string> Warnings;
  /// The placement of the global named Name, or null.
  const ReplayGlobal *global(llvm::StringRef Name) const {
    for (const ReplayGlobal &G : Globals)
      if (G.Name == Name)
        return &G;
    return nullptr;
  }
};

/// Lowers M in place. Errors list every unsupported construct with its source
/// location (file:line:col, or the function when there is no debug info).
/// Img, when given, overrides Opts.ElfPath.
llvm::Expected<ReplayLoweringResult>
lowerModuleForReplay(llvm::Module &M, const ReplayLoweringOptions &Opts,
                     const MoteImage *Img = nullptr);

/// The IR verifier over a lowered module; an error says the lowering is wrong.
llvm::Error verifyLoweredModule(const llvm::Module &M);

/// Gives private globals internal linkage so that they get a symbol in the
/// firmware ELF (string literals, -O1 constant copies), which lets the replay
/// place them at their firmware address. Run it on the mote IR before both
/// llc and the replay lowering (the tools and tests do). Returns the number of
/// globals changed.
unsigned exposePrivateGlobals(llvm::Module &M);

/// `wsn-lower<replay;elf=F;mcu=M;stop-at=FN;allow-untraced-io;require-elf>`
class ReplayLoweringPass : public llvm::PassInfoMixin<ReplayLoweringPass> {
public:
  explicit ReplayLoweringPass(ReplayLoweringOptions O) : Opts(std::move(O)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }

private:
  ReplayLoweringOptions Opts;
};

/// `wsn-replay-prepare`: exposePrivateGlobals as a pass.
class ReplayPreparePass : public llvm::PassInfoMixin<ReplayPreparePass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

} // namespace wsn

#endif
