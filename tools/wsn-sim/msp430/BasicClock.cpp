// BasicClock.cpp - SLAU049 §4.2 "Basic Clock Module Operation".
#include "BasicClock.h"

#include "Cpu.h"

#include <algorithm>
#include <cmath>

namespace wsn::msp430 {

namespace {
// The DCO at PUC and its typical steps.
struct DcoModel {
  double PucHz;           ///< at PucRsel, DCO 3
  int PucRsel;
  double SRsel, SDco;     ///< ratios between neighbouring RSEL and DCO steps
  unsigned RselMask;
};
// SLAU049 §4.1: ~800 kHz after PUC (RSEL 4, DCO 3); F1611 datasheet typical ratios.
constexpr DcoModel F1xx{800e3, 4, 1.65, 1.12, 7};
// SLAU144 §5.1: ~1.1 MHz after PUC (RSEL 7, DCO 3); F2617 datasheet typical ratios.
constexpr DcoModel F2xx{1.1e6, 7, 1.35, 1.08, 15};
constexpr uint64_t PsPerSecond = 1000000000000ull;

double dcoStepHz(const DcoModel &M, unsigned Rsel, unsigned Dco) {
  return M.PucHz * std::pow(M.SRsel, int(Rsel) - M.PucRsel) * std::pow(M.SDco, int(Dco) - 3);
}
uint64_t ceilDiv(unsigned __int128 A, unsigned __int128 B) { return uint64_t((A + B - 1) / B); }
} // namespace

void BasicClock::dcoSpread(bool Plus, double &Min, double &Max) {
  if (Plus) {
    // Programs use the F2xx DCO through the factory constants (writeDcoCalibration), which
    // this model's typical steps meet to 1% only for a typical part: its 16 MHz setting is
    // 3% below the top, and a part at SLAS541's fDCO(7,3) minimum (0.80 of 1.1 MHz) would
    // top out near 12 MHz. No spread there.
    Min = Max = 1.0;
  } else {
    Min = 0.61 / 0.75; // SLAS272 fDCO(43) at 3 V: min 0.61, typ 0.75, max 0.90 MHz
    Max = 0.90 / 0.75;
  }
}

BasicClock::BasicClock(Cpu &Core, const ClockParts &Parts)
    : C(Core), Plus(Core.mcu().BasicClockPlus), DcoScale(Parts.DcoScale),
      Lfxt(PsPerSecond, Parts.LfxtPpb, Parts.LfxtPhase32) {
  if (Plus)
    C.mapPeripheral(Bcsctl3, Bcsctl3, this);
}

double BasicClock::dcoHz() const { return dcoHzFor(Dcoctl, Bcsctl1); }

double BasicClock::dcoHzFor(uint8_t DcoReg, uint8_t Ctl1) const {
  const DcoModel &M = Plus ? F2xx : F1xx;
  unsigned Rsel = Ctl1 & M.RselMask, Dco = DcoReg >> 5, Mod = DcoReg & 31;
  double F = dcoStepHz(M, Rsel, Dco) * DcoScale;
  if (Dco == 7 || Mod == 0)
    return F; // §4.2.5: at DCO = 7 the modulator has no effect
  double F1 = dcoStepHz(M, Rsel, Dco + 1) * DcoScale;
  // §4.2.5: f = 32 * fDCO * fDCO+1 / (MOD * fDCO + (32 - MOD) * fDCO+1)
  return 32.0 * F * F1 / (Mod * F + (32 - Mod) * F1);
}

double BasicClock::mclkHz() const {
  unsigned Selm = Bcsctl2 >> 6, Divm = 1u << ((Bcsctl2 >> 4) & 3);
  double Src = Selm == 3 ? Lfxt.hz() : dcoHz(); // SELM 10 (XT2) is absent on TelosB/Z1: DCO
  return Src / Divm;
}

void BasicClock::setStatusBits(uint16_t Sr, uint64_t Cycle) {
  uint16_t Bits = Sr & (SR_CPUOFF | SR_OSCOFF | SR_SCG0 | SR_SCG1);
  Now = std::max(Now, Cycle);
  if (Bits == StatusBits)
    return;
  StatusBits = Bits;
  newSegment();
}

void BasicClock::reset() {
  Now = std::max(Now, C.cycles());
  StatusBits = 0; // PUC clears the SR
  Dcoctl = 0x60;
  Bcsctl1 = Plus ? 0x87 : 0x84; // SLAU144 §5.3 / SLAU049 §4.3 reset values
  Bcsctl2 = 0x00;
  Ctl3 = 0x05;
  newSegment();
}

uint64_t BasicClock::picosecondsAt(uint64_t Cycle) const {
  return Seg.Ps + (Cycle - std::min(Cycle, Seg.Cycle)) * Seg.MclkPs;
}

uint64_t BasicClock::smclkTicksAt(uint64_t Cycle) const {
  if (!Seg.SmclkPs)
    return Seg.SmclkTicks;
  return Seg.SmclkTicks + (picosecondsAt(Cycle) - Seg.Ps) / Seg.SmclkPs;
}

uint64_t BasicClock::aclkTicksAt(uint64_t Cycle) const {
  if (Seg.AclkStopped)
    return Seg.AclkTicks;
  return Seg.AclkTicks + (Lfxt.edgeAtOrBefore(picosecondsAt(Cycle)) - Seg.LfxtEdge) / Seg.AclkDiv;
}

void BasicClock::newSegment() {
  Segment N;
  N.Cycle = Now;
  N.Ps = picosecondsAt(Now);
  N.SmclkTicks = smclkTicksAt(Now);
  N.AclkTicks = aclkTicksAt(Now);
  N.LfxtEdge = Lfxt.edgeAtOrBefore(N.Ps);
  N.MclkPs = std::max<uint64_t>(1, uint64_t(std::llround(PsPerSecond / mclkHz())));
  unsigned Divs = 1u << ((Bcsctl2 >> 1) & 3);
  bool SmclkFromXt2 = Bcsctl2 & 0x08; // SELS: XT2 is absent: SMCLK stops
  // SCG1 turns SMCLK off (SLAU049 §3.2.3; LPM2-4 in §2.3).
  bool SmclkOff = SmclkFromXt2 || (StatusBits & SR_SCG1);
  N.SmclkPs = SmclkOff ? 0 : std::max<uint64_t>(1, uint64_t(std::llround(PsPerSecond * Divs / dcoHz())));
  N.AclkDiv = 1u << ((Bcsctl1 >> 4) & 3);
  // OSCOFF turns LFXT1 off when it feeds neither MCLK nor SMCLK (§3.2.3): with SELM = LFXT1
  // and the CPU running it stays on (SMCLK never comes from LFXT1 on these parts).
  bool LfxtIsMclk = (Bcsctl2 >> 6) == 3 && !(StatusBits & SR_CPUOFF);
  N.AclkStopped = (StatusBits & SR_OSCOFF) && !LfxtIsMclk;
  Seg = N;
  C.eventsChanged();
}

void BasicClock::writeDcoCalibration() {
  // SLAU144 §24.2.2 (TLV): tag TAG_DCO_30 (01h, length 08h) at 0x10F6, then CALDCO_16MHZ,
  // CALBC1_16MHZ, CALDCO_12MHZ, CALBC1_12MHZ, CALDCO_8MHZ, CALBC1_8MHZ, CALDCO_1MHZ,
  // CALBC1_1MHZ at 0x10F8-0x10FF. Each pair is this model's closest DCOCTL/BCSCTL1 (XT2OFF
  // set, ACLK undivided) to the frequency.
  uint8_t *Mem = C.memory();
  Mem[0x10F6] = 0x01;
  Mem[0x10F7] = 0x08;
  const double Targets[4] = {16e6, 12e6, 8e6, 1e6};
  for (unsigned I = 0; I < 4; ++I) {
    uint8_t BestDco = 0, BestBc1 = 0;
    double BestErr = 1e18;
    for (unsigned Rsel = 0; Rsel < 16; ++Rsel)
      for (unsigned D = 0; D < 256; ++D) {
        double Err = std::fabs(dcoHzFor(uint8_t(D), uint8_t(0x80 | Rsel)) - Targets[I]);
        if (Err < BestErr) {
          BestErr = Err;
          BestDco = uint8_t(D);
          BestBc1 = uint8_t(0x80 | Rsel);
        }
      }
    Mem[0x10F8 + 2 * I] = BestDco;
    Mem[0x10F9 + 2 * I] = BestBc1;
  }
}

uint64_t BasicClock::Source::ticksAt(uint64_t Cycle) const {
  return IsAclk ? B.aclkTicksAt(Cycle) : B.smclkTicksAt(Cycle);
}

uint64_t BasicClock::Source::cycleOfTick(uint64_t Tick) const {
  const Segment &S = B.Seg;
  uint64_t Base = IsAclk ? S.AclkTicks : S.SmclkTicks;
  if (Tick <= Base)
    return S.Cycle;
  if (IsAclk && S.AclkStopped)
    return kNever;
  if (!IsAclk && !S.SmclkPs)
    return kNever;
  uint64_t N = Tick - Base;
  // The first cycle whose time reaches the tick's edge (ACLK: LFXT1 edge LfxtEdge + N DIVA).
  if (IsAclk) {
    uint64_t Ps = B.Lfxt.edgeTime(S.LfxtEdge + N * S.AclkDiv);
    return S.Cycle + ceilDiv(Ps - std::min(Ps, S.Ps), S.MclkPs);
  }
  if (N < (uint64_t(1) << 20))
    return S.Cycle + (N * S.SmclkPs + S.MclkPs - 1) / S.MclkPs;
  return S.Cycle + ceilDiv((unsigned __int128)N * S.SmclkPs, S.MclkPs);
}

uint16_t BasicClock::read(uint32_t Addr, bool IsByte) {
  auto One = [&](uint32_t A) -> uint16_t {
    return A == 0x56 ? Dcoctl : A == 0x57 ? Bcsctl1 : A == 0x58 ? Bcsctl2 : A == Bcsctl3 ? Ctl3 : 0;
  };
  return IsByte ? One(Addr) : uint16_t(One(Addr) | One(Addr + 1) << 8);
}

void BasicClock::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  auto One = [&](uint32_t A, uint8_t V) {
    if (A == 0x56)
      Dcoctl = V;
    else if (A == 0x57)
      Bcsctl1 = V;
    else if (A == 0x58)
      Bcsctl2 = V;
    else if (A == Bcsctl3)
      Ctl3 = uint8_t((V & ~0x03) | (Ctl3 & 0x03)); // XT2OF, LFXT1OF are read-only
  };
  One(Addr, uint8_t(Value));
  if (!IsByte)
    One(Addr + 1, uint8_t(Value >> 8));
  newSegment();
}

} // namespace wsn::msp430
