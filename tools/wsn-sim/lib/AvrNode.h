//===- AvrNode.h - a simulated mote on libsimavr --------------------------===//
//
// The AVR implementation of Node: one simavr core, the MicaZ board and its
// asynchronous Timer0 when the MCU is the atmega128, and the stimuli on the
// AVR's pins, UART0 and ADC. libsimavr's real-time sleep callback is replaced.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_AVRNODE_H
#define WSN_SIM_AVRNODE_H

#include "AsyncTimer0.h"
#include "MicaZBoard.h"
#include "SimNode.h"

struct avr_t;
struct avr_irq_t;
struct avr_uart_t;

namespace wsn {
namespace sim {

class AvrNode : public Node {
public:
  static llvm::Expected<std::unique_ptr<Node>> create(const FirmwareInfo &FW,
                                                      const NodeOptions &Opts);
  ~AvrNode() override;

  StopKind runUntil(uint64_t Target) override;
  uint64_t cycle() const override;
  /// floor(cycles * 1e9 / F) and its inverse ceil(ns * F / 1e9): exact integers.
  uint64_t nsAt(uint64_t Cycle) const override;
  uint64_t cycleAt(uint64_t Ns) const override;
  uint32_t clockHz() const override { return Opts.Frequency; }
  std::vector<uint8_t> dataSpace() const override;
  const MoteBoard *board() const override { return Board.get(); }
  MoteBoard *board() override { return Board.get(); }

private:
  AvrNode(const FirmwareInfo &FW, const NodeOptions &Opts) : Node(FW, Opts) {}
  llvm::Error init();
  const uint8_t *dataMemory() const override;
  bool interruptsEnabled() const override;
  std::string settleToRecord(uint64_t Limit) override;
  /// The flash word at a byte address (0 past the end).
  uint16_t flashWord(uint32_t Byte) const;
  /// After a step: the step was a RETI (WasReti) that returned into the instruction after
  /// a SLEEP.
  bool returnedIntoSleep(bool WasReti) const;
  bool stepOnce() override;
  uint16_t violationArgument() const override;
  uint32_t pc() const override;

  static uint64_t onBound(avr_t *, uint64_t When, void *P);
  static uint64_t onIrqTimer(avr_t *, uint64_t When, void *P);
  static uint64_t onSwitchTimer(avr_t *, uint64_t When, void *P);
  void setSwitches(uint8_t Levels);
  static uint64_t onUartTimer(avr_t *, uint64_t When, void *P);
  static void onAdcTrigger(avr_irq_t *, uint32_t Value, void *P);
  static void onDrainTx(avr_irq_t *, uint32_t Value, void *P);

  bool uartFull(avr_uart_t *U) const;

  avr_t *Avr = nullptr;

  struct IrqSource {
    AvrNode *Owner;
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

  // MicaZ board
  std::unique_ptr<AsyncTimer0> Timer0;
  std::unique_ptr<MicaZBoard> Board;
};

} // namespace sim
} // namespace wsn

#endif
