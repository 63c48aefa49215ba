//===- SimNode.h - one simulated mote, whatever its MCU -------------------===//
//
// A Node runs one firmware ELF on one MCU and drives its inputs from seeded
// random streams (spec/wsn-sim.md, "Nondeterminism model"): external
// interrupt pulses, UART receive bytes, ADC results and pin levels. It stops
// when the PC reaches the trace runtime's violation hook, or its check hook
// for the K-th time, and exposes the data space and the trace object.
// Node::create picks the implementation from the ELF's e_machine: AvrNode
// (libsimavr, the MicaZ board) or Msp430Node (the WSNMsp430 core, the TelosB
// board). Time is simulated only; each node counts its own MCU's cycles and
// maps them to nanoseconds for the radio medium.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_SIMNODE_H
#define WSN_SIM_SIMNODE_H

#include "MoteBoard.h"
#include "SimFirmware.h"
#include "SimRng.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wsn {
namespace sim {

/// An external interrupt source: pulses on the pin of INTn (AVR, Port 0) or
/// on pin Port.Int of an MSP430's interrupt-capable ports (Port 1 or 2).
struct IrqStimulus {
  unsigned Int = 0;        ///< 0..7 (INT0..INT7, or the pin of the port)
  uint64_t MeanCycles = 0; ///< mean gap between pulses
  unsigned Port = 0;       ///< 0: AVR INTn; 1, 2: MSP430 P1.n / P2.n
};

struct NodeOptions {
  /// The MCU: for an AVR ELF an AVR part (MicaZ: atmega128), for an MSP430 ELF an MSP430
  /// part (TelosB: msp430f1611). A part of the other family is replaced by that family's
  /// default (resolveMcu), so one option serves mixed networks.
  std::string Mcu = "atmega128";
  uint32_t Frequency = 7372800; ///< MicaZ clock (AVR only; an MSP430 runs on its DCO)
  uint64_t Seed = 0;
  uint16_t NodeId = 0;
  std::vector<IrqStimulus> Irqs;
  uint64_t UartMean = 0; ///< 0: no random bytes on UART0
  bool Adc = false;
  uint16_t AdcLo = 0, AdcHi = 1023; ///< AVR: 10-bit codes; MSP430 ADC12: up to 4095
  /// Fixed input levels driven on port pins from reset (e.g. switches): port letter (AVR) or
  /// digit '1'..'6' (MSP430) and the 8 pin levels, applied in order.
  std::vector<std::pair<char, uint8_t>> Pins;
  /// Random switch levels: port letter and mean cycles between changes (0: none). At each
  /// change the port's 8 input pins take a new seeded random byte.
  char SwitchPort = 0;
  uint64_t SwitchMean = 0;
  uint64_t StopAfterChecks = 0; ///< 0: do not stop at checks
  int DrainUart = -1;           ///< UART the trace is drained through (-1: none)
  /// Keep every segment the runtime completes (spec/wsn-sim.md, "Full trace").
  bool FullTrace = false;
  /// Active cycles by program counter (spec/wsn-sim.md, "--profile").
  bool Profile = false;
  /// --nominal-clocks: every clock at its typical value (a perfect watch crystal in phase
  /// with reset, the DCO at its typical frequency) instead of the seed's physical part.
  bool NominalClocks = false;
};

/// The physical spread of one node's clocks (spec/wsn-sim.md section 4, "Clocks"): the
/// 32.768 kHz crystal's frequency error and power-up phase (WatchCrystal) and, on an
/// MSP430, the DCO's frequency at every setting as a factor of the typical one.
struct NodeClocks {
  int64_t CrystalPpb = 0;
  uint32_t CrystalPhase32 = 0;
  double DcoScale = 1.0;
};
/// The clocks of node Opts.NodeId in run Opts.Seed: three draws from stream 6 (Clocks) in
/// this order: the crystal's error uniform in [-20000, 20000] ppb, its phase (the top 32 bits
/// of one draw), the DCO factor DcoMin + (DcoMax - DcoMin) * unit(). All nominal (0, 0, 1)
/// with Opts.NominalClocks.
NodeClocks drawNodeClocks(const NodeOptions &Opts, double DcoMin, double DcoMax);

/// How often the PC reached one --count-pc address.
struct PcCount {
  std::string Name;
  uint32_t Addr = 0;
  uint64_t Count = 0;
  std::optional<uint64_t> FirstCycle;
};

enum class StopKind { None, Violation, Checks, Halted, Crashed };
const char *stopKindName(StopKind K);

/// Width of an external interrupt pulse (pin low) in cycles.
constexpr uint64_t IrqPulseCycles = 8;

struct NodeStats {
  uint64_t IrqPulses = 0;
  uint64_t UartBytes = 0, UartDropped = 0;
  uint64_t AdcSamples = 0;
};

/// The MCU a firmware runs on: Requested when it is of the ELF's family, else the family's
/// board part (atmega128 for AVR; for MSP430 the part the image's load addresses fit,
/// FirmwareInfo::Msp430Part: msp430f1611 unless only the msp430f2617 can hold it).
std::string resolveMcu(const FirmwareInfo &FW, const std::string &Requested);

/// Where libsimavr's own messages go: errs() unless redirected. A bound search
/// (run --bound-moves) keeps only those of the candidate run whose outputs it writes.
llvm::raw_ostream &simCoreLog();
/// Redirects them (nullptr: errs() again); returns the previous sink.
llvm::raw_ostream *setSimCoreLog(llvm::raw_ostream *OS);

class Node {
public:
  /// An AvrNode or an Msp430Node, by the ELF's machine (Opts.Mcu resolved by resolveMcu).
  static llvm::Expected<std::unique_ptr<Node>> create(const FirmwareInfo &FW,
                                                      const NodeOptions &Opts);
  virtual ~Node();
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  /// Runs until the cycle counter reaches Target or a stop event. Returns the
  /// stop event (None when Target was reached). After Violation/Checks the
  /// node can be resumed (used to let a firmware drain its trace); after
  /// Halted/Crashed it cannot.
  virtual StopKind runUntil(uint64_t Target) = 0;

  virtual uint64_t cycle() const = 0;
  /// Cycles the core spent awake (not in a sleep mode), from reset; the
  /// overhead targets of the trace compare these (spec/wsn-sim.md).
  uint64_t activeCycles() const { return ActiveCycles; }
  /// Simulated nanoseconds at a cycle of this node's CPU clock (cycle >= the
  /// current one on an MSP430, whose clock may have been reconfigured), and the
  /// first cycle whose time is at least Ns.
  virtual uint64_t nsAt(uint64_t Cycle) const = 0;
  virtual uint64_t cycleAt(uint64_t Ns) const = 0;
  /// The CPU clock in Hz now (run.json "frequency").
  virtual uint32_t clockHz() const = 0;

  uint16_t id() const { return Opts.NodeId; }
  const NodeOptions &options() const { return Opts; }
  const FirmwareInfo &firmware() const { return FW; }
  bool terminated() const { return Terminated; }
  /// Whether reaching a hook stops the run (off while draining).
  void setStopsEnabled(bool On) { StopsEnabled = On; }

  StopKind lastStop() const { return LastStop; }
  uint16_t violationId() const { return ViolationId; }
  uint64_t violationCycle() const { return ViolationCycle; }
  uint64_t hookChecks() const { return HookChecks; }
  /// Why the core stopped for good (Crashed), when it says.
  const std::string &crashReason() const { return CrashReason; }

  /// The data space from address 0 to the end of RAM (AVR: registers, I/O,
  /// SRAM; MSP430: spec/telosb.md, "sram.bin").
  virtual std::vector<uint8_t> dataSpace() const = 0;
  /// The trace object as it sits in SRAM (header, ring, check values).
  /// Warning is set when the header is not a valid trace header.
  std::vector<uint8_t> traceImage(std::string &Warning) const;
  /// The `checks` counter in the SRAM trace header.
  uint32_t sramChecks() const;

  /// Bytes the firmware sent through the drain UART.
  const std::vector<uint8_t> &drainBytes() const { return Drained; }
  /// The last complete trace image in the drained bytes, if any.
  std::optional<std::vector<uint8_t>> drainedTrace() const;

  const NodeStats &stats() const { return Stats; }
  const std::vector<PcCount> &pcCounts() const { return PcCounts; }
  /// The clock parts this node was built with (run.json "clocks").
  const NodeClocks &clocks() const { return Clocks; }
  /// --profile: active cycles of the instructions at each flash byte address (index = PC
  /// in bytes), those of an interrupt's entry counted at the instruction it followed.
  const std::vector<uint64_t> &pcCycles() const { return PcCycles; }

  /// The board (LEDs, CC2420), when the MCU has one (atmega128: MicaZ,
  /// msp430f1611: TelosB).
  virtual const MoteBoard *board() const = 0;
  virtual MoteBoard *board() = 0;
  /// Things the user should know about the setup (e.g. a node-id variable
  /// that could not be set).
  const std::vector<std::string> &warnings() const { return Warnings; }

  /// --full-trace: every record written since reset, as the concatenation of
  /// the ring segments in writing order (complete segments, then the written
  /// part of the current one). Any moment is a valid stop (spec/trace-format.md
  /// section 1.1): with a record open the copy ends at the saved head, the torn
  /// record left out, and Header is the header as it was before that record
  /// opened. Error when a segment was overwritten before it could be copied, or
  /// when the runtime has not initialised the header yet.
  struct FullTrace {
    std::vector<uint8_t> Bytes;          ///< the records since reset
    std::vector<uint16_t> Checks;        ///< each segment's check value (section 1.2)
    std::array<uint8_t, 32> Header{};    ///< the header with no record open
    std::optional<uint32_t> OpenAt;      ///< the saved head of a record open at the stop
    /// The head at the last poll with no record open, when the open record began below
    /// it (it is written over earlier bytes of its segment).
    std::optional<uint32_t> TakenBackFrom;
  };
  llvm::Expected<FullTrace> fullTrace();

  /// After a cycle-bound stop: runs on (at most Limit cycles) to the point where replay of
  /// the trace read at the bound ends, the next record the program opens (the header's open
  /// bit, spec/trace-format.md section 1.1): "record" (also when one is open already),
  /// "sleep" (the core sleeps: no more records without an interrupt; the idle state),
  /// "interrupt" (an interrupt was taken first: the state where it struck is not one replay
  /// can name; also when the record that opened is the IRQ record of a handler entered
  /// before or at the bound), "end" (halted, crashed or Limit reached). Sram gets the data
  /// space at that point (for "record": where the record opened).
  /// A node stopped inside a skipped call (the runtime's __wsn_rt_skip_depth is not 0)
  /// first finishes it, interrupts included, and SkipTrace gets the trace read there: the
  /// one read at the bound ends inside the call.
  /// BoundTrace is the trace read at the bound: when replay of it (or of SkipTrace) runs
  /// past an anchor at its end (replayRunsPastAnchor) and the record that opens is a
  /// CHECKPOINT, the node runs on to the record after it.
  /// A "record" or "sleep" point is reported as "handler" when that trace (SkipTrace, else
  /// BoundTrace) ends inside an interrupt handler (more IRQ than IRQ_EXIT records: replay
  /// runs the handler where its count comes due, the node may have taken it later,
  /// spec/replay-log.md section 2.2).
  /// A trace read at the bound that is closed and ends with a CHECK stops replay at that
  /// check (spec/replay-log.md section 1, `last check`), wherever the node went after it:
  /// the snapshot is the data space at that check's hook, kept while --settle watches
  /// (or reached by running on when the bound fell between the CHECK and its hook), and
  /// settle says "check". A "handler" stop gets the Sram of the "record" / "sleep" point.
  std::string settle(uint64_t Limit, std::vector<uint8_t> &Sram,
                     std::optional<std::vector<uint8_t>> &SkipTrace,
                     llvm::ArrayRef<uint8_t> BoundTrace);
  /// For settle: watch, from now on, for returns from an interrupt into the instruction after
  /// a sleep (the handler was taken in that sleep and woke the core) and keep the data space
  /// of the last one (spec/wsn-sim.md, --settle). Costs a few comparisons per instruction.
  void watchWakeReturns() { WatchWakes = true; }
  /// After settle: the node ran on past a CHECKPOINT that replay of the trace runs past
  /// (run.json settle_past_checkpoint; the tests locate these stops by it).
  bool settledPastCheckpoint() const { return PastCheckpoint; }
  /// Settle stopped inside a REPEAT's growth (spec/trace-format.md section 3.8): the trace it
  /// gives back is the one before that record, REPEAT count and check value put back.
  bool settledInRepeat() const { return RepeatCut; }
  /// settlePoint's first case: a stop inside a record that a REPEAT takes in.
  std::optional<std::string> settleInRepeat(uint64_t End, std::vector<uint8_t> &Sram,
                                            std::optional<std::vector<uint8_t>> &CutTrace);

protected:
  uint64_t ActiveCycles = 0;
  Node(const FirmwareInfo &FW, const NodeOptions &Opts) : FW(FW), Opts(Opts) {}
  /// settle without the "handler" / "check" labels.
  std::string settlePoint(uint64_t Limit, std::vector<uint8_t> &Sram,
                          std::optional<std::vector<uint8_t>> &SkipTrace,
                          llvm::ArrayRef<uint8_t> BoundTrace);
  /// settle's search: runs on to the first open record, sleep or interrupt entry.
  virtual std::string settleToRecord(uint64_t Limit) = 0;
  /// Executes one instruction (or sleeps to the next event); false when the core stopped
  /// for good.
  virtual bool stepOnce() = 0;
  /// Byte i is data address i (at least up to the end of __wsn_trace).
  virtual const uint8_t *dataMemory() const = 0;
  /// Whether the CPU takes maskable interrupts now (AVR SREG.I, MSP430 GIE):
  /// the runtime writes records with them off, so the header is consistent.
  virtual bool interruptsEnabled() const = 0;
  /// Copies the segments the runtime completed since the last call (only at
  /// instruction boundaries where the trace header is consistent).
  void pollFullTrace();
  /// Whether the trace header's open-record bit is set.
  bool recordOpen() const;
  /// The violation hook's argument (the invariant id) at its entry: r25:r24 on the AVR,
  /// R12 on the MSP430 (the compilers' calling conventions).
  virtual uint16_t violationArgument() const = 0;
  /// The address of the next instruction (flash byte address), as atPc sees it.
  virtual uint32_t pc() const = 0;
  /// Counts --count-pc hits and checks the hooks at PC (after an instruction):
  /// the stop to report (LastStop is set), or None.
  StopKind atPc(uint32_t Pc, uint64_t Cycle);
  /// The fault of a stack that grew below the end of static RAM (CrashReason).
  /// Nested: the interrupt vectors of the handlers running then, outermost first; AtLeast:
  /// the simulator keeps no more than these (simavr's stack of 64), there may be more.
  static std::string stackOverflow(uint32_t Lowest, uint32_t RamEnd, const char *Symbol,
                                   uint64_t Cycle, const std::vector<unsigned> &Nested,
                                   bool AtLeast = false);

  FirmwareInfo FW;
  NodeOptions Opts;
  NodeClocks Clocks;
  bool Terminated = false;
  bool StopsEnabled = true;
  StopKind LastStop = StopKind::None;
  uint16_t ViolationId = 0xFFFF;
  uint64_t ViolationCycle = 0;
  uint64_t HookChecks = 0;
  std::string CrashReason;

  std::vector<uint8_t> Drained;
  NodeStats Stats;
  std::vector<std::string> Warnings;
  std::vector<PcCount> PcCounts;
  std::vector<uint64_t> PcCycles; ///< --profile
  /// --profile: adds Cycles to the instruction at byte address Pc.
  void profileCycles(uint32_t Pc, uint64_t Cycles) {
    if (Pc >= PcCycles.size())
      PcCycles.resize(std::max<size_t>(Pc + 1, PcCycles.size() * 2 + 1024), 0);
    PcCycles[Pc] += Cycles;
  }

  bool PastCheckpoint = false; ///< settle ran on past a CHECKPOINT (settledPastCheckpoint)
  bool RepeatCut = false;      ///< settledInRepeat
  // --settle: the last return from an interrupt that woke the core from a sleep.
  bool WatchWakes = false;
  bool WakeValid = false;       ///< WakeSram holds the data space right after that return
  bool RecordSinceWake = false; ///< a record completed after it
  bool OpenBefore = false;      ///< the trace header's open bit after the previous step
  std::vector<uint8_t> WakeSram;
  // --settle: the data space at the last check hook and the runtime's check count there.
  bool CheckCopyValid = false;
  uint32_t CheckCopyChecks = 0;
  std::vector<uint8_t> CheckCopy;
  /// Called after every step while WatchWakes, WakeReturn: that step was the return from
  /// an interrupt into the instruction after a sleep.
  void noteStep(bool WakeReturn) {
    if (!FW.HasRuntime)
      return; // no trace, nothing for replay to end at
    bool Open = recordOpen();
    if (OpenBefore && !Open)
      RecordSinceWake = true;
    OpenBefore = Open;
    if (WakeReturn && !Open) {
      WakeSram = dataSpace();
      WakeValid = true;
      RecordSinceWake = false;
    }
  }

  // --full-trace
  std::vector<uint8_t> FullBytes; ///< complete segments, in writing order
  std::vector<uint16_t> FullChecks; ///< their check values (trace-format.md section 1.2)
  uint64_t FullSegs = 0;          ///< absolute index of the next segment to copy
  uint64_t FullLost = 0;          ///< segments overwritten before they were copied
  /// Every header and check value the polls with no record open saw in the current
  /// segment, in order (empty until the runtime has written its header). The last is what
  /// a stop inside a record keeps (the writer changes neither before it opens); a record
  /// written over earlier bytes of its segment (an empty skip span over its SKIP_BEGIN,
  /// spec/trace-format.md section 3.5) opens with a saved head below the last poll's, and a
  /// stop inside it keeps the state of that earlier head.
  struct TailState {
    std::array<uint8_t, 32> Header;
    uint16_t Check;
  };
  std::vector<TailState> FullTailStates;
  uint64_t FullTailSeg = ~uint64_t(0); ///< absolute segment FullTailStates are of
};

} // namespace sim
} // namespace wsn

#endif
