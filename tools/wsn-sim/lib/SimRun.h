//===- SimRun.h - single-node and network runs of wsn-sim -----------------===//
//
// runSingle: one node until the violation hook, the K-th check or a cycle
// bound. Network: several nodes advanced in lockstep by cycle quanta, with a
// radio medium between their radio UARTs driven by a TOSSIM-format topology.
// Both write, per node, trace.wtr, sram.bin and run.json (spec/wsn-sim.md).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_SIMRUN_H
#define WSN_SIM_SIMRUN_H

#include "MoteBoard.h"
#include "SimNode.h"
#include "Medium802154.h"
#include "Topology.h" // tools/sensorc/lib: the one topology reader

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace wsn {
namespace sim {

/// How --bound-moves ended (run.json "bound_search", spec/wsn-sim.md).
struct BoundSearchResult {
  uint64_t Cycle = 0; ///< the bound of the run whose outputs were written
  uint64_t Moves = 0; ///< how often the bound moved on before it
  /// "found" (a point replay can end at), "violation" (the trace's violation flag is set),
  /// "limit" (one more move would reach --bound-end), "moves" (every move used, none found).
  std::string End;
  bool AtViolation = false; ///< that run's trace has the violation flag
  /// Why the last bound that moved on was passed over (Rejected: some bound was).
  bool Rejected = false;
  bool AfterCheck = false, InHandler = false, BeforeFirstCheckpoint = false,
       InSkippedCall = false;
};

/// What a node looked like when its run stopped.
struct NodeResult {
  uint16_t NodeId = 0;
  std::string Mcu;                  ///< the part the node ran (resolveMcu)
  uint32_t Frequency = 0;           ///< its CPU clock at the stop (Node::clockHz)
  StopKind Stop = StopKind::None;
  std::string CrashReason;          ///< why the core stopped, when it says (MSP430 faults)
  uint64_t Cycles = 0;
  uint64_t ActiveCycles = 0; ///< cycles awake (not sleeping)
  bool Violated = false;
  uint16_t ViolationId = 0;
  uint64_t ViolationCycle = 0;
  uint32_t Checks = 0;
  std::vector<uint8_t> Sram;
  std::vector<uint8_t> Trace;
  std::string TraceSource = "sram"; ///< "sram" (black box) or "uartN" (drained)
  std::string Settle;               ///< --settle: how the snapshot point was found
  uint64_t SettleCycles = 0;        ///< --settle: cycles run after the bound
  bool SettleAfterSkip = false;     ///< --settle: stopped in a skipped call, finished it first
  bool SettleInRepeat = false;      ///< --settle: stopped in a REPEAT's growth, cut before it
  bool SettlePastCheckpoint = false; ///< --settle: ran on past a CHECKPOINT replay runs past
  bool HasTrace = true;             ///< false: firmware without the trace runtime
  NodeStats Stats;
  NodeClocks Clocks;                ///< the node's clock parts (run.json "clocks")
  bool HasLeds = false;             ///< a board (MicaZ, TelosB)
  std::string LedNames = "RGY";     ///< the board's LED colours (MoteBoard::ledNames)
  bool RadioUsed = false;           ///< the firmware powered the CC2420
  devices::CC2420::Stats Cc2420;
  SpiStats Spi;
  std::vector<LedChange> Leds;      ///< LED history since reset
  std::vector<PcCount> PcCounts;    ///< --count-pc
  std::vector<std::pair<uint32_t, uint64_t>> Profile; ///< --profile: (PC, active cycles), PC order
  std::optional<BoundSearchResult> Search; ///< --bound-moves
};

/// Appends "CYCLE NODE LEDS" lines (spec/wsn-sim.md, "--leds") for R's LED
/// changes to Lines, keyed by the simulated ns of each change.
void ledLogLines(const NodeResult &R, std::vector<std::pair<uint64_t, std::string>> &Lines);
/// Writes the lines, sorted by cycle then node, to Path.
llvm::Error writeLedLog(llvm::StringRef Path,
                        std::vector<std::pair<uint64_t, std::string>> Lines);

/// Snapshot of a node at its stop point (trace read from SRAM).
NodeResult captureResult(const Node &N, StopKind Stop, llvm::raw_ostream &Warn);

/// Writes DIR/trace.wtr, DIR/sram.bin and DIR/run.json (creating DIR).
llvm::Error writeNodeResult(llvm::StringRef Dir, const NodeResult &R, uint64_t Seed,
                            const NodeOptions &Opts);

/// Writes DIR/full/NNNNN.wtr from the bytes and check values Node::fullTrace
/// returned, with Header (Node::FullTrace::Header: the ring's header with no record open).
llvm::Error writeFullTrace(llvm::StringRef Dir, const std::vector<uint8_t> &Header,
                           const std::vector<uint8_t> &Full,
                           const std::vector<uint16_t> &Checks);

struct BoundSearchOptions {
  uint64_t Moves = 0;  ///< at most this many moves
  uint64_t Step = 997; ///< cycles per move
  uint64_t End = 0;    ///< no move to a bound B with B + Step >= End (0: no limit)
};

struct SingleOptions {
  NodeOptions Node;
  uint64_t MaxCycles = 100000000;   ///< the cycle bound
  uint64_t DrainCycles = 200000000; ///< extra cycles allowed for draining
  /// --settle: at a cycle-bound stop, keep the trace as read at the bound, and take the SRAM
  /// snapshot where replay ends: at the next record the program opens (Node::settle).
  bool Settle = false;
  std::string LedLog;               ///< --leds FILE ("" none)
  /// --bound-moves N [--bound-step S] [--bound-end C] (with --settle): when the stop at the
  /// bound is not one replay can end at (settle "interrupt"; no header or no CHECKPOINT in
  /// the tail; the tail ends inside a skipped call, right after a CHECK or inside a handler),
  /// run again from reset with the bound S cycles later, at most N times; stop moving once
  /// the trace's violation flag is set or the next bound would reach C.
  std::optional<BoundSearchOptions> Search;
};

/// Runs one node and writes its outputs into Dir.
llvm::Expected<NodeResult> runSingle(const FirmwareInfo &FW, const SingleOptions &Opts,
                                     llvm::StringRef Dir, llvm::raw_ostream &Warn);

enum class ProgressMode { Auto, Bar, Lines, None };

struct NetOptions {
  NodeOptions Template;         ///< MCU, clock, seed, stimuli shared by all nodes
  double Seconds = 1.0;         ///< simulated time
  /// Lockstep quantum in cycles of the reference clock (Template.Frequency, the MicaZ's
  /// 7.3728 MHz by default); every node runs to the same instant, in its own cycles.
  uint64_t Quantum = 1000;
  double SnrThreshold = 4.0;    ///< dB a frame must clear above the sampled noise
  std::string LedLog; ///< --leds FILE ("" none)
  ProgressMode Progress = ProgressMode::Auto;
  /// --settle: each node stopped at the end (stop "bound") runs on alone to
  /// where replay of its trace ends before its snapshot (as `run --settle`).
  bool Settle = false;
};

class Network {
public:
  static llvm::Expected<std::unique_ptr<Network>>
  create(const topology::Topology &Topo, const std::map<uint16_t, FirmwareInfo> &Nodes,
         const NetOptions &Opts, llvm::raw_ostream &Warn);

  /// Runs for the configured time (or until a node's invariant is violated)
  /// and writes DIR/node<ID>/... and DIR/net.json.
  llvm::Error run(llvm::StringRef Dir, llvm::raw_ostream &Warn);

  const devices::Medium802154 *medium() const { return Air.get(); }

private:
  Network(const topology::Topology &T, const NetOptions &O)
      : Topo(T), Opts(O), Cc2420Rng(0) {}

  topology::Topology Topo;
  NetOptions Opts;
  std::vector<std::unique_ptr<Node>> Nodes; // ascending id
  /// The 802.15.4 medium between the nodes' CC2420s (spec/cc2420.md) and the
  /// stream of its noise samples.
  SimRng Cc2420Rng;
  std::unique_ptr<devices::Medium802154> Air;
  /// Lock-step slice while a CC2420 is powered: the 8-symbol turnaround
  /// (128 us) in cycles, so every transmission is announced before it starts.
  uint64_t RadioSlice = 0;
};

} // namespace sim
} // namespace wsn

#endif
