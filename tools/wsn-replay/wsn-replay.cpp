//===- wsn-replay.cpp - replay a recorded mote execution on the host -------===//
//
// wsn-replay FW.replay.bc --trace T.wtr --elf FW.elf [--map FW.wmap]
//            [--stop-after-checks K] [--expect-sram SRAM.bin] [--json] [-i]
// wsn-replay net DIR [...]   (several nodes of a network run: NetReplay.h)
//
// Lowers the instrumented mote IR with wsn-lower<replay> (the mote memory
// model), runs it under ORC LLJIT fed by the trace from its earliest
// checkpoint (thesis section 4.2), and reports where it stopped: the
// violation, the K-th check, or the end of the trace. Without --trace, runs a
// plain program from main (the memory-model oracle of spec/replay.md).
//
// Exit codes: 0 reproduced (and the snapshot matches), 1 not reproduced (the
// replay ended elsewhere, a snapshot mismatch, a replay-time error or a
// timeout), 2 bad input, 3 the replay diverged from the trace.
//
//===----------------------------------------------------------------------===//
#include "AddedChecks.h"
#include "ErrorPaths.h"
#include "NetReplay.h"
#include "Repl.h"
#include "ReplayReport.h"

#include "ModuleHash.h"
#include "Preprocessor.h"
#include "ReplayEngine.h"
#include "ReplayStartCache.h"
#include "TraceMap.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace llvm;

static cl::OptionCategory Cat("wsn-replay options");
static cl::opt<std::string> Input(cl::Positional, cl::desc("<FW.replay.bc>"), cl::Required,
                                  cl::cat(Cat));
static cl::opt<std::string> TracePath("trace", cl::desc("the recorded trace (.wtr)"),
                                      cl::cat(Cat));
static cl::opt<std::string> Elf("elf", cl::desc("firmware ELF giving the addresses"),
                                cl::cat(Cat));
static cl::opt<std::string> MapPath("map",
                                    cl::desc("trace map (.wmap); default: built from the IR"),
                                    cl::cat(Cat));
static cl::opt<unsigned> StopAfterChecks(
    "stop-after-checks", cl::init(0),
    cl::desc("stop at the K-th invariant check since reset (as wsn-sim --stop-after-checks)"),
    cl::cat(Cat));
static cl::opt<std::string> ExpectSram(
    "expect-sram",
    cl::desc("compare the checkpointed (sliced) globals with this data-space dump"),
    cl::cat(Cat));
static cl::opt<bool> Json("json", cl::desc("print the result as one JSON object"),
                          cl::cat(Cat));
static cl::opt<bool> Interactive("i", cl::desc("interactive REPL"), cl::cat(Cat));
static cl::opt<std::string> MCU("mcu", cl::desc("mote MCU (default: from the IR)"),
                                cl::cat(Cat));
static cl::opt<std::string> StopAt("stop-at", cl::desc("stop when this function is entered"),
                                   cl::cat(Cat));
static cl::opt<std::string> Entry("entry", cl::init("main"),
                                  cl::desc("entry function (without --trace)"), cl::cat(Cat));
static cl::opt<std::string> DumpMem("dump-mem",
                                    cl::desc("write the replay data space (64 KiB) here"),
                                    cl::cat(Cat));
static cl::opt<std::string> Snapshot("compare-snapshot",
                                     cl::desc("compare every global with this data-space dump"),
                                     cl::cat(Cat));
static cl::opt<std::string> EmitLowered("emit-lowered",
                                        cl::desc("write the lowered host IR here"),
                                        cl::cat(Cat));
static cl::opt<bool> PrintLayout("print-layout", cl::desc("print the placement of globals"),
                                 cl::cat(Cat));
static cl::opt<bool> AllowIO("allow-untraced-io",
                             cl::desc("let untraced I/O reads read the replay memory"),
                             cl::cat(Cat));
static cl::opt<bool> LiveEvents(
    "live-events",
    cl::desc("consume every record through its callback, building the events as the "
             "program runs (the REPL's mode; the default consumes the common records "
             "inline)"),
    cl::cat(Cat));
static cl::opt<std::string> JitCache(
    "jit-cache",
    cl::desc("directory of compiled replay code, keyed by the lowered program's content "
             "(default: $XDG_CACHE_HOME/wsn-trace/jit or ~/.cache/wsn-trace/jit)"),
    cl::value_desc("DIR"), cl::cat(Cat));
static cl::opt<bool> NoJitCache("no-jit-cache",
                                cl::desc("compile the replay code every time"), cl::cat(Cat));
static cl::opt<bool> Gdb("gdb", cl::desc("register JIT'd code with gdb"), cl::cat(Cat));
static cl::opt<unsigned> Timeout("timeout", cl::init(60),
                                 cl::desc("wall-clock limit in seconds (0: none)"),
                                 cl::cat(Cat));
static cl::opt<unsigned> MaxEvents("events", cl::init(16),
                                   cl::desc("interleaving events shown in the report"),
                                   cl::cat(Cat));

static cl::list<std::string> CheckSpecs(
    "check",
    cl::desc("'NAME: EXPR': a C expression over the program's globals, compiled into the "
             "replay module and evaluated after every event; replay stops where it is "
             "first false (repeatable)"),
    cl::value_desc("NAME: EXPR"), cl::cat(Cat));
static cl::opt<std::string> CheckAt(
    "check-at",
    cl::desc("evaluate the --check expressions only at the entry and exit events of this "
             "instrumented function or interrupt handler"),
    cl::value_desc("FUNC"), cl::cat(Cat));
static cl::opt<std::string> EmitErrorPaths(
    "emit-error-paths",
    cl::desc("write the error-propagation paths the replay observed (from the violation "
             "or failed --check back to the last writers of what it read) in wsn-cc's "
             "--error-paths format; wsn-cc --next-level=FILE builds the next level"),
    cl::value_desc("FILE"), cl::cat(Cat));

namespace {
enum ExitCode {
  Reproduced = 0,
  NotReproduced = 1,
  BadInput = 2,
  Diverged = 3,
  CheckFailed = 4
};

[[noreturn]] void badInput(const Twine &Msg) {
  if (Json) {
    json::Object O{{"status", "error"}, {"message", Msg.str()}};
    outs() << formatv("{0:2}", json::Value(std::move(O))) << "\n";
  }
  errs() << "wsn-replay: " << Msg << "\n";
  exit(BadInput);
}

std::vector<uint8_t> readFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!Buf)
    badInput(Path + ": " + Buf.getError().message());
  return std::vector<uint8_t>((*Buf)->getBufferStart(), (*Buf)->getBufferEnd());
}

/// What a traced image says about the program it was built from: its module
/// hash (`__wsn_module_hash`) and the BLAKE3 hash of the replay IR wsn-cc built
/// with it (section `.wsn.replay_ir`; older images have none).
struct ImageIds {
  std::optional<uint32_t> ModuleHash;
  std::optional<std::string> ReplayIRHash;
};

ImageIds readImageIds(StringRef Path) {
  auto Bin = object::ObjectFile::createObjectFile(Path);
  if (!Bin) {
    std::string Msg = toString(Bin.takeError());
    badInput(Path + ": " + Msg);
  }
  object::ObjectFile &Obj = *Bin->getBinary();
  ImageIds Ids;
  for (const object::SymbolRef &Sym : Obj.symbols()) {
    Expected<StringRef> Name = Sym.getName();
    if (!Name || *Name != "__wsn_module_hash") {
      if (!Name)
        consumeError(Name.takeError());
      continue;
    }
    Expected<uint64_t> Addr = Sym.getAddress();
    Expected<object::section_iterator> Sec = Sym.getSection();
    if (!Addr || !Sec || *Sec == Obj.section_end()) {
      consumeError(Addr.takeError());
      consumeError(Sec.takeError());
      break;
    }
    Expected<StringRef> Data = (*Sec)->getContents();
    if (!Data) {
      consumeError(Data.takeError());
      break;
    }
    uint64_t Off = *Addr - (*Sec)->getAddress();
    if (Off + 4 > Data->size())
      break;
    const uint8_t *B = reinterpret_cast<const uint8_t *>(Data->data()) + Off;
    Ids.ModuleHash =
        uint32_t(B[0]) | uint32_t(B[1]) << 8 | uint32_t(B[2]) << 16 | uint32_t(B[3]) << 24;
    break;
  }
  for (const object::SectionRef &Sec : Obj.sections()) {
    Expected<StringRef> Name = Sec.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (*Name != ".wsn.replay_ir")
      continue;
    Expected<StringRef> Data = Sec.getContents();
    if (!Data) {
      consumeError(Data.takeError());
      Ids.ReplayIRHash = std::string();
    } else {
      Ids.ReplayIRHash = Data->str();
    }
    break;
  }
  return Ids;
}

/// The K-th check since reset: the trace header counts every check the mote
/// made, so the last CHECK/VIOLATION record of the tail is check number
/// Header.Checks.
void applyStopAfterChecks(wsn::PreprocessedTrace &P, unsigned K) {
  std::vector<size_t> Checks;
  for (size_t I = 0; I < P.Records.size(); ++I)
    if (P.Records[I].Kind == wsn::RecordKind::Check ||
        P.Records[I].Kind == wsn::RecordKind::Violation)
      Checks.push_back(I);
  uint32_t Total = P.Header.Checks;
  if (Checks.empty() || K > Total)
    badInput(TracePath + ": --stop-after-checks " + Twine(K) + ": the trace records " +
             Twine(Total) + " check(s) in all");
  uint64_t Back = Total - K;
  if (Back >= Checks.size() || Checks[Checks.size() - 1 - Back] < P.Start) {
    uint64_t FirstNo = Total - Checks.size() + 1;
    size_t FirstReplayable = 0;
    while (FirstReplayable < Checks.size() && Checks[FirstReplayable] < P.Start)
      ++FirstReplayable;
    badInput(TracePath + ": --stop-after-checks " + Twine(K) +
             ": check " + Twine(K) + " is not in the replayable part of the trace (it " +
             "retains checks " + Twine(FirstNo) + ".." + Twine(Total) +
             ", replay starts at record " + Twine(P.Start) + " before check " +
             Twine(FirstNo + FirstReplayable) + ")");
  }
  size_t Idx = Checks[Checks.size() - 1 - Back];
  if (P.Coverage.Stop != wsn::StopKind::End && Idx > P.Coverage.StopRecord)
    badInput(TracePath + ": --stop-after-checks " + Twine(K) +
             ": the trace stops earlier, at record " + Twine(P.Coverage.StopRecord));
  P.Coverage.StopRecord = Idx;
  P.Coverage.Stop = P.Records[Idx].Kind == wsn::RecordKind::Violation
                        ? wsn::StopKind::Violation
                        : wsn::StopKind::LastCheck;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // `wsn-replay net DIR ...`: a network run (NetReplay.h).
  if (argc >= 2 && StringRef(argv[1]) == "net")
    return wsn::netReplayMain(argc - 1, argv + 1);
  cl::HideUnrelatedOptions(Cat);
  // Usage errors exit 2 (bad input), not cl's 1 (here: "not reproduced").
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "wsn-trace replay: run a recorded mote execution on the host\n",
                                   &errs()))
    return BadInput;
  auto T0 = std::chrono::steady_clock::now();

  wsn::ReplayLoweringOptions LO;
  LO.ElfPath = Elf;
  LO.MCU = MCU;
  LO.StopAt = StopAt;
  LO.AllowUntracedIO = AllowIO;
  // The REPL's `why` and the error paths need the store watch (the last
  // writer of each byte) and live event numbers.
  LO.WatchStores = Interactive || !EmitErrorPaths.empty();
  LO.FramePointers = Gdb;
  wsn::ReplayRunOptions RO;
  RO.Entry = Entry;
  RO.TimeoutSeconds = Timeout;
  RO.DebuggerSupport = Gdb;
  if (!NoJitCache)
    RO.JitCacheDir = JitCache.empty() ? wsn::defaultJitCacheDir() : std::string(JitCache);
  RO.LiveEvents = LiveEvents || Interactive || !EmitErrorPaths.empty(); // the REPL's breakpoints and `why`

  // The program's own trace map (and module hash) from the replay IR, or from
  // the start cache, which then also gives the runner (spec/replay.md
  // section 8): no parsing, lowering or compiling.
  std::optional<wsn::TraceMap> Map;
  std::optional<wsn::ParsedProgram> Program;
  std::unique_ptr<wsn::ReplayStartCache> Start;
  std::unique_ptr<wsn::ReplayRunner> Runner;
  std::optional<wsn::TraceMap> ProgramMap; // for the start record
  if (!TracePath.empty()) {
    if (!Interactive && EmitLowered.empty() && !Elf.empty() && CheckSpecs.empty() &&
        EmitErrorPaths.empty())
      Start = wsn::ReplayStartCache::open(Input, LO, RO);
    uint32_t ProgramHash = 0;
    if (Start)
      if (std::optional<wsn::ReplayStartCache::Hit> H = Start->lookup(RO)) {
        if (MapPath.empty()) {
          // The record's map was checked to read back when it was written; a
          // record damaged since is a miss.
          auto FromCache = wsn::TraceMap::parseJSON(H->MapJSON, Input);
          if (FromCache)
            Map = std::move(*FromCache);
          else
            consumeError(FromCache.takeError());
        }
        if (!MapPath.empty() || Map) {
          Runner = std::move(H->Runner);
          ProgramHash = H->ModuleHash;
          // The program's own map, to check a --map file against (below).
          if (!MapPath.empty()) {
            auto Own = wsn::TraceMap::parseJSON(H->MapJSON, Input);
            if (Own)
              ProgramMap = std::move(*Own);
            else
              consumeError(Own.takeError());
          }
        }
      }
    if (!Runner) {
      auto PP = wsn::parseProgramIR(Input);
      if (!PP)
        badInput(toString(PP.takeError()));
      Program = std::move(*PP);
      auto FromIR = wsn::traceMapOfProgram(*Program);
      if (!FromIR)
        badInput(Input + ": " + toString(FromIR.takeError()));
      ProgramHash = FromIR->ModuleHash;
      ProgramMap = std::move(*FromIR);
    }
    if (!MapPath.empty()) {
      auto FromFile = wsn::TraceMap::readFile(MapPath);
      if (!FromFile)
        badInput(toString(FromFile.takeError()));
      if (FromFile->ModuleHash != ProgramHash)
        badInput(MapPath + ": trace map of module 0x" + utohexstr(FromFile->ModuleHash) +
                 ", but " + Input + " is module 0x" + utohexstr(ProgramHash) +
                 ": the map does not belong to this program");
      // Same program, but an entry replay reads differs: an edited map whose digest was
      // recomputed would otherwise move checkpoint or effect bytes into other globals
      // (spec/trace-map.md, "Checked against the program").
      if (ProgramMap)
        if (std::optional<std::string> D = FromFile->differenceFrom(*ProgramMap))
          badInput(MapPath + ": " + *D + " (" + Input +
                   "'s own trace map): the map was edited or is of another build");
      Map = std::move(*FromFile);
    } else if (!Map) {
      Map = *ProgramMap;
    }
  }

  // Checkpoints and effects hold the mote's addresses: a trace replay places
  // the globals where the recorded image had them, so it needs that image.
  if (!TracePath.empty()) {
    if (Elf.empty())
      badInput("--trace needs --elf, the firmware image that recorded the trace (its "
               "addresses are the ones checkpoints and pointers hold)");
    ImageIds Ids = readImageIds(Elf);
    std::optional<uint32_t> H = Ids.ModuleHash;
    if (!H)
      badInput(Elf + ": no __wsn_module_hash: not a traced image (built with wsn-cc "
                     "without --no-trace?)");
    if (*H != Map->ModuleHash)
      badInput(Elf + ": firmware image of module 0x" + utohexstr(*H) + ", but " + Input +
               " is module 0x" + utohexstr(Map->ModuleHash) +
               ": the image was not built from this program");
    // The module hash covers the instrumented program's shape; the image also
    // names the exact replay IR built with it (older images have no section).
    if (const std::optional<std::string> &Want = Ids.ReplayIRHash) {
      std::array<uint8_t, 32> Got = BLAKE3::hash<32>(readFile(Input));
      if (*Want != StringRef(reinterpret_cast<const char *>(Got.data()), Got.size()))
        badInput(Input + ": not the replay IR that wsn-cc built with " + Elf +
                 " (its BLAKE3 hash differs from the image's .wsn.replay_ir section): a "
                 "damaged file, or the replay IR of another build");
    }
  }

  std::optional<wsn::PreprocessedTrace> P;
  if (!TracePath.empty()) {
    wsn::PreprocessOptions PO;
    PO.Map = &*Map;
    PO.ProgramHash = Map->ModuleHash;
    PO.TraceName = TracePath;
    PO.ProgramName = Input;
    PO.MapName = MapPath; // "" when the map comes from the IR
    auto PP = wsn::preprocessTraceFile(TracePath, PO);
    if (!PP)
      badInput(toString(PP.takeError()));
    P = std::move(*PP);
    if (StopAfterChecks)
      applyStopAfterChecks(*P, StopAfterChecks);
  } else if (StopAfterChecks || !ExpectSram.empty() || Interactive || !CheckSpecs.empty()) {
    badInput("--stop-after-checks, --expect-sram, --check and -i need --trace");
  }

  // Checks added after the fact: compiled into the program before it is
  // lowered (the file, and so its hash, is unchanged).
  std::vector<wsn::AddedCheck> Checks;
  for (const std::string &Spec : CheckSpecs) {
    auto C = wsn::parseCheckSpec(Spec);
    if (!C)
      badInput(toString(C.takeError()));
    for (const wsn::AddedCheck &Old : Checks)
      if (Old.Name == C->Name)
        badInput("--check " + C->Name + ": two checks with this name");
    Checks.push_back(std::move(*C));
  }
  if (!CheckAt.empty() && Checks.empty())
    badInput("--check-at needs --check");
  std::vector<uint32_t> CheckAtFids, CheckAtIrqs;
  if (!CheckAt.empty()) {
    for (const wsn::TraceMap::Function &F : Map->Functions)
      if (F.Name == CheckAt)
        CheckAtFids.push_back(F.Id);
    for (const wsn::TraceMap::Irq &Q : Map->Irqs)
      if (Q.Function == CheckAt || (!Q.VectorName.empty() && Q.VectorName == CheckAt))
        CheckAtIrqs.push_back(Q.Id);
    if (CheckAtFids.empty() && CheckAtIrqs.empty())
      badInput("--check-at " + CheckAt + ": no instrumented function or interrupt handler of "
               "that name in the trace map (only their entries and exits are replay events)");
  }
  if (!Checks.empty())
    if (Error E = wsn::compileChecks(*Program->M, *Map, P->StartAnchor, Checks))
      badInput(toString(std::move(E)));
  wsn::PfdgView Pfdg;
  if (!EmitErrorPaths.empty()) {
    if (!P)
      badInput("--emit-error-paths needs --trace");
    Pfdg = wsn::readPfdg(*Program->M);
    if (!Pfdg.Present)
      badInput("--emit-error-paths: " + Input +
               " records no PFDG (!wsn.pfdg): it was built by an older wsn-cc; rebuild it");
  }

  std::string Lowered;
  std::string *LoweredOut = EmitLowered.empty() ? nullptr : &Lowered;
  if (!Runner) {
    auto RunnerOr = Program
                        ? wsn::loadForReplay(std::move(*Program), Input, LO, RO, LoweredOut)
                        : wsn::loadForReplay(Input, LO, RO, LoweredOut);
    if (!RunnerOr)
      badInput(toString(RunnerOr.takeError()));
    Runner = std::move(*RunnerOr);
    if (Start && ProgramMap)
      Start->store(*Runner, *ProgramMap);
  }
  if (P)
    Runner->setTrace(&*P, &*Map);
  if (Error E = wsn::resolveChecks(*Runner, Checks))
    badInput(toString(std::move(E)));
  const wsn::ReplayLoweringResult &Info = Runner->info();
  if (!Json)
    for (const std::string &W : Info.Warnings)
      errs() << "wsn-replay: warning: " << W << "\n";
  if (!EmitLowered.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(EmitLowered, EC);
    if (EC)
      badInput(EmitLowered + ": " + EC.message());
    OS << Lowered;
  }
  if (PrintLayout) {
    outs() << "target " << Info.Target.MCU << " stack 0x" << utohexstr(Info.StackTop)
           << " limit 0x" << utohexstr(Info.StackLimit) << "\n";
    for (const wsn::ReplayGlobal &G : Info.Globals)
      outs() << "global " << G.Name << " 0x" << utohexstr(G.Addr) << " " << G.Size
             << (G.FromElf ? " elf" : " free") << "\n";
    for (auto &[Name, Addr] : Info.FunctionTable)
      outs() << "fnptr " << Name << " 0x" << utohexstr(Addr) << "\n";
  }

  if (Interactive) {
    for (const std::string &W : P->Warnings) // the report prints them otherwise
      errs() << "wsn-replay: warning: " << P->TraceName << ": " << W << "\n";
    wsn::ReplOptions RO2;
    RO2.IRPath = Input;
    RO2.Checks = Checks;
    // `break FUNC if EXPR`: the program is read, the expressions compiled into
    // it, lowered and JIT'd again (the file itself is unchanged).
    RO2.Rebuild = [&](std::vector<wsn::AddedCheck> &All)
        -> Expected<std::unique_ptr<wsn::ReplayRunner>> {
      auto PP = wsn::parseProgramIR(Input);
      if (!PP)
        return PP.takeError();
      if (Error E = wsn::compileChecks(*PP->M, *Map, P->StartAnchor, All))
        return std::move(E);
      auto New = wsn::loadForReplay(std::move(*PP), Input, LO, RO);
      if (!New)
        return New.takeError();
      (*New)->setTrace(&*P, &*Map);
      if (Error E = wsn::resolveChecks(**New, All))
        return std::move(E);
      return std::move(*New);
    };
    return wsn::runRepl(*Runner, *P, *Map, outs(), RO2);
  }

  // The added checks: evaluated after each event (or the --check-at
  // function's), the first false one stops the run.
  std::optional<std::pair<size_t, size_t>> Failed; // check, event
  size_t Evaluations = 0;
  if (!Checks.empty())
    Runner->setBreakAt([&](const wsn::ReplayEvent &E, size_t I) {
      if (!CheckAt.empty()) {
        bool Fn = E.K == wsn::ReplayEvent::Entry || E.K == wsn::ReplayEvent::Exit;
        bool Irq = E.K == wsn::ReplayEvent::IrqEntry || E.K == wsn::ReplayEvent::IrqExit;
        if (!(Fn && is_contained(CheckAtFids, E.Id)) && !(Irq && is_contained(CheckAtIrqs, E.Id)))
          return false;
      }
      ++Evaluations;
      for (size_t K = 0; K < Checks.size(); ++K)
        if (!Checks[K].Fn()) {
          Failed = {K, I};
          return true;
        }
      return false;
    });
  // These errors resolve the map's entries against the program: with --map,
  // name the file they came from.
  if (Error E = Runner->prepare())
    badInput((MapPath.empty() ? std::string() : MapPath + ": ") + toString(std::move(E)));
  auto OutOr = Runner->run();
  if (!OutOr)
    badInput(toString(OutOr.takeError()));
  wsn::ReplayOutcome Out = std::move(*OutOr);
  double Wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();

  int RC = NotReproduced;
  std::string Status = "not-reproduced";
  switch (Out.Reason) {
  case wsn::ReplayStop::Returned:
  case wsn::ReplayStop::Marker:
    if (!P)
      RC = Reproduced, Status = "done";
    break;
  case wsn::ReplayStop::Stopped:
    RC = Reproduced, Status = "reproduced";
    break;
  case wsn::ReplayStop::EndOfTrace:
    // Reaching the end is the requested stop when the trace has no stop record
    // and its header promises no violation (a violation replay cannot reach,
    // e.g. overwritten by a later lap, is a warning and not reproduced).
    if (P && P->Coverage.Stop == wsn::StopKind::End && !(P->Header.Flags & wsn::TF_Violation))
      RC = Reproduced, Status = "reproduced";
    break;
  case wsn::ReplayStop::Diverged:
    RC = Diverged, Status = "diverged";
    break;
  case wsn::ReplayStop::Breakpoint:
    if (Failed) {
      RC = CheckFailed, Status = "check-failed";
      Out.Message = wsn::describeCheckFailure(*Runner, *Map, Checks[Failed->first],
                                              Failed->second);
    }
    break;
  case wsn::ReplayStop::Error:
  case wsn::ReplayStop::Timeout:
    break;
  }

  // Snapshot comparisons: the checkpointed globals (--expect-sram) or every
  // placed global (--compare-snapshot, for plain programs).
  std::optional<wsn::CompareSummary> Sum;
  if (!ExpectSram.empty() || !Snapshot.empty()) {
    StringRef SnapPath = !ExpectSram.empty() ? ExpectSram : Snapshot;
    std::vector<uint8_t> Snap = readFile(SnapPath);
    if (Snap.empty())
      badInput(SnapPath + ": empty file (expected the mote's data-space dump, e.g. wsn-sim's "
                          "sram.bin)");
    std::vector<std::string> Names;
    if (!ExpectSram.empty())
      Names = wsn::comparedGlobals(*Map, P->StartAnchor);
    Sum = wsn::compareGlobals(Info, Runner->memory(), Snap, false,
                              ExpectSram.empty() ? nullptr : &Names);
    if (!Sum->Mismatches.empty() && RC == Reproduced) {
      RC = NotReproduced;
      Status = "mismatch";
    }
  }

  // The error-propagation paths: from the violation (or the failed check)
  // back to the last writers of what it read.
  std::optional<std::pair<std::string, unsigned>> PathsWritten; // file, paths
  if (!EmitErrorPaths.empty()) {
    wsn::ErrorOrigin Origin;
    Origin.Events = Runner->events().size();
    const wsn::TraceRecord *SR =
        Out.StopRecord < P->Records.size() ? &P->Records[Out.StopRecord] : nullptr;
    if (Out.Reason == wsn::ReplayStop::Stopped && SR) {
      if (const wsn::TraceMap::Invariant *I = Map->invariant(SR->id())) {
        Origin.Sink = I->Function;
        Origin.What = std::string(SR->Kind == wsn::RecordKind::Violation ? "the violation"
                                                                         : "the check") +
                      " of invariant " + I->Function + " at record " +
                      std::to_string(Out.StopRecord);
        for (const wsn::TraceMap::Var &V : I->Inputs)
          if (V.IsGlobal)
            Origin.Globals.push_back(V.Name);
      }
    } else if (Failed) {
      const wsn::AddedCheck &C = Checks[Failed->first];
      Origin.What = "check '" + C.Name + "' (" + C.Expr + ") failed after event " +
                    std::to_string(Failed->second);
      Origin.Globals = C.Reads;
    }
    if (Origin.What.empty()) {
      errs() << "wsn-replay: warning: --emit-error-paths: the replay stopped neither at an "
                "invariant check nor at a failed --check; " << EmitErrorPaths
             << " not written\n";
    } else {
      unsigned N = 0;
      std::string Text = wsn::errorPathsText(*Runner, *P, *Map, Pfdg, Origin, Input, &N);
      std::error_code EC;
      raw_fd_ostream OS(EmitErrorPaths, EC);
      if (EC)
        badInput(EmitErrorPaths + ": " + EC.message());
      OS << Text;
      PathsWritten = {EmitErrorPaths, N};
    }
  }

  if (!DumpMem.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(DumpMem, EC, sys::fs::OF_None);
    if (EC)
      badInput(DumpMem + ": " + EC.message());
    ArrayRef<uint8_t> Mem = Runner->memory().take_front(0x10000);
    OS.write(reinterpret_cast<const char *>(Mem.data()), Mem.size());
  }

  if (Json) {
    json::Object O = wsn::reportJSON(*Runner, P ? &*P : nullptr, Map ? &*Map : nullptr,
                                     Out, Sum ? &*Sum : nullptr, MaxEvents);
    O["status"] = Status;
    O["exit_code"] = RC;
    O["wall_seconds"] = Wall;
    O["jit_cached"] = Runner->usedCachedObject();
    O["start_cached"] = Runner->fromStartCache();
    if (PathsWritten)
      O["error_paths"] = json::Object{{"file", PathsWritten->first},
                                      {"paths", int64_t(PathsWritten->second)},
                                      {"level", int64_t(Pfdg.Level)}};
    if (!Checks.empty())
      O["added_checks"] = wsn::checksJSON(*Runner, *Map, Checks,
                                          Failed ? std::optional<size_t>(Failed->first)
                                                 : std::nullopt,
                                          Failed ? Failed->second : 0, Evaluations);
    outs() << formatv("{0:2}", json::Value(std::move(O))) << "\n";
  } else {
    wsn::printReport(outs(), errs(), *Runner, P ? &*P : nullptr, Map ? &*Map : nullptr,
                     Out, Sum ? &*Sum : nullptr, MaxEvents, Entry);
    if (!Checks.empty() && !Failed)
      outs() << "checks: " << Checks.size() << " added check(s) held at " << Evaluations
             << " evaluation(s)" << (CheckAt.empty() ? " (after every event)" : " (at the events of " + CheckAt + ")") << "\n";
    if (PathsWritten)
      outs() << "error paths: " << PathsWritten->second << " written to "
             << PathsWritten->first << " (level " << Pfdg.Level
             << "; the next level: wsn-cc --next-level=" << PathsWritten->first
             << " with the same sources and options)\n";
  }
  return RC;
}
