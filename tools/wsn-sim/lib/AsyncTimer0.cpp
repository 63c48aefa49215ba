//===- AsyncTimer0.cpp - ATmega128 Timer/Counter0 clocked from TOSC1 -------===//
#include "AsyncTimer0.h"

extern "C" {
#include <simavr/avr_timer.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_cycle_timers.h>
#include <simavr/sim_interrupts.h>
}

#include <cstring>

namespace wsn {
namespace sim {

using namespace atm128;

namespace {
// TCCR0 bits (datasheet, "TCCR0 - Timer/Counter Control Register").
constexpr uint8_t FOC0 = 0x80, WGM00 = 0x40, WGM01 = 0x08, CS_MASK = 0x07;
enum Mode { Normal = 0, PhaseCorrect = 1, Ctc = 2, FastPwm = 3 }; // Table 52
Mode modeOf(uint8_t Tccr) {
  return Mode(((Tccr & WGM01) ? 2 : 0) | ((Tccr & WGM00) ? 1 : 0));
}
constexpr unsigned FlagTov = 1, FlagOcf = 2;
// Interrupt flags reach the CPU 3 cycles after the timer clock edge.
constexpr uint64_t SyncCycles = 3;
// TCNT0/OCR0/TCCR0 writes are latched at the second rising TOSC1 edge.
constexpr uint64_t LatchEdges = 2;

avr_timer_t *findTimer0(avr_t *Avr) {
  for (avr_io_t *Io = Avr->io_port; Io; Io = Io->next)
    if (Io->kind && !strcmp(Io->kind, "timer")) {
      auto *T = reinterpret_cast<avr_timer_t *>(Io);
      if (T->name == '0')
        return T;
    }
  return nullptr;
}
} // namespace

//===----------------------------------------------------------------------===//
// The counter, one TOSC1 edge at a time
//===----------------------------------------------------------------------===//

uint32_t AsyncTimer0::State::prescale() const {
  static const uint32_t Div[8] = {0, 1, 8, 32, 64, 128, 256, 1024}; // Table 56
  return Div[Tccr & CS_MASK];
}

uint64_t AsyncTimer0::State::nextActiveEdge() const {
  uint64_t Next = 0;
  if (uint32_t P = prescale()) {
    // Counts happen at edges PrescaleBase + P, PrescaleBase + 2P, ...
    uint64_t Since = Edge + 1 > PrescaleBase ? Edge + 1 - PrescaleBase : 0;
    uint64_t N = (Since + P - 1) / P;
    if (N == 0)
      N = 1;
    Next = PrescaleBase + N * P;
  }
  for (uint64_t E : PendEdge)
    if (E && (!Next || E < Next))
      Next = E;
  return Next;
}

unsigned AsyncTimer0::State::step() {
  uint64_t K = ++Edge;
  unsigned Set = 0;
  uint32_t P = prescale();
  if (P && K > PrescaleBase && (K - PrescaleBase) % P == 0) {
    // One timer clock. The compare unit looks at the value before the clock
    // (the flag is set at the clock following TCNT0 == OCR0); matches are
    // disabled while a TCNT0 or OCR0 write waits for its latch.
    Mode M = modeOf(Tccr);
    bool Match = Tcnt == Ocr && !BlockMatch && !PendEdge[PTcnt] && !PendEdge[POcr];
    BlockMatch = false;
    if (Match)
      Set |= FlagOcf;
    switch (M) {
    case Normal:
    case Ctc:
      if (Tcnt == 0xFF) {
        Tcnt = 0;
        Set |= FlagTov; // MAX -> BOTTOM
      } else if (M == Ctc && Tcnt == Ocr) {
        Tcnt = 0; // clear on compare match
      } else {
        ++Tcnt;
      }
      break;
    case FastPwm:
      if (Tcnt == 0xFF) {
        Tcnt = 0;
        Set |= FlagTov;
        Ocr = OcrBuf; // double buffered: updated at TOP
      } else {
        ++Tcnt;
      }
      break;
    case PhaseCorrect:
      if (!Down) {
        if (Tcnt == 0xFF) {
          Down = true;
          Tcnt = 0xFE;
          Ocr = OcrBuf; // updated at TOP
        } else {
          ++Tcnt;
        }
      } else if (Tcnt == 0) {
        Down = false;
        Tcnt = 1;
        Set |= FlagTov; // set at BOTTOM
      } else {
        --Tcnt;
      }
      break;
    }
  }
  // Latches after the edge's count: the written value holds from this edge on.
  if (PendEdge[PTcnt] == K) {
    PendEdge[PTcnt] = 0;
    Tcnt = PendValue[PTcnt];
    BlockMatch = true;
  }
  if (PendEdge[POcr] == K) {
    PendEdge[POcr] = 0;
    OcrBuf = PendValue[POcr];
    Mode M = modeOf(Tccr);
    if (M == Normal || M == Ctc)
      Ocr = OcrBuf;
  }
  if (PendEdge[PTccr] == K) {
    PendEdge[PTccr] = 0;
    Tccr = PendValue[PTccr] & ~FOC0; // FOC0 is a strobe (OC0 is not modelled)
    Mode M = modeOf(Tccr);
    if (M == Normal || M == Ctc)
      Ocr = OcrBuf;
  }
  return Set;
}

//===----------------------------------------------------------------------===//
// Attachment to libsimavr
//===----------------------------------------------------------------------===//

template <typename Fn> static Fn asFn(void *P) { return reinterpret_cast<Fn>(P); }

AsyncTimer0 *AsyncTimer0::attach(avr_t *Avr, int64_t Ppb, uint32_t Phase32) {
  avr_timer_t *T = findTimer0(Avr);
  if (!T || T->as2.reg != ASSR || T->r_tcnt != TCNT0 || T->comp[0].r_ocr != OCR0)
    return nullptr;
  return new AsyncTimer0(Avr, T, WatchCrystal(Avr->frequency, Ppb, Phase32));
}

AsyncTimer0::AsyncTimer0(avr_t *Avr, avr_timer_t *T, const WatchCrystal &X)
    : Avr(Avr), Timer(T), Crystal(X) {
  auto Take = [&](uint16_t Addr, Handler &W, avr_io_write_t New) {
    auto &Io = Avr->io[AVR_DATA_TO_IO(Addr)];
    W.Fn = reinterpret_cast<void *>(Io.w.c);
    W.Param = Io.w.param;
    Io.w.c = New;
    Io.w.param = this;
  };
  Take(ASSR, OrigAssrW, writeAssr);
  Take(OCR0, OrigOcrW, writeOcr);
  Take(TCNT0, OrigTcntW, writeTcnt);
  Take(TCCR0, OrigTccrW, writeTccr);
  Take(SFIOR, OrigSfiorW, writeSfior);
  auto &TcntIo = Avr->io[AVR_DATA_TO_IO(TCNT0)];
  OrigTcntR.Fn = reinterpret_cast<void *>(TcntIo.r.c);
  OrigTcntR.Param = TcntIo.r.param;
  TcntIo.r.c = readTcnt;
  TcntIo.r.param = this;
  auto &AssrIo = Avr->io[AVR_DATA_TO_IO(ASSR)];
  AssrIo.r.c = readAssr;
  AssrIo.r.param = this;
}

AsyncTimer0::~AsyncTimer0() { avr_cycle_timer_cancel(Avr, onEvent, this); }

uint64_t AsyncTimer0::now() const { return Avr->cycle; }

uint64_t AsyncTimer0::edgeAtOrBefore(uint64_t Cycle) const {
  return Crystal.edgeAtOrBefore(Cycle);
}

uint64_t AsyncTimer0::edgeCycle(uint64_t K) const { return Crystal.edgeTime(K); }

void AsyncTimer0::advanceTo(uint64_t K, uint64_t Now) {
  while (S.Edge < K) {
    // Skip edges where nothing happens.
    uint64_t Next = S.nextActiveEdge();
    if (!Next || Next > K) {
      S.Edge = K;
      break;
    }
    S.Edge = Next - 1;
    if (unsigned Bits = S.step())
      Flags.push_back({edgeCycle(S.Edge) + SyncCycles, Bits});
  }
  while (!Flags.empty() && Flags.front().Cycle <= Now) {
    unsigned Bits = Flags.front().Bits;
    Flags.pop_front();
    if (Bits & FlagOcf)
      avr_raise_interrupt(Avr, &Timer->comp[AVR_TIMER_COMPA].interrupt);
    if (Bits & FlagTov)
      avr_raise_interrupt(Avr, &Timer->overflow);
  }
}

uint64_t AsyncTimer0::nextEvent() const {
  if (!Flags.empty())
    return Flags.front().Cycle;
  // Run a copy ahead to the next edge that sets a flag. A full period is at
  // most 510 timer clocks (phase correct); beyond that look again later.
  State C = S;
  for (unsigned I = 0; I < 1024; ++I) {
    uint64_t Next = C.nextActiveEdge();
    if (!Next)
      return 0;
    C.Edge = Next - 1;
    if (C.step())
      return edgeCycle(C.Edge) + SyncCycles;
  }
  return edgeCycle(C.Edge);
}

void AsyncTimer0::schedule() {
  avr_cycle_timer_cancel(Avr, onEvent, this);
  if (!Async)
    return;
  uint64_t At = nextEvent();
  if (!At)
    return;
  uint64_t Now = now();
  avr_cycle_timer_register(Avr, At > Now ? At - Now : 1, onEvent, this);
}

uint64_t AsyncTimer0::onEvent(avr_t *, uint64_t When, void *P) {
  auto *T = static_cast<AsyncTimer0 *>(P);
  T->advanceTo(T->edgeAtOrBefore(When), When);
  uint64_t At = T->nextEvent();
  if (!At)
    return 0;
  return At > When ? At : When + 1;
}

//===----------------------------------------------------------------------===//
// Switching between libsimavr's synchronous Timer0 and this model
//===----------------------------------------------------------------------===//

void AsyncTimer0::enterAsync() {
  // Take the counter as libsimavr's timer has it, then stop that timer by
  // giving it a stopped clock (its TCCR0 handler cancels its cycle timers).
  uint8_t Tccr = Avr->data[TCCR0];
  if (OrigTcntR.Fn)
    Avr->data[TCNT0] = asFn<avr_io_read_t>(OrigTcntR.Fn)(Avr, TCNT0, OrigTcntR.Param);
  if (OrigTccrW.Fn)
    asFn<avr_io_write_t>(OrigTccrW.Fn)(Avr, TCCR0, Tccr & ~CS_MASK, OrigTccrW.Param);
  Avr->data[TCCR0] = Tccr;
  S = State();
  S.Edge = edgeAtOrBefore(now());
  S.Tcnt = Avr->data[TCNT0];
  S.Ocr = S.OcrBuf = Avr->data[OCR0];
  S.Tccr = Tccr & ~FOC0;
  Flags.clear();
  Async = true;
  schedule();
}

void AsyncTimer0::leaveAsync() {
  advanceTo(edgeAtOrBefore(now()), now());
  Async = false;
  avr_cycle_timer_cancel(Avr, onEvent, this);
  // Hand the registers back to libsimavr's timer: a clock change from
  // "stopped" makes it reconfigure; then its counter is set.
  uint8_t Tccr = Avr->data[TCCR0];
  Avr->data[TCCR0] = Tccr & ~CS_MASK;
  if (OrigTccrW.Fn)
    asFn<avr_io_write_t>(OrigTccrW.Fn)(Avr, TCCR0, Tccr, OrigTccrW.Param);
  else
    Avr->data[TCCR0] = Tccr;
  if (OrigTcntW.Fn)
    asFn<avr_io_write_t>(OrigTcntW.Fn)(Avr, TCNT0, S.Tcnt, OrigTcntW.Param);
  else
    Avr->data[TCNT0] = S.Tcnt;
}

//===----------------------------------------------------------------------===//
// Register handlers
//===----------------------------------------------------------------------===//

void AsyncTimer0::writeAssr(avr_t *Avr, uint16_t, uint8_t V, void *P) {
  auto *T = static_cast<AsyncTimer0 *>(P);
  // Only AS0 is writable; the busy flags are read-only.
  bool NewAs0 = V & (1u << AS0);
  Avr->data[ASSR] = NewAs0 ? (1u << AS0) : 0;
  if (NewAs0 && !T->Async)
    T->enterAsync();
  else if (!NewAs0 && T->Async)
    T->leaveAsync();
}

uint8_t AsyncTimer0::readAssr(avr_t *Avr, uint16_t, void *P) {
  auto *T = static_cast<AsyncTimer0 *>(P);
  if (!T->Async)
    return Avr->data[ASSR] & (1u << AS0);
  T->advanceTo(T->edgeAtOrBefore(T->now()), T->now());
  uint8_t V = 1u << AS0;
  if (T->S.PendEdge[PTcnt])
    V |= 1u << TCN0UB;
  if (T->S.PendEdge[POcr])
    V |= 1u << OCR0UB;
  if (T->S.PendEdge[PTccr])
    V |= 1u << TCR0UB;
  return V;
}

uint8_t AsyncTimer0::readTcnt(avr_t *Avr, uint16_t Addr, void *P) {
  auto *T = static_cast<AsyncTimer0 *>(P);
  if (!T->Async)
    return T->OrigTcntR.Fn
               ? asFn<avr_io_read_t>(T->OrigTcntR.Fn)(Avr, Addr, T->OrigTcntR.Param)
               : Avr->data[Addr];
  // The actual counter value, also while a TCNT0 write is pending.
  T->advanceTo(T->edgeAtOrBefore(T->now()), T->now());
  return T->S.Tcnt;
}

static void asyncWrite(AsyncTimer0 *T, AsyncTimer0::State &S, int Reg, uint16_t Addr,
                       uint8_t V, avr_t *Avr, uint64_t K) {
  // The register reads back the value written (the temporary register); the
  // counter sees it at the latch.
  Avr->data[Addr] = V;
  S.PendValue[Reg] = V;
  S.PendEdge[Reg] = K + LatchEdges;
  (void)T;
}

void AsyncTimer0::writeTcnt(avr_t *Avr, uint16_t Addr, uint8_t V, void *P) {
  auto *T = static_cast<AsyncTimer0 *>(P);
  if (!T->Async) {
    if (T->OrigTcntW.Fn)
      asFn<avr_io_write_t>(T->OrigTcntW.Fn)(Avr, Addr, V, T->OrigTcntW.Param);
    else
      Avr->data[Addr] = V;
    return;
  }
  uint64_t K = T->edgeAtOrBefore(T->now());
  T->advanceTo(K, T->now());
  asyncWrite(T, T->S, PTcnt, Addr, V, Avr, K);
  T->schedule();
}

void AsyncTimer0::writeOcr(avr_t *Avr, uint16_t Addr, uint8_t V, void *P) {
  auto *T = static_cast<AsyncTimer0 *>(P);
  if (!T->Async) {
    if (T->OrigOcrW.Fn)
      asFn<avr_io_write_t>(T->OrigOcrW.Fn)(Avr, Addr, V, T->OrigOcrW.Param);
    else
      Avr->data[Addr] = V;
    return;
  }
  uint64_t K = T->edgeAtOrBefore(T->now());
  T->advanceTo(K, T->now());
  asyncWrite(T, T->S, POcr, Addr, V, Avr, K);
  T->schedule();
}

void AsyncTimer0::writeTccr(avr_t *Avr, uint16_t Addr, uint8_t V, void *P) {
  auto *T = static_cast<AsyncTimer0 *>(P);
  if (!T->Async) {
    if (T->OrigTccrW.Fn)
      asFn<avr_io_write_t>(T->OrigTccrW.Fn)(Avr, Addr, V, T->OrigTccrW.Param);
    else
      Avr->data[Addr] = V;
    return;
  }
  uint64_t K = T->edgeAtOrBefore(T->now());
  T->advanceTo(K, T->now());
  asyncWrite(T, T->S, PTccr, Addr, V & ~FOC0, Avr, K);
  T->schedule();
}

void AsyncTimer0::writeSfior(avr_t *Avr, uint16_t Addr, uint8_t V, void *P) {
  auto *T = static_cast<AsyncTimer0 *>(P);
  if (T->OrigSfiorW.Fn)
    asFn<avr_io_write_t>(T->OrigSfiorW.Fn)(Avr, Addr, V, T->OrigSfiorW.Param);
  else
    Avr->data[Addr] = V;
  if (!(V & (1u << PSR0)))
    return;
  // PSR0 restarts Timer0's prescaler; the bit clears itself (datasheet,
  // "SFIOR"). In asynchronous mode the restart takes effect at the next edge.
  Avr->data[Addr] &= ~(1u << PSR0);
  if (T->Async) {
    uint64_t K = T->edgeAtOrBefore(T->now());
    T->advanceTo(K, T->now());
    T->S.PrescaleBase = K + 1;
    T->schedule();
  }
}

} // namespace sim
} // namespace wsn
