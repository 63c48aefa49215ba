//===- SimRun.cpp - single-node and network runs of wsn-sim ---------------===//
#include "SimRun.h"
#include "TraceTail.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace wsn {
namespace sim {

NodeResult captureResult(const Node &N, StopKind Stop, raw_ostream &Warn) {
  NodeResult R;
  R.NodeId = N.id();
  R.Mcu = N.options().Mcu;
  R.Frequency = N.clockHz();
  R.Stop = Stop;
  R.CrashReason = N.crashReason();
  R.Cycles = N.cycle();
  R.ActiveCycles = N.activeCycles();
  if (Stop == StopKind::Violation) {
    R.Violated = true;
    R.ViolationId = N.violationId();
    R.ViolationCycle = N.violationCycle();
  }
  R.Sram = N.dataSpace();
  R.HasTrace = N.firmware().HasRuntime;
  if (R.HasTrace) {
    std::string W;
    R.Trace = N.traceImage(W);
    if (!W.empty())
      Warn << "wsn-sim: warning: node " << N.id() << ": " << W << "\n";
    // The runtime's own counter when the header is valid; else the hook count.
    R.Checks = W.empty() ? N.sramChecks() : static_cast<uint32_t>(N.hookChecks());
  }
  R.Stats = N.stats();
  R.Clocks = N.clocks();
  R.PcCounts = N.pcCounts();
  const std::vector<uint64_t> &Pc = N.pcCycles();
  for (uint32_t A = 0; A < Pc.size(); ++A)
    if (Pc[A])
      R.Profile.push_back({A, Pc[A]});
  if (const MoteBoard *B = N.board()) {
    R.HasLeds = true;
    R.LedNames = B->ledNames();
    R.Leds = B->ledHistory();
    R.RadioUsed = B->radioUsed();
    R.Cc2420 = B->radio().stats();
    R.Spi = B->spiStats();
  }
  return R;
}

static Error writeBytes(StringRef Path, ArrayRef<uint8_t> Bytes) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (EC)
    return createStringError(EC, "cannot write '" + Path + "': " + EC.message());
  OS.write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  OS.close();
  if (OS.has_error())
    return createStringError(OS.error(), "cannot write '" + Path + "': " + OS.error().message());
  return Error::success();
}

static Error writeText(StringRef Path, StringRef Text) {
  return writeBytes(Path, ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Text.data()),
                                            Text.size()));
}

static Error makeDir(StringRef Dir) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC, "cannot create output directory '" + Dir +
                                     "': " + EC.message());
  return Error::success();
}

Error writeNodeResult(StringRef Dir, const NodeResult &R, uint64_t Seed,
                      const NodeOptions &Opts) {
  if (Error E = makeDir(Dir))
    return E;
  SmallString<256> P(Dir);
  sys::path::append(P, "trace.wtr");
  if (R.HasTrace) {
    if (Error E = writeBytes(P, R.Trace))
      return E;
  } else if (sys::fs::exists(P)) {
    // A trace from an earlier run into the same directory would mislead.
    if (std::error_code EC = sys::fs::remove(P))
      return createStringError(EC, "cannot remove stale '" + P + "': " + EC.message());
  }
  P = Dir;
  sys::path::append(P, "sram.bin");
  if (Error E = writeBytes(P, R.Sram))
    return E;
  if (Opts.Profile) {
    // One line per instruction address that ran: "0xPC CYCLES" (spec/wsn-sim.md, --profile).
    P = Dir;
    sys::path::append(P, "profile.txt");
    std::error_code EC;
    raw_fd_ostream OS(P, EC, sys::fs::OF_Text);
    if (EC)
      return createStringError(EC, "cannot write '" + P + "': " + EC.message());
    for (const auto &[Pc, Cycles] : R.Profile)
      OS << format("0x%05x %llu\n", Pc, (unsigned long long)Cycles);
  }

  std::string Json;
  raw_string_ostream JS(Json);
  {
    json::OStream J(JS, 2);
    J.object([&] {
      J.attribute("cycles", R.Cycles);
      J.attribute("stop", stopKindName(R.Stop));
      if (!R.CrashReason.empty())
        J.attribute("fault", R.CrashReason);
      if (R.Violated)
        J.attributeObject("violation", [&] {
          J.attribute("id", R.ViolationId);
          J.attribute("cycle", R.ViolationCycle);
        });
      else
        J.attribute("violation", nullptr);
      if (R.HasTrace)
        J.attribute("checks", R.Checks);
      else
        J.attribute("checks", nullptr);
      J.attribute("seed", Seed);
      J.attribute("node", R.NodeId);
      J.attribute("mcu", R.Mcu.empty() ? Opts.Mcu : R.Mcu);
      J.attribute("frequency", R.Frequency ? R.Frequency : Opts.Frequency);
      // null: the firmware has no trace runtime (no trace.wtr is written).
      if (R.HasTrace) {
        J.attribute("trace", "trace.wtr");
        J.attribute("trace_source", R.TraceSource);
      } else {
        J.attribute("trace", nullptr);
        J.attribute("trace_source", nullptr);
      }
      if (!R.Settle.empty()) {
        J.attribute("settle", R.Settle);
        J.attribute("settle_cycles", R.SettleCycles);
        if (R.SettleAfterSkip)
          J.attribute("settle_after_skip", true);
        if (R.SettleInRepeat)
          J.attribute("settle_in_repeat", true);
        if (R.SettlePastCheckpoint)
          J.attribute("settle_past_checkpoint", true);
      }
      if (R.Search) {
        const BoundSearchResult &S = *R.Search;
        J.attributeObject("bound_search", [&] {
          J.attribute("cycle", S.Cycle);
          J.attribute("moves", S.Moves);
          J.attribute("end", S.End);
          J.attribute("at_violation", S.AtViolation);
          if (S.Rejected)
            J.attributeObject("last_rejected", [&] {
              J.attribute("after_check", S.AfterCheck);
              J.attribute("in_handler", S.InHandler);
              J.attribute("before_first_checkpoint", S.BeforeFirstCheckpoint);
              J.attribute("in_skipped_call", S.InSkippedCall);
            });
        });
      }
      J.attribute("active_cycles", R.ActiveCycles);
      J.attributeObject("inputs", [&] {
        J.attribute("irq_pulses", R.Stats.IrqPulses);
        J.attribute("uart_bytes", R.Stats.UartBytes);
        J.attribute("uart_dropped", R.Stats.UartDropped);
        J.attribute("adc_samples", R.Stats.AdcSamples);
      });
      // The node's clock parts (spec/wsn-sim.md section 4, "Clocks").
      J.attributeObject("clocks", [&] {
        J.attribute("crystal_ppb", R.Clocks.CrystalPpb);
        J.attribute("crystal_phase", double(R.Clocks.CrystalPhase32) / 4294967296.0);
        J.attribute("dco_scale", R.Clocks.DcoScale);
      });
      if (!R.PcCounts.empty())
        J.attributeObject("pc_counts", [&] {
          for (const PcCount &C : R.PcCounts)
            J.attributeObject(C.Name, [&] {
              J.attribute("count", C.Count);
              if (C.FirstCycle)
                J.attribute("first_cycle", *C.FirstCycle);
              else
                J.attribute("first_cycle", nullptr);
            });
        });
      if (R.HasLeds)
        J.attributeObject("leds", [&] {
          J.attribute("final", R.Leds.empty() ? std::string("---")
                                              : ledString(R.Leds.back().Leds, R.LedNames.c_str()));
          J.attribute("changes", static_cast<uint64_t>(R.Leds.size()));
          J.attributeArray("history", [&] {
            for (const LedChange &C : R.Leds)
              J.array([&] {
                J.value(C.Cycle);
                J.value(ledString(C.Leds, R.LedNames.c_str()));
              });
          });
        });
      if (R.HasLeds) {
        // The board's CC2420 (spec/micaz.md, spec/telosb.md); null when the firmware never
        // powered it.
        if (!R.RadioUsed)
          J.attribute("cc2420", nullptr);
        else
          J.attributeObject("cc2420", [&] {
            const devices::CC2420::Stats &C = R.Cc2420;
            J.attribute("frames_sent", C.FramesSent);
            J.attribute("acks_sent", C.AcksSent);
            J.attribute("frames_received", C.FramesReceived);
            J.attribute("crc_errors", C.CrcErrors);
            J.attribute("address_rejected", C.AddressRejected);
            J.attribute("frames_missed", C.FramesMissed);
            J.attribute("rx_overflows", C.RxOverflows);
            J.attribute("tx_underflows", C.TxUnderflows);
            J.attribute("cca_refused", C.CcaRefused);
            J.attribute("late_announcements", C.LateAnnouncements);
            J.attribute("spi_bytes", R.Spi.Bytes);
            J.attribute("spi_write_collisions", R.Spi.Collisions);
          });
      }
    });
  }
  JS << "\n";
  P = Dir;
  sys::path::append(P, "run.json");
  return writeText(P, Json);
}

/// A node from reset to its stop at MaxCycles (or before), settled with --settle.
static Expected<std::unique_ptr<Node>> runToStop(const FirmwareInfo &FW, const SingleOptions &Opts,
                                                 uint64_t MaxCycles, NodeResult &R,
                                                 raw_ostream &Warn) {
  auto NOr = Node::create(FW, Opts.Node);
  if (!NOr)
    return NOr.takeError();
  Node &N = **NOr;
  for (const std::string &W : N.warnings())
    Warn << "wsn-sim: warning: node " << N.id() << ": " << W << "\n";
  if (Opts.Settle)
    N.watchWakeReturns();
  StopKind Stop = N.runUntil(MaxCycles);
  R = captureResult(N, Stop, Warn);
  if (Opts.Node.DrainUart >= 0 && !FW.HasRuntime)
    return createStringError(inconvertibleErrorCode(),
                             "--drain: '" + FW.Path + "' has no trace runtime to drain");
  if (Opts.Settle && Stop == StopKind::None) {
    uint64_t At = N.cycle();
    std::optional<std::vector<uint8_t>> SkipTrace;
    R.Settle = N.settle(10000000, R.Sram, SkipTrace, R.Trace);
    R.SettleCycles = N.cycle() - At;
    R.SettlePastCheckpoint = N.settledPastCheckpoint();
    if (SkipTrace && R.HasTrace && SkipTrace->size() >= 32) {
      // The node finished the skipped call it was stopped in: the trace is the one read
      // where the call's span closed (the cycle bound moved there).
      R.Trace = std::move(*SkipTrace);
      R.Checks = uint32_t(R.Trace[24]) | uint32_t(R.Trace[25]) << 8 |
                 uint32_t(R.Trace[26]) << 16 | uint32_t(R.Trace[27]) << 24;
      R.SettleAfterSkip = !N.settledInRepeat();
      R.SettleInRepeat = N.settledInRepeat();
    }
  }
  return NOr;
}

/// --bound-moves (spec/wsn-sim.md): each candidate bound is a run of its own from reset, so
/// the node at bound B + k * step is exactly the one a separate `--max-cycles B + k * step`
/// run gives; only the last candidate's warnings are printed and its outputs written.
static Expected<std::unique_ptr<Node>> searchBound(const FirmwareInfo &FW,
                                                   const SingleOptions &Opts, NodeResult &R,
                                                   raw_ostream &Warn) {
  const BoundSearchOptions &S = *Opts.Search;
  BoundSearchResult Out;
  uint64_t B = Opts.MaxCycles;
  std::unique_ptr<Node> N;
  std::string Warnings;
  for (uint64_t Move = 0;; ++Move) {
    N.reset(); // one node at a time, as in a run of its own
    Warnings.clear();
    raw_string_ostream W(Warnings);
    raw_ostream *Log = setSimCoreLog(&W);
    auto NOr = runToStop(FW, Opts, B, R, W);
    setSimCoreLog(Log);
    if (!NOr) {
      Warn << Warnings;
      return NOr.takeError();
    }
    N = std::move(*NOr);
    Out.Cycle = B;
    Out.Moves = Move;
    const TraceTail T = R.HasTrace ? readTraceTail(R.Trace) : TraceTail();
    Out.AtViolation = T.ViolationFlag;
    // The order of the questions is the harness's (bench/fidelity/fidelity.py, bound).
    if (T.ViolationFlag) {
      Out.End = "violation";
      break;
    }
    if (S.End && B + S.Step >= S.End) {
      Out.End = "limit";
      break;
    }
    if (R.Settle != "interrupt" && T.replayable()) {
      Out.End = "found";
      break;
    }
    Out.Rejected = true;
    Out.AfterCheck = T.AtCheck;
    Out.InHandler = T.InHandler;
    Out.BeforeFirstCheckpoint = !(T.HasHeader && T.HasCheckpoint);
    Out.InSkippedCall = T.InSkippedCall;
    if (Move == S.Moves) {
      Out.End = "moves";
      break;
    }
    B += S.Step;
  }
  Warn << Warnings;
  R.Search = Out;
  return N;
}

Expected<NodeResult> runSingle(const FirmwareInfo &FW, const SingleOptions &Opts, StringRef Dir,
                               raw_ostream &Warn) {
  NodeResult R;
  auto NOr = Opts.Search ? searchBound(FW, Opts, R, Warn)
                         : runToStop(FW, Opts, Opts.MaxCycles, R, Warn);
  if (!NOr)
    return NOr.takeError();
  Node &N = **NOr;
  if (Opts.Node.DrainUart >= 0) {
    // Let the firmware send its trace: keep running, hooks no longer stop it.
    N.setStopsEnabled(false);
    uint64_t Limit = N.cycle() + Opts.DrainCycles;
    std::optional<std::vector<uint8_t>> T;
    while (!N.terminated() && N.cycle() < Limit) {
      // Wait for a complete image sent after the stop point.
      size_t Before = N.drainBytes().size();
      N.runUntil(std::min(Limit, N.cycle() + 100000));
      if (N.drainBytes().size() != Before && (T = N.drainedTrace()))
        break;
    }
    if (!T)
      T = N.drainedTrace();
    if (!T) {
      if (Error E = writeNodeResult(Dir, R, Opts.Node.Seed, Opts.Node))
        return std::move(E);
      return createStringError(
          inconvertibleErrorCode(),
          "no complete trace image (WTRB header, ring and check values) arrived on UART" +
              Twine(Opts.Node.DrainUart) + " within " + Twine(Opts.DrainCycles) +
              " cycles after the stop (" + Twine(N.drainBytes().size()) +
              " bytes received); trace.wtr holds the SRAM copy");
    }
    R.Trace = std::move(*T);
    R.TraceSource = "uart" + std::to_string(Opts.Node.DrainUart);
  }
  if (Error E = writeNodeResult(Dir, R, Opts.Node.Seed, Opts.Node))
    return std::move(E);
  if (!Opts.LedLog.empty()) {
    std::vector<std::pair<uint64_t, std::string>> Lines;
    ledLogLines(R, Lines);
    if (Error E = writeLedLog(Opts.LedLog, std::move(Lines)))
      return std::move(E);
  }
  if (Opts.Node.FullTrace) {
    if (!FW.HasRuntime)
      return createStringError(inconvertibleErrorCode(),
                               "--full-trace: '" + FW.Path + "' has no trace runtime");
    Expected<Node::FullTrace> Full = N.fullTrace();
    if (!Full)
      return Full.takeError();
    if (Full->OpenAt)
      Warn << "wsn-sim: note: --full-trace: a record was open at the stop (saved head " +
                  Twine(*Full->OpenAt) +
                  (Full->TakenBackFrom
                       ? ", written over the records from there to " +
                             Twine(*Full->TakenBackFrom)
                       : Twine()) +
                  "): full/ ends before it, as a reader of the ring drops it "
                  "(spec/trace-format.md section 1.1)\n";
    std::vector<uint8_t> Header(Full->Header.begin(), Full->Header.end());
    if (Error E = writeFullTrace(Dir, Header, Full->Bytes, Full->Checks))
      return std::move(E);
  }
  return R;
}

void ledLogLines(const NodeResult &R, std::vector<std::pair<uint64_t, std::string>> &Lines) {
  for (const LedChange &C : R.Leds)
    Lines.push_back({C.Ns, formatv("{0} {1} {2}\n", C.Cycle, R.NodeId,
                                        ledString(C.Leds, R.LedNames.c_str()))});
}

Error writeLedLog(StringRef Path, std::vector<std::pair<uint64_t, std::string>> Lines) {
  // Lines of one node are in time order already; across nodes, simulated time then node
  // (nodes were appended in ascending id, and the sort is stable). With one clock for all
  // nodes (MicaZ only) time order is cycle order.
  std::stable_sort(Lines.begin(), Lines.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  std::string Text;
  for (auto &L : Lines)
    Text += L.second;
  return writeText(Path, Text);
}

/// spec/wsn-sim.md, "Full trace": the bytes of every segment since reset, cut
/// into files that are each a valid, unwrapped trace (the ring's header with
/// buf_size, head and the counters rewritten), so that every trace tool reads
/// them. A chunk holds whole segments; the last one ends with the part of the
/// current segment written at the stop.
Error writeFullTrace(StringRef Dir, const std::vector<uint8_t> &Ring,
                     const std::vector<uint8_t> &Full, const std::vector<uint16_t> &Checks) {
  if (Ring.size() < 32)
    return createStringError(inconvertibleErrorCode(),
                             "--full-trace: no valid trace header at the stop");
  auto Rd16 = [&](size_t O) { return uint16_t(Ring[O] | (Ring[O + 1] << 8)); };
  auto Wr16 = [](std::vector<uint8_t> &V, size_t O, uint32_t X) {
    V[O] = uint8_t(X);
    V[O + 1] = uint8_t(X >> 8);
  };
  auto Wr32 = [&](std::vector<uint8_t> &V, size_t O, uint32_t X) {
    Wr16(V, O, X);
    Wr16(V, O + 2, X >> 16);
  };
  const uint32_t Seg = Rd16(14);
  // The largest chunk whose buf_size (one empty segment beyond the data, so
  // that head < buf_size) fits the 16-bit field.
  const uint32_t PerChunk = 0xFFFF / Seg - 1;
  SmallString<256> Sub(Dir);
  sys::path::append(Sub, "full");
  if (Error E = makeDir(Sub))
    return E;
  size_t NChunks = std::max<size_t>(1, (Full.size() + PerChunk * Seg - 1) / (PerChunk * Seg));
  for (size_t C = 0; C < NChunks; ++C) {
    size_t Begin = C * PerChunk * Seg;
    size_t End = std::min(Full.size(), Begin + size_t(PerChunk) * Seg);
    bool Last = C + 1 == NChunks;
    uint32_t Used = uint32_t(End - Begin);
    // At least two segments (the format's minimum), even for a trace shorter than one.
    uint32_t Buf = std::max<uint32_t>(2 * Seg, (Used / Seg + 1) * Seg);
    std::vector<uint8_t> F(Ring.begin(), Ring.begin() + 32);
    Wr16(F, 12, Buf);
    Wr16(F, 16, Used);
    uint16_t Flags = Rd16(18);
    // Not wrapped; the violation and frozen bits and the counters belong to
    // the chunk that ends at the stop.
    Wr16(F, 18, Last ? (Flags & ~1u) : 0);
    Wr32(F, 20, 0);
    Wr16(F, 30, 0); // no open record: the chunk holds complete records only
    if (!Last) {
      Wr32(F, 24, 0);
      Wr16(F, 28, 0xFFFF);
    }
    F.insert(F.end(), Full.begin() + Begin, Full.begin() + End);
    F.resize(32 + Buf, 0);
    // The segments' check values as the runtime left them (section 1.2: the value
    // depends only on the segment's bytes, not on where the segment sits).
    for (uint32_t S = 0; S < Buf / Seg; ++S) {
      size_t I = Begin / Seg + S;
      uint16_t C = S * Seg < Used && I < Checks.size() ? Checks[I] : 0;
      F.push_back(uint8_t(C));
      F.push_back(uint8_t(C >> 8));
    }
    SmallString<256> P(Sub);
    sys::path::append(P, formatv("{0:d5}.wtr", C).str());
    if (Error E = writeBytes(P, F))
      return E;
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Network
//===----------------------------------------------------------------------===//

/// A network's stimuli are spelled per family: AVR interrupt lines intN and port letters, MSP430
/// pins pP.N and port digits. Each node keeps those of its own family (spec/wsn-sim.md section 5).
static NodeOptions stimuliFor(const FirmwareInfo &FW, const NodeOptions &T) {
  NodeOptions O = T;
  const bool Msp = resolveMcu(FW, "").rfind("msp430", 0) == 0;
  O.Irqs.clear();
  for (const IrqStimulus &I : T.Irqs)
    if ((I.Port != 0) == Msp)
      O.Irqs.push_back(I);
  O.Pins.clear();
  for (const auto &P : T.Pins)
    if (isDigit(P.first) == Msp)
      O.Pins.push_back(P);
  if (T.SwitchMean && isDigit(T.SwitchPort) != Msp)
    O.SwitchMean = 0;
  return O;
}

Expected<std::unique_ptr<Network>> Network::create(const topology::Topology &Topo,
                                                   const std::map<uint16_t, FirmwareInfo> &Nodes,
                                                   const NetOptions &Opts, raw_ostream &Warn) {
  if (Nodes.empty())
    return createStringError(inconvertibleErrorCode(), "no nodes (give --node ID=FW.elf)");
  if (!(Opts.Seconds > 0))
    return createStringError(inconvertibleErrorCode(), "--seconds must be positive");
  if (Opts.Quantum == 0)
    return createStringError(inconvertibleErrorCode(), "--quantum must be positive");
  std::unique_ptr<Network> Net(new Network(Topo, Opts));
  // The 802.15.4 medium's noise samples: the radio stream of the pseudo node
  // 0xFFFE (0xFFFF belonged to the retired UART radio; kept so seeds keep their runs).
  Net->Cc2420Rng = SimRng(Opts.Template.Seed, 0xFFFE, Stream::Radio);
  devices::Medium802154::Config MC;
  MC.MinSnrDb = Opts.SnrThreshold;
  Network *NetP = Net.get();
  MC.Normal = [NetP] { return NetP->Cc2420Rng.normal12(); };
  Net->Air = std::make_unique<devices::Medium802154>(MC);
  for (auto &[Link, G] : Topo.Gains)
    Net->Air->setLinkGain(Link.first, Link.second, G.Dbm);
  for (auto &[Id, N] : Topo.Noise)
    Net->Air->setNoise(Id, N.MeanDbm, N.Variance);
  // 128 us: the shorter (TXCTRL.TX_TURNAROUND = 0, TinyOS's setting) turnaround.
  Net->RadioSlice = std::max<uint64_t>(1, uint64_t(128000) * Opts.Template.Frequency / 1000000000u);
  // A stimulus spelled for a family no node belongs to would silently do nothing.
  {
    bool HaveMsp = false, HaveAvr = false;
    for (auto &[Id, FW] : Nodes)
      (resolveMcu(FW, "").rfind("msp430", 0) == 0 ? HaveMsp : HaveAvr) = true;
    auto Unused = [&](bool ForMsp, const Twine &What) -> Error {
      if (ForMsp ? HaveMsp : HaveAvr)
        return Error::success();
      return createStringError(inconvertibleErrorCode(),
                               What + " is an " + (ForMsp ? "MSP430" : "AVR") +
                                   " stimulus and the network has no " +
                                   (ForMsp ? "MSP430" : "AVR") + " node");
    };
    for (const IrqStimulus &I : Opts.Template.Irqs)
      if (Error E = Unused(I.Port != 0, I.Port ? "--irq p" + Twine(I.Port) + "." + Twine(I.Int)
                                               : "--irq int" + Twine(I.Int)))
        return std::move(E);
    for (const auto &P : Opts.Template.Pins)
      if (Error E = Unused(isDigit(P.first), "--pins " + Twine(P.first)))
        return std::move(E);
    if (Opts.Template.SwitchMean)
      if (Error E = Unused(isDigit(Opts.Template.SwitchPort),
                           "--switches " + Twine(Opts.Template.SwitchPort)))
        return std::move(E);
  }
  for (auto &[Id, FW] : Nodes) {
    NodeOptions NO = stimuliFor(FW, Opts.Template);
    NO.NodeId = Id;
    NO.StopAfterChecks = 0;
    NO.DrainUart = -1;
    if (FW.IdSymbols.empty())
      Warn << "wsn-sim: warning: node " << Id << ": '" << FW.Path
           << "' has no node-id variable (TOS_NODE_ID, ActiveMessageAddressC$addr, "
              "__wsn_node_id): every node runs the same image\n";
    auto N = Node::create(FW, NO);
    if (!N)
      return N.takeError();
    for (const std::string &W : (*N)->warnings())
      Warn << "wsn-sim: warning: node " << Id << ": " << W << "\n";
    if (Opts.Settle)
      (*N)->watchWakeReturns();
    if (MoteBoard *B = (*N)->board())
      Net->Air->attach(Id, B->radio());
    if (!Topo.Noise.count(Id))
      Warn << "wsn-sim: warning: topology has no 'noise " << Id
           << "' line; using -98 dBm, variance 0\n";
    Net->Nodes.push_back(std::move(*N));
  }
  for (auto &[Link, G] : Topo.Gains)
    if (!Nodes.count(Link.first) || !Nodes.count(Link.second)) {
      Warn << "wsn-sim: note: topology links without firmware on both ends are ignored (first: "
           << Link.first << " -> " << Link.second << ")\n";
      break;
    }
  return std::move(Net);
}

namespace {
class Progress {
public:
  Progress(ProgressMode M, uint64_t Total, size_t NumNodes, double Seconds)
      : Total(Total), NumNodes(NumNodes), Seconds(Seconds) {
    Mode = M == ProgressMode::Auto ? (errs().is_displayed() ? ProgressMode::Bar
                                                             : ProgressMode::Lines)
                                   : M;
  }
  void update(uint64_t Done) {
    unsigned Pct = Total ? static_cast<unsigned>(Done * 100 / Total) : 100;
    if (Mode == ProgressMode::Bar) {
      if (Pct == LastPct)
        return;
      LastPct = Pct;
      unsigned W = 40, Fill = Pct * W / 100;
      errs() << "\r[" << std::string(Fill, '#') << std::string(W - Fill, ' ') << "] "
             << format("%3u%%", Pct) << " of " << format("%g", Seconds) << " s, " << NumNodes << " nodes";
      errs().flush();
    } else if (Mode == ProgressMode::Lines) {
      unsigned Step = Pct / 10 * 10;
      if (LastPct != ~0u && Step <= LastPct)
        return;
      LastPct = Step;
      errs() << "wsn-sim: " << Step << "% (" << format("%.3f", Seconds * Step / 100) << " of "
             << format("%g", Seconds) << " simulated s, " << NumNodes << " nodes)\n";
    }
  }
  void finish() {
    if (Mode == ProgressMode::Bar)
      errs() << "\n";
  }

private:
  ProgressMode Mode;
  uint64_t Total;
  size_t NumNodes;
  double Seconds;
  unsigned LastPct = ~0u;
};
} // namespace

Error Network::run(StringRef Dir, raw_ostream &Warn) {
  uint64_t Freq = Opts.Template.Frequency;
  uint64_t End = static_cast<uint64_t>(std::llround(Opts.Seconds * Freq));
  if (End == 0)
    End = 1;
  Progress Prog(Opts.Progress, End, Nodes.size(), Opts.Seconds);
  std::map<uint16_t, StopKind> Stops;
  const Node *Violator = nullptr;
  uint64_t Now = 0;
  Prog.update(0);
  while (Now < End && !Violator) {
    uint64_t Target = std::min(End, Now + Opts.Quantum);
    // While a CC2420 is powered, the quantum is cut into slices no longer
    // than the radio's turnaround: all nodes run one slice, then the next
    // (spec/wsn-sim.md, "Lockstep"). A radio needs more than a millisecond
    // from VREG_EN to its first transmission, so deciding per quantum is safe.
    bool RadioOn = false;
    for (auto &N : Nodes)
      if (MoteBoard *B = N->board())
        RadioOn |= B->radioPowered();
    uint64_t Slice = RadioOn ? std::min(Opts.Quantum, RadioSlice) : Opts.Quantum;
    for (uint64_t From = Now; From < Target && !Violator;) {
      uint64_t To = std::min(Target, From + Slice);
      // The slice's end as an instant, then in each node's own cycles (the identity for a
      // node on the reference clock: ceil(floor(c * 1e9 / F) * F / 1e9) = c).
      uint64_t ToNs = uint64_t((unsigned __int128)To * 1000000000u / Freq);
      for (auto &N : Nodes) {
        if (N->terminated() || Stops.count(N->id()))
          continue;
        StopKind S = N->runUntil(N->cycleAt(ToNs));
        if (S != StopKind::None) {
          Stops[N->id()] = S;
          if (S == StopKind::Violation && !Violator)
            Violator = N.get();
        }
      }
      if (RadioOn) {
        uint64_t FromNs = uint64_t((unsigned __int128)From * 1000000000u / Opts.Template.Frequency);
        uint64_t SliceNs = uint64_t((unsigned __int128)Slice * 1000000000u / Opts.Template.Frequency);
        this->Air->forgetBefore(FromNs > SliceNs ? FromNs - SliceNs : 0);
      }
      From = To;
    }
    Now = Target;
    Prog.update(Now);
  }
  Prog.finish();

  std::vector<std::pair<uint64_t, std::string>> LedLines;
  for (auto &N : Nodes) {
    auto It = Stops.find(N->id());
    StopKind S = It == Stops.end() ? StopKind::None : It->second;
    NodeResult R = captureResult(*N, S, Warn);
    if (Opts.Settle && S == StopKind::None) {
      // The trace was read at the common end; the snapshot is taken where its
      // replay ends (spec/wsn-sim.md, --settle). The node runs alone.
      uint64_t At = N->cycle();
      std::optional<std::vector<uint8_t>> SkipTrace;
      R.Settle = N->settle(10000000, R.Sram, SkipTrace, R.Trace);
      R.SettleCycles = N->cycle() - At;
      R.SettlePastCheckpoint = N->settledPastCheckpoint();
      if (SkipTrace && R.HasTrace && SkipTrace->size() >= 32) {
        // As for `run`: the node finished the skipped call it was stopped in.
        R.Trace = std::move(*SkipTrace);
        R.Checks = uint32_t(R.Trace[24]) | uint32_t(R.Trace[25]) << 8 |
                   uint32_t(R.Trace[26]) << 16 | uint32_t(R.Trace[27]) << 24;
        R.SettleAfterSkip = !N->settledInRepeat();
        R.SettleInRepeat = N->settledInRepeat();
      }
    }
    SmallString<256> P(Dir);
    sys::path::append(P, "node" + std::to_string(N->id()));
    if (Error E = writeNodeResult(P, R, Opts.Template.Seed, N->options()))
      return E;
    if (!Opts.LedLog.empty())
      ledLogLines(R, LedLines);
  }
  if (!Opts.LedLog.empty())
    if (Error E = writeLedLog(Opts.LedLog, std::move(LedLines)))
      return E;

  std::string Json;
  raw_string_ostream JS(Json);
  {
    json::OStream J(JS, 2);
    J.object([&] {
      J.attribute("seed", Opts.Template.Seed);
      J.attribute("seconds", Opts.Seconds);
      J.attribute("cycles", Now);
      J.attribute("quantum", Opts.Quantum);
      J.attribute("stop", Violator ? "violation" : "time");
      if (Violator)
        J.attributeObject("violation", [&] {
          J.attribute("node", Violator->id());
          J.attribute("id", Violator->violationId());
          J.attribute("cycle", Violator->violationCycle());
        });
      else
        J.attribute("violation", nullptr);
      J.attributeArray("nodes", [&] {
        for (auto &N : Nodes)
          J.value(N->id());
      });
      // Each node's firmware (wsn-replay net finds FW.replay.bc and FW.wmap
      // beside it).
      J.attributeObject("firmware", [&] {
        for (auto &N : Nodes) {
          SmallString<256> Abs(N->firmware().Path);
          sys::fs::make_absolute(Abs);
          J.attribute(std::to_string(N->id()), Abs.str());
        }
      });
      J.attribute("settle", Opts.Settle);
      const devices::Medium802154::Stats &MS = this->Air->stats();
      J.attributeObject("cc2420", [&] {
        J.attribute("transmissions", MS.Transmissions);
        J.attribute("acks", MS.Acks);
        J.attribute("deliveries", MS.Deliveries);
        J.attribute("below_sensitivity", MS.BelowSensitivity);
        J.attribute("collisions", MS.Collisions);
      });
    });
  }
  JS << "\n";
  SmallString<256> P(Dir);
  sys::path::append(P, "net.json");
  if (Error E = makeDir(Dir))
    return E;
  return writeText(P, Json);
}

} // namespace sim
} // namespace wsn
