// Adc12.h - the ADC12 converter (SLAU049 chapter 17): ADC12CTL0/1, ADC12IFG, ADC12IE, ADC12IV,
// ADC12MCTL0-15, ADC12MEM0-15; single-channel and sequence-of-channels conversions started by
// ADC12SC, each taking the sample-and-hold time (SHP = 1: 4 to 1024 ADC12CLK cycles per SHT0x)
// plus 13 ADC12CLK cycles, the result of a board-supplied value source landing in ADC12MEMx
// with ADC12IFGx.
//
// Not modelled: the repeat modes (CONSEQ 2/3 run once, like 0/1), timer-triggered sampling
// (SHSx other than ADC12SC), SHP = 0, overflow and time-overflow conditions, the reference
// generator's settling (REFON is stored only).
#ifndef WSN_MSP430_ADC12_H
#define WSN_MSP430_ADC12_H

#include "Peripheral.h"

#include <functional>

namespace wsn::msp430 {

class Cpu;

class Adc12 : public Peripheral {
public:
  /// ADC12 vector: 0xFFEE on the F1611, 0xFFEA on the F2617.
  /// MclkHz gives the current MCLK frequency (to time conversions on ADC12OSC).
  Adc12(Cpu &C, const ClockSource &Aclk, const ClockSource &Smclk, std::function<double()> MclkHz);
  void map(); ///< 0x0080-0x008F, 0x0140-0x015F, 0x01A0-0x01A9
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  void reset() override;
  void advanceTo(uint64_t Cycle) override;
  uint64_t nextEvent() const override { return Busy ? DoneAt : kNever; }

  /// The 12-bit code a conversion of input channel INCHx returns at MCLK cycle Cycle.
  void setSource(std::function<uint16_t(unsigned Channel, uint64_t Cycle)> Fn) {
    Source = std::move(Fn);
  }

private:
  void start();           ///< begin the conversion of ADC12MCTL[Current]
  uint64_t conversionCycles() const;
  void updateLine();

  Cpu &C;
  const ClockSource &Aclk, &Smclk;
  std::function<double()> MclkHz;
  unsigned Slot;
  uint16_t Ctl0 = 0, Ctl1 = 0, Ifg = 0, Ie = 0;
  uint8_t Mctl[16] = {};
  uint16_t Mem[16] = {};
  bool Busy = false;
  unsigned Current = 0;
  uint64_t Now = 0, DoneAt = kNever;
  std::function<uint16_t(unsigned, uint64_t)> Source;
};

} // namespace wsn::msp430

#endif
