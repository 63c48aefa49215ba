//===- wsn-replay.cpp - replay a mote program on the host (first version) ===//
//
// wsn-replay PROG.bc --elf fw.elf [--stop-at done] [--trace t.wtr]
//            [--dump-mem out.bin] [--compare-snapshot snap.bin]
//            [--emit-lowered out.ll] [--print-layout]
//
// Lowers the mote IR with wsn-lower<replay> (the mote memory model), runs it
// under ORC LLJIT from main, and reports how the run ended. With
// --compare-snapshot, compares every global byte for byte with a dump of the
// mote's data space (index = data address), the fidelity oracle.
//
//===----------------------------------------------------------------------===//
#include "ReplayEngine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory Cat("wsn-replay options");
static cl::opt<std::string> Input(cl::Positional, cl::desc("<mote IR (.bc/.ll)>"),
                                  cl::Required, cl::cat(Cat));
static cl::opt<std::string> Elf("elf", cl::desc("firmware ELF giving the addresses"),
                                cl::cat(Cat));
static cl::opt<std::string> MCU("mcu", cl::desc("mote MCU (default: from the IR)"),
                                cl::cat(Cat));
static cl::opt<std::string> StopAt("stop-at", cl::desc("stop when this function is entered"),
                                   cl::cat(Cat));
static cl::opt<std::string> Entry("entry", cl::init("main"), cl::desc("entry function"),
                                  cl::cat(Cat));
static cl::opt<std::string> TracePath("trace", cl::desc("trace (.wtr) feeding the trace ops"),
                                      cl::cat(Cat));
static cl::opt<std::string> DumpMem("dump-mem",
                                    cl::desc("write the replay data space (64 KiB) here"),
                                    cl::cat(Cat));
static cl::opt<std::string> Snapshot("compare-snapshot",
                                     cl::desc("compare globals with this data-space dump"),
                                     cl::cat(Cat));
static cl::opt<std::string> EmitLowered("emit-lowered",
                                        cl::desc("write the lowered host IR here"),
                                        cl::cat(Cat));
static cl::opt<bool> PrintLayout("print-layout", cl::desc("print the placement of globals"),
                                 cl::cat(Cat));
static cl::opt<bool> AllowIO("allow-untraced-io",
                             cl::desc("let untraced I/O reads read the replay memory"),
                             cl::cat(Cat));
static cl::opt<bool> Gdb("gdb", cl::desc("register JIT'd code with gdb"), cl::cat(Cat));
static cl::opt<unsigned> Timeout("timeout", cl::init(20),
                                 cl::desc("wall-clock limit in seconds (0: none)"),
                                 cl::cat(Cat));

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(argc, argv, "wsn-trace replay (host JIT of mote IR)\n");
  ExitOnError Exit("wsn-replay: ");

  wsn::ReplayLoweringOptions LO;
  LO.ElfPath = Elf;
  LO.MCU = MCU;
  LO.StopAt = StopAt;
  LO.AllowUntracedIO = AllowIO;
  wsn::ReplayRunOptions RO;
  RO.Entry = Entry;
  RO.TimeoutSeconds = Timeout;
  RO.DebuggerSupport = Gdb;
  std::string Lowered;
  auto Runner = Exit(wsn::loadForReplay(Input, LO, RO, EmitLowered.empty() ? nullptr : &Lowered));
  const wsn::ReplayLoweringResult &Info = Runner->info();
  for (const std::string &W : Info.Warnings)
    errs() << "wsn-replay: warning: " << W << "\n";
  if (!EmitLowered.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(EmitLowered, EC);
    if (EC)
      Exit(createStringError(EC, "%s: %s", EmitLowered.c_str(), EC.message().c_str()));
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
  if (!TracePath.empty()) {
    auto TF = wsn::TraceFile::load(TracePath);
    if (!TF)
      Exit(createStringError(inconvertibleErrorCode(), "%s: %s", TracePath.c_str(),
                             toString(TF.takeError()).c_str()));
    auto Recs = TF->decode();
    if (!Recs)
      Exit(createStringError(inconvertibleErrorCode(), "%s: %s", TracePath.c_str(),
                             toString(Recs.takeError()).c_str()));
    Runner->machine().Records = std::move(*Recs);
  }

  wsn::ReplayOutcome Out = Exit(Runner->run());
  int RC = 0;
  switch (Out.Reason) {
  case wsn::ReplayStop::Returned:
    outs() << "replay: " << Entry << " returned " << Out.ReturnValue << "\n";
    break;
  case wsn::ReplayStop::Marker:
    outs() << "replay: " << Out.Message << "\n";
    break;
  case wsn::ReplayStop::Error:
    errs() << "wsn-replay: replay error: " << Out.Message << "\n";
    RC = 2;
    break;
  case wsn::ReplayStop::Timeout:
    errs() << "wsn-replay: " << Out.Message << "\n";
    RC = 3;
    break;
  }
  if (!TracePath.empty())
    outs() << "replay: consumed " << Out.RecordsConsumed << " of "
           << Runner->machine().Records.size() << " records\n";
  if (!DumpMem.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(DumpMem, EC, sys::fs::OF_None);
    if (EC)
      Exit(createStringError(EC, "%s: %s", DumpMem.c_str(), EC.message().c_str()));
    ArrayRef<uint8_t> Mem = Runner->memory().take_front(0x10000);
    OS.write(reinterpret_cast<const char *>(Mem.data()), Mem.size());
  }
  if (!Snapshot.empty()) {
    auto Buf = MemoryBuffer::getFile(Snapshot, /*IsText=*/false);
    if (!Buf)
      Exit(createStringError(Buf.getError(), "%s: %s", Snapshot.c_str(),
                             Buf.getError().message().c_str()));
    ArrayRef<uint8_t> Snap(reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
                           (*Buf)->getBufferSize());
    wsn::CompareSummary Sum = wsn::compareGlobals(Info, Runner->memory(), Snap);
    for (const wsn::GlobalMismatch &M : Sum.Mismatches)
      errs() << "wsn-replay: mismatch: " << wsn::describeMismatch(M) << "\n";
    outs() << "compare: " << Sum.Compared << " globals, " << Sum.Mismatches.size()
           << " differ, " << Sum.StackPointers << " stack pointer(s) not compared\n";
    if (!Sum.Mismatches.empty() && RC == 0)
      RC = 4;
  }
  return RC;
}
