// BasicClock.h - the Basic Clock module (SLAU049 chapter 4): DCOCTL 0x56, BCSCTL1 0x57,
// BCSCTL2 0x58; the DCO, LFXT1 (a 32768 Hz watch crystal, as on TelosB and Z1), MCLK, SMCLK
// and ACLK with their dividers.
//
// The core counts MCLK cycles; this module maps them to real time piecewise (a segment per
// clock configuration) and gives SMCLK and ACLK as ClockSources for the timers and the
// watchdog. DCO frequency model: SLAU049 §4.1 gives "approximately 800 kHz" after PUC
// (RSEL = 4, DCO = 3); each RSEL step multiplies it by S_RSEL = 1.65 and each DCO step by
// S_DCO = 1.12 (the F1611 datasheet's typical ratios); MODx mixes fDCO and fDCO+1 per §4.2.5.
// These are typical values, not a particular chip's.
//
// On the MSP430x2xx (McuInfo::BasicClockPlus, SLAU144 chapter 5) the module is the Basic Clock
// Module+: BCSCTL1 resets to 87h (RSEL 4 bits, 0-15), the DCO runs at ~1.1 MHz after PUC
// (§5.1: RSEL 7, DCO 3) and steps by the F2617 datasheet's typical S_RSEL = 1.35 and
// S_DCO = 1.08; BCSCTL3 (0x53, reset 05h) is kept as a value (LFXT1 stays the 32768 Hz
// crystal: VLO is not modelled). writeDcoCalibration stores the factory constants
// CALDCO/CALBC1 for 1, 8, 12 and 16 MHz (SLAU144 §24.2.2, TLV at 0x10F6) as this model's
// settings nearest those frequencies.
//
// Low-power modes (SLAU049 §2.3, §3.2.3; SLAU144 §2.3): the SR's SCG1 stops SMCLK, OSCOFF
// stops LFXT1 and so ACLK (unless LFXT1 feeds MCLK while the CPU runs), CPUOFF stops MCLK
// (the core then fetches nothing: cycles keep counting as a time base at the configured MCLK
// rate), SCG0 turns off the DCO's dc generator only when the DCO feeds neither MCLK nor SMCLK,
// which changes no clock modelled here. Timers, the watchdog and the USARTs on a stopped
// clock stop counting; an interrupt entry clears the bits and restarts them. The Chip
// connects setStatusBits to the CPU's clock-bits hook.
//
// One physical part (ClockParts, spec/wsn-sim.md section 4 "Clocks"): the DCO of a real chip
// runs at its own frequency within the datasheet's min..max at every setting, modelled as one
// factor DcoScale on the typical model above (dcoSpread gives the range; F1xx only); LFXT1 is a
// WatchCrystal (tools/wsn-sim/devices) with its own frequency error and power-up phase, counted
// in picoseconds. ACLK ticks at that crystal's edges (divided by DIVA, counted from the start
// of each clock configuration); a change of the DCO or a divider does not move the crystal.
//
// Not modelled: XT2, DCOR (external resistor), oscillator faults (OFIFG is only set at PUC,
// by the SFRs), wake-up delays.
#ifndef WSN_MSP430_BASICCLOCK_H
#define WSN_MSP430_BASICCLOCK_H

#include "Peripheral.h"
#include "WatchCrystal.h"

#include <algorithm>
#include <cstdint>

namespace wsn::msp430 {

class Cpu;

/// The part-to-part spread of one chip's clocks; the default is the typical part with a
/// perfect crystal.
struct ClockParts {
  double DcoScale = 1.0;   ///< the DCO at every setting, as a factor of the typical model
  int64_t LfxtPpb = 0;     ///< LFXT1's frequency error (WatchCrystal)
  uint32_t LfxtPhase32 = 0; ///< LFXT1's phase at power-up, in 2^-32 of a period
};

class BasicClock : public Peripheral {
public:
  static constexpr uint32_t Base = 0x56, Last = 0x58;
  static constexpr uint32_t Bcsctl3 = 0x53; ///< Basic Clock Module+ only
  explicit BasicClock(Cpu &C, const ClockParts &Parts = {});
  /// The range of DcoScale for a part (Plus: the F2xx's Basic Clock Module+). F1xx: the
  /// datasheet's minimum and maximum DCO frequency at the PUC setting over the typical one
  /// (SLAS272 fDCO(43) at 3 V: 0.61, 0.75, 0.90 MHz). F2xx: 1 (programs run it from the
  /// factory calibration constants, which the typical model meets; see the .cpp).
  static void dcoSpread(bool Plus, double &Min, double &Max);
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  void reset() override; ///< PUC: DCOCTL 60h, BCSCTL1 84h (87h on F2xx), BCSCTL2 00h
  void advanceTo(uint64_t Cycle) override { Now = std::max(Now, Cycle); }

  /// DCOCLK in Hz for the current DCOCTL/BCSCTL1 (with modulation).
  double dcoHz() const;
  /// DCOCLK for a DCOCTL/BCSCTL1 pair (this part's model).
  double dcoHzFor(uint8_t Dcoctl, uint8_t Bcsctl1) const;
  /// F2xx: the DCO calibration constants in information memory segment A (raw memory).
  void writeDcoCalibration();
  double mclkHz() const;
  const ClockSource &smclk() const { return Smclk; }
  const ClockSource &aclk() const { return Aclk; }
  /// The SR's clock bits (CPUOFF, OSCOFF, SCG0, SCG1) changed at MCLK cycle Cycle.
  void setStatusBits(uint16_t Sr, uint64_t Cycle);
  bool smclkRunning() const { return Seg.SmclkPs != 0; }
  bool aclkRunning() const { return !Seg.AclkStopped; }
  /// Real time at MCLK cycle Cycle, in picoseconds.
  uint64_t picosecondsAt(uint64_t Cycle) const;

private:
  struct Segment {
    uint64_t Cycle = 0, Ps = 0;       ///< start
    uint64_t MclkPs = 1;              ///< one MCLK cycle
    uint64_t SmclkPs = 1;             ///< one SMCLK tick (0: stopped)
    uint64_t AclkDiv = 1;             ///< ACLK = LFXT1 / AclkDiv
    bool AclkStopped = false;         ///< OSCOFF: LFXT1 off
    uint64_t SmclkTicks = 0, AclkTicks = 0; ///< ticks before the segment
    uint64_t LfxtEdge = 0;            ///< LFXT1 edges at or before the segment's start
  };
  class Source : public ClockSource {
  public:
    Source(const BasicClock &B, bool IsAclk) : B(B), IsAclk(IsAclk) {}
    uint64_t ticksAt(uint64_t Cycle) const override;
    uint64_t cycleOfTick(uint64_t Tick) const override;

  private:
    const BasicClock &B;
    bool IsAclk;
  };
  void newSegment(); ///< the configuration changed at Now
  uint64_t smclkTicksAt(uint64_t Cycle) const;
  uint64_t aclkTicksAt(uint64_t Cycle) const;

  Cpu &C;
  bool Plus; ///< Basic Clock Module+ (F2xx)
  double DcoScale;
  wsn::sim::WatchCrystal Lfxt; ///< LFXT1, counted in picoseconds
  uint8_t Dcoctl = 0x60, Bcsctl1 = 0x84, Bcsctl2 = 0x00, Ctl3 = 0x05;
  uint16_t StatusBits = 0; ///< SR & (CPUOFF | OSCOFF | SCG0 | SCG1)
  uint64_t Now = 0;
  Segment Seg;
  Source Smclk{*this, false}, Aclk{*this, true};
};

} // namespace wsn::msp430

#endif
