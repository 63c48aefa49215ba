//===- Msp430Node.h - a simulated mote on the WSNMsp430 core --------------===//
//
// The MSP430 implementation of Node: a Chip (tools/wsn-sim/msp430) loaded
// with the ELF, the board of the part (makeMsp430Board: msp430f1611 is the
// TelosB; parts without a board run board-less) and the stimuli on the MSP430's port pins and ADC12.
// Scheduled stimuli and the run bound are a device of the core (its
// nextEvent), so a sleeping CPU wakes for them exactly as for a timer.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_MSP430NODE_H
#define WSN_SIM_MSP430NODE_H

#include "SimNode.h"
#include "Msp430Board.h"
#include "SimRng.h"

#include "Chip.h"

#include <functional>
#include <memory>

namespace wsn {
namespace sim {

class Msp430Node : public Node {
public:
  static llvm::Expected<std::unique_ptr<Node>> create(const FirmwareInfo &FW,
                                                      const NodeOptions &Opts);
  ~Msp430Node() override;

  StopKind runUntil(uint64_t Target) override;
  uint64_t cycle() const override;
  uint64_t nsAt(uint64_t Cycle) const override;
  uint64_t cycleAt(uint64_t Ns) const override;
  /// MCLK now, rounded to Hz (the DCO as the firmware set it).
  uint32_t clockHz() const override;
  /// Addresses 0 to the end of RAM (0x38FF on the F1611), as the CPU reads them,
  /// except the peripheral registers (spec/telosb.md, "sram.bin").
  std::vector<uint8_t> dataSpace() const override;
  const MoteBoard *board() const override { return Board.get(); }
  MoteBoard *board() override { return Board.get(); }

  msp430::Chip &chip() { return *Dev; }

private:
  Msp430Node(const FirmwareInfo &FW, const NodeOptions &Opts) : Node(FW, Opts) {}
  llvm::Error init();
  const uint8_t *dataMemory() const override;
  bool interruptsEnabled() const override;
  std::string settleToRecord(uint64_t Limit) override;
  bool stepOnce() override;
  uint16_t violationArgument() const override;
  uint32_t pc() const override;
  /// The core sleeps with GIE clear: only an NMI could wake it.
  bool halted() const;
  /// The host side of serial port N: USART N on the F1611, USCI_AN on the F2617. Calls
  /// Fn(port) with the module (both have receive, pendingReceive, onTransmit); false when
  /// the part has no such port.
  template <typename F> bool withSerial(int N, F Fn);
  /// Whether the board drives Port.Bit (an input the stimuli must leave alone).
  bool boardDriven(unsigned Port, unsigned Bit) const {
    return Board && Board->drivesPin(Port, Bit);
  }

  /// Scheduled stimuli and the run bound: a device whose next event is the earliest of them.
  class Scheduler : public msp430::Peripheral {
  public:
    /// Fn gets the cycle it was due at and returns the next one (0: done).
    using Fn = std::function<uint64_t(uint64_t)>;
    void add(uint64_t At, Fn F) { Items.push_back({At, std::move(F)}); }
    uint64_t Bound = 0; ///< cycle the run stops at (an event while the core is behind it)
    uint64_t Now = 0;
    uint16_t read(uint32_t, bool) override { return 0; }
    void write(uint32_t, uint16_t, bool) override {}
    void advanceTo(uint64_t Cycle) override;
    uint64_t nextEvent() const override;

  private:
    struct Item {
      uint64_t At;
      Fn F;
    };
    std::vector<Item> Items;
  };

  /// One step of the core; with watchWakeReturns also tracks interrupt frames and reports
  /// in WakeReturn whether the step was the RETI of a handler taken in a low-power mode that
  /// returned with the CPU on (the handler cleared the stacked SR's LPM bits).
  msp430::StepKind stepWatched(bool &WakeReturn);

  std::unique_ptr<msp430::Chip> Dev;
  std::unique_ptr<Msp430Board> Board;
  Scheduler Sched;
  /// Handlers being run, innermost last: whether each was taken with CPUOFF set.
  std::vector<bool> IrqFrames;
  /// The previous step was a wake return (stepWatched): an interrupt taken right after it,
  /// before the instruction after the sleep ran, belongs to the same sleep.
  bool JustWoke = false;
  std::optional<SimRng> AdcRng, SwitchRng, UartRng;
  std::vector<SimRng> IrqRngs;
};

} // namespace sim
} // namespace wsn

#endif
