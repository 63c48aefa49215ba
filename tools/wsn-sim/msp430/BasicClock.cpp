// BasicClock.cpp - SLAU049 §4.2 "Basic Clock Module Operation".
#include "BasicClock.h"

#include "Cpu.h"

#include <algorithm>
#include <cmath>

namespace wsn::msp430 {

namespace {
constexpr double PucDcoHz = 800e3; // SLAU049 §4.1: ~800 kHz after PUC (RSEL 4, DCO 3)
constexpr double SRsel = 1.65, SDco = 1.12; // typical step ratios (F1611 datasheet)
constexpr double LfxtHz = 32768.0;
constexpr uint64_t PsPerSecond = 1000000000000ull;

double dcoStepHz(unsigned Rsel, unsigned Dco) {
  return PucDcoHz * std::pow(SRsel, int(Rsel) - 4) * std::pow(SDco, int(Dco) - 3);
}
uint64_t ceilDiv(unsigned __int128 A, unsigned __int128 B) { return uint64_t((A + B - 1) / B); }
} // namespace

BasicClock::BasicClock(Cpu &Core) : C(Core) {}

double BasicClock::dcoHz() const {
  unsigned Rsel = Bcsctl1 & 7, Dco = Dcoctl >> 5, Mod = Dcoctl & 31;
  double F = dcoStepHz(Rsel, Dco);
  if (Dco == 7 || Mod == 0)
    return F; // §4.2.5: at DCO = 7 the modulator has no effect
  double F1 = dcoStepHz(Rsel, Dco + 1);
  // §4.2.5: f = 32 * fDCO * fDCO+1 / (MOD * fDCO + (32 - MOD) * fDCO+1)
  return 32.0 * F * F1 / (Mod * F + (32 - Mod) * F1);
}

double BasicClock::mclkHz() const {
  unsigned Selm = Bcsctl2 >> 6, Divm = 1u << ((Bcsctl2 >> 4) & 3);
  double Src = Selm == 3 ? LfxtHz : dcoHz(); // SELM 10 (XT2) is absent on TelosB/Z1: DCO
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
  Bcsctl1 = 0x84;
  Bcsctl2 = 0x00;
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
  unsigned __int128 Dt = picosecondsAt(Cycle) - Seg.Ps;
  return Seg.AclkTicks + uint64_t(Dt * 32768 / (unsigned __int128)(PsPerSecond * Seg.AclkDiv));
}

void BasicClock::newSegment() {
  Segment N;
  N.Cycle = Now;
  N.Ps = picosecondsAt(Now);
  N.SmclkTicks = smclkTicksAt(Now);
  N.AclkTicks = aclkTicksAt(Now);
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

uint64_t BasicClock::Source::ticksAt(uint64_t Cycle) const {
  return IsAclk ? B.aclkTicksAt(Cycle) : B.smclkTicksAt(Cycle);
}

uint64_t BasicClock::Source::cycleOfTick(uint64_t Tick) const {
  const Segment &S = B.Seg;
  uint64_t Base = IsAclk ? S.AclkTicks : S.SmclkTicks;
  if (Tick <= Base)
    return S.Cycle;
  unsigned __int128 Ps;
  if (IsAclk && S.AclkStopped)
    return kNever;
  if (IsAclk)
    Ps = ceilDiv((unsigned __int128)(Tick - Base) * PsPerSecond * S.AclkDiv, 32768);
  else if (S.SmclkPs)
    Ps = (unsigned __int128)(Tick - Base) * S.SmclkPs;
  else
    return kNever;
  // The first cycle whose time reaches the tick's edge.
  return S.Cycle + ceilDiv(Ps, S.MclkPs);
}

uint16_t BasicClock::read(uint32_t Addr, bool IsByte) {
  auto One = [&](uint32_t A) -> uint16_t {
    return A == 0x56 ? Dcoctl : A == 0x57 ? Bcsctl1 : A == 0x58 ? Bcsctl2 : 0;
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
  };
  One(Addr, uint8_t(Value));
  if (!IsByte)
    One(Addr + 1, uint8_t(Value >> 8));
  newSegment();
}

} // namespace wsn::msp430
