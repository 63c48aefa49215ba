//===- SimNode.cpp - what every simulated mote shares ---------------------===//
//
// The MCU-independent part of a node: picking the implementation, the trace
// object in RAM (header, ring, --full-trace copies), the hooks and --count-pc.
//
//===----------------------------------------------------------------------===//
#include "SimNode.h"
#include "AvrNode.h"
#include "Msp430Node.h"
#include "SettleAnchor.h"
#include "TraceFormat.h"
#include "TraceTail.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/BinaryFormat/ELF.h"

#include <algorithm>
#include <cstring>
#include <map>

using namespace llvm;

namespace wsn {
namespace sim {

std::string Node::stackOverflow(uint32_t Lowest, uint32_t RamEnd, const char *Symbol,
                                   uint64_t Cycle, const std::vector<unsigned> &Nested,
                                   bool AtLeast) {
  std::string Msg = "stack overflow at cycle " + std::to_string(Cycle) +
                    ": the stack reached 0x" + llvm::utohexstr(Lowest) +
                    ", below the end of static RAM at 0x" + llvm::utohexstr(RamEnd) + " (" +
                    Symbol + "): it overwrote globals (the trace ring and the runtime's state "
                    "lie last)";
  if (Nested.size() < 2)
    return Msg;
  // Handlers that re-enable interrupts nest; when one lasts longer than the interval between
  // its interrupts they nest without bound. Name the vectors and the one that recurs most.
  std::map<unsigned, unsigned> Count;
  for (unsigned V : Nested)
    ++Count[V];
  auto Most = std::max_element(Count.begin(), Count.end(), [](const auto &A, const auto &B) {
    return A.second < B.second;
  });
  std::string List;
  const size_t Shown = 8;
  for (size_t I = 0; I < Nested.size() && I < Shown; ++I)
    List += (I ? ", " : "") + std::to_string(Nested[I]);
  if (Nested.size() > Shown)
    List += ", ...";
  Msg += std::string("; ") + (AtLeast ? "at least " : "") + std::to_string(Nested.size()) +
         " interrupt handlers were running, nested (vectors " + List + ", outermost first; "
         "vector " + std::to_string(Most->first) + " " + std::to_string(Most->second) +
         " times): a handler that re-enables interrupts and lasts longer than the interval "
         "between its interrupts nests without bound, and a traced handler lasts longer than "
         "the original (wsn-sim --profile of both images shows by how much)";
  return Msg;
}

const char *stopKindName(StopKind K) {
  switch (K) {
  case StopKind::None:
    return "bound";
  case StopKind::Violation:
    return "violation";
  case StopKind::Checks:
    return "checks";
  case StopKind::Halted:
    return "halted";
  case StopKind::Crashed:
    return "crashed";
  }
  return "bound";
}

std::string resolveMcu(const FirmwareInfo &FW, const std::string &Requested) {
  bool WantsMsp = StringRef(Requested).starts_with("msp430");
  if (FW.Machine == ELF::EM_MSP430)
    return WantsMsp ? Requested : FW.Msp430Part.empty() ? "msp430f1611" : FW.Msp430Part;
  return WantsMsp ? "atmega128" : Requested;
}

Expected<std::unique_ptr<Node>> Node::create(const FirmwareInfo &FW, const NodeOptions &Opts) {
  NodeOptions O = Opts;
  O.Mcu = resolveMcu(FW, Opts.Mcu);
  if (FW.Machine == ELF::EM_MSP430)
    return Msp430Node::create(FW, O);
  return AvrNode::create(FW, O);
}

static raw_ostream *CoreLog = nullptr;

raw_ostream &simCoreLog() { return CoreLog ? *CoreLog : errs(); }

raw_ostream *setSimCoreLog(raw_ostream *OS) {
  raw_ostream *Old = CoreLog;
  CoreLog = OS;
  return Old;
}

Node::~Node() = default;

NodeClocks drawNodeClocks(const NodeOptions &Opts, double DcoMin, double DcoMax) {
  NodeClocks C;
  if (Opts.NominalClocks)
    return C;
  SimRng R(Opts.Seed, Opts.NodeId, Stream::Clocks);
  C.CrystalPpb = int64_t(R.uniform(0, 40000)) - 20000;
  C.CrystalPhase32 = uint32_t(R.next() >> 32);
  C.DcoScale = DcoMin + (DcoMax - DcoMin) * R.unit();
  return C;
}

//===----------------------------------------------------------------------===//
// Hooks
//===----------------------------------------------------------------------===//

StopKind Node::atPc(uint32_t Pc, uint64_t Cycle) {
  for (PcCount &C : PcCounts)
    if (Pc == C.Addr && !C.Count++)
      C.FirstCycle = Cycle;
  if (!StopsEnabled || !FW.HasRuntime)
    return StopKind::None;
  if (Pc == FW.CheckHook) {
    ++HookChecks;
    if (WatchWakes) {
      CheckCopy = dataSpace();
      CheckCopyChecks = sramChecks();
      CheckCopyValid = true;
    }
    if (Opts.StopAfterChecks && HookChecks == Opts.StopAfterChecks)
      return LastStop = StopKind::Checks;
  } else if (Pc == FW.ViolationHook) {
    ViolationId = violationArgument();
    ViolationCycle = Cycle;
    return LastStop = StopKind::Violation;
  }
  return StopKind::None;
}

//===----------------------------------------------------------------------===//
// The trace object in RAM
//===----------------------------------------------------------------------===//

static uint16_t rd16(const uint8_t *P) { return uint16_t(P[0] | (P[1] << 8)); }
static uint32_t rd32(const uint8_t *P) {
  return P[0] | (P[1] << 8) | (P[2] << 16) | (static_cast<uint32_t>(P[3]) << 24);
}

/// Header, ring and one 2-byte check value per segment (trace-format.md section 1.2).
static bool validHeader(const uint8_t *H, uint32_t Avail, uint32_t &Len) {
  if (memcmp(H, "WTRB", 4) != 0 || H[4] < 2 || H[4] > 10) // format 2-10 (3: EFFECT_DELTA, 4: CHECKPOINT_Z, 5: EFFECT_C, 6: INPUT_S, 7: compact control records, 8: two-level groups, 9: REPEAT, 10: CHECK_S)
    return false;
  uint32_t BufSize = rd16(H + 12), SegSize = rd16(H + 14);
  if (!SegSize)
    return false;
  Len = 32 + BufSize + 2 * (BufSize / SegSize);
  return Len <= Avail;
}

bool Node::recordOpen() const {
  const uint8_t *T = dataMemory() + FW.TraceAddr;
  return FW.HasRuntime && FW.TraceSize >= 32 && (T[31] & 0x80);
}

std::string Node::settle(uint64_t Limit, std::vector<uint8_t> &Sram,
                         std::optional<std::vector<uint8_t>> &SkipTrace,
                         llvm::ArrayRef<uint8_t> BoundTrace) {
  SkipTrace.reset();
  const bool InSkip = FW.SkipDepthAddr && dataMemory()[*FW.SkipDepthAddr];
  if (!InSkip && FW.CheckHook && BoundTrace.size() >= 32 &&
      readTraceTail(BoundTrace).AtCheck) {
    // Replay of a closed trace that ends with a CHECK stops at that check (the check mode's
    // stop, wsn-sim --stop-after-checks K): its state is the data space at the check's
    // hook. The node may have run on (TinyOS: the task re-posted itself, SchedulerBasicP's
    // queue changed; lit wsn-sim/settle-anchor.test, bounds 141552 and 141649).
    const uint32_t Checks = rd32(BoundTrace.data() + 24);
    if (!CheckCopyValid || CheckCopyChecks != Checks) {
      // The bound fell after the CHECK record but before its hook: run on to the hook.
      const uint64_t End = cycle() + Limit;
      while (pc() != FW.CheckHook)
        if (cycle() >= End || !stepOnce()) {
          Sram = dataSpace();
          return "end";
        }
      if (sramChecks() != Checks) {
        Sram = dataSpace();
        return "end";
      }
      CheckCopy = dataSpace();
      CheckCopyChecks = Checks;
      CheckCopyValid = true;
    }
    Sram = CheckCopy;
    return "check";
  }
  std::string Where = settlePoint(Limit, Sram, SkipTrace, BoundTrace);
  if (Where != "record" && Where != "sleep")
    return Where;
  // The rules of the harnesses' bound stops (TraceTail.h): a trace that ends inside a
  // handler leaves the interrupted code where replay delivered the interrupt, at the
  // earliest point its count allows, while the node may have run on to the end of an
  // atomic section first (the scheduler's popTask before its sei: SchedulerBasicP$m_head
  // mote 0xFF, replay 0x0 in lit wsn-sim/settle-anchor.test's stress build).
  const TraceTail T = readTraceTail(SkipTrace ? ArrayRef<uint8_t>(*SkipTrace) : BoundTrace);
  if (T.InHandler)
    return "handler";
  // A trace read after a skipped call ends with its EFFECT, never with a CHECK; should one,
  // it has no snapshot kept at its hook.
  if (T.AtCheck)
    return "end";
  return Where;
}

/// Format 9 (spec/trace-format.md section 3.8): the tag of the record a REPEAT at ring
/// offset At (n at At + 1) took in last, the n-th of it, i.e. its source's ((n - 1) mod p)-th
/// record, found p bytes before the REPEAT's tag (the source is p one-byte records of its
/// segment); the REPEAT's own tag when its bytes cannot be that.
static uint8_t repeatTakenIn(const uint8_t *T, uint32_t At, uint32_t Buf, uint32_t Seg) {
  const uint8_t Tag = T[32 + At];
  const uint32_t P = Tag - RepeatTag + 1u, N = T[32 + (At + 1) % Buf];
  if (!N || At % Seg < P || (At + 1) % Seg == 0)
    return Tag;
  return T[32 + At - P + (N - 1) % P];
}

static bool isRepeatTag(uint8_t Version, uint8_t Tag) {
  return Version >= 9 && Tag >= RepeatTag && Tag <= RepeatLastTag;
}

/// IRQ, or IRQ_S from format 7 on (section 3.5).
static bool isIrqTag(uint8_t Version, uint8_t Tag) {
  return Tag == 0x03 || (Version >= 7 && Tag >= IrqShortTag &&
                         Tag < IrqShortTag + IrqShortIds * IrqShortCounts);
}

std::string Node::settlePoint(uint64_t Limit, std::vector<uint8_t> &Sram,
                              std::optional<std::vector<uint8_t>> &SkipTrace,
                              llvm::ArrayRef<uint8_t> BoundTrace) {
  const uint64_t End = cycle() + Limit;
  SkipTrace.reset();
  PastCheckpoint = false;
  RepeatCut = false;
  if (std::optional<std::string> W = settleInRepeat(End, Sram, SkipTrace))
    return *W;
  // The trace's last complete record came before a return from an interrupt into the
  // instruction after a sleep (the handler was taken in that sleep): replay delivers such
  // an interrupt where its count comes due, before the sleep hook, and with no record left
  // ends at that hook (spec/replay.md, "sleep"), in the state right after the return. The
  // node ran on from there (TinyOS: popTask, the next task's ENTRY record, possibly open
  // at the bound and so dropped from the trace): the snapshot is the one kept at the return.
  if (WakeValid && !RecordSinceWake) {
    Sram = WakeSram;
    return "sleep";
  }
  // Stopped inside a skipped call: the trace has its SKIP_BEGIN but not the EFFECT that
  // carries what the call (and the handlers taken in it) wrote, so no replay can end where
  // the node is. Run on, interrupts included, until the span is closed and no record is
  // open; the caller reads the trace again there (spec/wsn-sim.md, --settle).
  if (FW.SkipDepthAddr) {
    auto InSpan = [&] {
      const uint8_t *D = dataMemory();
      return D[*FW.SkipDepthAddr] != 0 ||
             (FW.TraceSize >= 32 && (D[FW.TraceAddr + 31] & 0x80));
    };
    if (dataMemory()[*FW.SkipDepthAddr]) {
      while (cycle() < End && InSpan())
        if (!stepOnce())
          break;
      if (InSpan()) {
        Sram = dataSpace();
        return "end";
      }
      std::string W;
      SkipTrace = traceImage(W);
    }
  }
  // A CHECKPOINT that the trace's own main-context records did not arm (an interrupt's
  // records crossed the segment boundary since) is one replay cannot know was written: at
  // the end of the trace it runs past that anchor to the next record (spec/replay-log.md
  // section 2.4), and so must the snapshot (TinyOS: popTask between the anchors and the
  // task's ENTRY; found as SchedulerBasicP__m_head mote 1, replay 4 on TelosB).
  const bool PastAnchor = replayRunsPastAnchor(SkipTrace ? llvm::ArrayRef<uint8_t>(*SkipTrace)
                                                         : BoundTrace);
  for (;;) {
    std::string Where = settleToRecord(End - cycle());
    Sram = dataSpace();
    if (Where != "record")
      return Where;
    // Which record opened? An IRQ record means a handler was entered before its record:
    // at or before the bound when it was open already, in any case before the first
    // record replay could stop at; the state where the interrupt struck is not one replay
    // can name. Run on until the writer closes it (interrupts are off meanwhile) and read
    // its tag at the saved head, or at the next segment start when the writer put a PAD
    // there first.
    const uint8_t *T = dataMemory() + FW.TraceAddr;
    const uint32_t Saved = (T[30] | (T[31] << 8)) & 0x7FFF;
    while (recordOpen())
      if (cycle() >= End || !stepOnce())
        return "record";
    const uint32_t Buf = rd16(T + 12), Seg = rd16(T + 14);
    if (!Seg || Saved >= Buf || 32 + Buf > FW.TraceSize)
      return "record";
    uint32_t At = Saved;
    if (T[32 + At] == 0x00) { // PAD: the record went on to the next segment
      At = (At / Seg + 1) * Seg;
      if (At >= Buf)
        At = 0;
    }
    // Tags (spec/trace-format.md 3): 0x03 IRQ, 0x06 CHECKPOINT, 0x11 CHECKPOINT_Z (the same
    // checkpoint without its zero bytes, format 4, section 3.2: the closed record carries
    // this tag whenever packing made it smaller).
    // Format 7 (section 3.5): IRQ_S, an IRQ in one byte. Format 8 (section 3.7): 0x15
    // CHECKPOINT_Z2, the checkpoint with two-level groups.
    // Format 9 (section 3.8): a REPEAT's count grew (or it was written) for the record just
    // closed.
    uint8_t Tag = T[32 + At];
    if (isRepeatTag(T[4], Tag))
      Tag = repeatTakenIn(T, At, Buf, Seg);
    if (isIrqTag(T[4], Tag))
      return "interrupt";
    const bool IsCheckpoint = Tag == static_cast<uint8_t>(RecordKind::Checkpoint) ||
                              Tag == CheckpointZTag || (T[4] >= 8 && Tag == CheckpointZ2Tag);
    if (!IsCheckpoint || !PastAnchor)
      return "record";
    // Run on from the closed checkpoint to the record after it (replay's next stop).
    PastCheckpoint = true;
  }
}

std::optional<std::string>
Node::settleInRepeat(uint64_t End, std::vector<uint8_t> &Sram,
                     std::optional<std::vector<uint8_t>> &CutTrace) {
  // Stopped while the writer adds a record to a REPEAT (spec/trace-format.md section 3.8):
  // writes it (n = 1) or grows its count in place, reopened at its tag. A reader drops the
  // open record, and with a grown REPEAT also the n - 1 records it held before, which the
  // node has run: no replay of that trace ends where the node is. The trace replay can end
  // here is the one before this record: the REPEAT with its count before it (none when it
  // is being written) and the check value for that. Interrupts are off while the writer
  // runs, so the node's data space is that of the moment the record opened; run on to its
  // close to read the count it has then.
  if (!recordOpen())
    return std::nullopt;
  const uint8_t *T = dataMemory() + FW.TraceAddr;
  const uint32_t Buf = rd16(T + 12), Seg = rd16(T + 14), Head = rd16(T + 16);
  const uint32_t Saved = (T[30] | (T[31] << 8)) & 0x7FFF;
  if (!Seg || Saved >= Buf || 32 + Buf + 2 * (Buf / Seg) > FW.TraceSize ||
      Head != Saved + 2 || Saved % Seg == 0 || !isRepeatTag(T[4], T[32 + Saved]))
    return std::nullopt;
  const bool Sleep = WakeValid && !RecordSinceWake; // before this record closes
  Sram = dataSpace();
  while (recordOpen())
    if (cycle() >= End || !stepOnce())
      return std::string("record"); // never closed: the trace read at the stop drops it
  const uint32_t P = T[32 + Saved] - RepeatTag + 1u, N = T[32 + Saved + 1];
  std::string W;
  std::vector<uint8_t> Img = traceImage(W);
  if (!N || Saved % Seg < P || Img.size() < 32 + Buf + 2 * (Buf / Seg))
    return std::string("record");
  const uint32_t Start = Saved - Saved % Seg;
  uint32_t Cut = Saved + 2;
  if (N >= 2)
    Img[32 + Saved + 1] = uint8_t(N - 1);
  else
    Cut = Saved; // the REPEAT was being written: the trace ends before it
  Img[16] = uint8_t(Cut);
  Img[17] = uint8_t(Cut >> 8);
  const uint16_t C = crc16(llvm::ArrayRef<uint8_t>(Img).slice(32 + Start, Cut - Start));
  Img[32 + Buf + 2 * (Saved / Seg)] = uint8_t(C);
  Img[32 + Buf + 2 * (Saved / Seg) + 1] = uint8_t(C >> 8);
  CutTrace = std::move(Img);
  RepeatCut = true;
  // The record the REPEAT took in: an IRQ's handler was entered before its record, where
  // the interrupt struck is no state replay can name (settlePoint, below).
  if (isIrqTag(T[4], repeatTakenIn(T, Saved, Buf, Seg)))
    return std::string("interrupt");
  if (Sleep) {
    Sram = WakeSram;
    return std::string("sleep");
  }
  return std::string("record");
}

std::vector<uint8_t> Node::traceImage(std::string &Warning) const {
  if (!FW.HasRuntime)
    return {};
  const uint8_t *T = dataMemory() + FW.TraceAddr;
  uint32_t Len = FW.TraceSize;
  uint32_t HLen;
  if (validHeader(T, FW.TraceSize, HLen))
    Len = HLen;
  else
    Warning = "the trace header in SRAM is not initialised (no WTRB magic, version 2 to 10 "
              "and a ring fitting the " +
              std::to_string(FW.TraceSize) +
              "-byte object): the firmware wrote no record yet; writing the raw object";
  return std::vector<uint8_t>(T, T + Len);
}

namespace {
/// Where the runtime's writer stands, read from the trace header in SRAM.
struct RingPos {
  uint32_t Buf, Seg, Head;
  uint64_t Written; ///< bytes written since reset: wraps * buf_size + head
};
} // namespace

/// None while the header is not initialised, or when its geometry is not one
/// the format allows (then nothing can be copied out of the ring safely).
static std::optional<RingPos> ringPos(const uint8_t *T, uint32_t Avail) {
  uint32_t Len;
  if (!validHeader(T, Avail, Len))
    return std::nullopt;
  // A record is open (trace-format.md section 1.1): head and wraps may be half-updated.
  if (T[31] & 0x80)
    return std::nullopt;
  RingPos R{rd16(T + 12), rd16(T + 14), rd16(T + 16), 0};
  if (!R.Seg || R.Buf % R.Seg || R.Buf < 2 * R.Seg || R.Head >= R.Buf)
    return std::nullopt;
  R.Written = uint64_t(rd32(T + 20)) * R.Buf + R.Head;
  return R;
}

void Node::pollFullTrace() {
  const uint8_t *T = dataMemory() + FW.TraceAddr;
  std::optional<RingPos> R = ringPos(T, FW.TraceSize);
  if (!R)
    return; // the runtime has not initialised the header yet, or a record is open
  // A REPEAT's count grows in place (spec/trace-format.md section 3.8): the header stays the
  // same, the segment's bytes and check value change, so a new check value is a new state.
  const uint16_t Check = rd16(T + 32 + R->Buf + 2 * (R->Head / R->Seg));
  if (FullTailStates.empty() || std::memcmp(FullTailStates.back().Header.data(), T, 32) != 0 ||
      FullTailStates.back().Check != Check) {
    const uint64_t AbsSeg = R->Written / R->Seg;
    if (AbsSeg != FullTailSeg) {
      FullTailStates.clear();
      FullTailSeg = AbsSeg;
    }
    TailState S;
    std::memcpy(S.Header.data(), T, 32);
    S.Check = Check;
    FullTailStates.push_back(S);
  }
  const uint32_t Seg = R->Seg;
  uint64_t Cur = R->Written / Seg; // the segment being written
  uint64_t NSeg = R->Buf / Seg;
  if (Cur <= FullSegs)
    return;
  if (Cur - FullSegs >= NSeg) {
    // The ring went all the way round while interrupts stayed disabled.
    FullLost += Cur - FullSegs - (NSeg - 1);
    FullSegs = Cur - (NSeg - 1);
  }
  for (; FullSegs < Cur; ++FullSegs) {
    const uint8_t *S = T + 32 + (FullSegs % NSeg) * Seg;
    FullBytes.insert(FullBytes.end(), S, S + Seg);
    // The segment is complete (no record open): its check value is final.
    FullChecks.push_back(rd16(T + 32 + R->Buf + 2 * (FullSegs % NSeg)));
  }
}

Expected<Node::FullTrace> Node::fullTrace() {
  const uint8_t *T = dataMemory() + FW.TraceAddr;
  uint32_t Len;
  if (!validHeader(T, FW.TraceSize, Len))
    return createStringError(inconvertibleErrorCode(),
                             "--full-trace: the trace header in SRAM is not initialised (no "
                             "WTRB magic, version 2 to 10 and a ring fitting the " +
                                 Twine(FW.TraceSize) +
                                 "-byte object): the firmware wrote no record yet");
  // A stop can fall inside a record (spec/trace-format.md section 1.1): head, wraps, the
  // counters and the current segment's check value may be half-updated then. Everything up
  // to the saved head is what the last poll with no record open saw, and the writer has not
  // touched those bytes since; the torn record is left out, as a reader of the ring does.
  FullTrace F;
  const bool Open = T[31] & 0x80;
  if (Open)
    F.OpenAt = uint32_t(T[30] | (T[31] & 0x7F) << 8);
  else
    pollFullTrace();
  if (FullLost)
    return createStringError(
        inconvertibleErrorCode(),
        "--full-trace: " + Twine(FullLost) +
            " segment(s) were overwritten before they could be copied (the ring went "
            "round inside one record); use a larger --trace-buf");
  F.Bytes = FullBytes;
  F.Checks = FullChecks;
  if (FullTailStates.empty()) {
    // Stopped inside the first record: nothing complete was written. The header as the
    // runtime initialised it, with no record and no counters.
    std::memcpy(F.Header.data(), T, 32);
    F.Header[16] = F.Header[17] = 0;              // head
    F.Header[18] = F.Header[19] = 0;              // flags
    std::fill(F.Header.begin() + 20, F.Header.begin() + 28, 0); // wraps, checks
    F.Header[28] = F.Header[29] = 0xFF;           // no violation
    F.Header[30] = F.Header[31] = 0;              // no record open
    return F;
  }
  F.Header = FullTailStates.back().Header;
  uint16_t TailCheck = FullTailStates.back().Check;
  const uint32_t Seg = rd16(F.Header.data() + 14);
  uint32_t Head = rd16(F.Header.data() + 16);
  if (F.OpenAt && *F.OpenAt < Head && *F.OpenAt / Seg == Head / Seg) {
    // The open record is written over bytes the last poll saw as records (a take-back,
    // spec/trace-format.md section 3.5): those bytes are torn now, so the capture ends at
    // the saved head, with the header and check value of the poll that saw that head.
    for (auto It = FullTailStates.rbegin(); It != FullTailStates.rend(); ++It)
      if (rd16(It->Header.data() + 16) == *F.OpenAt) {
        F.TakenBackFrom = Head;
        F.Header = It->Header;
        TailCheck = It->Check;
        Head = *F.OpenAt;
        break;
      }
    if (!F.TakenBackFrom)
      return createStringError(
          inconvertibleErrorCode(),
          "--full-trace: a record open at the stop began at ring offset " + Twine(*F.OpenAt) +
              ", below the head " + Twine(Head) +
              " of the last moment with no record open, and no moment with no record open "
              "had that head in this segment: the capture cannot end before the torn bytes");
  }
  if (Head % Seg) {
    const uint32_t Start = Head - Head % Seg;
    F.Bytes.insert(F.Bytes.end(), T + 32 + Start, T + 32 + Head);
    F.Checks.push_back(TailCheck);
  }
  return F;
}

uint32_t Node::sramChecks() const {
  if (!FW.HasRuntime)
    return 0;
  return rd32(dataMemory() + FW.TraceAddr + 24);
}

std::optional<std::vector<uint8_t>> Node::drainedTrace() const {
  if (Drained.size() < 32)
    return std::nullopt;
  for (size_t I = Drained.size() - 32 + 1; I-- > 0;) {
    uint32_t Len;
    if (validHeader(Drained.data() + I, static_cast<uint32_t>(Drained.size() - I), Len))
      return std::vector<uint8_t>(Drained.begin() + I, Drained.begin() + I + Len);
  }
  return std::nullopt;
}

} // namespace sim
} // namespace wsn
