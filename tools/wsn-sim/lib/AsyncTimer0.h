//===- AsyncTimer0.h - ATmega128 Timer/Counter0 clocked from TOSC1 ---------===//
//
// libsimavr 1.6 models Timer0's asynchronous mode (ASSR.AS0) by rescheduling
// its CPU-clock timer on every OCR0 write; TinyOS's Atm128AlarmAsyncP rewrites
// OCR0 in every compare interrupt and that model stops firing (spec/micaz.md,
// "Timer0"). This component takes Timer0 over while AS0 is set and follows
// the ATmega128 datasheet (2467S, "8-bit Timer/Counter0 with PWM and
// Asynchronous Operation"):
//   - the counter is clocked by the 32.768 kHz watch crystal on TOSC1 through
//     the prescaler of Table 56 (CS02:0: 1, 8, 32, 64, 128, 256, 1024);
//   - writes to TCNT0, OCR0 and TCCR0 go to temporary registers that are
//     latched at the second rising TOSC1 edge after the write; ASSR's TCN0UB,
//     OCR0UB and TCR0UB are set until then ("Asynchronous Operation of
//     Timer/Counter0"); compare matches are disabled while a TCNT0 or OCR0
//     write is pending, and a latched TCNT0 write blocks the compare match of
//     the following timer clock ("TCNT0");
//   - OCF0 and TOV0 are set at the timer clock that follows TCNT0 == OCR0 and
//     TCNT0 == MAX (the timing diagrams), synchronised to the CPU 3 cycles
//     later ("the synchronization of the interrupt flags ... takes 3
//     processor cycles plus one timer cycle");
//   - normal, CTC, fast PWM and phase-correct PWM counting (Table 52); in the
//     PWM modes OCR0 is double buffered and updated at TOP. The OC0 pin is not
//     driven.
// The crystal on TOSC1 is a WatchCrystal (devices/WatchCrystal.h) counted in
// CPU cycles: with a perfect crystal rising TOSC1 edge k happens at CPU cycle
// ceil(k * F / 32768) (F the CPU clock; exactly 225 k at the MicaZ's
// 7372800 Hz); wsn-sim gives each node a crystal with its own frequency error
// and power-up phase (spec/wsn-sim.md section 4). The prescaler runs from
// reset; SFIOR.PSR0 restarts it at the next edge.
// While AS0 is clear every access goes to libsimavr's own Timer0.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_ASYNCTIMER0_H
#define WSN_SIM_ASYNCTIMER0_H

#include "WatchCrystal.h"

#include <cstdint>
#include <deque>

struct avr_t;
struct avr_timer_t;

namespace wsn {
namespace sim {

/// ATmega128 data-space addresses of the registers involved (datasheet,
/// "Register Summary": I/O address + 0x20).
namespace atm128 {
constexpr uint16_t SFIOR = 0x40, ASSR = 0x50, OCR0 = 0x51, TCNT0 = 0x52, TCCR0 = 0x53,
                   TIFR = 0x56, TIMSK = 0x57;
// ASSR bits
constexpr uint8_t AS0 = 3, TCN0UB = 2, OCR0UB = 1, TCR0UB = 0;
// SFIOR.PSR0: prescaler reset Timer/Counter0
constexpr uint8_t PSR0 = 1;
} // namespace atm128

class AsyncTimer0 {
public:
  /// Installs the register handlers on Avr (an atmega128 with libsimavr's
  /// Timer0 already registered, Avr->frequency set). Ppb and Phase32 describe
  /// the crystal on TOSC1 (WatchCrystal; 0, 0: a perfect one). Returns null
  /// when the core has no Timer0 with an AS0 bit.
  static AsyncTimer0 *attach(avr_t *Avr, int64_t Ppb = 0, uint32_t Phase32 = 0);
  ~AsyncTimer0();

  bool asynchronous() const { return Async; }
  /// Rising TOSC1 edges since reset at or before Cycle, and the cycle of edge K.
  uint64_t edgeAtOrBefore(uint64_t Cycle) const;
  uint64_t edgeCycle(uint64_t K) const;

private:
  AsyncTimer0(avr_t *Avr, avr_timer_t *T, const WatchCrystal &X);

  // Register handlers (libsimavr's io callbacks).
  static void writeAssr(avr_t *, uint16_t Addr, uint8_t V, void *P);
  static uint8_t readAssr(avr_t *, uint16_t Addr, void *P);
  static void writeTcnt(avr_t *, uint16_t Addr, uint8_t V, void *P);
  static uint8_t readTcnt(avr_t *, uint16_t Addr, void *P);
  static void writeOcr(avr_t *, uint16_t Addr, uint8_t V, void *P);
  static void writeTccr(avr_t *, uint16_t Addr, uint8_t V, void *P);
  static void writeSfior(avr_t *, uint16_t Addr, uint8_t V, void *P);
  static uint64_t onEvent(avr_t *, uint64_t When, void *P);

  void enterAsync();
  void leaveAsync();
  /// Processes every TOSC1 edge up to and including edge K and raises the
  /// flags whose CPU synchronisation ended at or before cycle Now.
  void advanceTo(uint64_t K, uint64_t Now);
  /// Re-arms the event timer at the next cycle where a flag reaches the CPU.
  void schedule();
  uint64_t nextEvent() const;
  uint64_t now() const;

  avr_t *Avr;
  avr_timer_t *Timer; ///< libsimavr's Timer0: its interrupt vectors are used
  WatchCrystal Crystal; ///< on TOSC1, counted in CPU cycles
  struct Handler {
    void *Param = nullptr;
    void *Fn = nullptr;
  };
  Handler OrigAssrW, OrigOcrW, OrigTcntW, OrigTcntR, OrigTccrW, OrigSfiorW;

public:
  /// The counter's state: everything one TOSC1 edge changes (copyable, so
  /// that the next flag can be found by running a copy ahead).
  struct State {
    uint64_t Edge = 0;         ///< edges up to here are processed
    uint64_t PrescaleBase = 0; ///< the prescaler counts TOSC1 edges from here
    uint8_t Tcnt = 0, Ocr = 0, OcrBuf = 0, Tccr = 0;
    bool Down = false;       ///< phase-correct PWM counting down
    bool BlockMatch = false; ///< a latched TCNT0 write blocks the next compare match
    /// Pending asynchronous writes: value and the edge that latches it (0: none).
    uint8_t PendValue[3] = {0, 0, 0}; // TCNT0, OCR0, TCCR0
    uint64_t PendEdge[3] = {0, 0, 0};
    /// Processes edge Edge + 1; returns the flags it sets (bit 0 TOV0, bit 1 OCF0).
    unsigned step();
    /// The next edge after Edge where something can happen (a count or a latch),
    /// or 0 when the counter is stopped and nothing is pending.
    uint64_t nextActiveEdge() const;
    uint32_t prescale() const;
  };
  enum PendingReg { PTcnt = 0, POcr = 1, PTccr = 2 };

private:
  State S;
  bool Async = false;
  /// Flags set at an edge and raised in the CPU 3 cycles later (FIFO).
  struct Flag {
    uint64_t Cycle;
    unsigned Bits;
  };
  std::deque<Flag> Flags;
};

} // namespace sim
} // namespace wsn

#endif
