// Peripheral.h - the narrow interfaces between the MSP430 core and the devices around it.
//
// A peripheral sees only bus accesses to the addresses it was mapped to, the MCLK cycle count,
// and interrupt-request lines; it knows nothing of the board. Boards (TelosB, Z1) map the
// Basic Clock module, timers, USARTs and ports through these interfaces.
#ifndef WSN_MSP430_PERIPHERAL_H
#define WSN_MSP430_PERIPHERAL_H

#include <cstdint>
#include <limits>

namespace wsn::msp430 {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

/// A memory-mapped device. The bus calls read/write for every access to a mapped address,
/// after calling advanceTo(current MCLK cycle), so a timer computes its state lazily.
class Peripheral {
public:
  virtual ~Peripheral() = default;
  /// A read of the byte (isByte) or the even-addressed word at addr. A read that moves the
  /// device's next event must call Cpu::eventsChanged() (a write needs not: the core re-reads
  /// every device's next event after a write).
  virtual uint16_t read(uint32_t addr, bool isByte) = 0;
  /// A write of value (low byte only when isByte) to addr.
  virtual void write(uint32_t addr, uint16_t value, bool isByte) = 0;
  /// Power-up clear (PUC): restore the register reset values.
  virtual void reset() {}
  /// Bring internal state up to MCLK cycle `cycle` (never called with a smaller value).
  virtual void advanceTo(uint64_t cycle) { (void)cycle; }
  /// The next MCLK cycle at which the device changes state on its own (a timer expiring), or
  /// kNever. The core calls advanceTo at that cycle even while the CPU sleeps in an LPM.
  virtual uint64_t nextEvent() const { return kNever; }
};

/// A clock derived from MCLK (SMCLK, ACLK). The Basic Clock module will implement it; until a
/// board has one, RatioClock gives a fixed ratio.
class ClockSource {
public:
  virtual ~ClockSource() = default;
  /// Rising edges of this clock in MCLK cycles [0, Cycle).
  virtual uint64_t ticksAt(uint64_t Cycle) const = 0;
  /// The first MCLK cycle by which Tick edges have occurred: ticksAt(cycleOfTick(T)) >= T.
  virtual uint64_t cycleOfTick(uint64_t Tick) const = 0;
};

/// Tick = Cycle * Num / Den (Num <= Den): SMCLK = MCLK is {1, 1}; a 32768 Hz ACLK under a
/// 4 MHz MCLK is {32768, 4000000}.
class RatioClock : public ClockSource {
public:
  RatioClock(uint64_t Num, uint64_t Den) : Num(Num), Den(Den) {}
  uint64_t ticksAt(uint64_t Cycle) const override { return Cycle * Num / Den; }
  uint64_t cycleOfTick(uint64_t Tick) const override { return (Tick * Den + Num - 1) / Num; }

private:
  uint64_t Num, Den;
};

/// The interrupt-request lines into the CPU, one per vector slot. Slot 0 is the lowest
/// address of the vector table (0xFFE0 on F1xx, 0xFFC0 on F2617); the highest slot (the
/// reset vector at 0xFFFE) has the highest priority (SLAU144 §2.2.3: "the higher the vector
/// address, the higher the priority").
class InterruptLines {
public:
  /// Level of a request line: a peripheral keeps it high while its enabled flag is set.
  void set(unsigned slot, bool level) {
    if (level)
      Pending |= uint64_t(1) << slot;
    else
      Pending &= ~(uint64_t(1) << slot);
  }
  bool isSet(unsigned slot) const { return Pending >> slot & 1; }
  uint64_t pending() const { return Pending; }

  /// Called when the CPU accepts `slot`: a single-source flag is reset here (SLAU144
  /// §2.2.3 step 5); multi-source flags stay for the handler to clear.
  using AckFn = void (*)(void *Ctx, unsigned Slot);
  void setAcknowledge(unsigned slot, AckFn fn, void *ctx) {
    Ack[slot] = fn;
    AckCtx[slot] = ctx;
  }
  void acknowledge(unsigned slot) {
    if (Ack[slot])
      Ack[slot](AckCtx[slot], slot);
  }

private:
  uint64_t Pending = 0;
  AckFn Ack[64] = {};
  void *AckCtx[64] = {};
};

} // namespace wsn::msp430

#endif
