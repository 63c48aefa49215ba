//===- Driver.h - wsn-cc: build mote firmware with wsn-trace ----*- C++ -*-===//
//
// The pipeline (spec/wsn-cc.md):
//   clang -emit-llvm (per source) -> llvm-link -> opt -passes=wsn-trace (plugin)
//     -> llc -> link with the trace runtime and the platform files -> OUT.elf
//   and, next to it, OUT.replay.bc (instrumented IR, trace ops kept) and OUT.wmap.
// With --no-trace the opt stage and the runtime are left out.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_CC_DRIVER_H
#define WSN_CC_DRIVER_H

#include "Targets.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace wsncc {

struct Options {
  TargetKind Target = TargetKind::Host;
  const McuInfo *Mcu = nullptr;
  std::optional<unsigned> Level;      ///< --level=N (multi-level tracing)
  std::string ErrorPaths;             ///< --error-paths=FILE
  std::string CheckAt;                ///< --check-at=writes
  bool NoTrace = false;               ///< --no-trace: the original program
  std::optional<unsigned> TraceBuf;   ///< --trace-buf=BYTES
  /// --trace-buf=max[:STACK]: the largest ring (whole segments, at most 32 KiB) that leaves
  /// the MCU's RAM STACK bytes for the stack (default: the reserve wsn-cc's own geometry keeps).
  bool TraceBufMax = false;
  std::optional<unsigned> MaxStack;
  std::optional<unsigned> TraceSeg;   ///< --trace-seg=BYTES
  /// --effect-keys=N: the runtime's WSN_TRACE_EFFECT_KEYS (EFFECT_DELTA keys, 0-8); without
  /// it, 0.
  std::optional<unsigned> EffectKeys;
  /// --no-repeat: the runtime's WSN_TRACE_REPEAT 0 (no REPEAT records, spec/trace-format.md
  /// section 3.8: every control record as its own byte).
  bool NoRepeat = false;
  /// --no-replay-computes: -wsn-replay-computes=false (spec/instrumentation.md section 7.2:
  /// every call of uninstrumented code is skipped and recorded).
  bool NoReplayComputes = false;
  /// --all-entries: -wsn-off-no-entry=false -wsn-uncounted-no-entry=false
  /// (spec/instrumentation.md section 7.3: ENTRY/EXIT for every instrumented function).
  bool AllEntries = false;
  /// --instrument=selected (dependence-selected functions, thesis Algorithm 4) or all
  /// (the instrument-everything baseline of thesis Table 4.2).
  bool InstrumentAll = false;
  /// Selective inlining before instrumentation (thesis section 4.3, Eq. 4.1); --no-inline
  /// turns it off.
  bool Inline = true;
  /// --whole-program: link the trace runtime's bitcode with the program, internalize and
  /// optimise the whole firmware for size before llc (mote targets only).
  bool WholeProgram = false;
  std::vector<std::string> CFlags;    ///< -I/-D/-U, -Xclang, -Wc, as given, in order
  /// --dialect: how MSP430 sources are read. Auto picks mspgcc for nesC output and for code
  /// that uses mspgcc's `wakeup` (spec/wsn-cc.md, "The mspgcc dialect").
  enum class Dialect { Auto, Mspgcc, Clang } SourceDialect = Dialect::Auto;
  std::string OptLevel = "s";         ///< -O<x>: 0 1 2 3 s z
  bool Debug = true;                  ///< -g (default) / -g0
  bool Verbose = false;               ///< -v
  bool SaveTemps = false;             ///< --save-temps: keep OUT.wsn-tmp/
  bool Help = false;
  std::string Out;                    ///< -o OUT (a trailing .elf is dropped)
  std::vector<std::string> Sources;
};

/// Parses the command line (without argv[0]).
llvm::Expected<Options> parseArgs(llvm::ArrayRef<const char *> Args);
void printHelp(llvm::raw_ostream &OS);

/// Runs the whole pipeline. Every failure names the stage, the command and its stderr.
llvm::Error runDriver(const Options &Opts, const char *Argv0);

/// Flash (allocated, initialised sections: text + rodata + data + vectors) and RAM (writable
/// allocated sections: data + bss + noinit) of a linked ELF, as llvm-size counts them.
struct ImageSize {
  uint64_t Flash = 0;
  uint64_t Ram = 0;
};
llvm::Expected<ImageSize> measureElf(llvm::StringRef Path);

} // namespace wsncc

#endif
