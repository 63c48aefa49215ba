//===- ReplayEngine.cpp - ORC LLJIT runner and replay callbacks -----------===//
#include "ReplayEngine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/Debugging/DebuggerSupport.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <csetjmp>
#include <csignal>
#include <cstring>
#include <sys/time.h>

using namespace llvm;

namespace wsn {

namespace {
// The JIT'd code runs on the caller's thread; callbacks find the machine here.
thread_local ReplayMachine *Current = nullptr;
thread_local sigjmp_buf *StopJmp = nullptr;
volatile sig_atomic_t TimedOut = 0;

[[noreturn]] void stopReplay(ReplayStop Why) {
  Current->StopReason = Why;
  siglongjmp(*StopJmp, 1);
}

/// Ends the run with an error; Msg is built before the jump so no C++ object
/// is live across it.
[[noreturn]] void replayError(const std::string &Msg) {
  Current->StopMessage = Msg;
  stopReplay(ReplayStop::Error);
}

std::string recordText(const TraceRecord &R) {
  std::string S = recordKindName(R.Kind).str();
  for (unsigned I = 0; I < R.NumFields; ++I)
    S += " " + std::to_string(R.Fields[I]);
  return S;
}

/// Takes the next record, which must be of kind K with id Id (thesis
/// section 4.2: the replay reads the log in recording order).
const TraceRecord &expectRecord(RecordKind K, uint32_t Id, const char *Op) {
  ReplayMachine &RM = *Current;
  if (RM.Next >= RM.Records.size()) {
    RM.StopMessage = std::string("end of trace reached at ") + Op + " " +
                     std::to_string(Id) + " (record " + std::to_string(RM.Next) + ")";
    stopReplay(ReplayStop::Error);
  }
  const TraceRecord &R = RM.Records[RM.Next];
  if (R.Kind != K || R.id() != Id) {
    RM.StopMessage = "diverged at record " + std::to_string(RM.Next) +
                     ": replay reached " + Op + " " + std::to_string(Id) +
                     " but the trace has " + recordText(R);
    stopReplay(ReplayStop::Error);
  }
  ++RM.Next;
  return R;
}

uint8_t *memAt(uint32_t Addr, uint32_t Len) {
  if (uint64_t(Addr) + Len > ReplayMemBytes)
    replayError("access of " + std::to_string(Len) + " bytes at 0x" +
                utohexstr(Addr) + " is outside the data space");
  return Current->Mem + Addr;
}

void onAlarm(int) {
  TimedOut = 1;
  if (StopJmp && Current) {
    Current->StopReason = ReplayStop::Timeout;
    siglongjmp(*StopJmp, 1);
  }
}
} // namespace

// --- callbacks called by the lowered IR -------------------------------------
extern "C" {
static void cb_stop(const char *Loc) {
  Current->StopMessage = std::string("reached the stop marker at ") + Loc;
  stopReplay(ReplayStop::Marker);
}
static uint32_t cb_stack_alloc(uint32_t SP, uint32_t Size, uint32_t AlignV) {
  uint32_t New = SP - Size;
  if (AlignV > 1)
    New &= ~(AlignV - 1);
  if (Size > SP || New < Current->StackLimit)
    replayError("replay stack overflow: " + std::to_string(Size) +
                " bytes requested at sp=0x" + utohexstr(SP) +
                ", globals end at 0x" + utohexstr(Current->StackLimit));
  return New;
}
static void cb_bad_fnptr(uint32_t Addr, const char *Loc) {
  replayError(std::string("call through function pointer 0x") + utohexstr(Addr) +
              " which is no function of the program, at " + Loc);
}
static void cb_trap(const char *Loc) {
  replayError(std::string("trap (llvm.trap / __builtin_trap) at ") + Loc);
}
static void cb_sleep() { Current->Log.push_back("sleep"); }
static void cb_lpm(uint32_t Bits) {
  if (Bits)
    Current->Log.push_back("lpm 0x" + utohexstr(Bits));
}

// Trace ops (spec/trace-ops.md) against the decoded records.
static void cb_func_entry(uint32_t Fid) {
  expectRecord(RecordKind::Entry, Fid, "wsn.func.entry");
  Current->GvReference = 0;
}
static void cb_func_exit(uint32_t Fid) {
  expectRecord(RecordKind::Exit, Fid, "wsn.func.exit");
  Current->GvReference = 0;
}
static void cb_irq_entry(uint32_t Irq) { expectRecord(RecordKind::Irq, Irq, "wsn.irq.entry"); }
static void cb_irq_exit(uint32_t Irq) {
  expectRecord(RecordKind::IrqExit, Irq, "wsn.irq.exit");
}
static void cb_region_begin(uint32_t) {}
static void cb_region_end(uint32_t, uint32_t N) { Current->GvReference += N; }
static void cb_sched(uint32_t Task) { expectRecord(RecordKind::Sched, Task, "wsn.sched"); }
static void cb_send(uint32_t Site, uint32_t, uint32_t) {
  expectRecord(RecordKind::Send, Site, "wsn.send");
}
static void cb_recv(uint32_t Site, uint32_t, uint32_t) {
  expectRecord(RecordKind::Recv, Site, "wsn.recv");
}
static void cb_check(uint32_t Inv, uint32_t Ok) {
  ReplayMachine &RM = *Current;
  if (RM.Next < RM.Records.size() && RM.Records[RM.Next].Kind == RecordKind::Violation &&
      !Ok) {
    ++RM.Next;
    RM.StopMessage = "invariant " + std::to_string(Inv) + " violated (reproduced)";
    stopReplay(ReplayStop::Marker);
  }
  expectRecord(Ok ? RecordKind::Check : RecordKind::Violation, Inv, "wsn.check");
  RM.Log.push_back("check " + std::to_string(Inv) + (Ok ? " ok" : " violated"));
}
static void cb_skip_begin(uint32_t Site) {
  expectRecord(RecordKind::SkipBegin, Site, "wsn.skip.begin");
}
static void cb_skip_end(uint32_t Site) {
  expectRecord(RecordKind::SkipEnd, Site, "wsn.skip.end");
}
static void cb_effect_void(uint32_t Site) {
  expectRecord(RecordKind::Effect, Site, "wsn.effect.void");
}
static uint64_t cb_input(uint32_t Site, uint32_t Bits) {
  const TraceRecord &R = expectRecord(RecordKind::Input, Site, "wsn.input");
  uint64_t V = R.Fields[1];
  return Bits >= 64 ? V : V & ((uint64_t(1) << Bits) - 1);
}
static uint64_t cb_effect(uint32_t Site, uint32_t Bits) {
  const TraceRecord &R = expectRecord(RecordKind::Effect, Site, "wsn.effect");
  uint64_t V = 0;
  for (unsigned I = 0; I < Bits / 8 && I < R.Payload.size(); ++I)
    V |= uint64_t(R.Payload[I]) << (8 * I);
  return V;
}
static void cb_input_bytes(uint32_t Site, uint32_t Buf, uint32_t Len) {
  const TraceRecord &R = expectRecord(RecordKind::InputBytes, Site, "wsn.input.bytes");
  uint32_t N = std::min<uint32_t>(Len, R.Payload.size());
  std::memcpy(memAt(Buf, N), R.Payload.data(), N);
}
static void cb_anchor(uint32_t Anchor, uint32_t N, const uint32_t *Locals) {
  ReplayMachine &RM = *Current;
  if (RM.Next < RM.Records.size() && RM.Records[RM.Next].Kind == RecordKind::Checkpoint &&
      RM.Records[RM.Next].id() == Anchor)
    ++RM.Next; // restoring checkpoints needs the trace map (not yet)
}

// C library over the data space.
static uint32_t cb_libc_memcpy(uint32_t D, uint32_t S, uint32_t N) {
  std::memcpy(memAt(D, N), memAt(S, N), N);
  return D;
}
static uint32_t cb_libc_memmove(uint32_t D, uint32_t S, uint32_t N) {
  std::memmove(memAt(D, N), memAt(S, N), N);
  return D;
}
static uint32_t cb_libc_memset(uint32_t D, uint32_t C, uint32_t N) {
  std::memset(memAt(D, N), int(C & 0xFF), N);
  return D;
}
static uint32_t cb_libc_memcmp(uint32_t A, uint32_t B, uint32_t N) {
  int R = std::memcmp(memAt(A, N), memAt(B, N), N);
  return uint32_t(R < 0 ? -1 : R > 0 ? 1 : 0);
}
static uint32_t strLen(uint32_t A) {
  uint32_t N = 0;
  while (*memAt(A + N, 1))
    ++N;
  return N;
}
static uint32_t cb_libc_strlen(uint32_t A) { return strLen(A); }
static uint32_t cb_libc_strcmp(uint32_t A, uint32_t B) {
  for (uint32_t I = 0;; ++I) {
    uint8_t X = *memAt(A + I, 1), Y = *memAt(B + I, 1);
    if (X != Y)
      return uint32_t(X < Y ? -1 : 1);
    if (!X)
      return 0;
  }
}
static uint32_t cb_libc_strncmp(uint32_t A, uint32_t B, uint32_t N) {
  for (uint32_t I = 0; I < N; ++I) {
    uint8_t X = *memAt(A + I, 1), Y = *memAt(B + I, 1);
    if (X != Y)
      return uint32_t(X < Y ? -1 : 1);
    if (!X)
      return 0;
  }
  return 0;
}
static uint32_t cb_libc_strcpy(uint32_t D, uint32_t S) {
  uint32_t N = strLen(S) + 1;
  std::memmove(memAt(D, N), memAt(S, N), N);
  return D;
}
static uint32_t cb_libc_strncpy(uint32_t D, uint32_t S, uint32_t N) {
  uint32_t L = std::min(strLen(S), N);
  std::memmove(memAt(D, L), memAt(S, L), L);
  if (L < N)
    std::memset(memAt(D + L, N - L), 0, N - L);
  return D;
}
} // extern "C"

ReplayRunner::~ReplayRunner() = default;

Expected<std::unique_ptr<ReplayRunner>>
ReplayRunner::create(std::unique_ptr<LLVMContext> Ctx, std::unique_ptr<Module> Lowered,
                     const ReplayLoweringResult &Info, ReplayRunOptions Opts) {
  static bool Init = [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)Init;
  std::unique_ptr<ReplayRunner> R(new ReplayRunner());
  R->Info = Info;
  R->Opts = Opts;
  R->Machine = std::make_unique<ReplayMachine>();
  R->Machine->StackLimit = Info.StackLimit;

  auto JOrErr = orc::LLJITBuilder().create();
  if (!JOrErr)
    return JOrErr.takeError();
  R->J = std::move(*JOrErr);
  orc::LLJIT &J = *R->J;
  if (Opts.DebuggerSupport)
    if (Error E = orc::enableDebuggerSupport(J))
      return std::move(E);

  orc::ExecutionSession &ES = J.getExecutionSession();
  orc::SymbolMap Syms;
  auto Add = [&](StringRef Name, const void *P) {
    Syms[ES.intern(Name)] = {orc::ExecutorAddr::fromPtr(P), JITSymbolFlags::Exported};
  };
  auto CB = [&](StringRef Name, const void *P) {
    Add((Twine(replayabi::CallbackPrefix) + Name).str(), P);
  };
  CB("stop", (const void *)&cb_stop);
  CB("stack_alloc", (const void *)&cb_stack_alloc);
  CB("bad_fnptr", (const void *)&cb_bad_fnptr);
  CB("trap", (const void *)&cb_trap);
  CB("sleep", (const void *)&cb_sleep);
  CB("lpm", (const void *)&cb_lpm);
  CB("func_entry", (const void *)&cb_func_entry);
  CB("func_exit", (const void *)&cb_func_exit);
  CB("irq_entry", (const void *)&cb_irq_entry);
  CB("irq_exit", (const void *)&cb_irq_exit);
  CB("region_begin", (const void *)&cb_region_begin);
  CB("region_end", (const void *)&cb_region_end);
  CB("sched", (const void *)&cb_sched);
  CB("send", (const void *)&cb_send);
  CB("recv", (const void *)&cb_recv);
  CB("check", (const void *)&cb_check);
  CB("skip_begin", (const void *)&cb_skip_begin);
  CB("skip_end", (const void *)&cb_skip_end);
  CB("effect_void", (const void *)&cb_effect_void);
  CB("input", (const void *)&cb_input);
  CB("effect", (const void *)&cb_effect);
  CB("input_bytes", (const void *)&cb_input_bytes);
  CB("anchor", (const void *)&cb_anchor);
  CB("libc_memcpy", (const void *)&cb_libc_memcpy);
  CB("libc_memmove", (const void *)&cb_libc_memmove);
  CB("libc_memset", (const void *)&cb_libc_memset);
  CB("libc_memcmp", (const void *)&cb_libc_memcmp);
  CB("libc_strlen", (const void *)&cb_libc_strlen);
  CB("libc_strcmp", (const void *)&cb_libc_strcmp);
  CB("libc_strncmp", (const void *)&cb_libc_strncmp);
  CB("libc_strcpy", (const void *)&cb_libc_strcpy);
  CB("libc_strncpy", (const void *)&cb_libc_strncpy);
  // Helpers the host backend may call for the lowered IR (memcpy for
  // llvm.memcpy, libm for float operations); never __wsn_ names.
  orc::JITDylib &JD = J.getMainJITDylib();
  if (Error E = JD.define(orc::absoluteSymbols(std::move(Syms))))
    return std::move(E);
  auto Gen = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      J.getDataLayout().getGlobalPrefix(), [](const orc::SymbolStringPtr &S) {
        return !(*S).starts_with("__wsn_");
      });
  if (!Gen)
    return Gen.takeError();
  JD.addGenerator(std::move(*Gen));

  Lowered->setDataLayout(J.getDataLayout());
  Function *EntryF = Lowered->getFunction(Opts.Entry);
  if (!EntryF || EntryF->isDeclaration())
    return createStringError(inconvertibleErrorCode(),
                             "entry function '%s' is not defined in the program",
                             Opts.Entry.c_str());
  if (EntryF->arg_size() != 0)
    return createStringError(inconvertibleErrorCode(),
                             "entry function '%s' takes arguments",
                             Opts.Entry.c_str());
  Type *RT = EntryF->getReturnType();
  R->EntryBits = RT->isIntegerTy() ? RT->getIntegerBitWidth() : 0;
  if (!RT->isVoidTy() && !(RT->isIntegerTy() && R->EntryBits <= 32))
    return createStringError(inconvertibleErrorCode(),
                             "entry function '%s' must return void or an int",
                             Opts.Entry.c_str());
  if (Error E = J.addIRModule(orc::ThreadSafeModule(std::move(Lowered), std::move(Ctx))))
    return std::move(E);
  auto MemSym = J.lookup(replayabi::Mem);
  if (!MemSym)
    return MemSym.takeError();
  R->Machine->Mem = MemSym->toPtr<uint8_t *>();
  auto InitSym = J.lookup(replayabi::InitMemory);
  if (!InitSym)
    return InitSym.takeError();
  R->InitFn = InitSym->toPtr<void (*)()>();
  auto EntrySym = J.lookup(Opts.Entry);
  if (!EntrySym)
    return EntrySym.takeError();
  R->EntryFn = EntrySym->toPtr<void *>();
  return std::move(R);
}

Expected<ReplayOutcome> ReplayRunner::run() {
  ReplayMachine &RM = *Machine;
  std::memset(RM.Mem, 0, ReplayMemBytes);
  RM.Next = 0;
  RM.GvReference = 0;
  RM.StopReason = ReplayStop::Returned;
  RM.StopMessage.clear();
  RM.Log.clear();

  ReplayOutcome Out;
  sigjmp_buf Buf;
  ReplayMachine *SavedCurrent = Current;
  sigjmp_buf *SavedJmp = StopJmp;
  Current = &RM;
  StopJmp = &Buf;
  struct sigaction SA = {}, OldSA = {};
  SA.sa_handler = onAlarm;
  sigemptyset(&SA.sa_mask);
  TimedOut = 0;
  if (Opts.TimeoutSeconds)
    sigaction(SIGALRM, &SA, &OldSA);
  volatile int32_t Ret = 0;
  if (sigsetjmp(Buf, 1) == 0) {
    if (Opts.TimeoutSeconds) {
      itimerval T = {};
      T.it_value.tv_sec = Opts.TimeoutSeconds;
      setitimer(ITIMER_REAL, &T, nullptr);
    }
    InitFn();
    switch (EntryBits) {
    case 0:
      reinterpret_cast<void (*)()>(EntryFn)();
      break;
    case 8:
      Ret = reinterpret_cast<int8_t (*)()>(EntryFn)();
      break;
    case 16:
      Ret = reinterpret_cast<int16_t (*)()>(EntryFn)();
      break;
    default:
      Ret = reinterpret_cast<int32_t (*)()>(EntryFn)();
      break;
    }
    RM.StopReason = ReplayStop::Returned;
  }
  if (Opts.TimeoutSeconds) {
    itimerval T = {};
    setitimer(ITIMER_REAL, &T, nullptr);
    sigaction(SIGALRM, &OldSA, nullptr);
  }
  Current = SavedCurrent;
  StopJmp = SavedJmp;
  Out.Reason = RM.StopReason;
  Out.ReturnValue = Ret;
  Out.Message = RM.StopMessage;
  if (Out.Reason == ReplayStop::Timeout)
    Out.Message = "replay did not stop within " + std::to_string(Opts.TimeoutSeconds) +
                  " s (no marker reached?)";
  Out.RecordsConsumed = RM.Next;
  return Out;
}

Expected<std::unique_ptr<ReplayRunner>>
loadForReplay(StringRef IRPath, const ReplayLoweringOptions &LOpts,
              ReplayRunOptions ROpts, std::string *LoweredIR) {
  auto Ctx = std::make_unique<LLVMContext>();
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseIRFile(IRPath, Diag, *Ctx);
  if (!M) {
    std::string S;
    raw_string_ostream OS(S);
    Diag.print(nullptr, OS, false);
    return createStringError(inconvertibleErrorCode(), StringRef(S).trim().str());
  }
  Expected<ReplayLoweringResult> Info = lowerModuleForReplay(*M, LOpts);
  if (!Info)
    return createStringError(inconvertibleErrorCode(),
                             IRPath + ": " + toString(Info.takeError()));
  if (LoweredIR) {
    raw_string_ostream OS(*LoweredIR);
    M->print(OS, nullptr);
  }
  return ReplayRunner::create(std::move(Ctx), std::move(M), *Info, std::move(ROpts));
}

CompareSummary compareGlobals(const ReplayLoweringResult &Info, ArrayRef<uint8_t> Replay,
                              ArrayRef<uint8_t> Snapshot, bool IncludeUnplaced) {
  CompareSummary Sum;
  auto InStack = [&](uint32_t A) {
    return A >= Info.StackLimit && A < Info.Target.RamEnd;
  };
  auto Byte = [](ArrayRef<uint8_t> Img, uint32_t A) -> int {
    return A < Img.size() ? Img[A] : -1;
  };
  for (const ReplayGlobal &G : Info.Globals) {
    if (!G.FromElf && !IncludeUnplaced)
      continue;
    ++Sum.Compared;
    std::vector<bool> Skip(G.Size, false);
    for (uint32_t Off : G.PointerOffsets) {
      if (Off + 2 > G.Size)
        continue;
      int E0 = Byte(Snapshot, G.Addr + Off), E1 = Byte(Snapshot, G.Addr + Off + 1);
      int R0 = Byte(Replay, G.Addr + Off), R1 = Byte(Replay, G.Addr + Off + 1);
      if (E0 < 0 || E1 < 0 || R0 < 0 || R1 < 0)
        continue;
      uint32_t EV = uint32_t(E0 | (E1 << 8)), RV = uint32_t(R0 | (R1 << 8));
      if (EV != RV && InStack(EV) && InStack(RV)) {
        Skip[Off] = Skip[Off + 1] = true;
        ++Sum.StackPointers;
      }
    }
    GlobalMismatch MM;
    MM.Name = G.Name;
    MM.Addr = G.Addr;
    MM.Size = G.Size;
    for (uint32_t I = 0; I < G.Size; ++I) {
      if (Skip[I])
        continue;
      int E = Byte(Snapshot, G.Addr + I), R = Byte(Replay, G.Addr + I);
      if (E < 0 || E != R) {
        if (!MM.DiffBytes) {
          MM.FirstDiff = I;
          MM.Expected = uint8_t(E);
          MM.Actual = uint8_t(R);
        }
        ++MM.DiffBytes;
      }
    }
    if (MM.DiffBytes)
      Sum.Mismatches.push_back(MM);
  }
  return Sum;
}

std::string describeMismatch(const GlobalMismatch &M) {
  return M.Name + " @0x" + utohexstr(M.Addr) + " (" + std::to_string(M.Size) +
         " bytes): " + std::to_string(M.DiffBytes) + " byte(s) differ, first at +" +
         std::to_string(M.FirstDiff) + ": mote 0x" + utohexstr(M.Expected) +
         ", replay 0x" + utohexstr(M.Actual);
}

} // namespace wsn
