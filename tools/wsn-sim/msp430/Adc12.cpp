// Adc12.cpp - SLAU049 §17.2 "ADC12 Operation".
#include "Adc12.h"

#include "Cpu.h"

#include <algorithm>
#include <cmath>

namespace wsn::msp430 {

namespace {
constexpr uint16_t ADC12SC = 0x0001, ENC = 0x0002, ADC12ON = 0x0010; // ADC12CTL0
constexpr uint16_t ADC12BUSY = 0x0001;                               // ADC12CTL1
constexpr uint8_t EOS = 0x80;                                         // ADC12MCTLx
constexpr double Adc12OscHz = 5e6; // "ADC12OSC ... approximately 5 MHz" (§17.2.2)
} // namespace

Adc12::Adc12(Cpu &Core, const ClockSource &A, const ClockSource &S, std::function<double()> Mclk)
    : C(Core), Aclk(A), Smclk(S), MclkHz(std::move(Mclk)) {
  Slot = ((C.mcu().VectorBase == 0xFFC0 ? 0xFFEA : 0xFFEE) - C.mcu().VectorBase) / 2;
}

void Adc12::map() {
  C.mapPeripheral(0x0080, 0x008F, this);
  C.mapPeripheral(0x0140, 0x015F, this);
  C.mapPeripheral(0x01A0, 0x01A9, this);
}

void Adc12::reset() {
  // PUC: control, flag and enable registers cleared; ADC12MEMx and ADC12MCTLx keep their
  // (undefined) contents.
  Now = C.cycles();
  Ctl0 = Ctl1 = Ifg = Ie = 0;
  Busy = false;
  DoneAt = kNever;
  updateLine();
}

uint64_t Adc12::conversionCycles() const {
  // §17.2.5 with SHP = 1: sample time 4 * 2^n ADC12CLK cycles per SHT0x (Table 17-?: 4, 8,
  // 16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024...), then 13 cycles of conversion.
  static constexpr uint32_t Sht[16] = {4,   8,   16,  32,  64,  96,   128,  192,
                                       256, 384, 512, 768, 1024, 1024, 1024, 1024};
  uint64_t AdcClocks = Sht[(Ctl0 >> 8) & 15] + 13;
  uint64_t Div = ((Ctl1 >> 5) & 7) + 1;
  unsigned Ssel = (Ctl1 >> 3) & 3; // 0 ADC12OSC, 1 ACLK, 2 MCLK, 3 SMCLK
  uint64_t Ticks = AdcClocks * Div;
  if (Ssel == 2)
    return Ticks;
  if (Ssel == 1 || Ssel == 3) {
    const ClockSource &Clk = Ssel == 1 ? Aclk : Smclk;
    return Clk.cycleOfTick(Clk.ticksAt(Now) + Ticks) - Now;
  }
  // ADC12OSC, ~5 MHz: its ticks in MCLK cycles at the current MCLK frequency.
  return std::max<uint64_t>(1, uint64_t(std::ceil(double(Ticks) / Adc12OscHz * MclkHz())));
}

void Adc12::start() {
  Busy = true;
  Ctl1 |= ADC12BUSY;
  DoneAt = Now + conversionCycles();
  C.eventsChanged();
}

void Adc12::advanceTo(uint64_t Cycle) {
  Now = std::max(Now, Cycle);
  while (Busy && Now >= DoneAt) {
    unsigned Ch = Mctl[Current] & 15;
    Mem[Current] = uint16_t((Source ? Source(Ch, DoneAt) : 0) & 0x0FFF);
    Ifg |= uint16_t(1u << Current);
    bool Sequence = ((Ctl1 >> 1) & 3) & 1; // CONSEQ 1 (and 3): a sequence up to EOS
    bool Last = !Sequence || (Mctl[Current] & EOS) || !(Ctl0 & ENC);
    if (Last) {
      Busy = false;
      Ctl1 &= ~ADC12BUSY;
      DoneAt = kNever;
    } else {
      Current = (Current + 1) & 15;
      uint64_t Keep = Now;
      Now = DoneAt;
      start();
      Now = Keep;
    }
  }
  updateLine();
}

uint16_t Adc12::read(uint32_t Addr, bool IsByte) {
  auto Word = [&](uint32_t A) -> uint16_t {
    if (A >= 0x0080 && A <= 0x008F)
      return uint16_t(Mctl[A - 0x80] | (A + 1 <= 0x8F ? Mctl[A - 0x80 + 1] << 8 : 0));
    if (A >= 0x0140 && A <= 0x015E) {
      unsigned I = (A - 0x140) / 2;
      Ifg &= uint16_t(~(1u << I)); // §17.2.8: reading ADC12MEMx resets ADC12IFGx
      updateLine();
      return Mem[I];
    }
    switch (A) {
    case 0x01A0: return Ctl0;
    case 0x01A2: return Ctl1;
    case 0x01A4: return Ifg;
    case 0x01A6: return Ie;
    case 0x01A8: { // ADC12IV: 06h + 2x for the lowest pending enabled ADC12IFGx
      for (unsigned I = 0; I < 16; ++I)
        if (Ifg & Ie & (1u << I))
          return uint16_t(6 + 2 * I);
      return 0;
    }
    default: return 0;
    }
  };
  if (Addr >= 0x0080 && Addr <= 0x008F && IsByte)
    return Mctl[Addr - 0x80];
  uint16_t W = Word(Addr & ~1u);
  if (IsByte)
    return (Addr & 1) ? W >> 8 : W & 0xFF;
  return W;
}

void Adc12::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  if (Addr >= 0x0080 && Addr <= 0x008F) {
    // §17.3: ADC12MCTLx can be modified only when ENC = 0.
    if (!(Ctl0 & ENC)) {
      Mctl[Addr - 0x80] = uint8_t(Value);
      if (!IsByte && Addr + 1 <= 0x8F)
        Mctl[Addr - 0x80 + 1] = uint8_t(Value >> 8);
    }
    return;
  }
  uint32_t A = Addr & ~1u;
  auto Merge = [&](uint16_t Old) {
    if (!IsByte)
      return Value;
    return (Addr & 1) ? uint16_t((Old & 0x00FF) | (Value & 0xFF) << 8)
                      : uint16_t((Old & 0xFF00) | (Value & 0xFF));
  };
  if (A >= 0x0140 && A <= 0x015E) {
    Mem[(A - 0x140) / 2] = Merge(Mem[(A - 0x140) / 2]);
  } else if (A == 0x01A0) {
    uint16_t New = Merge(Ctl0);
    Ctl0 = New & ~ADC12SC;
    // §17.2.7: with ENC set, ADC12SC starts the conversion (single-channel: from CSTARTADDx).
    if ((New & ADC12SC) && (New & ENC) && (New & ADC12ON) && !Busy) {
      Current = (Ctl1 >> 12) & 15;
      start();
    }
  } else if (A == 0x01A2) {
    uint16_t New = Merge(Ctl1);
    Ctl1 = uint16_t((New & ~ADC12BUSY) | (Ctl1 & ADC12BUSY)); // BUSY is read-only
  } else if (A == 0x01A4) {
    Ifg = Merge(Ifg);
  } else if (A == 0x01A6) {
    Ie = Merge(Ie);
  }
  updateLine();
}

void Adc12::updateLine() { C.irq().set(Slot, Ifg & Ie); }

} // namespace wsn::msp430
