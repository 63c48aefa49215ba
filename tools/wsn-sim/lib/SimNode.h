//===- SimNode.h - one simulated mote on libsimavr ------------------------===//
//
// A Node owns one simavr core running one firmware ELF and drives its inputs
// from seeded random streams (spec/wsn-sim.md, "Nondeterminism model"):
// external interrupt pulses, UART receive bytes and ADC results. It stops the
// core when the PC reaches the trace runtime's violation hook, or its check
// hook for the K-th time, and exposes the data space and the trace object.
// Time is simulated only: libsimavr's real-time sleep callback is replaced.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_SIMNODE_H
#define WSN_SIM_SIMNODE_H

#include "AsyncTimer0.h"
#include "MicaZBoard.h"
#include "SimFirmware.h"
#include "SimRng.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct avr_t;
struct avr_irq_t;
struct avr_uart_t;

namespace wsn {
namespace sim {

/// An external interrupt source: pulses on the pin of INTn.
struct IrqStimulus {
  unsigned Int = 0;        ///< 0..7 (INT0..INT7)
  uint64_t MeanCycles = 0; ///< mean gap between pulses
};

struct NodeOptions {
  std::string Mcu = "atmega128";
  uint32_t Frequency = 7372800; ///< MicaZ clock
  uint64_t Seed = 0;
  uint16_t NodeId = 0;
  std::vector<IrqStimulus> Irqs;
  uint64_t UartMean = 0; ///< 0: no random bytes on UART0
  bool Adc = false;
  uint16_t AdcLo = 0, AdcHi = 1023;
  /// Fixed input levels driven on port pins from reset (e.g. switches): port letter and the
  /// 8 pin levels, applied in order.
  std::vector<std::pair<char, uint8_t>> Pins;
  /// Random switch levels: port letter and mean cycles between changes (0: none). At each
  /// change the port's 8 input pins take a new seeded random byte.
  char SwitchPort = 0;
  uint64_t SwitchMean = 0;
  uint64_t StopAfterChecks = 0; ///< 0: do not stop at checks
  int DrainUart = -1;           ///< UART the trace is drained through (-1: none)
  /// Keep every segment the runtime completes (spec/wsn-sim.md, "Full trace").
  bool FullTrace = false;
};

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

class Node {
public:
  static llvm::Expected<std::unique_ptr<Node>> create(const FirmwareInfo &FW,
                                                      const NodeOptions &Opts);
  ~Node();
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  /// Runs until the cycle counter reaches Target or a stop event. Returns the
  /// stop event (None when Target was reached). After Violation/Checks the
  /// node can be resumed (used to let a firmware drain its trace); after
  /// Halted/Crashed it cannot.
  StopKind runUntil(uint64_t Target);

  uint64_t cycle() const;
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

  /// The whole data space (registers, I/O, SRAM): RAMEND + 1 bytes.
  std::vector<uint8_t> dataSpace() const;
  /// The trace object as it sits in SRAM (header + buf_size ring bytes).
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

  /// The MicaZ board (LEDs, ...), when the MCU is the atmega128.
  const MicaZBoard *board() const { return Board.get(); }
  MicaZBoard *board() { return Board.get(); }
  /// Things the user should know about the setup (e.g. a node-id variable
  /// that could not be set).
  const std::vector<std::string> &warnings() const { return Warnings; }

  /// --full-trace: every record written since reset, as the concatenation of
  /// the ring segments in writing order (complete segments, then the written
  /// part of the current one). Error when a segment was overwritten before it
  /// could be copied.
  llvm::Expected<std::vector<uint8_t>> fullTrace();

  /// After a cycle-bound stop: runs on (at most Limit cycles) to the point where replay of
  /// the trace read at the bound ends, the next record the program opens (the header's open
  /// bit, spec/trace-format.md section 1.1): "record" (also when one is open already),
  /// "sleep" (the core sleeps: no more records without an interrupt; the idle state),
  /// "interrupt" (an interrupt was taken first: the state where it struck is not one replay
  /// can name), "end" (halted, crashed or Limit reached).
  std::string settle(uint64_t Limit, bool &FinishedSkip);

private:
  /// Copies the segments the runtime completed since the last call (only at
  /// instruction boundaries where the trace header is consistent).
  void pollFullTrace();

  Node(const FirmwareInfo &FW, const NodeOptions &Opts) : FW(FW), Opts(Opts) {}
  llvm::Error init();

  static uint64_t onBound(avr_t *, uint64_t When, void *P);
  static uint64_t onIrqTimer(avr_t *, uint64_t When, void *P);
  static uint64_t onSwitchTimer(avr_t *, uint64_t When, void *P);
  void setSwitches(uint8_t Levels);
  static uint64_t onUartTimer(avr_t *, uint64_t When, void *P);
  static void onAdcTrigger(avr_irq_t *, uint32_t Value, void *P);
  static void onDrainTx(avr_irq_t *, uint32_t Value, void *P);

  bool uartFull(avr_uart_t *U) const;

  FirmwareInfo FW;
  NodeOptions Opts;
  avr_t *Avr = nullptr;
  bool Terminated = false;
  bool StopsEnabled = true;
  StopKind LastStop = StopKind::None;
  uint16_t ViolationId = 0xFFFF;
  uint64_t ViolationCycle = 0;
  uint64_t HookChecks = 0;

  struct IrqSource {
    Node *Owner;
    IrqStimulus Cfg;
    avr_irq_t *Pin;
    bool Low = false;
    SimRng Rng;
  };
  std::vector<std::unique_ptr<IrqSource>> IrqSources;
  std::optional<SimRng> UartRng, AdcRng, SwitchRng;
  avr_irq_t *SwitchPins[8] = {};
  avr_uart_t *Uart0 = nullptr;
  avr_irq_t *Uart0In = nullptr;
  avr_irq_t *AdcIrqs = nullptr;

  std::vector<uint8_t> Drained;
  NodeStats Stats;
  std::vector<std::string> Warnings;
  std::vector<PcCount> PcCounts;

  // MicaZ board
  std::unique_ptr<AsyncTimer0> Timer0;
  std::unique_ptr<MicaZBoard> Board;

  // --full-trace
  std::vector<uint8_t> FullBytes; ///< complete segments, in writing order
  uint64_t FullSegs = 0;          ///< absolute index of the next segment to copy
  uint64_t FullLost = 0;          ///< segments overwritten before they were copied
};

} // namespace sim
} // namespace wsn

#endif
