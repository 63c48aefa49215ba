//===- ReplayEngine.cpp - ORC LLJIT runner and replay callbacks -----------===//
#include "ReplayEngine.h"
#include "TraceMap.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/ObjectCache.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/Debugging/DebuggerSupport.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <array>

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

/// Ends the run with an error. siglongjmp skips destructors, so no object that
/// owns memory may be live across the jump: the message is built by BuildMsg
/// (its temporaries die when it returns) and moved into the machine before
/// jumping. (A message built in the caller's expression left that temporary's
/// buffer, and the intermediate strings of the concatenation, leaked: seen by
/// LeakSanitizer in ReplayTests' error tests.)
template <typename BuildMsg> [[noreturn]] void replayError(BuildMsg Build) {
  Current->StopMessage = Build();
  stopReplay(ReplayStop::Error);
}

uint8_t *memAt(uint32_t Addr, uint32_t Len) {
  if (uint64_t(Addr) + Len > ReplayMemBytes)
    replayError([&] {
      return "access of " + std::to_string(Len) + " bytes at 0x" + utohexstr(Addr) +
             " is outside the data space";
    });
  return Current->Mem + Addr;
}

void onAlarm(int) {
  TimedOut = 1;
  if (StopJmp && Current) {
    Current->StopReason = ReplayStop::Timeout;
    siglongjmp(*StopJmp, 1);
  }
}

//===----------------------------------------------------------------------===//
// Trace replay (thesis 4.2, processLOG): every trace op goes through the
// ReplayLog (spec/replay-log.md). A callback does its work in a helper that
// returns (so every C++ temporary is destroyed), then drains the interrupts
// that became due, then leaves the JIT'd code if the run must stop.
//===----------------------------------------------------------------------===//

/// Records why the run must stop; the callback jumps out after cleaning up.
void setStop(ReplayStop Why, std::string Msg, size_t Record) {
  ReplayMachine &RM = *Current;
  if (RM.Pending)
    return;
  RM.Pending = true;
  RM.StopReason = Why;
  RM.StopMessage = std::move(Msg);
  RM.StopRecord = Record;
}

/// Classifies a ReplayLog error. Returns false when the run must stop.
bool ok(Error E) {
  if (!E)
    return true;
  handleAllErrors(
      std::move(E),
      [](const ReplayEnd &End) {
        setStop(End.K == ReplayEnd::StopReached ? ReplayStop::Stopped
                                                : ReplayStop::EndOfTrace,
                End.message(), End.Record);
      },
      [](const ReplayDivergence &D) {
        setStop(ReplayStop::Diverged, D.message(), D.Record);
      },
      [](const ErrorInfoBase &EI) { setStop(ReplayStop::Error, EI.message(), 0); });
  return false;
}

bool noTrace(const char *Op) {
  if (Current->Log)
    return false;
  setStop(ReplayStop::Error,
          std::string("the program executed trace op ") + Op +
              " but no trace was given (--trace)",
          0);
  return true;
}

void addEvent(ReplayEvent::Kind K, uint32_t Id, uint32_t Value = 0) {
  ReplayMachine &RM = *Current;
  if (!RM.LiveEvents)
    return; // rebuilt from the consumed records after the run
  ReplayEvent E;
  E.K = K;
  E.Id = Id;
  E.Value = Value;
  E.Record = RM.Log && RM.Log->next() ? RM.Log->next() - 1 : 0;
  // The log's handler depth (the IRQ_EXIT still inside its handler): a
  // handler the drain runs right after another one's exit is not nested in
  // it, although the engine's call stack still holds the exit callback.
  E.Depth = RM.Log ? RM.Log->depth() + (K == ReplayEvent::IrqExit ? 1 : 0) : RM.HandlerDepth;
  auto Bump = [](std::vector<uint32_t> &V, uint32_t I) {
    if (V.size() <= I)
      V.resize(I + 1, 0);
    return ++V[I];
  };
  if (K == ReplayEvent::Entry)
    E.Instance = Bump(RM.FnInstances, Id);
  else if (K == ReplayEvent::IrqEntry)
    E.Instance = Bump(RM.IrqInstances, Id);
  RM.Events.push_back(E);
  if (RM.BreakAt && !RM.Pending && RM.BreakAt(RM.Events.back(), RM.Events.size() - 1))
    setStop(ReplayStop::Breakpoint,
            "breakpoint at event " + std::to_string(RM.Events.size() - 1), E.Record);
}

/// Why interrupt Irq has no handler to run, in the map's terms: its irqs[] entry names a
/// function the replay module lacks, or there is no entry.
std::string noHandlerWhy(const ReplayMachine &RM, uint32_t Irq) {
  if (Irq < RM.NoHandlerWhy.size() && !RM.NoHandlerWhy[Irq].empty())
    return RM.NoHandlerWhy[Irq];
  return "irqs[] has no entry for irq " + std::to_string(Irq);
}

/// Runs the handlers of the interrupts that are due now (spec/replay-log.md
/// section 2.2: after every successful log call). A handler's wsn.irq.entry
/// consumes its IRQ record, and its own ops drain nested interrupts.
void drainAndMaybeStop() {
  ReplayMachine &RM = *Current;
  while (!RM.Pending && RM.Log) {
    std::optional<uint32_t> Irq = RM.Log->pendingInterrupt();
    if (!Irq)
      break;
    void (*Fn)() = *Irq < RM.Handlers.size() ? RM.Handlers[*Irq] : nullptr;
    if (!Fn) {
      // prepareTrace refuses a trace whose records take such an interrupt; kept for
      // callers that replay without it.
      setStop(ReplayStop::Error,
              "the trace takes interrupt " + std::to_string(*Irq) + " at record " +
                  std::to_string(RM.Log->next()) + ", but " +
                  (RM.MapName.empty() ? std::string("the trace map's ") : RM.MapName + ": ") +
                  noHandlerWhy(RM, *Irq),
              RM.Log->next());
      break;
    }
    size_t Before = RM.Log->next();
    ++RM.HandlerDepth;
    RM.Log->refreshInline();
    Fn();
    --RM.HandlerDepth;
    if (!RM.Pending && RM.Log->next() == Before)
      setStop(ReplayStop::Error,
              "handler " + RM.HandlerNames[*Irq] + " of interrupt " +
                  std::to_string(*Irq) + " did not consume its IRQ record " +
                  std::to_string(Before) + " (is it instrumented?)",
              Before);
  }
  if (RM.Pending)
    stopReplay(RM.StopReason);
  if (RM.Log)
    RM.Log->refreshInline(); // the JIT'd code continues: section 2.7
}

std::string hexBytes(ArrayRef<uint8_t> B) {
  // Two digits a byte (utohexstr(0, _, 2) gives "000").
  return toHex(B, /*LowerCase=*/true);
}

void doSimple(RecordKind K, uint32_t Id, const char *Op) {
  ReplayLog &L = *Current->Log;
  switch (K) {
  case RecordKind::Entry:
    if (ok(L.onEntry(Id)))
      addEvent(ReplayEvent::Entry, Id);
    break;
  case RecordKind::Exit:
    if (ok(L.onExit(Id)))
      addEvent(ReplayEvent::Exit, Id);
    break;
  case RecordKind::Irq:
    if (ok(L.onIrqEntry(Id)))
      addEvent(ReplayEvent::IrqEntry, Id);
    break;
  case RecordKind::IrqExit:
    if (ok(L.onIrqExit(Id)))
      addEvent(ReplayEvent::IrqExit, Id);
    break;
  case RecordKind::Sched:
    if (ok(L.onSched(Id)))
      addEvent(ReplayEvent::Sched, Id);
    break;
  case RecordKind::SkipBegin:
    ok(L.onSkipBegin(Id));
    break;
  case RecordKind::SkipEnd:
    ok(L.onSkipEnd(Id));
    break;
  default:
    setStop(ReplayStop::Error, std::string("internal: unexpected op ") + Op, 0);
  }
}

/// Calls Fn(data address, size) for each variable in record order (globals at
/// their addresses, locals at the addresses the op passed, 0 when it passed
/// none). Stops at a variable outside the data space or when Fn returns false;
/// returns whether every variable was visited.
template <typename FnT>
bool forEachVar(const std::vector<ReplayMachine::Var> &Vars, const uint32_t *Locals,
                uint32_t NLocals, FnT Fn) {
  uint32_t LocalIdx = 0;
  for (const ReplayMachine::Var &V : Vars) {
    uint32_t Addr = V.Addr;
    if (!V.Global)
      Addr = LocalIdx < NLocals ? Locals[LocalIdx++] : 0;
    if (uint64_t(Addr) + V.Size > ReplayMemBytes || !Fn(Addr, V.Size))
      return false;
  }
  return true;
}

/// Copies Bytes into the variables. Bytes may end inside a variable: a short-form effect
/// (spec/trace-format.md section 4) gives only its first K globals, and prepare() merges
/// globals adjacent in memory into one run, so the K-th global's end can fall inside a run
/// (msp430 progfuzz program 1311: ProgC$buf and ProgC$rec were one run, and the short
/// effect of buf alone was dropped whole). The bytes given are stored, the rest keep what
/// memory holds.
void storeVars(const std::vector<ReplayMachine::Var> &Vars, ArrayRef<uint8_t> Bytes,
               const uint32_t *Locals, uint32_t NLocals) {
  size_t Off = 0;
  forEachVar(Vars, Locals, NLocals, [&](uint32_t Addr, uint32_t Size) {
    size_t N = std::min<size_t>(Size, Bytes.size() - Off);
    std::memcpy(Current->Mem + Addr, Bytes.data() + Off, N);
    Off += N;
    return Off < Bytes.size();
  });
}

/// storeVars for an EFFECT_C (spec/trace-format.md 3.3): only the bytes Given marks; the
/// others keep what memory holds, which is what the mote held before the call.
void storeGiven(const std::vector<ReplayMachine::Var> &Vars, ArrayRef<uint8_t> Bytes,
                ArrayRef<uint8_t> Given) {
  size_t Off = 0;
  forEachVar(Vars, nullptr, 0, [&](uint32_t Addr, uint32_t Size) {
    // As storeVars: a short form can end inside a merged run.
    size_t N = std::min<size_t>(Size, Bytes.size() - Off);
    for (size_t I = 0; I < N; ++I)
      if (Given[Off + I])
        Current->Mem[Addr + I] = Bytes[Off + I];
    Off += N;
    return Off < Bytes.size();
  });
}

std::vector<uint8_t> loadVars(const std::vector<ReplayMachine::Var> &Vars,
                              const uint32_t *Locals, uint32_t NLocals) {
  std::vector<uint8_t> Out;
  forEachVar(Vars, Locals, NLocals, [&](uint32_t Addr, uint32_t Size) {
    Out.insert(Out.end(), Current->Mem + Addr, Current->Mem + Addr + Size);
    return true;
  });
  return Out;
}

/// Status-register copies (spec/replay.md section 4): replay models only the
/// interrupt-enable bit of the status register, not the arithmetic flags
/// the mote's `in r, SREG` also read. Before a checkpoint is compared, such
/// a variable takes the recorded value of the bits replay does not model,
/// so that the comparison sees the modelled bit alone and replay continues
/// with the mote's exact byte.
void adoptStatusFlags(uint32_t Anchor, ArrayRef<uint8_t> Bytes,
                      const uint32_t *Locals, uint32_t NLocals) {
  ReplayMachine &RM = *Current;
  if (Anchor >= RM.AnchorStatus.size())
    return;
  for (const ReplayMachine::StatusVar &S : RM.AnchorStatus[Anchor]) {
    uint32_t Addr = S.Local < 0 ? S.Addr
                    : uint32_t(S.Local) < NLocals ? Locals[S.Local] : 0;
    if (S.Off + S.Size > Bytes.size() || uint64_t(Addr) + S.Size > ReplayMemBytes)
      continue;
    for (uint32_t K = 0; K < S.Size && K < 2; ++K) {
      uint8_t Keep = uint8_t(S.Mask >> (8 * K));
      uint8_t &Cell = RM.Mem[Addr + K];
      Cell = uint8_t((Cell & Keep) | (Bytes[S.Off + K] & ~Keep));
    }
  }
}

/// Takes the recorded bytes of a checkpoint at the padding bytes of its globals: C leaves
/// them unspecified (a struct copy carries the mote's stack bytes), so replay continues with
/// the mote's, as it does with the status bits it does not model (spec/replay.md section 4).
void adoptPadding(const std::vector<ReplayMachine::Var> &Vars, ArrayRef<uint8_t> Bytes) {
  ReplayMachine &RM = *Current;
  if (RM.PaddingByte.empty())
    return;
  size_t Off = 0;
  for (const ReplayMachine::Var &V : Vars) {
    if (V.Global && uint64_t(V.Addr) + V.Size <= RM.PaddingByte.size())
      for (uint32_t K = 0; K < V.Size && Off + K < Bytes.size(); ++K)
        if (RM.PaddingByte[V.Addr + K])
          RM.Mem[V.Addr + K] = Bytes[Off + K];
    Off += V.Size;
  }
}

/// True when the variables hold exactly Bytes (and Bytes has their size).
bool varsEqual(const std::vector<ReplayMachine::Var> &Vars, ArrayRef<uint8_t> Bytes,
               const uint32_t *Locals, uint32_t NLocals) {
  size_t Off = 0;
  bool All = forEachVar(Vars, Locals, NLocals, [&](uint32_t Addr, uint32_t Size) {
    if (Off + Size > Bytes.size() ||
        std::memcmp(Current->Mem + Addr, Bytes.data() + Off, Size) != 0)
      return false;
    Off += Size;
    return true;
  });
  return All && Off == Bytes.size();
}

/// Returns true when the check took the log's fast path (nothing to drain).
bool doCheck(uint32_t Inv, bool Ok) {
  ReplayMachine &RM = *Current;
  // The checksum over the invariant's inputs in place, as __wsn_crc16 on
  // the mote computes it over their bytes in map order, without the padding
  // bytes of their mote layout (the record lowering's runs; spec/replay.md section 4).
  uint16_t Crc = 0xFFFF;
  if (Inv < RM.InvInputs.size())
    forEachVar(RM.InvInputs[Inv], nullptr, 0, [&](uint32_t Addr, uint32_t Size) {
      uint32_t Run = Addr, End = Addr + Size;
      for (uint32_t A = Addr; A <= End; ++A)
        if (A == End || (A < RM.PaddingByte.size() && RM.PaddingByte[A])) {
          Crc = wsn::crc16(Crc, ArrayRef<uint8_t>(RM.Mem + Run, A - Run));
          Run = A + 1;
        }
      return true;
    });
  ReplayLog &L = *RM.Log;
  if (Ok)
    if (const TraceRecord *R = L.peekFast(RecordKind::Check, Inv))
      if (R->Fields[1] == Crc) {
        L.consumeFast(); // and counts the check's reference
        ++RM.Checks;
        return true;
      }
  Expected<bool> Stop = L.onCheck(Inv, Ok, Crc);
  if (!Stop) {
    // A checksum or outcome mismatch: name the replayed input values.
    std::vector<uint8_t> Bytes;
    if (Inv < RM.InvInputs.size())
      Bytes = loadVars(RM.InvInputs[Inv], nullptr, 0);
    Error E = Stop.takeError();
    if (E.isA<ReplayDivergence>() && !Bytes.empty()) {
      std::string Extra = "; replayed invariant inputs: " + hexBytes(Bytes);
      handleAllErrors(std::move(E), [&](const ReplayDivergence &D) {
        setStop(ReplayStop::Diverged, D.message() + Extra, D.Record);
      });
      return false;
    }
    ok(std::move(E));
    return false;
  }
  ++RM.Checks;
  addEvent(Ok ? ReplayEvent::Check : ReplayEvent::Violation, Inv);
  if (*Stop) {
    // The message names the stop record; run() formats it after the run.
    setStop(ReplayStop::Stopped, "", L.next() - 1);
    RM.StopDescribeRecord = true;
    return false;
  }
  // The check is one counted reference (spec/instrumentation.md section 11).
  ok(L.addCount(1));
  return false;
}

void doAnchor(uint32_t Anchor, uint32_t N, const uint32_t *Locals) {
  ReplayMachine &RM = *Current;
  ReplayLog &L = *RM.Log;
  static const std::vector<ReplayMachine::Var> None;
  const auto &Vars = Anchor < RM.AnchorVars.size() ? RM.AnchorVars[Anchor] : None;
  if (L.state() == ReplayLog::State::BeforeStart) {
    Expected<ArrayRef<uint8_t>> Bytes = L.takeCheckpoint(Anchor);
    if (!Bytes) {
      ok(Bytes.takeError());
      return;
    }
    storeVars(Vars, *Bytes, Locals, N);
    // The mote's status register at the anchor starts the status model
    // (the global status copy; spec/replay.md section 2).
    size_t Off = 0;
    for (const ReplayMachine::Var &V : Vars) {
      if (V.Global && V.StatusMask && RM.StatusCell && Off + V.Size <= Bytes->size())
        std::memcpy(RM.StatusCell, Bytes->data() + Off, std::min<uint32_t>(V.Size, 2));
      Off += V.Size;
    }
    addEvent(ReplayEvent::Checkpoint, Anchor);
    return;
  }
  Expected<const TraceRecord *> R = L.onAnchor(Anchor);
  if (!R) {
    ok(R.takeError());
    return;
  }
  if (*R) {
    adoptStatusFlags(Anchor, (*R)->Payload, Locals, N);
    adoptPadding(Vars, (*R)->Payload);
    // Equal bytes (the normal case) are seen in place; a difference is
    // located and named by the log.
    if (!varsEqual(Vars, (*R)->Payload, Locals, N)) {
      std::vector<uint8_t> Mine = loadVars(Vars, Locals, N);
      if (!ok(L.compareCheckpoint(**R, Mine)))
        return;
    }
    addEvent(ReplayEvent::Checkpoint, Anchor);
  }
}

uint64_t applyEffect(uint32_t Site, bool HasValue, const TraceRecord &R);

uint64_t doEffect(uint32_t Site, bool HasValue) {
  ReplayMachine &RM = *Current;
  Expected<const TraceRecord *> R = RM.Log->takeEffectRecord(Site);
  if (!R) {
    ok(R.takeError());
    return 0;
  }
  return applyEffect(Site, HasValue, **R);
}

/// Writes an effect record's bytes back; returns the skipped call's value. An EFFECT_C gives
/// only the bytes the call changed (its return bytes not given are 0, as Payload holds).
uint64_t applyEffect(uint32_t Site, bool HasValue, const TraceRecord &R) {
  ArrayRef<uint8_t> Bytes = R.Payload;
  ReplayMachine &RM = *Current;
  uint32_t RetSize = Site < RM.EffectRet.size() ? RM.EffectRet[Site] : 0;
  uint64_t V = 0;
  if (HasValue)
    for (unsigned I = 0; I < RetSize && I < 8 && I < Bytes.size(); ++I)
      V |= uint64_t(Bytes[I]) << (8 * I);
  static const std::vector<ReplayMachine::Var> None;
  // A record of the short form's size holds only the short form's variables.
  bool Short = Site < RM.EffectShortSize.size() && RM.EffectShortSize[Site] &&
               Bytes.size() == RM.EffectShortSize[Site];
  const auto &Vars = Site >= RM.EffectVars.size() ? None
                     : Short                      ? RM.EffectShortVars[Site]
                                                  : RM.EffectVars[Site];
  // The store history (`why` across messages) records the bytes the effect
  // changed: bytes it wrote back unchanged keep their earlier writer.
  std::vector<uint8_t> Before;
  if (RM.Watch.KeepHistory)
    for (const ReplayMachine::Var &V : Vars)
      if (V.Global && uint64_t(V.Addr) + V.Size <= ReplayMemBytes)
        Before.insert(Before.end(), RM.Mem + V.Addr, RM.Mem + V.Addr + V.Size);
  if (RetSize <= Bytes.size()) {
    if (R.Given.empty())
      storeVars(Vars, Bytes.drop_front(RetSize), nullptr, 0);
    else
      storeGiven(Vars, Bytes.drop_front(RetSize), ArrayRef<uint8_t>(R.Given).drop_front(RetSize));
  }
  if (RM.Watch.KeepHistory) {
    size_t K = 0;
    for (const ReplayMachine::Var &V : Vars) {
      if (!V.Global || uint64_t(V.Addr) + V.Size > ReplayMemBytes)
        continue;
      for (uint32_t I = 0; I < V.Size;) {
        if (RM.Mem[V.Addr + I] == Before[K + I]) {
          ++I;
          continue;
        }
        uint32_t J = I;
        while (J < V.Size && RM.Mem[V.Addr + J] != Before[K + J])
          ++J;
        RM.Watch.noteEffect(V.Addr + I, J - I, Site, uint32_t(RM.Events.size()));
        I = J;
      }
      K += V.Size;
    }
  }
  addEvent(ReplayEvent::Effect, Site);
  return V;
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
    replayError([&] {
      return "replay stack overflow: " + std::to_string(Size) + " bytes requested at sp=0x" +
             utohexstr(SP) + ", globals end at 0x" + utohexstr(Current->StackLimit);
    });
  return New;
}
static void cb_bad_fnptr(uint32_t Addr, const char *Loc) {
  replayError([&] {
    return std::string("call through function pointer 0x") + utohexstr(Addr) +
           " which is no function of the program, at " + Loc;
  });
}
static void cb_trap(const char *Loc) {
  replayError([&] { return std::string("trap (llvm.trap / __builtin_trap) at ") + Loc; });
}
static void cb_untraced_io(const char *Loc, uint32_t Addr) {
  replayError([&] {
    return std::string("replay executed a read of ") +
           (Addr == 0xFFFFFFFFu ? std::string("volatile memory")
                                : "I/O address 0x" + utohexstr(Addr)) +
           " at " + Loc +
           ", in a function without trace ops: its value is not in the trace "
           "(the function should run only inside skipped calls)";
  });
}
/// A read through a computed pointer reached the I/O range (the lowering's
/// inline test): latch registers and SREG hold what replay wrote; any other
/// register's value is not in the trace.
static void cb_io_pointer_read(uint32_t Addr, uint32_t Size, const char *Loc) {
  const MoteTarget *T = Current->Target;
  if (!T)
    return;
  for (uint32_t A = Addr; A < Addr + Size; ++A)
    if (T->isIOAddress(A) && !T->isLatch(A) && A != T->SREGAddr)
      replayError([&] {
        return "replay read I/O register 0x" + utohexstr(A) + " through a pointer at " + Loc +
               ": a plain (non-volatile) read of a register is not recorded, so its "
               "value is not in the trace (declare the register volatile, as avr-libc and "
               "nesC do, to make the read a recorded input)";
      });
}
static void cb_irq_unconsumed(uint32_t Irq) {
  // The inline dispatch (spec/replay-log.md section 2.7) ran the handler.
  ReplayMachine &RM = *Current;
  size_t At = RM.Log ? RM.Log->next() : 0;
  setStop(ReplayStop::Error,
          "handler " + (Irq < RM.HandlerNames.size() ? RM.HandlerNames[Irq] : std::string("?")) +
              " of interrupt " + std::to_string(Irq) + " did not consume its IRQ record " +
              std::to_string(At) + " (is it instrumented?)",
          At);
  stopReplay(RM.StopReason);
}
// A sleep with every record consumed ends the replay (ReplayLog::onSleep).
static void cb_sleep() {
  ReplayMachine &RM = *Current;
  if (RM.Log && !ok(RM.Log->onSleep()))
    stopReplay(RM.StopReason);
}
static void cb_lpm(uint32_t Bits) {
  if (Bits)
    cb_sleep();
}
static uint32_t cb_resume() {
  uint32_t A = Current->ResumeAnchor;
  Current->ResumeAnchor = 0;
  return A;
}

#define WSN_SIMPLE_CB(NAME, KIND, OP)                                          \
  static void cb_##NAME(uint32_t Id) {                                         \
    if (!noTrace(OP))                                                          \
      doSimple(RecordKind::KIND, Id, OP);                                      \
    drainAndMaybeStop();                                                       \
  }
WSN_SIMPLE_CB(func_entry, Entry, "wsn.func.entry")
WSN_SIMPLE_CB(func_exit, Exit, "wsn.func.exit")
WSN_SIMPLE_CB(irq_entry, Irq, "wsn.irq.entry")
WSN_SIMPLE_CB(irq_exit, IrqExit, "wsn.irq.exit")
WSN_SIMPLE_CB(sched, Sched, "wsn.sched")
#undef WSN_SIMPLE_CB
// Skipped calls, effects, checks and checkpoints try the log's fast path
// first (spec/replay-log.md section 2.7): a keyed record needs no checks and
// no interrupt is due after it, so there is nothing to drain.
static void cb_skip_begin(uint32_t Site) {
  if (Current->Log && Current->Log->skipFast(Site))
    return;
  if (!noTrace("wsn.skip.begin"))
    doSimple(RecordKind::SkipBegin, Site, "wsn.skip.begin");
  drainAndMaybeStop();
}
static void cb_skip_end(uint32_t Site) {
  ReplayLog *L = Current->Log.get();
  if (L && L->takeFast(RecordKind::SkipEnd, Site))
    return;
  if (!noTrace("wsn.skip.end"))
    doSimple(RecordKind::SkipEnd, Site, "wsn.skip.end");
  drainAndMaybeStop();
}

static void cb_region_begin(uint32_t) {}
static void cb_region_end(uint32_t, uint32_t N) {
  if (!noTrace("wsn.region.end"))
    ok(Current->Log->addCount(N));
  drainAndMaybeStop();
}
/// The payload a message op just consumed record carries (wsn.msg.payload
/// ran right before it).
static void takePendingPayload(uint32_t Site) {
  ReplayMachine &RM = *Current;
  if (auto B = RM.PendingBuffers.find(Site); B != RM.PendingBuffers.end()) {
    if (RM.Log && RM.Log->next())
      RM.MsgBuffers[RM.Log->next() - 1] = B->second;
    RM.PendingBuffers.erase(B);
  }
  auto It = RM.PendingPayloads.find(Site);
  if (It == RM.PendingPayloads.end())
    return;
  if (RM.Log && RM.Log->next())
    RM.MsgPayloads[RM.Log->next() - 1] = std::move(It->second);
  RM.PendingPayloads.erase(It);
}
static void cb_send(uint32_t Site, uint32_t Dest, uint32_t Seq) {
  if (!noTrace("wsn.send") && ok(Current->Log->onSend(Site, Dest, Seq))) {
    takePendingPayload(Site);
    addEvent(ReplayEvent::Send, Site, Seq);
  }
  drainAndMaybeStop();
}
static void cb_recv(uint32_t Site, uint32_t Sender, uint32_t Seq) {
  if (!noTrace("wsn.recv") && ok(Current->Log->onRecv(Site, Sender, Seq))) {
    takePendingPayload(Site);
    addEvent(ReplayEvent::Recv, Site, Seq);
  }
  drainAndMaybeStop();
}
/// wsn.msg.payload: the message's bytes in the replayed memory now, kept for
/// the site's next send/recv op. No record is consumed.
static void cb_msg_payload(uint32_t Site, uint32_t Buf, uint32_t Len) {
  ReplayMachine &RM = *Current;
  if (RM.Watch.KeepHistory)
    RM.PendingBuffers[Site] = {Buf, Len, RM.Watch.History.size(),
                                 uint32_t(RM.Events.size())};
  if (uint64_t(Buf) + Len <= ReplayMemBytes)
    RM.PendingPayloads[Site].assign(RM.Mem + Buf, RM.Mem + Buf + Len);
  else
    RM.PendingPayloads.erase(Site); // outside the data space: nothing to compare
}
static void cb_check(uint32_t Inv, uint32_t Ok) {
  if (!noTrace("wsn.check") && doCheck(Inv, Ok != 0))
    return; // the fast path: nothing to drain
  drainAndMaybeStop();
}
/// wsn.effect / wsn.effect.void: the skipped call's recorded value and writes.
static uint64_t effectOp(uint32_t Site, bool HasValue) {
  if (ReplayLog *L = Current->Log.get())
    if (const TraceRecord *R = L->takeFast(RecordKind::Effect, Site))
      return applyEffect(Site, HasValue, *R);
  uint64_t V = 0;
  if (!noTrace(HasValue ? "wsn.effect" : "wsn.effect.void"))
    V = doEffect(Site, HasValue);
  drainAndMaybeStop();
  return V;
}
static void cb_effect_void(uint32_t Site) { effectOp(Site, false); }
static uint64_t cb_effect(uint32_t Site, uint32_t) { return effectOp(Site, true); }
static uint64_t cb_input(uint32_t Site, uint32_t Bits) {
  uint64_t V = 0;
  if (!noTrace("wsn.input")) {
    Expected<uint32_t> R = Current->Log->takeInput(Site);
    if (R) {
      V = *R;
      addEvent(ReplayEvent::Input, Site, *R);
    } else {
      ok(R.takeError());
    }
  }
  drainAndMaybeStop();
  return Bits >= 64 ? V : V & ((uint64_t(1) << Bits) - 1);
}
static void cb_input_bytes(uint32_t Site, uint32_t Buf, uint32_t Len) {
  if (!noTrace("wsn.input.bytes")) {
    Expected<ArrayRef<uint8_t>> R = Current->Log->takeInputBytes(Site, Len);
    if (R) {
      if (uint64_t(Buf) + R->size() <= ReplayMemBytes)
        std::memcpy(Current->Mem + Buf, R->data(), R->size());
      else
        setStop(ReplayStop::Error, "input bytes at 0x" + utohexstr(Buf) +
                                       " fall outside the data space", 0);
      addEvent(ReplayEvent::Input, Site, uint32_t(R->size()));
    } else {
      ok(R.takeError());
    }
  }
  drainAndMaybeStop();
}
static void cb_anchor(uint32_t Anchor, uint32_t N, const uint32_t *Locals) {
  ReplayMachine &RM = *Current;
  if (ReplayLog *L = RM.Log.get())
    if (const TraceRecord *R = L->peekFast(RecordKind::Checkpoint, Anchor);
        R && Anchor < RM.AnchorVars.size()) {
      adoptStatusFlags(Anchor, R->Payload, Locals, N);
      adoptPadding(RM.AnchorVars[Anchor], R->Payload);
      if (varsEqual(RM.AnchorVars[Anchor], R->Payload, Locals, N)) {
        L->consumeFast();
        return;
      }
    }
  if (!noTrace("wsn.anchor"))
    doAnchor(Anchor, N, Locals);
  drainAndMaybeStop();
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

//===----------------------------------------------------------------------===//
// Store watch (ReplayLoweringOptions::WatchStores; wsn-replay -i `why`): the
// lowered code calls __wsn_replay_store before each write into the data
// space, and the engine remembers, per byte, the source location and how many
// replay events had happened (which places the write in the interleaving).
//===----------------------------------------------------------------------===//
void StoreWatch::note(uint32_t Addr, uint32_t Size, const char *Loc,
                      uint32_t EventsBefore) {
  if (Writers.empty())
    Writers.resize(ReplayMemBytes);
  uint64_t End = std::min<uint64_t>(uint64_t(Addr) + Size, ReplayMemBytes);
  ++Stores;
  for (uint64_t A = Addr; A < End; ++A)
    Writers[A] = {Loc, EventsBefore, Stores};
  if (KeepHistory) {
    StoreEvent E;
    E.Addr = Addr;
    E.Size = Size;
    E.Loc = Loc;
    E.EventsBefore = EventsBefore;
    E.Seq = Stores;
    E.SrcBegin = uint32_t(Sources.size());
    E.SrcCount = uint32_t(Pending.size());
    Sources.insert(Sources.end(), Pending.begin(), Pending.end());
    History.push_back(E);
  }
  Pending.clear();
}

void StoreWatch::noteEffect(uint32_t Addr, uint32_t Size, uint32_t Site,
                            uint32_t EventsBefore) {
  if (!KeepHistory)
    return;
  StoreEvent E;
  E.Addr = Addr;
  E.Size = Size;
  E.EffectSite = int32_t(Site);
  E.EventsBefore = EventsBefore;
  E.Seq = Stores;
  E.SrcBegin = uint32_t(Sources.size());
  History.push_back(E);
}

extern "C" {
static void cb_store_src(uint32_t Addr, uint32_t Size, uint32_t Flags) {
  if (Current && Current->Watch.KeepHistory)
    Current->Watch.Pending.push_back({Addr, Size, Flags});
}
static void cb_store(uint32_t Addr, uint32_t Size, const char *Loc) {
  if (Current)
    Current->Watch.note(Addr, Size, Loc, uint32_t(Current->Events.size()));
}
} // extern "C"
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// The compiled-object cache: JIT compilation is most of a replay's process
// time, and a firmware build is replayed many times (traces of many runs and
// nodes, the fidelity harness). The key is the BLAKE3 hash of the lowered
// module's bitcode, the LLVM version and the host triple and CPU, so an entry
// is only ever used for exactly the code it was compiled from. An entry holds
// the object followed by its own BLAKE3 hash, checked on load: a damaged entry
// is recompiled, never linked.
//===----------------------------------------------------------------------===//

bool writeCacheFile(StringRef Path, ArrayRef<StringRef> Parts) {
  // Written beside it and renamed over it: a reader sees the old file or the
  // whole new one, never a part (other replays may run at the same time).
  SmallString<256> Tmp;
  int FD;
  if (sys::fs::createUniqueFile(Path + ".tmp-%%%%%%", FD, Tmp))
    return false;
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    for (StringRef P : Parts)
      OS << P;
    if (OS.has_error()) {
      OS.clear_error();
      sys::fs::remove(Tmp);
      return false;
    }
  }
  if (sys::fs::rename(Tmp, Path)) {
    sys::fs::remove(Tmp);
    return false;
  }
  return true;
}

namespace {
std::string blake3Hex(ArrayRef<uint8_t> Data) {
  std::array<uint8_t, 32> H = BLAKE3::hash<32>(Data);
  return toHex(H, /*LowerCase=*/true);
}
} // namespace

class ReplayObjectCache : public ObjectCache {
public:
  explicit ReplayObjectCache(std::string Dir) : Dir(std::move(Dir)) {}
  std::string path(const Module *M) const {
    SmallString<256> P(Dir);
    sys::path::append(P, "llvmcache-" + M->getModuleIdentifier() + ".o");
    return std::string(P);
  }
  void notifyObjectCompiled(const Module *M, MemoryBufferRef Obj) override {
    if (!isKey(M) || sys::fs::create_directories(Dir))
      return; // no cache directory: just not cached
    std::array<uint8_t, 32> H = BLAKE3::hash<32>(arrayRefFromStringRef(Obj.getBuffer()));
    if (!writeCacheFile(path(M),
                        {Obj.getBuffer(),
                         StringRef(reinterpret_cast<const char *>(H.data()), H.size())}))
      return;
    // Bounded: entries unused for two weeks go, and the oldest beyond 256 MiB
    // or 10% of the free space (scanned at most every 20 minutes; LLVM's
    // pruner only touches llvmcache-* files).
    CachePruningPolicy Policy;
    Policy.Expiration = std::chrono::hours(14 * 24);
    Policy.MaxSizeBytes = uint64_t(256) << 20;
    Policy.MaxSizePercentageOfAvailableSpace = 10;
    pruneCache(Dir, Policy);
  }
  /// Whether code compiled from M was ever stored (intact or not): M's
  /// content is the key, so M passed the verifier then.
  bool known(const Module *M) const { return isKey(M) && sys::fs::exists(path(M)); }
  std::unique_ptr<MemoryBuffer> getObject(const Module *M) override {
    if (!isKey(M))
      return nullptr;
    std::unique_ptr<MemoryBuffer> Obj = read(M->getModuleIdentifier());
    if (Obj)
      ++Hits;
    return Obj;
  }
  /// The intact object stored under Key, or null.
  std::unique_ptr<MemoryBuffer> read(StringRef Key) const {
    SmallString<256> P(Dir);
    sys::path::append(P, "llvmcache-" + Key + ".o");
    auto Buf = MemoryBuffer::getFile(P, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!Buf || (*Buf)->getBufferSize() <= 32)
      return nullptr;
    StringRef All = (*Buf)->getBuffer();
    StringRef Obj = All.drop_back(32), Sum = All.take_back(32);
    std::array<uint8_t, 32> H = BLAKE3::hash<32>(arrayRefFromStringRef(Obj));
    if (StringRef(reinterpret_cast<const char *>(H.data()), H.size()) != Sum)
      return nullptr; // damaged: compile again (and overwrite it)
    return MemoryBuffer::getMemBufferCopy(Obj, Key);
  }
  unsigned Hits = 0;

private:
  static bool isKey(const Module *M) {
    return M->getModuleIdentifier().size() == 64 + 7 &&
           StringRef(M->getModuleIdentifier()).starts_with("replay-");
  }
  std::string Dir;
};

std::string defaultJitCacheDir() {
  SmallString<256> P;
  if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X)
    P = X;
  else if (!sys::path::cache_directory(P))
    return "";
  sys::path::append(P, "wsn-trace", "jit");
  return std::string(P);
}

ReplayRunner::~ReplayRunner() = default;
bool ReplayRunner::usedCachedObject() const {
  return FromStartCache || (Cache && Cache->Hits > 0);
}

std::unique_ptr<MemoryBuffer> readCachedObject(StringRef Dir, StringRef Key) {
  return ReplayObjectCache(Dir.str()).read(Key);
}

Expected<std::unique_ptr<ReplayRunner>>
ReplayRunner::makeRunner(const ReplayLoweringResult &Info, ReplayRunOptions Opts,
                         bool CompileCache, const std::string *ObjectDataLayout) {
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
  R->Machine->Target = &R->Info.Target;

  orc::LLJITBuilder JB;
  if (ObjectDataLayout) {
    // Only a compiled object is added: no target machine is needed. The
    // layout comes with the object, and without these the builder would
    // detect the host's features and build a target machine to learn it.
    JB.setJITTargetMachineBuilder(
        orc::JITTargetMachineBuilder(Triple(sys::getProcessTriple())));
    JB.setDataLayout(DataLayout(*ObjectDataLayout));
    JB.setCompileFunctionCreator([](orc::JITTargetMachineBuilder JTMB)
                                     -> Expected<std::unique_ptr<orc::IRCompileLayer::IRCompiler>> {
      return std::make_unique<orc::ConcurrentIRCompiler>(std::move(JTMB));
    });
  } else if (CompileCache && !Opts.JitCacheDir.empty() && !Opts.DebuggerSupport) {
    R->Cache = std::make_unique<ReplayObjectCache>(Opts.JitCacheDir);
    ReplayObjectCache *C = R->Cache.get();
    JB.setCompileFunctionCreator([C](orc::JITTargetMachineBuilder JTMB)
                                     -> Expected<std::unique_ptr<orc::IRCompileLayer::IRCompiler>> {
      return std::make_unique<orc::ConcurrentIRCompiler>(std::move(JTMB), C);
    });
  }
  auto JOrErr = JB.create();
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
  CB("resume", (const void *)&cb_resume);
  CB("irq_unconsumed", (const void *)&cb_irq_unconsumed);
  CB("untraced_io", (const void *)&cb_untraced_io);
  CB("io_pointer_read", (const void *)&cb_io_pointer_read);
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
  CB("msg_payload", (const void *)&cb_msg_payload);
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
  CB("store", (const void *)&cb_store); // store watch (WatchStores)
  CB("store_src", (const void *)&cb_store_src);
  Add(replayabi::Cursor, &R->Machine->Cursor);
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
  return std::move(R);
}

Expected<void *> ReplayRunner::lookupFunction(StringRef Name) {
  auto Sym = J->lookup(Name);
  if (!Sym)
    return Sym.takeError();
  return Sym->toPtr<void *>();
}

Error ReplayRunner::lookupEntryPoints() {
  auto MemSym = J->lookup(replayabi::Mem);
  if (!MemSym)
    return MemSym.takeError();
  Machine->Mem = MemSym->toPtr<uint8_t *>();
  auto InitSym = J->lookup(replayabi::InitMemory);
  if (!InitSym)
    return InitSym.takeError();
  InitFn = InitSym->toPtr<void (*)()>();
  auto EntrySym = J->lookup(Opts.Entry);
  if (!EntrySym)
    return EntrySym.takeError();
  EntryFn = EntrySym->toPtr<void *>();
  // The status register model: AVR's SREG cell of mem, MSP430's global.
  if (Info.Target.Arch == MoteArch::AVR) {
    if (Info.Target.SREGAddr)
      Machine->StatusCell = Machine->Mem + Info.Target.SREGAddr;
  } else if (auto SR = J->lookup(replayabi::StatusReg)) {
    Machine->StatusCell = SR->toPtr<uint8_t *>();
  } else {
    consumeError(SR.takeError()); // a module without a status read
  }
  return Error::success();
}

Expected<std::unique_ptr<ReplayRunner>>
ReplayRunner::create(std::unique_ptr<LLVMContext> Ctx, std::unique_ptr<Module> Lowered,
                     const ReplayLoweringResult &Info, ReplayRunOptions Opts) {
  // Owned together from here on, so that every return destroys the module
  // before its context (the parameters' destruction order is not that).
  orc::ThreadSafeModule TSM(std::move(Lowered), std::move(Ctx));
  Module *LoweredM = TSM.getModuleUnlocked();
  auto ROrErr = makeRunner(Info, std::move(Opts), /*CompileCache=*/true, nullptr);
  if (!ROrErr)
    return ROrErr.takeError();
  std::unique_ptr<ReplayRunner> R = std::move(*ROrErr);
  orc::LLJIT &J = *R->J;
  LoweredM->setDataLayout(J.getDataLayout());
  Function *EntryF = LoweredM->getFunction(R->Opts.Entry);
  if (!EntryF || EntryF->isDeclaration())
    return createStringError(inconvertibleErrorCode(),
                             "entry function '%s' is not defined in the program",
                             R->Opts.Entry.c_str());
  if (EntryF->arg_size() != 0)
    return createStringError(inconvertibleErrorCode(),
                             "entry function '%s' takes arguments",
                             R->Opts.Entry.c_str());
  for (const Function &F : *LoweredM)
    if (!F.isDeclaration())
      R->FnArgs[F.getName().str()] = F.arg_size();
  Type *RT = EntryF->getReturnType();
  R->EntryBits = RT->isIntegerTy() ? RT->getIntegerBitWidth() : 0;
  if (!RT->isVoidTy() && !(RT->isIntegerTy() && R->EntryBits <= 32))
    return createStringError(inconvertibleErrorCode(),
                             "entry function '%s' must return void or an int",
                             R->Opts.Entry.c_str());
  if (R->Cache) {
    SmallVector<char, 0> BC;
    raw_svector_ostream OS(BC);
    WriteBitcodeToFile(*LoweredM, OS);
    OS << "|llvm " LLVM_VERSION_STRING "|" << J.getTargetTriple().str() << "|"
       << sys::getHostCPUName();
    LoweredM->setModuleIdentifier("replay-" + blake3Hex(arrayRefFromStringRef(StringRef(BC.data(), BC.size()))));
    R->ObjectKey = LoweredM->getModuleIdentifier();
    R->DataLayoutStr = J.getDataLayout().getStringRepresentation();
  }
  // loadForReplay lowers without verifying: a module whose compiled code the
  // cache has seen is byte for byte one that was verified.
  if (!R->Cache || !R->Cache->known(LoweredM))
    if (Error E = verifyLoweredModule(*LoweredM))
      return std::move(E);
  if (Error E = J.addIRModule(std::move(TSM)))
    return std::move(E);
  if (Error E = R->lookupEntryPoints())
    return std::move(E);
  return std::move(R);
}

Expected<std::unique_ptr<ReplayRunner>>
ReplayRunner::createFromObject(std::unique_ptr<MemoryBuffer> Object,
                               const std::string &DataLayoutStr,
                               const ReplayLoweringResult &Info,
                               std::map<std::string, unsigned> FnArgs, unsigned EntryBits,
                               ReplayRunOptions Opts) {
  if (Opts.DebuggerSupport)
    return createStringError(inconvertibleErrorCode(),
                             "a cached object is not started with debugger support");
  auto ROrErr = makeRunner(Info, std::move(Opts), /*CompileCache=*/false, &DataLayoutStr);
  if (!ROrErr)
    return ROrErr.takeError();
  std::unique_ptr<ReplayRunner> R = std::move(*ROrErr);
  auto It = FnArgs.find(R->Opts.Entry);
  if (It == FnArgs.end() || It->second != 0)
    return createStringError(inconvertibleErrorCode(),
                             "entry function '%s' is not defined in the program, or takes "
                             "arguments",
                             R->Opts.Entry.c_str());
  R->FnArgs = std::move(FnArgs);
  R->EntryBits = EntryBits;
  R->ObjectKey = Object->getBufferIdentifier().str();
  R->DataLayoutStr = DataLayoutStr;
  if (Error E = R->J->addObjectFile(std::move(Object)))
    return std::move(E);
  if (Error E = R->lookupEntryPoints())
    return std::move(E);
  R->FromStartCache = true;
  return std::move(R);
}

/// Resolves the trace map against the lowered program: the variables of
/// checkpoints, effects and invariant checks, and the interrupt handlers.
Error ReplayRunner::prepareTrace() {
  ReplayMachine &RM = *Machine;
  const TraceMap &Map = *Opts.Map;
  auto Resolve = [&](const std::vector<TraceMap::Var> &In, const std::string &What,
                     std::vector<ReplayMachine::Var> &Out) -> Error {
    Out.clear();
    for (const TraceMap::Var &V : In) {
      ReplayMachine::Var RV;
      RV.Global = V.IsGlobal;
      RV.Size = V.Size;
      if (V.IsStatus || (V.IsGlobal && V.Name == AnchorStatusGlobal))
        RV.StatusMask = Info.Target.Arch == MoteArch::AVR ? 0x80 : 0x0008;
      if (V.IsGlobal) {
        const ReplayGlobal *G = Info.global(V.Name);
        if (!G)
          return createStringError(inconvertibleErrorCode(),
                                   "%s: global '%s' of the trace map is not in the program",
                                   What.c_str(), V.Name.c_str());
        if (G->Size != V.Size)
          return createStringError(
              inconvertibleErrorCode(),
              "%s: global '%s' has %u bytes in the trace map but %u in the program",
              What.c_str(), V.Name.c_str(), V.Size, G->Size);
        RV.Addr = G->Addr;
      }
      // Globals that follow each other in memory and in the record are one
      // run: restoring, comparing and checksumming see the same bytes in the
      // same order, with one copy instead of one per variable.
      if (!Out.empty() && RV.Global && Out.back().Global && !RV.StatusMask &&
          !Out.back().StatusMask && Out.back().Addr + Out.back().Size == RV.Addr) {
        Out.back().Size += RV.Size;
        continue;
      }
      Out.push_back(RV);
    }
    return Error::success();
  };
  RM.PaddingByte.clear();
  for (const ReplayGlobal &G : Info.Globals)
    for (uint32_t Off : G.PaddingOffsets)
      if (uint64_t(G.Addr) + Off < ReplayMemBytes) {
        if (RM.PaddingByte.empty())
          RM.PaddingByte.assign(ReplayMemBytes, false);
        RM.PaddingByte[G.Addr + Off] = true;
      }
  RM.InvInputs.assign(1, {});
  for (const TraceMap::Invariant &I : Map.Invariants) {
    if (RM.InvInputs.size() <= I.Id)
      RM.InvInputs.resize(I.Id + 1);
    if (Error E = Resolve(I.Inputs, "invariant " + std::to_string(I.Id), RM.InvInputs[I.Id]))
      return E;
  }
  RM.AnchorVars.assign(1, {});
  for (const TraceMap::Anchor &A : Map.Anchors) {
    if (RM.AnchorVars.size() <= A.Id)
      RM.AnchorVars.resize(A.Id + 1);
    if (Error E = Resolve(A.Vars, "anchor " + std::to_string(A.Id), RM.AnchorVars[A.Id]))
      return E;
  }
  RM.AnchorStatus.assign(RM.AnchorVars.size(), {});
  for (size_t A = 0; A < RM.AnchorVars.size(); ++A) {
    uint32_t Off = 0;
    int32_t Local = 0;
    for (const ReplayMachine::Var &V : RM.AnchorVars[A]) {
      if (V.StatusMask)
        RM.AnchorStatus[A].push_back({Off, V.Global ? -1 : Local, V.Addr, V.Size, V.StatusMask});
      Local += !V.Global;
      Off += V.Size;
    }
  }
  RM.EffectVars.assign(1, {});
  RM.EffectRet.assign(1, 0);
  RM.EffectShortVars.assign(1, {});
  RM.EffectShortSize.assign(1, 0);
  for (const TraceMap::Effect &Ef : Map.Effects) {
    if (RM.EffectVars.size() <= Ef.Site) {
      RM.EffectVars.resize(Ef.Site + 1);
      RM.EffectRet.resize(Ef.Site + 1, 0);
      RM.EffectShortVars.resize(Ef.Site + 1);
      RM.EffectShortSize.resize(Ef.Site + 1, 0);
    }
    RM.EffectRet[Ef.Site] = Ef.ReturnSize;
    std::string What = "effect site " + std::to_string(Ef.Site);
    if (Error E = Resolve(Ef.Writes, What, RM.EffectVars[Ef.Site]))
      return E;
    if (Ef.shortRecordSize() != Ef.recordSize()) {
      RM.EffectShortSize[Ef.Site] = Ef.shortRecordSize();
      if (Error E = Resolve(Ef.writesFor(Ef.shortRecordSize()), What + " (short form)",
                            RM.EffectShortVars[Ef.Site]))
        return E;
    }
  }
  RM.Handlers.assign(1, nullptr);
  RM.HandlerNames.assign(1, "");
  RM.NoHandlerWhy.clear();
  RM.MapName = Opts.Trace->MapName;
  // When the map is what disagrees, the message names its entry ("irqs[1] (irq 2)"; the
  // callers put the map file before errors of prepare, as for the layout checks).
  for (size_t I = 0; I < Map.Irqs.size(); ++I) {
    const TraceMap::Irq &Q = Map.Irqs[I];
    if (RM.Handlers.size() <= Q.Id) {
      RM.Handlers.resize(Q.Id + 1, nullptr);
      RM.HandlerNames.resize(Q.Id + 1);
    }
    RM.HandlerNames[Q.Id] = Q.Function;
    auto It = FnArgs.find(Q.Function);
    if (It == FnArgs.end()) {
      // An error below if the replayed records take it.
      if (RM.NoHandlerWhy.size() <= Q.Id)
        RM.NoHandlerWhy.resize(Q.Id + 1);
      RM.NoHandlerWhy[Q.Id] = "irqs[" + std::to_string(I) + "] (irq " + std::to_string(Q.Id) +
                              ") names the handler '" + Q.Function +
                              "', which is not a function of the replay module";
      continue;
    }
    if (It->second != 0)
      return createStringError(inconvertibleErrorCode(),
                               "interrupt handler '%s' takes arguments",
                               Q.Function.c_str());
    auto Sym = J->lookup(Q.Function);
    if (!Sym)
      return Sym.takeError();
    RM.Handlers[Q.Id] = Sym->toPtr<void (*)()>();
  }
  // An interrupt the replayed records take must have a handler to run: say so before
  // replaying, naming the map entry (or its absence) and the first record that takes it.
  const PreprocessedTrace &T = *Opts.Trace;
  for (size_t R = T.Start, End = std::min(T.Coverage.StopRecord + 1, T.Records.size());
       R < End; ++R) {
    if (T.Records[R].Kind != RecordKind::Irq)
      continue;
    uint32_t Irq = T.Records[R].id();
    if (Irq < RM.Handlers.size() && RM.Handlers[Irq])
      continue;
    return createStringError(inconvertibleErrorCode(),
                             "%s, but the trace takes interrupt %u at record %zu (the map and "
                             "the program disagree: rebuild with wsn-cc)",
                             noHandlerWhy(RM, Irq).c_str(), Irq, R);
  }
  return Error::success();
}

Error ReplayRunner::prepare() {
  // The table depends on the records, the start and the stop record (which a
  // caller may move, e.g. to the K-th check): prepare again when they change.
  auto Shape = [](const PreprocessedTrace &T) {
    return std::make_tuple(T.Records.size(), T.Start, T.Coverage.StopRecord);
  };
  if (!Opts.Trace || (PreparedTrace == Opts.Trace && PreparedMap == Opts.Map &&
                      PreparedShape == Shape(*Opts.Trace)))
    return Error::success();
  if (!Opts.Map)
    return createStringError(inconvertibleErrorCode(),
                             "trace replay needs the program's trace map");
  if (Error E = prepareTrace())
    return E;
  // Thesis 4.2: replay starts at the earliest checkpoint, inside the
  // anchor's function, which the lowering lets resume at the anchor.
  const TraceMap::Anchor *A = Opts.Map->anchor(Opts.Trace->StartAnchor);
  if (!A)
    return createStringError(inconvertibleErrorCode(),
                             "the start checkpoint's anchor %u is not in the trace map",
                             Opts.Trace->StartAnchor);
  auto It = FnArgs.find(A->Function);
  if (It == FnArgs.end())
    return createStringError(inconvertibleErrorCode(),
                             "anchor %u is in function '%s', which the program does "
                             "not define",
                             A->Id, A->Function.c_str());
  if (It->second != 0)
    return createStringError(inconvertibleErrorCode(),
                             "anchor %u is in function '%s', which takes arguments: "
                             "replay cannot resume there",
                             A->Id, A->Function.c_str());
  auto Sym = J->lookup(A->Function);
  if (!Sym)
    return Sym.takeError();
  StartFn = Sym->toPtr<void *>();
  FastTable = std::make_unique<ReplayFastTable>(buildFastTable(*Opts.Trace));
  PreparedTrace = Opts.Trace;
  PreparedMap = Opts.Map;
  PreparedShape = Shape(*Opts.Trace);
  return Error::success();
}

namespace {
/// The events a live run adds, from the records it consumed ([start, End)):
/// one per consumed record except SKIP_BEGIN/SKIP_END, whose span is not
/// consumed; handler depth counted from the IRQ record to its IRQ_EXIT.
std::vector<ReplayEvent> eventsFromRecords(const PreprocessedTrace &P, size_t End) {
  std::vector<ReplayEvent> Out;
  std::vector<uint32_t> FnInst, IrqInst;
  auto Bump = [](std::vector<uint32_t> &V, uint32_t I) {
    if (V.size() <= I)
      V.resize(I + 1, 0);
    return ++V[I];
  };
  unsigned Depth = 0;
  End = std::min(End, P.Records.size());
  for (size_t I = P.Start; I < End; ++I) {
    const TraceRecord &R = P.Records[I];
    ReplayEvent E;
    E.Id = R.id();
    E.Record = I;
    switch (R.Kind) {
    case RecordKind::Entry:
      E.K = ReplayEvent::Entry;
      E.Instance = Bump(FnInst, R.id());
      break;
    case RecordKind::Exit: E.K = ReplayEvent::Exit; break;
    case RecordKind::Irq:
      ++Depth;
      E.K = ReplayEvent::IrqEntry;
      E.Instance = Bump(IrqInst, R.id());
      break;
    case RecordKind::IrqExit: E.K = ReplayEvent::IrqExit; break;
    case RecordKind::Sched: E.K = ReplayEvent::Sched; break;
    case RecordKind::Check: E.K = ReplayEvent::Check; break;
    case RecordKind::Violation: E.K = ReplayEvent::Violation; break;
    case RecordKind::Input:
      E.K = ReplayEvent::Input;
      E.Value = R.Fields[1];
      break;
    case RecordKind::InputBytes:
      E.K = ReplayEvent::Input;
      E.Value = uint32_t(R.Payload.size());
      break;
    case RecordKind::Effect: E.K = ReplayEvent::Effect; break;
    case RecordKind::Checkpoint: E.K = ReplayEvent::Checkpoint; break;
    case RecordKind::Send:
      E.K = ReplayEvent::Send;
      E.Value = R.Fields[1];
      break;
    case RecordKind::Recv:
      E.K = ReplayEvent::Recv;
      E.Value = R.Fields[2];
      break;
    case RecordKind::SkipBegin: {
      unsigned D = 1;
      size_t J = I + 1;
      for (; J < End; ++J) {
        RecordKind K = P.Records[J].Kind;
        if (K == RecordKind::SkipBegin)
          ++D;
        else if (K == RecordKind::SkipEnd && --D == 0)
          break;
      }
      I = J; // SKIP_END (no event) or the end
      continue;
    }
    default:
      continue;
    }
    E.Depth = Depth;
    Out.push_back(E);
    if (R.Kind == RecordKind::IrqExit && Depth)
      --Depth;
  }
  return Out;
}
} // namespace

const std::vector<ReplayEvent> &ReplayRunner::events() {
  ReplayMachine &RM = *Machine;
  if (!RM.EventsValid && Opts.Trace) {
    RM.Events = eventsFromRecords(*Opts.Trace, EventsEnd);
    RM.EventsValid = true;
  }
  return RM.Events;
}

namespace {
/// "stop reached at record N: <record>". Not inlined: bench/replay-speed
/// counts it as the report, apart from the replay's execution.
LLVM_ATTRIBUTE_NOINLINE std::string stopRecordMessage(const PreprocessedTrace &P,
                                                      size_t Record) {
  if (Record >= P.Records.size())
    return "stop reached at record " + std::to_string(Record);
  return "stop reached at record " + std::to_string(Record) + ": " +
         describeRecord(P.Records[Record]);
}
} // namespace

Expected<ReplayOutcome> ReplayRunner::run() {
  ReplayMachine &RM = *Machine;
  // The JIT'd array starts zeroed; later runs clear what the previous left.
  if (Ran)
    std::memset(RM.Mem, 0, ReplayMemBytes);
  Ran = true;
  RM.Log.reset();
  RM.Map = Opts.Map;
  RM.LiveEvents = Opts.LiveEvents || Opts.BreakAt || !Opts.Trace;
  RM.EventsValid = true;
  if (RM.LiveEvents)
    RM.Events.reserve(4096);
  RM.Events.clear();
  RM.MsgPayloads.clear();
  RM.PendingPayloads.clear();
  RM.MsgBuffers.clear();
  RM.PendingBuffers.clear();
  static const replayabi::FastRecord NoRecords[1] = {{0, 0, 0, 0}};
  RM.Cursor = replayabi::ReplayCursor{};
  RM.Cursor.Recs = NoRecords;
  RM.FnInstances.clear();
  RM.IrqInstances.clear();
  RM.Checks = 0;
  RM.HandlerDepth = 0;
  RM.ResumeAnchor = 0;
  RM.BreakAt = Opts.BreakAt;
  RM.Pending = false;
  RM.StopReason = ReplayStop::Returned;
  RM.StopMessage.clear();
  RM.StopDescribeRecord = false;
  RM.StopRecord = 0;
  RM.Watch.reset();

  void *Fn = EntryFn;
  unsigned Bits = EntryBits;
  if (Opts.Trace) {
    if (Error E = prepare())
      return std::move(E);
    RM.Cursor.Handlers = RM.Handlers.data();
    RM.Cursor.NHandlers = uint32_t(RM.Handlers.size());
    Fn = StartFn;
    Bits = 0;
    RM.ResumeAnchor = Opts.Trace->StartAnchor;
    RM.Log = std::make_unique<ReplayLog>(*Opts.Trace, Opts.LogOptions, &RM.Cursor,
                                         FastTable.get(), !RM.LiveEvents);
  }

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
    switch (Bits) {
    case 0:
      reinterpret_cast<void (*)()>(Fn)();
      break;
    case 8:
      Ret = reinterpret_cast<int8_t (*)()>(Fn)();
      break;
    case 16:
      Ret = reinterpret_cast<int16_t (*)()>(Fn)();
      break;
    default:
      Ret = reinterpret_cast<int32_t (*)()>(Fn)();
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
  if (RM.StopDescribeRecord && RM.Log)
    Out.Message = stopRecordMessage(RM.Log->trace(), RM.StopRecord);
  Out.StopRecord = RM.StopRecord;
  Out.ChecksReplayed = RM.Checks;
  if (Out.Reason == ReplayStop::Timeout)
    Out.Message = "replay did not stop within " + std::to_string(Opts.TimeoutSeconds) +
                  " s (no marker reached?)";
  if (RM.Log && !RM.LiveEvents) {
    // Section 2.7: the events of the consumed records; a checkpoint whose
    // comparison diverged was consumed without an event.
    EventsEnd = RM.Log->next();
    if (RM.StopReason == ReplayStop::Diverged)
      EventsEnd = std::min(EventsEnd, RM.StopRecord);
    RM.EventsValid = false;
  }
  if (RM.Log) {
    Out.RecordsConsumed = RM.Log->next();
    Out.Warnings = RM.Log->warnings();
    if (Out.Reason == ReplayStop::Returned)
      Out.Message = "the anchor's function returned at record " +
                    std::to_string(RM.Log->next()) + " (" + RM.Log->statusMessage() + ")";
  }
  return Out;
}

StringRef eventKindName(ReplayEvent::Kind K) {
  switch (K) {
  case ReplayEvent::Entry: return "entry";
  case ReplayEvent::Exit: return "exit";
  case ReplayEvent::IrqEntry: return "irq";
  case ReplayEvent::IrqExit: return "irq-exit";
  case ReplayEvent::Check: return "check";
  case ReplayEvent::Violation: return "violation";
  case ReplayEvent::Input: return "input";
  case ReplayEvent::Effect: return "effect";
  case ReplayEvent::Checkpoint: return "checkpoint";
  case ReplayEvent::Sched: return "sched";
  case ReplayEvent::Send: return "send";
  case ReplayEvent::Recv: return "recv";
  }
  return "?";
}

/// Runs Fn; false when it crashed (a signal caught by LLVM's
/// CrashRecoveryContext). The caller then abandons what Fn was building.
template <typename FnT> static bool runRecovering(FnT &&Fn) {
  static bool Enabled = [] {
    CrashRecoveryContext::Enable();
    return true;
  }();
  (void)Enabled;
  CrashRecoveryContext CRC;
  return CRC.RunSafely(Fn);
}

Expected<ParsedProgram> parseProgramIR(StringRef IRPath) {
  ParsedProgram P;
  P.Ctx = std::make_unique<LLVMContext>();
  SMDiagnostic Diag;
  if (!runRecovering([&] { P.M = parseIRFile(IRPath, Diag, *P.Ctx); })) {
    // Whatever the reader built is in an unknown state: abandon it.
    (void)P.M.release();
    (void)P.Ctx.release();
    return createStringError(inconvertibleErrorCode(),
                             "%s: malformed IR: LLVM's reader crashed while reading it "
                             "(a damaged or truncated file?)",
                             IRPath.str().c_str());
  }
  if (!P.M) {
    std::string S;
    raw_string_ostream OS(S);
    Diag.print(nullptr, OS, false);
    return createStringError(inconvertibleErrorCode(), StringRef(S).trim().str());
  }
  return std::move(P);
}

Expected<TraceMap> traceMapOfProgram(ParsedProgram &P) {
  std::optional<Expected<TraceMap>> Out;
  if (!runRecovering([&] { Out.emplace(TraceMap::fromModule(*P.M)); }) || !Out) {
    (void)P.M.release();
    (void)P.Ctx.release();
    return createStringError(inconvertibleErrorCode(),
                             "malformed IR: reading its trace metadata crashed (a damaged "
                             "file?)");
  }
  return std::move(*Out);
}

static Expected<std::unique_ptr<ReplayRunner>>
lowerAndCompile(ParsedProgram Program, StringRef IRPath, const ReplayLoweringOptions &LOpts,
                ReplayRunOptions ROpts, std::string *LoweredIR) {
  Module &M = *Program.M;
  ReplayLoweringOptions NoVerify = LOpts;
  NoVerify.Verify = false; // ReplayRunner::create verifies, unless cached
  Expected<ReplayLoweringResult> Info = lowerModuleForReplay(M, NoVerify);
  if (!Info)
    return createStringError(inconvertibleErrorCode(),
                             IRPath + ": " + toString(Info.takeError()));
  if (LoweredIR) {
    raw_string_ostream OS(*LoweredIR);
    M.print(OS, nullptr);
  }
  return ReplayRunner::create(std::move(Program.Ctx), std::move(Program.M), *Info,
                              std::move(ROpts));
}

Expected<std::unique_ptr<ReplayRunner>>
loadForReplay(ParsedProgram Program, StringRef IRPath, const ReplayLoweringOptions &LOpts,
              ReplayRunOptions ROpts, std::string *LoweredIR) {
  // A file that reads but is damaged (a corrupted debug-info string, say) can
  // still crash LLVM's code generator; so can a bug of ours on IR we do not
  // expect. Either way the user gets an error naming the file, not a crash:
  // whatever the crashed code owned is abandoned, never destroyed.
  std::optional<Expected<std::unique_ptr<ReplayRunner>>> Out;
  bool OK = runRecovering([&] {
    ParsedProgram Mine = std::move(Program);
    Out.emplace(lowerAndCompile(std::move(Mine), IRPath, LOpts, std::move(ROpts), LoweredIR));
  });
  if (!OK || !Out)
    return createStringError(inconvertibleErrorCode(),
                             "%s: lowering or compiling the program crashed (damaged IR, "
                             "or a wsn-replay bug on IR it does not expect)",
                             IRPath.str().c_str());
  return std::move(*Out);
}

Expected<std::unique_ptr<ReplayRunner>>
loadForReplay(StringRef IRPath, const ReplayLoweringOptions &LOpts, ReplayRunOptions ROpts,
              std::string *LoweredIR) {
  Expected<ParsedProgram> P = parseProgramIR(IRPath);
  if (!P)
    return P.takeError();
  return loadForReplay(std::move(*P), IRPath, LOpts, std::move(ROpts), LoweredIR);
}

CompareSummary compareGlobals(const ReplayLoweringResult &Info, ArrayRef<uint8_t> Replay,
                              ArrayRef<uint8_t> Snapshot, bool IncludeUnplaced,
                              const std::vector<std::string> *Only) {
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
    if (Only && !llvm::is_contained(*Only, G.Name))
      continue;
    ++Sum.Compared;
    std::vector<bool> Skip(G.Size, false);
    for (uint32_t Off : G.PaddingOffsets)
      if (Off < G.Size)
        Skip[Off] = true;
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
