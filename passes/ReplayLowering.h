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
/// Callback prefix; every callback is `__wsn_replay_<name>`.
inline constexpr const char *CallbackPrefix = "__wsn_replay_";
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
