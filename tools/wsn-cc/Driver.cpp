//===- Driver.cpp - wsn-cc: build mote firmware with wsn-trace ------------===//
//
// See Driver.h and spec/wsn-cc.md. Every external tool runs through
// llvm::sys::ExecuteAndWait with its stdout/stderr captured, so a failing stage can be
// reported as: the stage, the exact command, the tool's stderr.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Mspgcc.h"
#include "PeriphSymbols.h"
#include "WsnCcConfig.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace wsncc {

static Error makeError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg.str());
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

void printHelp(raw_ostream &OS) {
  OS << "USAGE: wsn-cc --target=avr|msp430|host --mcu=MCU [options] -o OUT SRC.c...\n\n"
        "Builds OUT.elf (OUT for --target=host), OUT.replay.bc and OUT.wmap.\n\n"
        "  --target=T          avr, msp430 or host\n"
        "  --mcu=MCU           atmega128 atmega1281 | msp430f1611 msp430f2617 | host\n"
        "  --no-trace          build the original program (no instrumentation, no runtime)\n"
        "  --level=N           multi-level tracing: instrument call depth N from invariants\n"
        "  --error-paths=FILE  restrict the slice to the error paths listed in FILE\n"
        "  --next-level=FILE   the next level of the iterative loop: FILE is written by\n"
        "                      wsn-replay --emit-error-paths (its '# wsn-level: N' line);\n"
        "                      same as --level=N+1 --error-paths=FILE\n"
        "  --check-at=writes   check invariants after every write to their inputs\n"
        "  --trace-buf=BYTES   trace ring size (runtime WSN_TRACE_BUF_SIZE, default 1024)\n"
        "  --trace-buf=max[:STACK]\n"
        "                      the largest ring that leaves STACK bytes of RAM for the\n"
        "                      stack (default 512, wsn-cc's own reserve)\n"
        "  --trace-seg=BYTES   trace segment size (runtime WSN_TRACE_SEG_SIZE, default 256)\n"
        "  --effect-keys=N     effects the runtime keeps to write later ones as deltas\n"
        "                      (WSN_TRACE_EFFECT_KEYS, 0-8; default 0)\n"
        "  --no-repeat         every control record as its own byte: no REPEAT records\n"
        "                      for periodic runs (WSN_TRACE_REPEAT 0; saves about 330\n"
        "                      bytes of flash and the runs' detection cycles)\n"
        "  --no-replay-computes\n"
        "                      skip and record every call of uninstrumented code, also\n"
        "                      those replay can compute (-wsn-replay-computes=false)\n"
        "  --all-entries       ENTRY/EXIT records for every instrumented function, also\n"
        "                      those that need none (-wsn-off-no-entry=false\n"
        "                      -wsn-uncounted-no-entry=false): more trace, and the\n"
        "                      REPL's break and where see every such function\n"
        "  --instrument=selected|all\n"
        "                      dependence-selected functions (default) or the\n"
        "                      instrument-everything baseline\n"
        "  --no-inline         no selective inlining before instrumentation (Eq. 4.1)\n"
        "  --whole-program     optimise program + trace runtime together for size\n"
        "  -I DIR -D X[=V] -U X  preprocessor options, passed to clang\n"
        "  -Xclang ARG         pass ARG to clang's front end (clang -Xclang ARG)\n"
        "  -Wc,ARG[,ARG...]    pass each ARG to clang as a driver option\n"
        "  --dialect=auto|mspgcc|clang\n"
        "                      MSP430 sources: mspgcc's interrupt(byte offset), wakeup and\n"
        "                      intrinsics, or clang's; auto: mspgcc for nesC output\n"
        "  -O0|1|2|3|s|z       optimisation level (default -Os)\n"
        "  -g / -g0            debug info (default on)\n"
        "  --save-temps        keep intermediate files in OUT.wsn-tmp/\n"
        "  -v                  print every command\n";
}

static Expected<unsigned> parseUnsigned(StringRef Opt, StringRef V) {
  unsigned N;
  if (V.empty() || V.getAsInteger(10, N))
    return makeError(formatv("{0} expects a decimal number, got '{1}'", Opt, V));
  return N;
}

Expected<Options> parseArgs(ArrayRef<const char *> Args) {
  Options O;
  std::string TargetName, McuName;
  bool HaveTarget = false;
  unsigned NextLevel = 0; // --next-level: the file's level + 1
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    // Options that take their value either attached or as the next argument.
    auto Value = [&](StringRef Flag) -> Expected<std::string> {
      if (A.size() > Flag.size())
        return A.drop_front(Flag.size()).str();
      if (I + 1 >= Args.size())
        return makeError(formatv("{0} needs a value", Flag));
      return std::string(Args[++I]);
    };
    if (A == "--help" || A == "-help" || A == "-h") {
      O.Help = true;
    } else if (A.consume_front("--target=")) {
      TargetName = A.str();
      HaveTarget = true;
    } else if (A.consume_front("--mcu=")) {
      McuName = A.str();
    } else if (A.consume_front("--level=")) {
      auto N = parseUnsigned("--level", A);
      if (!N)
        return N.takeError();
      O.Level = *N;
    } else if (A.consume_front("--error-paths=")) {
      O.ErrorPaths = A.str();
      if (!sys::fs::exists(O.ErrorPaths))
        return makeError(formatv("--error-paths: no such file: {0}", O.ErrorPaths));
    } else if (A.consume_front("--next-level=")) {
      // The error-path file of a replay names the level it was built at.
      auto Buf = MemoryBuffer::getFile(A);
      if (!Buf)
        return makeError(formatv("--next-level: {0}: {1}", A, Buf.getError().message()));
      std::optional<unsigned> From;
      SmallVector<StringRef, 16> Lines;
      (*Buf)->getBuffer().split(Lines, '\n');
      for (StringRef L : Lines) {
        unsigned N = 0;
        StringRef T = L.trim();
        if (T.consume_front("# wsn-level:") && !T.trim().getAsInteger(10, N) && N)
          From = N;
      }
      if (!From)
        return makeError(formatv("--next-level: {0}: no '# wsn-level: N' line (write the file "
                                 "with wsn-replay --emit-error-paths, or use --level=N "
                                 "--error-paths=FILE)",
                                 A));
      NextLevel = *From + 1;
      O.ErrorPaths = A.str();
    } else if (A.consume_front("--check-at=")) {
      if (A != "writes")
        return makeError(formatv("--check-at={0}: the only supported value is 'writes'", A));
      O.CheckAt = A.str();
    } else if (A == "--no-trace") {
      O.NoTrace = true;
    } else if (A == "--trace-buf=max" || A.starts_with("--trace-buf=max:")) {
      O.TraceBufMax = true;
      O.TraceBuf.reset();
      O.MaxStack.reset();
      if (A.consume_front("--trace-buf=max:")) {
        auto N = parseUnsigned("--trace-buf=max:", A);
        if (!N)
          return N.takeError();
        if (*N < 64 || *N > 0x10000)
          return makeError(formatv("--trace-buf=max:{0}: the stack's share must be between 64 "
                                   "and 65536 bytes",
                                   *N));
        O.MaxStack = *N;
      }
    } else if (A.consume_front("--trace-buf=")) {
      O.TraceBufMax = false;
      auto N = parseUnsigned("--trace-buf", A);
      if (!N)
        return N.takeError();
      if (*N < 32 || *N > 0x8000)
        return makeError(formatv("--trace-buf={0}: must be between 32 and 32768 bytes", *N));
      O.TraceBuf = *N;
    } else if (A.consume_front("--trace-seg=")) {
      auto N = parseUnsigned("--trace-seg", A);
      if (!N)
        return N.takeError();
      if (*N < 16 || *N > 0x4000)
        return makeError(formatv("--trace-seg={0}: must be between 16 and 16384 bytes", *N));
      O.TraceSeg = *N;
    } else if (A.consume_front("--effect-keys=")) {
      auto N = parseUnsigned("--effect-keys", A);
      if (!N)
        return N.takeError();
      if (*N > 8)
        return makeError(formatv("--effect-keys={0}: must be between 0 and 8", *N));
      O.EffectKeys = *N;
    } else if (A.consume_front("--instrument=")) {
      if (A != "selected" && A != "all")
        return makeError(
            formatv("--instrument={0}: expected 'selected' or 'all'", A.empty() ? "<empty>" : A));
      O.InstrumentAll = A == "all";
    } else if (A == "--no-repeat") {
      O.NoRepeat = true;
    } else if (A == "--no-replay-computes") {
      O.NoReplayComputes = true;
    } else if (A == "--all-entries") {
      O.AllEntries = true;
    } else if (A == "--no-inline") {
      O.Inline = false;
    } else if (A == "--inline") {
      O.Inline = true;
    } else if (A == "--whole-program") {
      O.WholeProgram = true;
    } else if (A == "--save-temps") {
      O.SaveTemps = true;
    } else if (A == "-v") {
      O.Verbose = true;
    } else if (A == "-g") {
      O.Debug = true;
    } else if (A == "-g0") {
      O.Debug = false;
    } else if (A.starts_with("-O")) {
      StringRef L = A.drop_front(2);
      if (L.empty())
        L = "2";
      if (L.size() != 1 || !StringRef("0123sz").contains(L[0]))
        return makeError(formatv("unknown optimisation level '{0}' (use -O0 -O1 -O2 -O3 -Os -Oz)", A));
      O.OptLevel = L.str();
    } else if (A == "-Xclang") {
      if (I + 1 >= Args.size())
        return makeError("-Xclang needs a value");
      O.CFlags.push_back("-Xclang");
      O.CFlags.push_back(Args[++I]);
    } else if (A.consume_front("-Wc,")) {
      SmallVector<StringRef, 4> Parts;
      A.split(Parts, ',', -1, /*KeepEmpty=*/false);
      if (Parts.empty())
        return makeError("-Wc, needs at least one option (e.g. -Wc,-fno-builtin)");
      for (StringRef P : Parts)
        O.CFlags.push_back(P.str());
    } else if (A.consume_front("--dialect=")) {
      if (A == "auto")
        O.SourceDialect = Options::Dialect::Auto;
      else if (A == "mspgcc")
        O.SourceDialect = Options::Dialect::Mspgcc;
      else if (A == "clang")
        O.SourceDialect = Options::Dialect::Clang;
      else
        return makeError(formatv("--dialect={0}: expected auto, mspgcc or clang",
                                 A.empty() ? "<empty>" : A));
    } else if (A.starts_with("-I") || A.starts_with("-D") || A.starts_with("-U")) {
      StringRef Flag = A.take_front(2);
      auto V = Value(Flag);
      if (!V)
        return V.takeError();
      O.CFlags.push_back((Flag + *V).str());
    } else if (A.starts_with("-o")) {
      auto V = Value("-o");
      if (!V)
        return V.takeError();
      O.Out = *V;
    } else if (A.starts_with("-") && A != "-") {
      return makeError(formatv("unknown option '{0}' (see wsn-cc --help)", A));
    } else {
      O.Sources.push_back(A.str());
    }
  }
  if (O.Help)
    return O;

  if (!HaveTarget)
    return makeError("missing --target=avr|msp430|host");
  auto T = parseTarget(TargetName);
  if (!T)
    return T.takeError();
  O.Target = *T;
  auto M = findMcu(O.Target, McuName);
  if (!M)
    return M.takeError();
  O.Mcu = *M;

  if (O.Out.empty())
    return makeError("missing -o OUT");
  if (O.Sources.empty())
    return makeError("no source files given");
  for (const std::string &S : O.Sources) {
    if (!StringRef(S).ends_with(".c"))
      return makeError(formatv("{0}: not a C source file (expected a .c file)", S));
    if (!sys::fs::is_regular_file(S))
      return makeError(formatv("no such source file: {0}", S));
  }
  // The runtime's compile-time checks (trace.c): the ring holds at least two segments and is
  // a multiple of the segment size. Say so here rather than as a C error in the runtime.
  if (O.TraceBuf && O.TraceSeg) {
    unsigned Buf = *O.TraceBuf, Seg = *O.TraceSeg;
    if (Buf % Seg != 0 || Buf < 2 * Seg)
      return makeError(formatv("--trace-buf={0} with --trace-seg={1}: the ring must be a "
                               "multiple of the segment size and hold at least two segments",
                               Buf, Seg));
  }
  if (NextLevel) {
    if (O.Level)
      return makeError("--next-level sets the level (one more than the file's); it cannot be "
                       "combined with --level");
    O.Level = NextLevel;
  }
  if (StringRef(O.Out).ends_with(".elf"))
    O.Out.resize(O.Out.size() - 4);
  if (O.TraceBufMax && O.Target == TargetKind::Host)
    return makeError("--trace-buf=max sizes the ring from an MCU's RAM: it needs --target=avr "
                     "or --target=msp430");
  if (O.NoTrace && (O.Level || !O.ErrorPaths.empty() || !O.CheckAt.empty() || O.TraceBuf ||
                    O.TraceBufMax || O.TraceSeg || O.InstrumentAll))
    WithColor::warning(errs(), "wsn-cc")
        << "--level/--error-paths/--check-at/--trace-buf/--trace-seg/--instrument have no "
           "effect with --no-trace\n";
  if (O.InstrumentAll && (O.Level || !O.ErrorPaths.empty()))
    return makeError("--instrument=all selects every function: it cannot be combined with "
                     "--level or --error-paths");
  return O;
}

//===----------------------------------------------------------------------===//
// Running tools
//===----------------------------------------------------------------------===//

namespace {

std::string quoteArg(StringRef A) {
  if (!A.empty() && A.find_first_of(" \t\"'$\\") == StringRef::npos)
    return A.str();
  std::string Q = "'";
  for (char C : A) {
    if (C == '\'')
      Q += "'\\''";
    else
      Q += C;
  }
  return Q + "'";
}

std::string joinCommand(ArrayRef<std::string> Argv) {
  std::string S;
  for (const std::string &A : Argv) {
    if (!S.empty())
      S += ' ';
    S += quoteArg(A);
  }
  return S;
}

/// A temporary directory removed on destruction unless kept.
struct TempDir {
  SmallString<128> Path;
  bool Keep = false;
  ~TempDir() {
    if (!Path.empty() && !Keep)
      sys::fs::remove_directories(Path);
  }
};

class Pipeline {
public:
  Pipeline(const Options &O, const char *Argv0) : O(O), Argv0(Argv0) {}
  Error run();

private:
  const Options &O;
  const char *Argv0;
  TempDir Tmp;
  std::string LLVMBin, Plugin, SourceRoot, CacheRoot;

  Error locateTools();
  std::string tool(StringRef Name) const {
    SmallString<128> P(LLVMBin);
    sys::path::append(P, Name);
    return std::string(P);
  }
  std::string tmp(const Twine &Name) const {
    SmallString<128> P(Tmp.Path);
    sys::path::append(P, Name);
    return std::string(P);
  }
  std::string src(const Twine &Rel) const {
    SmallString<128> P(SourceRoot);
    sys::path::append(P, Rel);
    return std::string(P);
  }

  /// Runs \p Argv; on failure the error names \p Stage, the command and its stderr. The
  /// tool's stderr is forwarded on success too (warnings), unless \p Quiet.
  Error exec(StringRef Stage, ArrayRef<std::string> Argv, bool Quiet = false,
             std::string *StdErr = nullptr);

  /// Whether \p Source is read in the mspgcc dialect (--dialect, or auto-detection).
  Expected<bool> usesMspgccDialect(StringRef Source) const;
  std::vector<std::string> targetCFlags() const;
  std::vector<std::string> llcTargetFlags() const;
  Expected<std::vector<std::string>> cachedObjects(StringRef What,
                                                   ArrayRef<std::string> Sources,
                                                   ArrayRef<std::string> Deps,
                                                   ArrayRef<std::string> ExtraFlags,
                                                   bool Bitcode = false);
  /// The runtime compiled for the target: objects, or bitcode for --whole-program.
  Expected<std::vector<std::string>> runtimeObjects(bool Bitcode = false);
  Expected<std::vector<std::string>> platformObjects();
  Error probeTracePass();
  Error checkFits(StringRef Elf);
  std::vector<std::string> runtimeFlags() const;
  /// Stage 3: optional automatic checks, selective inlining, then wsn-trace twice (replay
  /// module with the trace ops kept, and the record-lowered module) plus the trace map.
  /// Returns the record-lowered module.
  Expected<std::string> instrument(StringRef Linked);
  /// Applies the inlining decisions of the PFDG analysis (thesis section 4.3, Eq. 4.1).
  Expected<std::string> inlineSelected(StringRef In, ArrayRef<std::string> AnalysisOpts);
  Expected<std::string> wholeProgram(StringRef In);
  void warnIfNoChecks(StringRef ReplayModule);

  /// Trace geometry (spec/wsn-cc.md "Trace geometry"): the segment holds the largest
  /// record, the ring as many segments as about 1 KiB allows, fewer when the program leaves
  /// less RAM above a stack reserve. --trace-seg / --trace-buf fix either.
  unsigned Seg = 256, Buf = 1024;
  bool SegChosen = false;
  bool MaxSegChosen = false; // --trace-buf=max chose its segment (checkRing, first link)
  uint64_t LargestRecord = 0;
  std::string LargestRecordWhat;
  Error chooseSegment(StringRef Input, ArrayRef<std::string> AnalysisOpts);
  /// After linking: whether the ring leaves the stack reserve; may shrink Buf (returns
  /// true: build again) or fail saying what would fit.
  Expected<bool> checkRing(StringRef Elf);
  /// Steps 3 to 7 from the pre-instrumented module.
  Error buildImage(StringRef Linked);
};

/// RAM the trace geometry leaves to the stack (bytes). TinyOS applications' deepest stacks
/// (the task loop, a command chain, an interrupt on top) take a few hundred bytes on the
/// ATmega128; the instrumented code adds the runtime's record calls (an effect or checkpoint
/// call with interrupts off, about 20 bytes of frame, once per nesting level).
static constexpr unsigned kStackReserve = 512;
/// The ring size wsn-cc aims at when RAM allows (the thesis's evaluation and the
/// runtime's default: 1 KiB).
static constexpr unsigned kRingTarget = 1024;

} // namespace

Error Pipeline::exec(StringRef Stage, ArrayRef<std::string> Argv, bool Quiet,
                     std::string *StdErr) {
  if (O.Verbose)
    outs() << joinCommand(Argv) << "\n";
  // Fresh capture files each time: the redirections open without truncating.
  std::string OutFile = tmp(Twine("stage.out"));
  std::string ErrFile = tmp(Twine("stage.err"));
  sys::fs::remove(OutFile);
  sys::fs::remove(ErrFile);
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(OutFile),
                                          StringRef(ErrFile)};
  SmallVector<StringRef, 32> Refs;
  for (const std::string &A : Argv)
    Refs.push_back(A);
  std::string ExecErr;
  int RC = sys::ExecuteAndWait(Argv[0], Refs, std::nullopt, Redirects, 0, 0, &ExecErr);
  std::string Out, Err;
  if (auto B = MemoryBuffer::getFile(OutFile))
    Out = (*B)->getBuffer().str();
  if (auto B = MemoryBuffer::getFile(ErrFile))
    Err = (*B)->getBuffer().str();
  if (StdErr)
    *StdErr = Err;
  if (RC != 0) {
    std::string Why = RC < 0 ? ("could not run: " + ExecErr)
                             : formatv("exit status {0}", RC).str();
    std::string Msg = formatv("stage '{0}' failed ({1})\n  command: {2}", Stage, Why,
                              joinCommand(Argv));
    std::string Detail = Err.empty() ? Out : Err;
    if (!Detail.empty()) {
      Msg += "\n";
      Msg += StringRef(Detail).rtrim().str();
    }
    return makeError(Msg);
  }
  if (!Quiet) {
    outs() << Out;
    errs() << Err;
  }
  return Error::success();
}

Error Pipeline::locateTools() {
  // LLVM 19: the configure-time tools dir, else Debian's path. Never /usr/bin (LLVM 14).
  for (StringRef Dir : {StringRef(WSN_CC_LLVM_TOOLS_DIR), StringRef("/usr/lib/llvm-19/bin")}) {
    SmallString<128> C(Dir);
    sys::path::append(C, "clang");
    if (sys::fs::can_execute(C)) {
      LLVMBin = Dir.str();
      break;
    }
  }
  if (LLVMBin.empty())
    return makeError("cannot find LLVM 19 tools (looked in " WSN_CC_LLVM_TOOLS_DIR
                     " and /usr/lib/llvm-19/bin)");

  // The plugin next to our binary (build/bin/wsn-cc -> build/lib/WSNTrace.so), else baked in.
  std::string Exe = sys::fs::getMainExecutable(Argv0, (void *)&printHelp);
  SmallString<128> Rel(sys::path::parent_path(sys::path::parent_path(Exe)));
  sys::path::append(Rel, "lib", "WSNTrace.so");
  Plugin = sys::fs::exists(Rel) ? std::string(Rel) : std::string(WSN_CC_PLUGIN);

  const char *Root = getenv("WSN_SOURCE_ROOT");
  SourceRoot = Root && *Root ? Root : WSN_CC_SOURCE_ROOT;
  if (!sys::fs::is_directory(src("trace-runtime/include")))
    return makeError(formatv("wsn-trace sources not found at {0} (set WSN_SOURCE_ROOT)",
                             SourceRoot));
  CacheRoot = WSN_CC_RT_CACHE;
  return Error::success();
}

Expected<bool> Pipeline::usesMspgccDialect(StringRef Source) const {
  if (O.SourceDialect != Options::Dialect::Auto)
    return O.SourceDialect == Options::Dialect::Mspgcc;
  auto Buf = MemoryBuffer::getFile(Source, /*IsText=*/true);
  if (!Buf)
    return makeError(formatv("{0}: {1}", Source, Buf.getError().message()));
  return looksLikeMspgcc((*Buf)->getBuffer());
}

std::vector<std::string> Pipeline::targetCFlags() const {
  std::vector<std::string> F;
  switch (O.Target) {
  case TargetKind::AVR:
    F = {"--target=avr", std::string("-mmcu=") + O.Mcu->Name};
    break;
  case TargetKind::MSP430:
    F = {"--target=msp430", std::string("-mmcu=") + O.Mcu->Name, "-isystem",
         "/usr/msp430/include"};
    break;
  case TargetKind::Host:
    break;
  }
  F.push_back("-ffunction-sections");
  F.push_back("-fdata-sections");
  return F;
}

std::vector<std::string> Pipeline::llcTargetFlags() const {
  std::vector<std::string> F;
  switch (O.Target) {
  case TargetKind::AVR:
    F = {"-mtriple=avr", std::string("-mcpu=") + O.Mcu->Name};
    break;
  case TargetKind::MSP430:
    F = {"-mtriple=msp430"};
    break;
  case TargetKind::Host:
    F = {"-relocation-model=pic"};
    break;
  }
  F.push_back("-function-sections");
  F.push_back("-data-sections");
  return F;
}

/// Compiles \p Sources into a cache directory keyed by \p What and the flags; an object is
/// reused while it is newer than every source and dependency and its flags are unchanged.
/// Objects are written to a unique name and renamed, so concurrent builds never see a
/// half-written object.
Expected<std::vector<std::string>>
Pipeline::cachedObjects(StringRef What, ArrayRef<std::string> Sources,
                        ArrayRef<std::string> Deps, ArrayRef<std::string> ExtraFlags,
                        bool Bitcode) {
  std::vector<std::string> Base = {tool("clang")};
  llvm::append_range(Base, targetCFlags());
  llvm::append_range(Base, ExtraFlags);
  Base.push_back(O.Debug ? "-g" : "-g0");
  if (Bitcode)
    Base.push_back("-emit-llvm");
  Base.push_back("-c");
  uint64_t Key = xxh3_64bits(joinCommand(Base));

  SmallString<128> Dir(CacheRoot);
  sys::path::append(Dir, formatv("{0}-{1}-{2}-{3:x-}", What, targetName(O.Target),
                                 O.Mcu->Name, Key)
                             .str());
  if (sys::fs::create_directories(Dir)) {
    // Build tree not writable: cache next to the output instead.
    SmallString<128> Alt(sys::path::parent_path(O.Out));
    sys::path::append(Alt, ".wsn-rt-cache", sys::path::filename(Dir));
    Dir = Alt;
    if (std::error_code EC = sys::fs::create_directories(Dir))
      return makeError(formatv("cannot create runtime cache {0}: {1}", Dir, EC.message()));
  }

  sys::TimePoint<> Newest;
  for (ArrayRef<std::string> L : {Sources, Deps})
    for (const std::string &F : L) {
      sys::fs::file_status St;
      if (!sys::fs::status(F, St))
        Newest = std::max(Newest, St.getLastModificationTime());
    }

  std::vector<std::string> Objs;
  for (const std::string &S : Sources) {
    SmallString<128> Obj(Dir);
    sys::path::append(Obj, sys::path::stem(S) + (Bitcode ? ".bc" : ".o"));
    sys::fs::file_status St;
    if (!sys::fs::status(Obj, St) && St.getLastModificationTime() >= Newest) {
      Objs.push_back(std::string(Obj));
      continue;
    }
    SmallString<128> Part;
    if (std::error_code EC = sys::fs::createUniqueFile(Obj + ".%%%%%%.tmp", Part))
      return makeError(formatv("cannot write in {0}: {1}", Dir, EC.message()));
    std::vector<std::string> Cmd = Base;
    llvm::append_range(Cmd, std::vector<std::string>{S, "-o", std::string(Part)});
    if (Error E = exec(formatv("compile {0} ({1})", sys::path::filename(S), What).str(), Cmd)) {
      sys::fs::remove(Part);
      return std::move(E);
    }
    if (std::error_code EC = sys::fs::rename(Part, Obj))
      return makeError(formatv("cannot rename {0} to {1}: {2}", Part, Obj, EC.message()));
    Objs.push_back(std::string(Obj));
  }
  return Objs;
}

static std::vector<std::string> globFiles(StringRef Dir, ArrayRef<StringRef> Exts) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    for (StringRef E : Exts)
      if (StringRef(It->path()).ends_with(E))
        Out.push_back(It->path());
  llvm::sort(Out);
  return Out;
}

/// Flags the runtime is compiled with. The ring geometry must match what the instrumentation
/// was told (-wsn-buf-size / -wsn-seg-size): both come from --trace-buf / --trace-seg.
std::vector<std::string> Pipeline::runtimeFlags() const {
  std::string RtSrc = src("trace-runtime/src");
  std::vector<std::string> Flags = {"-std=c99", "-Os", "-I", src("trace-runtime/include"),
                                    "-I", RtSrc};
  Flags.push_back(formatv("-DWSN_TRACE_BUF_SIZE={0}", Buf).str());
  Flags.push_back(formatv("-DWSN_TRACE_SEG_SIZE={0}", Seg).str());
  // EFFECT_DELTA keys (spec/trace-format.md 3.1) pay off only where equal-length effects
  // repeat within a segment. Without them an effect that is neither EFFECT_C nor a delta is
  // written as EFFECT_Z (3.6). On real nesC apps (segments above 256 bytes) the keys found few
  // deltas (Oscilloscope 8 of 74 effects) and cost flash (RadioCountToLeds: 886 B on the
  // atmega128, 644 B on the msp430f1611 for RadioCountToLedsWithSenderID) with no fewer active
  // cycles. At 256-byte segments (the examples) they save nothing either (bench/tracesize,
  // session 17: blink, sense-send and uart-cmd the same ring coverage within 1%, radio-sense
  // 2.9x without them, its 137-byte effects rarely find a key) and cost 476 bytes of flash.
  // So the keys are off unless --effect-keys asks for them.
  Flags.push_back(formatv("-DWSN_TRACE_EFFECT_KEYS={0}", O.EffectKeys ? *O.EffectKeys : 0).str());
  // REPEAT records (spec/trace-format.md 3.8) are on: a busy loop's control records shrink to
  // a fifth (sense-send: 5.5x the ring coverage). Where control records seldom run in periods
  // of their own (TinyOS applications sleep between events, whose inputs and effects break
  // the runs) they save nothing and cost flash and about 5% of the TelosB applications' traced
  // active cycles (spec/trace-size.md section 15): --no-repeat turns them off.
  if (O.NoRepeat)
    Flags.push_back("-DWSN_TRACE_REPEAT=0");
  if (O.Target == TargetKind::Host)
    Flags.push_back("-fPIC");
  return Flags;
}

Expected<std::vector<std::string>> Pipeline::runtimeObjects(bool Bitcode) {
  std::string RtSrc = src("trace-runtime/src");
  std::vector<std::string> Sources = globFiles(RtSrc, {".c"});
  if (Sources.empty())
    return makeError(formatv("no trace runtime sources in {0}", RtSrc));
  std::vector<std::string> Deps = globFiles(RtSrc, {".h"});
  llvm::append_range(Deps, globFiles(src("trace-runtime/include/wsn"), {".h"}));
  return cachedObjects(Bitcode ? "rtbc" : "rt", Sources, Deps, runtimeFlags(), Bitcode);
}

Expected<std::vector<std::string>> Pipeline::platformObjects() {
  if (O.Target != TargetKind::MSP430)
    return std::vector<std::string>();
  std::string Dir = src("trace-runtime/platform/msp430");
  std::vector<std::string> Sources = globFiles(Dir, {".c", ".S"});
  return cachedObjects("platform", Sources, {}, {"-Os", "-ffreestanding", "-fno-builtin"});
}

Error Pipeline::probeTracePass() {
  if (!sys::fs::exists(Plugin))
    return makeError(formatv("wsn-trace plugin not found: {0} (build the WSNTrace target)",
                             Plugin));
  std::string Probe = tmp("probe.ll");
  {
    std::error_code EC;
    raw_fd_ostream OS(Probe, EC);
    if (EC)
      return makeError(formatv("cannot write {0}: {1}", Probe, EC.message()));
    OS << "define void @wsn_cc_probe() {\n  ret void\n}\n";
  }
  std::string Err;
  Error E = exec("probe wsn-trace pass",
                 {tool("opt"), "-load-pass-plugin=" + Plugin, "-passes=wsn-trace",
                  "-disable-output", Probe},
                 /*Quiet=*/true, &Err);
  if (!E)
    return Error::success();
  std::string Msg = toString(std::move(E));
  if (StringRef(Err).contains("unknown pass name") ||
      StringRef(Err).contains("unknown module pass"))
    return makeError(formatv("wsn-trace pass not available in this build: {0} does not "
                             "register -passes=wsn-trace (the instrumentation has not "
                             "landed); use --no-trace to build the original program",
                             Plugin));
  return makeError(Msg);
}

Expected<ImageSize> measureElf(StringRef Path) {
  auto Bin = object::ObjectFile::createObjectFile(Path);
  if (!Bin)
    return makeError(formatv("{0}: {1}", Path, toString(Bin.takeError())));
  const auto *Elf = dyn_cast<object::ELFObjectFileBase>(Bin->getBinary());
  if (!Elf)
    return makeError(formatv("{0}: not an ELF file", Path));
  ImageSize S;
  for (const object::ELFSectionRef Sec : Elf->sections()) {
    uint64_t F = Sec.getFlags();
    if (!(F & ELF::SHF_ALLOC))
      continue;
    if (Sec.getType() != ELF::SHT_NOBITS)
      S.Flash += Sec.getSize();
    if (F & ELF::SHF_WRITE)
      S.Ram += Sec.getSize();
  }
  return S;
}

Error Pipeline::checkFits(StringRef Elf) {
  auto S = measureElf(Elf);
  if (!S)
    return S.takeError();
  const McuInfo &M = *O.Mcu;
  if (O.Verbose)
    outs() << formatv("{0}: flash {1}/{2} bytes, RAM {3}/{4} bytes ({5})\n", Elf, S->Flash,
                      M.FlashBytes, S->Ram, M.RamBytes, M.Name);
  if (M.FlashBytes && S->Flash > M.FlashBytes)
    return makeError(formatv("{0} does not fit {1}: needs {2} bytes of flash, the MCU has {3}",
                             Elf, M.Name, S->Flash, M.FlashBytes));
  // A traced build with a ring wsn-cc sized is judged by checkRing, which may shrink it.
  bool RingChosen = !O.NoTrace && !O.TraceBuf;
  if (M.RamBytes && S->Ram > M.RamBytes && !RingChosen)
    return makeError(formatv("{0} does not fit {1}: needs {2} bytes of RAM, the MCU has {3}",
                             Elf, M.Name, S->Ram, M.RamBytes));
  return Error::success();
}

Expected<std::string> Pipeline::inlineSelected(StringRef In,
                                               ArrayRef<std::string> AnalysisOpts) {
  // The decision is the analysis's (passes/Inlining.cpp, Eq. 4.1); the pass computes it but
  // does not act on it, so the driver applies it: the chosen functions become internal and
  // always-inline, then always-inline + globaldce run before the instrumentation sees the
  // module. Inlined bodies are thereby instrumented as part of their callers, without LOG 1
  // entry/exit records of their own.
  std::string Json = tmp("pfdg.json");
  std::vector<std::string> Cmd = {tool("opt"), "-load-pass-plugin=" + Plugin,
                                  "-passes=wsn-pfdg", "-wsn-pfdg-json=" + Json};
  llvm::append_range(Cmd, AnalysisOpts);
  llvm::append_range(Cmd, std::vector<std::string>{In.str(), "-disable-output"});
  if (Error E = exec("inlining decision (wsn-pfdg)", Cmd))
    return std::move(E);
  auto Buf = MemoryBuffer::getFile(Json);
  if (!Buf)
    return makeError(formatv("{0}: {1}", Json, Buf.getError().message()));
  Expected<json::Value> Root = json::parse((*Buf)->getBuffer());
  if (!Root)
    return makeError(formatv("{0}: {1}", Json, toString(Root.takeError())));
  std::vector<std::string> Names;
  const json::Array *Fns = Root->getAsObject() ? Root->getAsObject()->getArray("functions")
                                                : nullptr;
  if (!Fns)
    return makeError(formatv("{0}: no \"functions\" array in the PFDG output", Json));
  for (const json::Value &V : *Fns) {
    const json::Object *F = V.getAsObject();
    if (!F)
      continue;
    if (F->getBoolean("inline").value_or(false))
      if (auto N = F->getString("name"))
        Names.push_back(N->str());
  }
  if (O.Verbose) {
    // What the analysis saw (spec/analysis.md sections 1 and 5).
    unsigned Total = 0, Tasks = 0, Handlers = 0, Selected = 0;
    for (const json::Value &V : *Fns)
      if (const json::Object *F = V.getAsObject()) {
        ++Total;
        Tasks += F->getBoolean("task").value_or(false);
        Handlers += F->getBoolean("interrupt").value_or(false);
        Selected += F->getBoolean("selected").value_or(false);
      }
    int64_t Level = Root->getAsObject()->getInteger("level").value_or(1);
    outs() << formatv("wsn-cc: analysis: {0} functions, {1} tasks, {2} interrupt handlers; "
                      "{3} selected at level {4}\n",
                      Total, Tasks, Handlers, Selected, Level);
  }
  if (O.Verbose)
    outs() << "wsn-cc: inlining (Eq. 4.1): "
           << (Names.empty() ? std::string("none") : llvm::join(Names, " ")) << "\n";
  if (Names.empty())
    return In.str();

  LLVMContext Ctx;
  auto Loaded = loadIRFile(In, Ctx);
  if (!Loaded)
    return Loaded.takeError();
  std::unique_ptr<Module> M = std::move(*Loaded);
  for (const std::string &N : Names) {
    Function *F = M->getFunction(N);
    if (!F || F->isDeclaration())
      return makeError(formatv("inlining: the PFDG analysis names @{0}, which is not defined "
                               "in {1}",
                               N, In));
    F->removeFnAttr(Attribute::NoInline);
    F->removeFnAttr(Attribute::OptimizeNone);
    F->addFnAttr(Attribute::AlwaysInline);
    F->setLinkage(GlobalValue::InternalLinkage);
    F->setVisibility(GlobalValue::DefaultVisibility);
  }
  std::string Marked = tmp("inline-marked.bc");
  {
    std::error_code EC;
    raw_fd_ostream OS(Marked, EC, sys::fs::OF_None);
    if (EC)
      return makeError(formatv("cannot write {0}: {1}", Marked, EC.message()));
    WriteBitcodeToFile(*M, OS);
  }
  std::string Inlined = tmp("inlined.bc");
  if (Error E = exec("inline", {tool("opt"), "-passes=always-inline,globaldce", Marked, "-o",
                                Inlined}))
    return std::move(E);
  return Inlined;
}

Expected<std::string> Pipeline::instrument(StringRef Linked) {
  if (Error E = probeTracePass())
    return std::move(E);
  std::string Load = "-load-pass-plugin=" + Plugin;
  std::string Input = Linked.str();

  // Private globals (string literals, clang's constant copies) get no ELF symbol, so the
  // replay lowering could not place them at their firmware addresses (spec/replay.md
  // section 1). Make them internal once, before both the record path and the replay
  // module, so both see the same module (and the same module hash).
  {
    std::string Prepared = tmp("replay-prepared.bc");
    if (Error E = exec("replay prepare", {tool("opt"), Load, "-passes=wsn-replay-prepare",
                                          Input, "-o", Prepared}))
      return std::move(E);
    Input = Prepared;
  }

  // Automatic checks after every write to an invariant's inputs (spec/analysis.md section 8)
  // are a pass of their own; it runs first so that the analysis sees the checks.
  if (!O.CheckAt.empty()) {
    std::string Checked = tmp("checked.bc");
    if (Error E = exec("insert checks", {tool("opt"), Load, "-passes=wsn-insert-checks",
                                         "-wsn-check-at=" + O.CheckAt, Input, "-o", Checked}))
      return std::move(E);
    Input = Checked;
  }

  // Analysis options (spec/analysis.md). --instrument=all has no knob of its own in the pass
  // yet: the largest level selects every function the PFDG reaches from an invariant.
  std::vector<std::string> AnalysisOpts;
  if (O.InstrumentAll)
    AnalysisOpts.push_back("-wsn-level=65535");
  else if (O.Level)
    AnalysisOpts.push_back(formatv("-wsn-level={0}", *O.Level).str());
  if (!O.ErrorPaths.empty())
    AnalysisOpts.push_back("-wsn-error-paths=" + O.ErrorPaths);
  // spec/instrumentation.md section 7.2; with the analysis options so that the segment
  // choice sees the same records as the build.
  if (O.NoReplayComputes)
    AnalysisOpts.push_back("-wsn-replay-computes=false");
  // spec/instrumentation.md section 7.3, the same way.
  if (O.AllEntries) {
    AnalysisOpts.push_back("-wsn-off-no-entry=false");
    AnalysisOpts.push_back("-wsn-uncounted-no-entry=false");
  }

  if (O.Inline) {
    auto In = inlineSelected(Input, AnalysisOpts);
    if (!In)
      return In.takeError();
    Input = *In;
  }

  // Instrumentation options (spec/instrumentation.md section 1): the ring geometry must equal
  // the runtime's, it is recorded in !wsn.module and bounds the record sizes.
  if (!SegChosen) {
    if (Error E = chooseSegment(Input, AnalysisOpts))
      return std::move(E);
    SegChosen = true;
  }
  std::vector<std::string> PassOpts = AnalysisOpts;
  PassOpts.push_back(formatv("-wsn-buf-size={0}", Buf).str());
  PassOpts.push_back(formatv("-wsn-seg-size={0}", Seg).str());

  std::string Replay = O.Out + ".replay.bc";
  std::vector<std::string> Cmd = {tool("opt"), Load, "-passes=wsn-trace",
                                  "-wsn-keep-trace-ops"};
  llvm::append_range(Cmd, PassOpts);
  llvm::append_range(Cmd, std::vector<std::string>{Input, "-o", Replay});
  if (Error E = exec("instrument (replay module)", Cmd))
    return std::move(E);
  warnIfNoChecks(Replay);

  if (Error E = exec("trace map", {tool("opt"), Load, "-passes=wsn-write-map",
                                   "-wsn-map-file=" + O.Out + ".wmap", "-disable-output",
                                   Replay}))
    return std::move(E);

  // The recorded image: the same instrumentation (deterministic, same module hash), lowered.
  std::string Recorded = tmp("instrumented.bc");
  Cmd = {tool("opt"), Load, "-passes=wsn-trace", "-wsn-quiet"};
  llvm::append_range(Cmd, PassOpts);
  llvm::append_range(Cmd, std::vector<std::string>{Input, "-o", Recorded});
  if (Error E = exec("instrument (record lowering)", Cmd))
    return std::move(E);
  return Recorded;
}

/// A program whose invariant checks the optimiser removed (an invariant it
/// proves always true is folded away with its WSN_CHECKs) records no checks:
/// say so instead of building a firmware that tools later refuse.
void Pipeline::warnIfNoChecks(StringRef ReplayModule) {
  LLVMContext Ctx;
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseIRFile(ReplayModule, Diag, Ctx);
  if (!M)
    return; // the map stage reports what is wrong with it
  for (const Function &F : *M)
    if (F.getName().starts_with("wsn.check") && !F.use_empty())
      return;
  errs() << "wsn-cc: warning: no invariant check is left in the program: every WSN_CHECK "
            "was removed, e.g. because the compiler proved its invariant always true; "
            "the firmware records no checks and links no check or violation hook\n";
}

Expected<std::string> Pipeline::wholeProgram(StringRef In) {
  std::string Linked = In.str();
  if (!O.NoTrace) {
    auto Rt = runtimeObjects(/*Bitcode=*/true);
    if (!Rt)
      return Rt.takeError();
    Linked = tmp("whole.bc");
    std::vector<std::string> Cmd = {tool("llvm-link"), In.str()};
    llvm::append_range(Cmd, *Rt);
    llvm::append_range(Cmd, std::vector<std::string>{"-o", Linked});
    if (Error E = exec("llvm-link (whole program)", Cmd))
      return std::move(E);
  }
  // Closed world: only the entry points and the symbols tools read by name stay external:
  // main (called by the reset code), the interrupt handlers (avr-libc's vector table names
  // __vector_N; MSP430 handlers are only referenced from their vector section, which the
  // optimiser does not see), and the runtime symbols of wsn/trace.h. Then the size pipeline.
  std::string Keep = "main,__vector_*,__wsn_trace,__wsn_node_id,__wsn_check_hook,"
                     "__wsn_violation_hook,__wsn_module_hash,__wsn_gv_reference";
  {
    LLVMContext Ctx;
    auto Loaded = loadIRFile(Linked, Ctx);
    if (!Loaded)
      return Loaded.takeError();
    std::unique_ptr<Module> M = std::move(*Loaded);
    for (const Function &F : *M) {
      CallingConv::ID CC = F.getCallingConv();
      bool Handler = F.hasFnAttribute("interrupt") || F.hasFnAttribute("signal") ||
                     CC == CallingConv::MSP430_INTR || CC == CallingConv::AVR_INTR ||
                     CC == CallingConv::AVR_SIGNAL;
      if (Handler && !F.isDeclaration())
        Keep += "," + F.getName().str();
    }
  }
  std::string Opt = tmp("whole-opt.bc");
  std::string Level = O.OptLevel == "0" ? "O0" : "O" + O.OptLevel;
  if (Error E = exec("whole-program optimisation",
                     {tool("opt"), "-passes=internalize,default<" + Level + ">",
                      "-internalize-public-api-list=" + Keep, Linked, "-o", Opt}))
    return std::move(E);
  return Opt;
}

Error Pipeline::run() {
  if (Error E = locateTools())
    return E;

  // Work directory.
  if (O.SaveTemps) {
    Tmp.Path = O.Out + ".wsn-tmp";
    Tmp.Keep = true;
    if (std::error_code EC = sys::fs::create_directories(Tmp.Path))
      return makeError(formatv("cannot create {0}: {1}", Tmp.Path, EC.message()));
  } else if (std::error_code EC = sys::fs::createUniqueDirectory("wsn-cc", Tmp.Path)) {
    return makeError(formatv("cannot create a temporary directory: {0}", EC.message()));
  }
  SmallString<128> OutDir(sys::path::parent_path(O.Out));
  if (!OutDir.empty())
    if (std::error_code EC = sys::fs::create_directories(OutDir))
      return makeError(formatv("cannot create output directory {0}: {1}", OutDir,
                               EC.message()));

  // 1. clang -emit-llvm, one module per source.
  std::vector<std::string> Bitcode;
  std::optional<PeriphSymbolMap> Periph; // MSP430: the MCU's periph.x, read once
  for (size_t I = 0; I < O.Sources.size(); ++I) {
    const std::string &S = O.Sources[I];
    std::string BC = tmp(formatv("{0}-{1}.bc", I, sys::path::stem(S)));
    std::vector<std::string> Cmd = {tool("clang")};
    llvm::append_range(Cmd, targetCFlags());
    Cmd.push_back("-O" + O.OptLevel);
    // The analysis must see the program as written: at -Os clang would inline every nesC
    // task into the scheduler's dispatcher before wsn-trace runs. So clang only emits IR
    // (with the -O level's function attributes); the optimiser runs after the
    // instrumentation (stage 3a). At -O0 keep the code transformable by the passes.
    if (O.OptLevel == "0")
      llvm::append_range(Cmd, std::vector<std::string>{"-Xclang", "-disable-O0-optnone"});
    else
      llvm::append_range(Cmd, std::vector<std::string>{"-Xclang", "-disable-llvm-passes"});
    // AVR: avr-libc's __progmem__ (PROGMEM, PSTR, prog_* typedefs), which clang ignores,
    // becomes a tag in the debug info that the wsn-progmem pass turns into section
    // .progmem.data after linking (passes/Progmem.cpp); the debug info goes again unless -g.
    const bool Progmem = O.Target == TargetKind::AVR;
    Cmd.push_back(O.Debug || Progmem ? "-g" : "-g0");
    if (Progmem)
      Cmd.push_back("-D__progmem__=btf_decl_tag(\"wsn.progmem\")");
    Cmd.push_back("-I" + src("trace-runtime/include"));
    bool Mspgcc = false;
    if (O.Target == TargetKind::MSP430) {
      auto Mspgc = usesMspgccDialect(S);
      if (!Mspgc)
        return Mspgc.takeError();
      Mspgcc = *Mspgc;
    }
    if (Mspgcc)
      llvm::append_range(Cmd, mspgccClangFlags(src("trace-runtime/include")));
    llvm::append_range(Cmd, O.CFlags);
    llvm::append_range(Cmd, std::vector<std::string>{"-emit-llvm", "-c", S, "-o", BC});
    if (Error E = exec(formatv("compile {0}", S).str(), Cmd))
      return E;
    // MSP430 registers declared as linker symbols (`extern volatile T X __asm("__X")`, as
    // msp430mcu's headers and nesC's telosb output write them) become the constant address
    // the MCU's periph.x gives them, in either dialect (PeriphSymbols.h).
    if (O.Target == TargetKind::MSP430) {
      if (!Periph) {
        std::string Path =
            (Twine("/usr/msp430/lib/ldscripts/") + O.Mcu->Name + "/periph.x").str();
        if (!sys::fs::exists(Path))
          return makeError(formatv("{0} not found (install msp430mcu)", Path));
        auto Syms = readPeriphSymbols(Path);
        if (!Syms)
          return Syms.takeError();
        Periph = std::move(*Syms);
      }
      if (Error E = rewriteBitcodeFile(BC, [&](Module &M) -> Error {
            if (Mspgcc)
              if (Error E = applyMspgccDialect(M, *O.Mcu, S))
                return E;
            bindPeriphSymbols(M, *Periph);
            return Error::success();
          }))
        return E;
    }
    Bitcode.push_back(BC);
  }

  // 2. llvm-link.
  std::string Linked = tmp("linked.bc");
  {
    std::vector<std::string> Cmd = {tool("llvm-link")};
    llvm::append_range(Cmd, Bitcode);
    llvm::append_range(Cmd, std::vector<std::string>{"-o", Linked});
    if (Error E = exec("llvm-link", Cmd))
      return E;
  }

  // 2a. AVR program memory: tagged globals into .progmem.data (see step 1).
  if (O.Target == TargetKind::AVR) {
    std::string Placed = tmp("progmem.bc");
    std::vector<std::string> Cmd = {tool("opt"), "-load-pass-plugin=" + Plugin,
                                    "-passes=wsn-progmem"};
    if (!O.Debug)
      Cmd.push_back("-wsn-progmem-strip-debug");
    llvm::append_range(Cmd, std::vector<std::string>{Linked, "-o", Placed});
    if (Error E = exec("program memory", Cmd))
      return E;
    Linked = Placed;
  }

  // 2b. The pre-instrumentation pipeline (passes/PreInstrument.h): tasks, handlers,
  // invariants and the functions that check them stay functions of their own, small
  // helpers are inlined, locals go to registers. The original (--no-trace) gets the
  // same pipeline, so that the sizes compare.
  if (O.OptLevel != "0") {
    std::string Clean = tmp("pre-instrument.bc");
    if (Error E = exec("pre-instrument",
                       {tool("opt"), "-load-pass-plugin=" + Plugin,
                        "-passes=wsn-pre-instrument<O" + O.OptLevel + ">", Linked, "-o",
                        Clean}))
      return E;
    Linked = Clean;
  }

  if (Error E = buildImage(Linked))
    return E;
  if (O.NoTrace || O.Target == TargetKind::Host)
    return Error::success();
  // The ring shrinks (at most once more) when the program leaves less RAM than planned.
  auto Again = checkRing(O.Out + ".elf");
  if (!Again)
    return Again.takeError();
  if (*Again) {
    if (Error E = buildImage(Linked))
      return E;
    auto Still = checkRing(O.Out + ".elf");
    if (!Still)
      return Still.takeError();
  }
  return Error::success();
}

Error Pipeline::buildImage(StringRef Linked) {
  // 3. Instrumentation (thesis chapter 4: slice from the invariants, select and instrument),
  // once keeping the trace ops (the replay module) and once lowered for recording.
  std::string ToCodegen = Linked.str();
  if (!O.NoTrace) {
    auto Rec = instrument(Linked);
    if (!Rec)
      return Rec.takeError();
    ToCodegen = *Rec;
  }

  // 3a. The optimiser at the requested level, on the lowered (recorded) module or the
  // original. The replay module was written before this step from the same instrumented
  // IR; the optimiser keeps every record in place: the records are calls of external
  // runtime functions and the regions are asm volatile statements with memory clobbers
  // (spec/instrumentation.md section 10). --whole-program optimises in its own step.
  if (O.OptLevel != "0" && !(O.WholeProgram && O.Target != TargetKind::Host)) {
    std::string Optimised = tmp("optimised.bc");
    if (Error E = exec("optimise", {tool("opt"), "-passes=default<O" + O.OptLevel + ">",
                                    ToCodegen, "-o", Optimised}))
      return E;
    ToCodegen = Optimised;
  }

  // 3b. --whole-program: program (+ runtime) as one module, internalized and size-optimised.
  bool RuntimeInModule = false;
  if (O.WholeProgram && O.Target != TargetKind::Host) {
    auto WP = wholeProgram(ToCodegen);
    if (!WP)
      return WP.takeError();
    ToCodegen = *WP;
    RuntimeInModule = !O.NoTrace;
  }

  // 3c. MSP430: note the handlers the vector table must hold, and give `wakeup` handlers
  // their entry (mote side only: the replay module keeps them as written).
  std::vector<VectorEntry> Vectors;
  if (O.Target == TargetKind::MSP430) {
    if (ToCodegen == Linked) { // do not edit the linked module in place: replay reads it
      std::string Copy = tmp("mote.bc");
      if (std::error_code EC = sys::fs::copy_file(Linked, Copy))
        return makeError(formatv("cannot copy {0}: {1}", Linked, EC.message()));
      ToCodegen = Copy;
    }
    if (Error E = rewriteBitcodeFile(ToCodegen, [&](Module &M) -> Error {
          Vectors = interruptVectors(M);
          return lowerWakeupHandlers(M).takeError();
        }))
      return E;
  }

  // 4. llc.
  std::string AppObj = tmp("app.o");
  {
    std::string L = O.OptLevel == "s" || O.OptLevel == "z" ? "2" : O.OptLevel;
    std::vector<std::string> Cmd = {tool("llc"), "-O" + L, "-filetype=obj"};
    llvm::append_range(Cmd, llcTargetFlags());
    llvm::append_range(Cmd, std::vector<std::string>{ToCodegen, "-o", AppObj});
    std::string Err;
    if (Error E = exec("llc", Cmd, /*Quiet=*/false, &Err)) {
      // LLVM 19's AVR backend at -O0 (the fast register allocator) can run
      // out of registers on code the optimising allocator handles (seen on
      // instrumented programs from bench/fidelity/progfuzz.py). Say so and
      // generate code with llc -O1; the IR itself is unchanged.
      if (L != "0" || O.Target != TargetKind::AVR ||
          Err.find("ran out of registers") == std::string::npos)
        return E;
      consumeError(std::move(E));
      errs() << "wsn-cc: warning: llc -O0 ran out of AVR registers (LLVM's fast "
                "register allocator); generating code with llc -O1 instead\n";
      Cmd[1] = "-O1";
      if (Error E2 = exec("llc", Cmd))
        return E2;
    }
  }

  // 5. Runtime and platform objects.
  std::vector<std::string> Objs = {AppObj};
  if (!O.NoTrace && !RuntimeInModule) {
    auto Rt = runtimeObjects();
    if (!Rt)
      return Rt.takeError();
    llvm::append_range(Objs, *Rt);
  }
  auto Plat = platformObjects();
  if (!Plat)
    return Plat.takeError();
  llvm::append_range(Objs, *Plat);

  // 6. Link.
  std::string Image = O.Target == TargetKind::Host ? O.Out : O.Out + ".elf";
  std::vector<std::string> Cmd;
  switch (O.Target) {
  case TargetKind::AVR: {
    auto Gcc = sys::findProgramByName("avr-gcc");
    if (!Gcc)
      return makeError("avr-gcc not found on PATH (install gcc-avr and avr-libc): it links "
                       "AVR images against avr-libc");
    Cmd = {*Gcc, std::string("-mmcu=") + O.Mcu->Name, "-Wl,--gc-sections"};
    // A ring wsn-cc sized may overflow RAM on the first try: let the link through (the
    // data region of avr-libc's script is otherwise the MCU's RAM) so that checkRing can
    // measure the image and shrink the ring or say what would fit.
    if (!O.NoTrace && !O.TraceBuf)
      Cmd.push_back("-Wl,--defsym=__DATA_REGION_LENGTH__=0xff00");
    break;
  }
  case TargetKind::MSP430: {
    std::string Ld = src(formatv("trace-runtime/platform/msp430/{0}.ld", O.Mcu->LdFamily));
    std::string Frag = (Twine("/usr/msp430/lib/ldscripts/") + O.Mcu->Name).str();
    if (!sys::fs::exists(Frag + "/memory.x"))
      return makeError(formatv("{0}/memory.x not found (install msp430mcu)", Frag));
    Cmd = {tool("ld.lld"), "--gc-sections", "-T", Ld, "-L", Frag};
    break;
  }
  case TargetKind::Host:
    Cmd = {tool("clang")};
    break;
  }
  llvm::append_range(Cmd, Objs);
  llvm::append_range(Cmd, std::vector<std::string>{"-o", Image});
  if (Error E = exec("link", Cmd))
    return E;

  // 7. The replay IR's BLAKE3 hash, in a section the mote never loads (not SHF_ALLOC):
  // wsn-replay checks that the IR it is given is the one built with this image
  // (spec/replay.md section 6).
  if (!O.NoTrace) {
    std::string Replay = O.Out + ".replay.bc";
    auto Buf = MemoryBuffer::getFile(Replay, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!Buf)
      return makeError(Replay + ": " + Buf.getError().message());
    std::array<uint8_t, 32> H = BLAKE3::hash<32>(arrayRefFromStringRef((*Buf)->getBuffer()));
    std::string HashFile = tmp("replay-ir.blake3");
    {
      std::error_code EC;
      raw_fd_ostream OS(HashFile, EC);
      if (EC)
        return makeError(HashFile + ": " + EC.message());
      OS.write(reinterpret_cast<const char *>(H.data()), H.size());
    }
    if (Error E = exec("replay IR hash", {tool("llvm-objcopy"), "--add-section",
                                          ".wsn.replay_ir=" + HashFile, Image}))
      return E;
  }

  if (O.Target == TargetKind::MSP430)
    if (Error E = checkVectorTable(Image, *O.Mcu, Vectors))
      return E;
  if (O.Target != TargetKind::Host)
    return checkFits(Image);
  return Error::success();
}

Error Pipeline::chooseSegment(StringRef Input, ArrayRef<std::string> AnalysisOpts) {
  if (O.TraceSeg) {
    Seg = *O.TraceSeg;
  } else {
    // The instrumentation once with the largest geometry the runtime allows, only to learn
    // the largest record it would write (-wsn-stats prints it).
    std::vector<std::string> Cmd = {tool("opt"), "-load-pass-plugin=" + Plugin,
                                    "-passes=wsn-trace", "-wsn-keep-trace-ops", "-wsn-stats",
                                    "-wsn-quiet", "-wsn-seg-size=16384", "-wsn-buf-size=32768"};
    llvm::append_range(Cmd, AnalysisOpts);
    llvm::append_range(Cmd, std::vector<std::string>{Input.str(), "-disable-output"});
    std::string Err;
    if (Error E = exec("trace geometry (largest record)", Cmd, /*Quiet=*/true, &Err))
      return E;
    StringRef Line = StringRef(Err).split("largest-record=").second;
    if (Line.empty() || Line.consumeInteger(10, LargestRecord))
      return makeError("trace geometry: the instrumentation did not report its largest "
                       "record (wsn-trace -wsn-stats)");
    LargestRecordWhat = Line.split('\n').first.trim().trim("()").str();
    uint64_t Need = LargestRecord + 8;
    // 256 keeps the runtime's hand-written AVR/MSP430 record path. Up to 512, 512: the
    // runtime's C path computes `head % seg`, a library division on the AVR unless the
    // segment is a power of two (RadioCountToLeds at 384: a fifth of the trace's added
    // active cycles in __udivmodhi4), and two of them still make a 1 KiB ring. Larger
    // segments are rounded to 32 bytes.
    Seg = Need <= 256   ? 256
          : Need <= 512 ? 512
                        : static_cast<unsigned>(alignTo(Need, 32));
  }
  if (O.TraceBuf) {
    Buf = *O.TraceBuf;
    if (Buf % Seg != 0 || Buf < 2 * Seg)
      return makeError(formatv(
          "--trace-buf={0}: the ring must be a multiple of the trace segment ({1} bytes{2}) "
          "and hold at least two; e.g. --trace-buf={3}",
          Buf, Seg,
          O.TraceSeg ? std::string()
                     : formatv(", chosen for the largest record: {0} bytes, {1}",
                               LargestRecord, LargestRecordWhat)
                           .str(),
          std::max(2 * Seg, Buf / Seg * Seg)));
  } else {
    unsigned N = std::max(2u, kRingTarget / Seg);
    while (N > 2 && N * Seg > 0x8000)
      --N;
    Buf = N * Seg;
  }
  if (Buf > 0x8000)
    return makeError(formatv("trace geometry: the largest record ({0} bytes, {1}) needs "
                             "segments of {2} bytes; two of them exceed the runtime's 32 KiB "
                             "ring limit; instrument less (--level, --error-paths)",
                             LargestRecord, LargestRecordWhat, Seg));
  return Error::success();
}

Expected<bool> Pipeline::checkRing(StringRef Elf) {
  auto S = measureElf(Elf);
  if (!S)
    return S.takeError();
  const McuInfo &M = *O.Mcu;
  std::string Why = O.TraceSeg ? std::string("--trace-seg")
                               : formatv("largest record {0} bytes: {1}", LargestRecord,
                                         LargestRecordWhat)
                                     .str();
  // --trace-buf=max:STACK sets the stack's share; otherwise wsn-cc's reserve.
  const unsigned Reserve = O.TraceBufMax && O.MaxStack ? *O.MaxStack : kStackReserve;
  unsigned N = Buf / Seg;
  uint64_t Left = M.RamBytes > S->Ram ? M.RamBytes - S->Ram : 0;
  if (O.TraceBufMax && M.RamBytes) {
    // The trace object is its 32-byte header, the ring and a 2-byte check value per segment
    // (spec/trace-format.md section 1): each segment more takes Seg + 2 bytes of RAM.
    uint64_t Rest = S->Ram - uint64_t(N) * (Seg + 2);
    uint64_t Room = M.RamBytes > Rest + Reserve ? M.RamBytes - Rest - Reserve : 0;
    auto MaxFor = [&](unsigned Sz) {
      return static_cast<unsigned>(std::min<uint64_t>(Room / (Sz + 2), 0x8000 / Sz));
    };
    unsigned Max = MaxFor(Seg);
    unsigned NewSeg = Seg;
    const bool Weigh = !O.TraceSeg && !MaxSegChosen && Max >= 2;
    MaxSegChosen = true; // only at the first link: the rebuilt image is not weighed again
    if (Weigh) {
      // Larger segments for a large ring (spec/wsn-cc.md "Ring"): every segment starts with
      // a checkpoint, and the retained tail is every segment but the one being written, so
      // a ring of n segments of s bytes keeps about (n - 1) * (s - E) bytes of other records,
      // E a segment's checkpoint. Packed (spec/trace-format.md 3.2), a checkpoint takes a
      // third to a half of its plain size on the nesC applications, so E is taken as half the
      // largest record. Candidates: the chosen segment and the powers of two above it (the
      // runtime's assembly record path); the largest kept share wins, the smaller segment
      // on a tie. Measured (bench/tracesize, 3 s, seeds 1-3): TelosB
      // RadioCountToLedsWithSenderID 18 x 512 -> 8 x 1024 bytes, coverage 2.162 -> 2.536 s;
      // the MicaZ applications keep theirs, where 1024-byte segments covered less.
      const uint64_t E = LargestRecord / 2;
      auto Kept = [&](unsigned Sz) -> uint64_t {
        unsigned K = MaxFor(Sz);
        return K >= 2 && Sz > E ? uint64_t(K - 1) * (Sz - E) : 0;
      };
      uint64_t Best = Kept(Seg);
      unsigned First = 256;
      while (First <= Seg)
        First *= 2;
      for (unsigned Sz = First; Sz <= 16384; Sz *= 2)
        if (Kept(Sz) > Best) {
          Best = Kept(Sz);
          NewSeg = Sz;
        }
    }
    if (NewSeg != Seg) {
      unsigned K = MaxFor(NewSeg);
      outs() << formatv("wsn-cc: trace geometry: --trace-buf=max: {0} segments of {1} bytes "
                        "leave the {2}-byte stack reserve and, with a checkpoint in each, "
                        "keep more of the run than {3} of {4} bytes; building again with a "
                        "ring of {5} bytes (was {6})\n",
                        K, NewSeg, Reserve, Max, Seg, K * NewSeg, Buf);
      Seg = NewSeg;
      Buf = K * NewSeg;
      return true;
    }
    if (Max >= 2 && Max != N) {
      outs() << formatv("wsn-cc: trace geometry: --trace-buf=max: {0} segments of {1} bytes "
                        "leave the {2}-byte stack reserve; building again with a ring of {3} "
                        "bytes (was {4})\n",
                        Max, Seg, Reserve, Max * Seg, Buf);
      Buf = Max * Seg;
      return true;
    }
  }
  if (!M.RamBytes || Left >= Reserve || O.TraceBuf) {
    outs() << formatv("wsn-cc: trace geometry: segment {0} bytes ({1}), ring {2} bytes ({3} "
                      "segments); RAM {4} of {5} bytes, {6} left for the stack\n",
                      Seg, Why, Buf, N, S->Ram, M.RamBytes, Left);
    return false;
  }
  // Give back whole segments until the stack reserve is free again.
  uint64_t Short = Reserve - Left;
  unsigned Drop = static_cast<unsigned>((Short + Seg - 1) / Seg);
  if (N >= Drop + 2 && Buf != (N - Drop) * Seg) {
    unsigned NewBuf = (N - Drop) * Seg;
    outs() << formatv("wsn-cc: trace geometry: a ring of {0} bytes leaves {1} bytes of RAM "
                      "for the stack (under the {2}-byte reserve); building again with {3} "
                      "bytes ({4} segments)\n",
                      Buf, Left, Reserve, NewBuf, N - Drop);
    Buf = NewBuf;
    return true;
  }
  uint64_t Program = S->Ram - Buf; // what the program and the runtime take besides the ring
  uint64_t Fits = M.RamBytes > Program + Reserve ? M.RamBytes - Program - Reserve
                                                       : 0;
  // Only MCUs of the same target with more RAM are worth naming (atmega128 -> atmega1281);
  // the largest one has none.
  std::string Bigger;
  for (const McuInfo &Other : allMcus())
    if (Other.Kind == M.Kind && Other.RamBytes > M.RamBytes)
      Bigger += formatv("{0}{1}: {2} bytes", Bigger.empty() ? "" : ", ", Other.Name,
                        Other.RamBytes)
                    .str();
  return makeError(formatv(
      "the trace does not fit {0}'s {1} bytes of RAM: the program and the trace runtime take "
      "{2} bytes besides the ring, the stack needs a reserve of {3}, and the smallest ring is "
      "two segments of {4} bytes ({5}). {6} bytes are left for the ring: that fits records "
      "of at most {7} bytes. Instrument less (a lower --level, --error-paths){8}",
      M.Name, M.RamBytes, Program, Reserve, Seg, Why, Fits,
      Fits / 2 >= 24 ? Fits / 2 - 8 : 0,
      Bigger.empty() ? std::string()
                     : ", or build for an MCU with more RAM (" + Bigger + ")"));
}

Error runDriver(const Options &Opts, const char *Argv0) {
  Pipeline P(Opts, Argv0);
  Error E = P.run();
  if (E) {
    // A failed build leaves no outputs: a replay module, map or image from a half-finished
    // build (or an older one beside it) would not belong together.
    std::string Image = Opts.Target == TargetKind::Host ? Opts.Out : Opts.Out + ".elf";
    for (const std::string &F : {Image, Opts.Out + ".replay.bc", Opts.Out + ".wmap"})
      sys::fs::remove(F);
  }
  return E;
}

} // namespace wsncc
