// Timer.h - Timer_A (SLAU049 chapter 11) and Timer_B (chapter 12): a 16-bit counter with stop,
// up, continuous and up/down modes, a clock divider, capture/compare channels (compare sets
// CCIFG when the counter counts to TxCCRn; capture copies the counter on the selected input's
// edge, with COV on an overflow), TxIFG, and the interrupt vector word TxIV.
//
// Not modelled yet: the output units (OUTMODx; OUT in mode 0 is stored only), the TACLK/INCLK
// external clocks (selecting them stops the count), Timer_B's compare latches (TBCLx load
// immediately, CLLD = 0) and counter groups (TBCLGRPx).
#ifndef WSN_MSP430_TIMER_H
#define WSN_MSP430_TIMER_H

#include "Peripheral.h"

#include <cstdint>

namespace wsn::msp430 {

class Cpu;

struct TimerLayout {
  uint32_t Ctl, Cctl0, Counter, Ccr0, Iv; ///< register addresses
  unsigned Channels;                     ///< 3 (Timer_A3) or 7 (Timer_B7)
  unsigned Cc0Slot, OtherSlot;           ///< vector slots: CCR0, and CCR1.. + overflow
  bool TimerB;                           ///< CNTLx counter lengths; TBIV codes
};

/// F1611 (and F2617) Timer_A3 and Timer_B7 (datasheet peripheral maps, vectors 0xFFEC/0xFFEA
/// and 0xFFFA/0xFFF8: slots relative to the table base).
TimerLayout timerA3Layout(uint32_t VectorBase);
TimerLayout timerB7Layout(uint32_t VectorBase);

class Timer : public Peripheral {
public:
  Timer(Cpu &C, const TimerLayout &L, const ClockSource &Aclk, const ClockSource &Smclk);
  /// Route the timer's register ranges to this object.
  void map();
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  void reset() override;
  void advanceTo(uint64_t Cycle) override;
  uint64_t nextEvent() const override;

  /// A level change on channel Ch's input CCIxA (InputB false) or CCIxB at MCLK cycle Cycle
  /// (e.g. the CC2420's SFD on Timer_B CCI1A); captures when the channel is set to. Cycle may
  /// lie before the timer's present (an edge heard late): the capture holds the count the
  /// timer had at Cycle (up and continuous modes).
  void setInput(unsigned Ch, bool InputB, bool Level, uint64_t Cycle);
  uint16_t counter() const { return R; }

private:
  enum Mode { Stop = 0, Up = 1, Continuous = 2, UpDown = 3 };
  Mode mode() const { return Mode((Ctl >> 4) & 3); }
  unsigned divider() const { return 1u << ((Ctl >> 6) & 3); }
  const ClockSource *source() const;
  uint32_t top() const; ///< highest count: TxCCR0 (up, up/down) or the counter length's maximum
  uint32_t maxCount() const;
  bool running() const;
  /// Counts from the current state to the next count at which a flag is set.
  uint64_t countsToEvent() const;
  void count(uint64_t N); ///< N counts without passing an event
  void arrive();          ///< flags for the value just counted to
  void restartPrescaler();
  void updateLines();
  static void acknowledgeCc0(void *Ctx, unsigned Slot);
  uint16_t readIv();
  uint16_t countAt(uint64_t Cycle) const; ///< TxR at an MCLK cycle at or before Now

  Cpu &C;
  TimerLayout L;
  const ClockSource &Aclk, &Smclk;
  uint16_t Ctl = 0, R = 0;
  uint16_t Cctl[7] = {}, Ccr[7] = {};
  bool InA[7] = {}, InB[7] = {};
  bool Down = false;        ///< up/down mode: counting down
  bool Wrapped = false;     ///< the count just went from the top to 0 (TxIFG)
  uint64_t Now = 0;         ///< MCLK cycle of the last advanceTo
  uint64_t SrcBase = 0;     ///< source clock tick where the divider phase starts
  uint64_t Consumed = 0;    ///< timer counts applied since SrcBase
};

} // namespace wsn::msp430

#endif
