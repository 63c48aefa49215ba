// Cpu.h - a cycle-counting MSP430 CPU with its address space.
//
// Instruction semantics, status flags and cycle counts follow the family user's guides:
// SLAU049 (MSP430x1xx, chapter 3 and appendix B) and SLAU144 (MSP430x2xx, chapter 3).
// Section numbers in comments are SLAU144J's unless SLAU049 is named.
//
// The CPU owns the memory array; addresses below McuInfo::PeripheralEnd go to the peripherals
// mapped there (mapPeripheral), RAM is read and written directly, flash and information
// memory are readable and ignore writes (programming needs the flash controller).
#ifndef WSN_MSP430_CPU_H
#define WSN_MSP430_CPU_H

#include "Mcu.h"
#include "Peripheral.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wsn::msp430 {

/// Status register bits (§3.2.3, Figure 3-6).
enum SrBits : uint16_t {
  SR_C = 0x0001,
  SR_Z = 0x0002,
  SR_N = 0x0004,
  SR_GIE = 0x0008,
  SR_CPUOFF = 0x0010,
  SR_OSCOFF = 0x0020,
  SR_SCG0 = 0x0040,
  SR_SCG1 = 0x0080,
  SR_V = 0x0100,
};

enum Reg : unsigned { PC = 0, SP = 1, SR = 2, CG2 = 3 };

/// What one call of Cpu::step did.
enum class StepKind {
  Instruction, ///< executed one instruction
  Interrupt,   ///< accepted an interrupt (6 cycles, §2.2.3)
  Idle,        ///< CPUOFF: time advanced to the next peripheral event
  Asleep,      ///< CPUOFF and nothing can ever wake the CPU: no time passed
  Faulted,     ///< an illegal instruction or fetch stopped the core (see fault())
};

class Cpu {
public:
  explicit Cpu(const McuInfo &Mcu, uint8_t MemoryFill = 0xFF);
  Cpu(const Cpu &) = delete;
  Cpu &operator=(const Cpu &) = delete;

  const McuInfo &mcu() const { return Mcu; }

  // --- Peripherals -------------------------------------------------------------------------
  /// Route bus accesses to [First, Last] (inclusive, below PeripheralEnd) to P. P is also
  /// advanced in time and reset on PUC. The CPU does not own P.
  void mapPeripheral(uint32_t First, uint32_t Last, Peripheral *P);
  /// A device with no registers of its own that still needs time and reset.
  void addDevice(Peripheral *P);
  InterruptLines &irq() { return Irq; }
  /// Power-up clear (SLAU144 §2.2.1): peripherals reset, SR cleared, PC from the reset vector.
  /// Registers R1, R3-R15 keep their values (their PUC value is undefined). Costs 4 cycles
  /// (Table 3-14 "Reset").
  void puc();
  /// Power-on: all registers 0, then puc().
  void powerOn();
  /// Ask for a PUC before the next instruction (watchdog expiry, password violations).
  void requestPuc() { PucRequested = true; }
  /// A device's register write may have moved its next event: the core re-reads nextEvent().
  void eventsChanged() { NextEventCycle = 0; }

  // --- Execution ----------------------------------------------------------------------------
  StepKind step();
  /// Run until `Count` instructions have executed, the core faults, or it sleeps for good.
  /// Returns the number of instructions executed.
  uint64_t run(uint64_t Count);

  uint64_t cycles() const { return Cycles; }
  uint64_t instructions() const { return Instructions; }
  uint64_t interruptsTaken() const { return Interrupts; }
  /// The vector slots of the interrupts accepted and not yet left by RETI, outermost first
  /// (handlers nested when one re-enables interrupts). A PUC clears it.
  const std::vector<uint8_t> &runningInterrupts() const { return Running; }
  bool faulted() const { return !Fault.empty(); }
  /// Stop the core with a message (a device refusing a mode it does not model): the current
  /// instruction completes, step() then returns Faulted. The first message is kept.
  void stop(std::string Why) {
    if (Fault.empty())
      Fault = std::move(Why);
  }
  const std::string &fault() const { return Fault; }
  /// Address of the instruction executed last.
  uint32_t lastInstructionAddress() const { return LastPc; }

  // --- State --------------------------------------------------------------------------------
  uint32_t reg(unsigned N) const { return R[N]; }
  void setReg(unsigned N, uint32_t V) { R[N] = V & AddrMask; }
  uint16_t sr() const { return uint16_t(R[SR]); }

  /// Bus accesses as the CPU makes them (peripherals see them).
  uint16_t readWord(uint32_t A) {
    A &= AddrMask & ~1u;
    if (A < SlowBelow)
      return slowRead(A, false);
    return uint16_t(Mem[A] | Mem[A + 1] << 8);
  }
  uint8_t readByte(uint32_t A) {
    A &= AddrMask;
    if (A < SlowBelow)
      return uint8_t(slowRead(A, true));
    return Mem[A];
  }
  void writeWord(uint32_t A, uint16_t V) {
    A &= AddrMask & ~1u;
    if (A >= Mcu.RamStart && A < Mcu.RamEnd) {
      Mem[A] = uint8_t(V);
      Mem[A + 1] = uint8_t(V >> 8);
      return;
    }
    slowWrite(A, V, false);
  }
  void writeByte(uint32_t A, uint8_t V) {
    A &= AddrMask;
    if (A >= Mcu.RamStart && A < Mcu.RamEnd) {
      Mem[A] = V;
      return;
    }
    slowWrite(A, V, true);
  }
  /// Raw memory (loader, debugger, sram dumps): no peripheral side effects, no write rules.
  uint8_t *memory() { return Mem.data(); }
  const uint8_t *memory() const { return Mem.data(); }
  uint32_t memorySize() const { return uint32_t(Mem.size()); }

  /// Writes the CPU dropped (flash, information memory, vectors, unmapped): count and last.
  uint64_t ignoredWrites() const { return IgnoredWrites; }
  uint32_t lastIgnoredWrite() const { return LastIgnoredWrite; }

  /// Told when the SR's clock bits (CPUOFF, OSCOFF, SCG0, SCG1) change, with the new SR and the
  /// cycle of the change: the Basic Clock module stops and restarts clocks with them
  /// (SLAU049 §2.3). An instruction's SR write takes effect at its end; an interrupt entry
  /// restarts the clocks where it begins (the CPU needs MCLK for the 6 entry cycles).
  using ClockBitsHook = void (*)(void *Ctx, uint16_t Sr, uint64_t Cycle);
  void setClockBitsHook(ClockBitsHook Fn, void *Ctx) {
    ClockHook = Fn;
    ClockHookCtx = Ctx;
    ClockBits = uint16_t(R[SR] & ClockBitMask);
    if (Fn)
      Fn(Ctx, uint16_t(R[SR]), Cycles);
  }

  /// Called before every instruction (after interrupt checks); for trace and test drivers.
  using InstructionHook = void (*)(void *Ctx, Cpu &C);
  void setInstructionHook(InstructionHook Fn, void *Ctx) {
    Hook = Fn;
    HookCtx = Ctx;
  }

private:
  uint16_t slowRead(uint32_t A, bool IsByte);
  void slowWrite(uint32_t A, uint16_t V, bool IsByte);
  void serviceEvents();
  void enterInterrupt(unsigned Slot);
  int executeOne();
  int formatI(uint16_t Ins);
  int formatII(uint16_t Ins);
  int illegal(uint16_t Ins);
  // MSP430X (CpuX.cpp): SLAU144 chapter 4.
  int addressInstruction(uint16_t Ins);
  int rotateMultiple(uint16_t Ins);
  int pushPopMultiple(uint16_t Ins);
  int callA(uint16_t Ins);
  int extended(uint16_t Ext);
  uint32_t read20(uint32_t A) { return readWord(A) | uint32_t(readWord(A + 2) & 15) << 16; }
  void write20(uint32_t A, uint32_t V) {
    writeWord(A, uint16_t(V));
    writeWord(A + 2, uint16_t((V >> 16) & 15));
  }
  /// Indexed/symbolic address: a register in the lower 64 KB and a 16-bit index give a
  /// 16-bit address; above 64 KB the index is sign-extended and the sum is 20-bit (§4.4.2).
  uint32_t indexed(uint32_t Base, uint16_t X) const {
    if (Base < 0x10000)
      return (Base + X) & 0xFFFF;
    return (Base + uint32_t(int32_t(int16_t(X)))) & AddrMask;
  }
  uint16_t fetchWord() {
    uint16_t W = readWord(R[PC]);
    R[PC] = (R[PC] + 2) & AddrMask;
    return W;
  }
  void writeReg(unsigned N, uint32_t V);
  static constexpr uint16_t ClockBitMask = SR_CPUOFF | SR_OSCOFF | SR_SCG0 | SR_SCG1;
  void checkClockBits(uint64_t At) {
    if (uint16_t B = uint16_t(R[SR] & ClockBitMask); B != ClockBits) {
      ClockBits = B;
      if (ClockHook)
        ClockHook(ClockHookCtx, uint16_t(R[SR]), At);
    }
  }

  McuInfo Mcu;
  std::vector<uint8_t> Mem;
  uint32_t AddrMask;
  uint32_t SlowBelow; ///< reads below this take the peripheral/mirror path
  uint32_t R[16] = {};
  std::vector<Peripheral *> IoMap; ///< one entry per byte address below PeripheralEnd
  std::vector<Peripheral *> Devices;
  InterruptLines Irq;
  uint64_t NonMaskable; ///< request lines accepted with GIE clear (NMI slot)
  uint64_t Cycles = 0, Instructions = 0, Interrupts = 0;
  std::vector<uint8_t> Running; ///< see runningInterrupts()
  uint64_t NextEventCycle = 0;
  /// The cycle peripherals see an access at: the end of the executing instruction (the
  /// destination write is an instruction's last bus cycle).
  uint64_t BusTime = 0;
  bool PucRequested = false;
  uint32_t LastPc = 0;
  std::string Fault;
  uint64_t IgnoredWrites = 0;
  uint32_t LastIgnoredWrite = 0;
  InstructionHook Hook = nullptr;
  void *HookCtx = nullptr;
  ClockBitsHook ClockHook = nullptr;
  void *ClockHookCtx = nullptr;
  uint16_t ClockBits = 0; ///< SR & ClockBitMask as last reported
};

} // namespace wsn::msp430

#endif
