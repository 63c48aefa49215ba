// Timer.cpp - SLAU049 §11.2 "Timer_A Operation" and §12.2 "Timer_B Operation".
#include "Timer.h"

#include "Cpu.h"

#include <algorithm>

namespace wsn::msp430 {

namespace {
constexpr uint16_t IFG = 0x0001, IE = 0x0002, CLR = 0x0004; // TxCTL
constexpr uint16_t CCIFG = 0x0001, COV = 0x0002, CCI = 0x0008, CCIE = 0x0010, CAP = 0x0100,
                   SCCI = 0x0400; // TxCCTLn
} // namespace

TimerLayout timerA3Layout(uint32_t VectorBase) {
  // F1611 (SLAS368): TIMERA0 0xFFEC, TIMERA1 0xFFEA; F2617 (SLAS541): 0xFFF2, 0xFFF0.
  bool F2 = VectorBase == 0xFFC0;
  return {0x160, 0x162, 0x170, 0x172, 0x12E, 3, ((F2 ? 0xFFF2 : 0xFFEC) - VectorBase) / 2,
          ((F2 ? 0xFFF0 : 0xFFEA) - VectorBase) / 2, false};
}

TimerLayout timerB7Layout(uint32_t VectorBase) {
  // TIMERB0 0xFFFA, TIMERB1 0xFFF8 on both parts.
  return {0x180, 0x182, 0x190, 0x192, 0x11E, 7, (0xFFFA - VectorBase) / 2,
          (0xFFF8 - VectorBase) / 2, true};
}

Timer::Timer(Cpu &Core, const TimerLayout &Layout, const ClockSource &A, const ClockSource &S)
    : C(Core), L(Layout), Aclk(A), Smclk(S) {
  C.irq().setAcknowledge(L.Cc0Slot, &Timer::acknowledgeCc0, this);
}

void Timer::map() {
  C.mapPeripheral(L.Ctl, L.Ctl + 1, this);
  C.mapPeripheral(L.Cctl0, L.Cctl0 + 2 * L.Channels - 1, this);
  C.mapPeripheral(L.Counter, L.Counter + 1, this);
  C.mapPeripheral(L.Ccr0, L.Ccr0 + 2 * L.Channels - 1, this);
  C.mapPeripheral(L.Iv, L.Iv + 1, this);
}

void Timer::reset() {
  // PUC: every register 0 (TxCTL, TxR, TxCCTLn, TxCCRn).
  Now = C.cycles();
  Ctl = R = 0;
  std::fill(std::begin(Cctl), std::end(Cctl), 0);
  std::fill(std::begin(Ccr), std::end(Ccr), 0);
  Down = Wrapped = false;
  restartPrescaler();
  updateLines();
}

const ClockSource *Timer::source() const {
  switch ((Ctl >> 8) & 3) { // TxSSELx
  case 1: return &Aclk;
  case 2: return &Smclk;
  default: return nullptr; // TxCLK / INCLK: external, not modelled
  }
}

uint32_t Timer::maxCount() const {
  if (!L.TimerB)
    return 0xFFFF;
  static constexpr uint32_t Lengths[4] = {0xFFFF, 0x0FFF, 0x03FF, 0x00FF}; // CNTLx 16/12/10/8
  return Lengths[(Ctl >> 11) & 3];
}

uint32_t Timer::top() const {
  return (mode() == Up || mode() == UpDown) ? uint32_t(Ccr[0]) & maxCount() : maxCount();
}

bool Timer::running() const {
  // §11.2.3: in up and up/down mode the timer halts when TxCCR0 = 0.
  return mode() != Stop && source() && !((mode() == Up || mode() == UpDown) && top() == 0);
}

void Timer::restartPrescaler() {
  const ClockSource *S = source();
  SrcBase = S ? S->ticksAt(Now) : 0;
  Consumed = 0;
}

uint64_t Timer::countsToEvent() const {
  if (!running())
    return kNever;
  const uint32_t Top = top();
  const uint32_t T = R;
  auto Compare = [&](unsigned Ch) { return !(Cctl[Ch] & CAP) && Ccr[Ch] <= Top; };
  if (mode() != UpDown) {
    if (T > Top)
      return 1; // up mode below the count: "the timer rolls to zero" on the next count
    const uint64_t Len = uint64_t(Top) + 1;
    auto Dist = [&](uint32_t V) {
      uint64_t D = (V + Len - T) % Len;
      return D ? D : Len;
    };
    uint64_t Best = Dist(0); // TxIFG
    for (unsigned Ch = 0; Ch < L.Channels; ++Ch)
      if (Compare(Ch))
        Best = std::min(Best, Dist(Ccr[Ch]));
    return Best;
  }
  // Up/down: phase P in [0, 2*Top): counting up at P = T, down at P = 2*Top - T.
  const uint64_t Per = 2ull * Top;
  const uint64_t P = (Down ? Per - T : T) % Per;
  auto Dist = [&](uint64_t Q) {
    uint64_t D = (Q + Per - P) % Per;
    return D ? D : Per;
  };
  uint64_t Best = std::min(Dist(0), Dist(Top)); // TxIFG at 0, CCR0 at the top
  for (unsigned Ch = 1; Ch < L.Channels; ++Ch)
    if (Compare(Ch))
      Best = std::min({Best, Dist(Ccr[Ch]), Dist(Per - Ccr[Ch])});
  return Best;
}

void Timer::count(uint64_t N) {
  const uint32_t Top = top();
  if (mode() != UpDown) {
    if (R > Top) { // rolls to zero (countsToEvent gave 1)
      R = 0;
      return;
    }
    R = uint16_t((R + N) % (uint64_t(Top) + 1));
    return;
  }
  const uint64_t Per = 2ull * Top;
  uint64_t P = ((Down ? Per - R : R) % Per + N) % Per;
  if (P == 0) {
    R = 0;
    Down = false;
  } else if (P < Top) {
    R = uint16_t(P);
    Down = false;
  } else {
    R = uint16_t(P == Top ? Top : Per - P);
    Down = true;
  }
}

void Timer::arrive() {
  // §11.2.3/§11.2.4: CCIFG when the timer counts to TxCCRn (compare mode); TxIFG when it
  // counts to 0 (from TxCCR0 in up mode, from 0FFFFh in continuous mode, down from 1 in
  // up/down mode).
  for (unsigned Ch = 0; Ch < L.Channels; ++Ch)
    if (!(Cctl[Ch] & CAP) && Ccr[Ch] == R && Ccr[Ch] <= top())
      Cctl[Ch] |= CCIFG;
  if (R == 0)
    Ctl |= IFG;
}

void Timer::advanceTo(uint64_t Cycle) {
  if (Cycle <= Now)
    return;
  Now = Cycle;
  if (!running())
    return;
  uint64_t Total = (source()->ticksAt(Cycle) - SrcBase) / divider();
  uint64_t Pending = Total - Consumed;
  Consumed = Total;
  while (Pending) {
    uint64_t D = countsToEvent();
    if (Pending < D) {
      count(Pending);
      break;
    }
    count(D);
    arrive();
    Pending -= D;
  }
  updateLines();
}

uint64_t Timer::nextEvent() const {
  uint64_t D = countsToEvent();
  if (D == kNever)
    return kNever;
  return source()->cycleOfTick(SrcBase + (Consumed + D) * divider());
}

void Timer::setInput(unsigned Ch, bool InputB, bool Level, uint64_t Cycle) {
  advanceTo(Cycle);
  bool &In = InputB ? InB[Ch] : InA[Ch];
  if (In == Level)
    return;
  In = Level;
  // §11.2.4 capture mode: CCISx selects the input, CMx the edge; TxR is copied to TxCCRn and
  // CCIFG set; COV when a capture happens before CCIFG was cleared.
  unsigned Ccis = (Cctl[Ch] >> 12) & 3, Cm = Cctl[Ch] >> 14;
  if (!(Cctl[Ch] & CAP) || Ccis != (InputB ? 1u : 0u))
    return;
  if (!((Cm & 1) && Level) && !((Cm & 2) && !Level))
    return;
  if (Cctl[Ch] & CCIFG)
    Cctl[Ch] |= COV;
  Ccr[Ch] = countAt(Cycle);
  Cctl[Ch] |= CCIFG;
  updateLines();
}

uint16_t Timer::countAt(uint64_t Cycle) const {
  // An edge reported after the timer was brought past it (a board hears the radio at an
  // instruction boundary) captures the count of the edge's own cycle: in up and continuous
  // mode the counts since then are taken back. Up/down mode keeps the present count.
  if (Cycle >= Now || !running() || mode() == UpDown)
    return R;
  const ClockSource *S = source();
  uint64_t Then = S->ticksAt(Cycle);
  if (Then < SrcBase)
    return R; // the timer was restarted after the edge
  uint64_t Back = (S->ticksAt(Now) - SrcBase) / divider() - (Then - SrcBase) / divider();
  uint64_t Len = uint64_t(top()) + 1;
  if (R >= Len)
    return R;
  return uint16_t((R + Len - Back % Len) % Len);
}

uint16_t Timer::readIv() {
  // TxIV: the highest-priority enabled pending source; reading it resets that flag.
  for (unsigned Ch = 1; Ch < L.Channels; ++Ch)
    if ((Cctl[Ch] & CCIE) && (Cctl[Ch] & CCIFG)) {
      Cctl[Ch] &= ~CCIFG;
      updateLines();
      return uint16_t(2 * Ch);
    }
  if ((Ctl & IE) && (Ctl & IFG)) {
    Ctl &= ~IFG;
    updateLines();
    return L.TimerB ? 0x0E : 0x0A;
  }
  return 0;
}

uint16_t Timer::read(uint32_t Addr, bool IsByte) {
  uint32_t A = Addr & ~1u;
  uint16_t W = 0;
  if (A == L.Ctl) {
    W = Ctl;
  } else if (A == L.Counter) {
    W = R;
  } else if (A == L.Iv) {
    W = readIv();
  } else if (A >= L.Cctl0 && A < L.Cctl0 + 2 * L.Channels) {
    unsigned Ch = (A - L.Cctl0) / 2;
    unsigned Ccis = (Cctl[Ch] >> 12) & 3;
    bool In = Ccis == 0 ? InA[Ch] : Ccis == 1 ? InB[Ch] : Ccis == 3;
    W = uint16_t((Cctl[Ch] & ~CCI) | (In ? CCI : 0));
  } else if (A >= L.Ccr0 && A < L.Ccr0 + 2 * L.Channels) {
    W = Ccr[(A - L.Ccr0) / 2];
  }
  if (IsByte)
    return (Addr & 1) ? W >> 8 : W & 0xFF;
  return W;
}

void Timer::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  uint32_t A = Addr & ~1u;
  auto Merge = [&](uint16_t Old) {
    if (!IsByte)
      return Value;
    return (Addr & 1) ? uint16_t((Old & 0x00FF) | (Value & 0xFF) << 8)
                      : uint16_t((Old & 0xFF00) | (Value & 0xFF));
  };
  if (A == L.Ctl) {
    uint16_t New = Merge(Ctl);
    bool Restart = (New & 0x03F0) != (Ctl & 0x03F0) || (New & CLR);
    if (New & CLR) { // TxCLR: counter, divider and direction reset; reads as 0
      R = 0;
      Down = false;
    }
    Ctl = New & ~CLR;
    if (Restart)
      restartPrescaler();
  } else if (A == L.Counter) {
    R = Merge(R);
  } else if (A >= L.Cctl0 && A < L.Cctl0 + 2 * L.Channels) {
    unsigned Ch = (A - L.Cctl0) / 2;
    Cctl[Ch] = Merge(Cctl[Ch]) & ~(CCI | SCCI); // CCI and SCCI are read-only
  } else if (A >= L.Ccr0 && A < L.Ccr0 + 2 * L.Channels) {
    unsigned Ch = (A - L.Ccr0) / 2;
    Ccr[Ch] = Merge(Ccr[Ch]);
  }
  // TxIV is read-only.
  updateLines();
}

void Timer::updateLines() {
  C.irq().set(L.Cc0Slot, (Cctl[0] & CCIE) && (Cctl[0] & CCIFG));
  bool Other = (Ctl & IE) && (Ctl & IFG);
  for (unsigned Ch = 1; Ch < L.Channels; ++Ch)
    Other = Other || ((Cctl[Ch] & CCIE) && (Cctl[Ch] & CCIFG));
  C.irq().set(L.OtherSlot, Other);
}

void Timer::acknowledgeCc0(void *Ctx, unsigned) {
  // TxCCR0's CCIFG is a single-source flag: reset when its interrupt is accepted.
  auto *T = static_cast<Timer *>(Ctx);
  T->Cctl[0] &= ~CCIFG;
  T->updateLines();
}

} // namespace wsn::msp430
