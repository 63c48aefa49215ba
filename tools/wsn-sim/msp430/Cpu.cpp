// Cpu.cpp - MSP430 instruction execution (SLAU144 §3.3 addressing modes, §3.4 instruction set).
#include "Cpu.h"

#include "absl/strings/str_format.h"

#include <algorithm>

namespace wsn::msp430 {

namespace {

/// Source operand classes of the cycle tables (§3.4.4): the constant generators (R2 with
/// As=10/11, R3 with any As) cost what register mode costs, because they need no memory
/// access (§3.2.4: "no code memory access required to retrieve the constant").
enum SrcClass { CRn = 0, CInd = 1, CIndInc = 2, CImm = 3, CIdx = 4 };

SrcClass srcClass(unsigned Reg, unsigned As) {
  if (Reg == CG2 || (Reg == SR && As >= 2))
    return CRn;
  switch (As) {
  case 0:
    return CRn;
  case 1:
    return CIdx; // indexed, symbolic (PC) and absolute (SR) all cost the same
  case 2:
    return CInd;
  default:
    return Reg == PC ? CImm : CIndInc;
  }
}

// Table 3-16 "Format I Instruction Cycles and Lengths": [source class][destination], the
// destination being Rm, PC, or memory (x(Rm), EDE, &EDE).
constexpr uint8_t FormatICycles[5][3] = {
    {1, 2, 4}, // Rn
    {2, 2, 5}, // @Rn
    {2, 3, 5}, // @Rn+
    {2, 3, 5}, // #N
    {3, 3, 6}, // x(Rn), EDE, &EDE
};

// Table 3-15 "Format II Instruction Cycles and Lengths": [operation][operand class].
// RRA/RRC/SWPB/SXT have no immediate form; an @PC+ operand is counted as @Rn+.
constexpr uint8_t ShiftCycles[5] = {1, 3, 3, 3, 4};
constexpr uint8_t PushCycles[5] = {3, 4, 5, 4, 5};
constexpr uint8_t CallCycles[5] = {4, 4, 5, 5, 5};

constexpr int JumpCycles = 2;      // §3.4.4.3: all jumps take 2 cycles
constexpr int RetiCycles = 5;      // Table 3-14
constexpr int InterruptCycles = 6; // Table 3-14, §2.2.3
constexpr int ResetCycles = 4;     // Table 3-14 "WDT reset" / "Reset"

} // namespace

Cpu::Cpu(const McuInfo &M, uint8_t MemoryFill)
    : Mcu(M), Mem(M.AddressSpace + 2, MemoryFill), AddrMask(M.AddressSpace - 1),
      SlowBelow(std::max(M.PeripheralEnd, M.MirrorEnd)), IoMap(M.PeripheralEnd, nullptr) {
  NonMaskable = uint64_t(1) << M.nmiSlot();
}

void Cpu::mapPeripheral(uint32_t First, uint32_t Last, Peripheral *P) {
  for (uint32_t A = First; A <= Last && A < IoMap.size(); ++A)
    IoMap[A] = P;
  addDevice(P);
}

void Cpu::addDevice(Peripheral *P) {
  if (std::find(Devices.begin(), Devices.end(), P) == Devices.end())
    Devices.push_back(P);
  NextEventCycle = 0;
}

void Cpu::powerOn() {
  std::fill(std::begin(R), std::end(R), 0);
  Fault.clear();
  puc();
}

void Cpu::puc() {
  PucRequested = false;
  Running.clear();
  for (Peripheral *P : Devices)
    P->reset();
  R[SR] = 0;
  R[PC] = readWord(0xFFFE);
  Cycles += ResetCycles;
  BusTime = Cycles;
  NextEventCycle = 0;
  checkClockBits(Cycles);
}

uint16_t Cpu::slowRead(uint32_t A, bool IsByte) {
  if (A < Mcu.PeripheralEnd) {
    if (Peripheral *P = IoMap[A]) {
      P->advanceTo(BusTime);
      // No re-scan of the devices' next events: a read only clears flags (a device whose
      // read moves its next event calls eventsChanged). Firmware polls registers in tight
      // loops (SPI flags, TxR), and the scan cost more than the instructions.
      return P->read(A, IsByte);
    }
    // No device here: the address behaves as plain memory (what was written last).
  } else if (A >= Mcu.MirrorStart && A < Mcu.MirrorEnd) {
    A = A - Mcu.MirrorStart + Mcu.RamStart;
  }
  return IsByte ? Mem[A] : uint16_t(Mem[A] | Mem[A + 1] << 8);
}

void Cpu::slowWrite(uint32_t A, uint16_t V, bool IsByte) {
  if (A < Mcu.PeripheralEnd) {
    if (Peripheral *P = IoMap[A]) {
      P->advanceTo(BusTime);
      P->write(A, V, IsByte);
      NextEventCycle = 0;
      return;
    }
  } else if (A >= Mcu.MirrorStart && A < Mcu.MirrorEnd) {
    A = A - Mcu.MirrorStart + Mcu.RamStart;
  } else {
    // Flash, information memory, vectors and holes: the bus ignores CPU writes.
    ++IgnoredWrites;
    LastIgnoredWrite = A;
    return;
  }
  Mem[A] = uint8_t(V);
  if (!IsByte)
    Mem[A + 1] = uint8_t(V >> 8);
}

void Cpu::serviceEvents() {
  uint64_t Next = kNever;
  for (Peripheral *P : Devices) {
    P->advanceTo(Cycles);
    Next = std::min(Next, P->nextEvent());
  }
  NextEventCycle = Next;
}

void Cpu::writeReg(unsigned N, uint32_t V) {
  switch (N) {
  case PC:
  case SP:
    R[N] = V & AddrMask & ~1u; // bit 0 of PC and SP is always 0 (§3.2.1, §3.2.2)
    return;
  case CG2:
    return; // R3 is the constant generator: writes have no effect
  default:
    R[N] = V & AddrMask;
  }
}

void Cpu::enterInterrupt(unsigned Slot) {
  // §2.2.3 "Interrupt acceptance": push PC, push SR, SR cleared except SCG0 (this ends any
  // low-power mode), single-source flag reset, vector loaded into PC; 6 cycles.
  // On the MSP430X, PC bits 19:16 go into bits 15:12 of the pushed SR word (§4.2.1).
  BusTime = Cycles + InterruptCycles;
  R[SP] = (R[SP] - 2) & AddrMask;
  writeWord(R[SP], uint16_t(R[PC]));
  R[SP] = (R[SP] - 2) & AddrMask;
  writeWord(R[SP], uint16_t(Mcu.Cpux ? ((R[PC] >> 16) << 12 | (R[SR] & 0x0FFF)) : R[SR]));
  R[SR] &= SR_SCG0;
  Irq.acknowledge(Slot);
  R[PC] = readWord(Mcu.VectorBase + 2 * Slot);
  Cycles += InterruptCycles;
  ++Interrupts;
  Running.push_back(uint8_t(Slot));
}

StepKind Cpu::step() {
  if (!Fault.empty())
    return StepKind::Faulted;
  if (PucRequested)
    puc();
  if (Cycles >= NextEventCycle)
    serviceEvents();

  uint64_t Pending = Irq.pending();
  if (Pending) {
    uint64_t Acceptable = (R[SR] & SR_GIE) ? Pending : (Pending & NonMaskable);
    if (Acceptable) {
      unsigned Slot = 63 - __builtin_clzll(Acceptable); // highest address wins
      uint64_t Accepted = Cycles;
      enterInterrupt(Slot);
      checkClockBits(Accepted); // the entry cleared CPUOFF, OSCOFF and SCG1
      return StepKind::Interrupt;
    }
  }

  if (R[SR] & SR_CPUOFF) {
    // LPM0-4: no instruction fetch until an interrupt (§2.3). Skip to the next event.
    if (NextEventCycle == kNever)
      return StepKind::Asleep;
    Cycles = std::max(Cycles, NextEventCycle);
    BusTime = Cycles;
    return StepKind::Idle;
  }

  if (Hook)
    Hook(HookCtx, *this);
  BusTime = Cycles;
  int C = executeOne();
  if (C < 0)
    return StepKind::Faulted;
  Cycles += uint64_t(C);
  BusTime = Cycles; // accesses from outside an instruction (boards, tests) happen now
  ++Instructions;
  checkClockBits(Cycles);
  return StepKind::Instruction;
}

uint64_t Cpu::run(uint64_t Count) {
  uint64_t Start = Instructions;
  while (Instructions - Start < Count) {
    StepKind K = step();
    if (K == StepKind::Faulted || K == StepKind::Asleep)
      break;
  }
  return Instructions - Start;
}

int Cpu::illegal(uint16_t Ins) {
  Fault = absl::StrFormat("illegal instruction 0x%04x at 0x%04x", Ins, LastPc);
  R[PC] = LastPc;
  return -1;
}

int Cpu::executeOne() {
  LastPc = R[PC];
  if (LastPc < Mcu.PeripheralEnd) {
    Fault = absl::StrFormat("instruction fetch from the peripheral space at 0x%04x", LastPc);
    return -1;
  }
  uint16_t Ins = fetchWord();
  if (Ins >= 0x4000)
    return formatI(Ins);
  if (Ins >= 0x2000) {
    // §3.4.3 jumps: 10-bit signed word offset relative to PC+2.
    uint16_t S = uint16_t(R[SR]);
    bool Take;
    switch ((Ins >> 10) & 7) {
    case 0: Take = !(S & SR_Z); break;                  // JNE/JNZ
    case 1: Take = S & SR_Z; break;                     // JEQ/JZ
    case 2: Take = !(S & SR_C); break;                  // JNC/JLO
    case 3: Take = S & SR_C; break;                     // JC/JHS
    case 4: Take = S & SR_N; break;                     // JN
    case 5: Take = !(S & SR_N) == !(S & SR_V); break;   // JGE
    case 6: Take = !(S & SR_N) != !(S & SR_V); break;   // JL
    default: Take = true; break;                        // JMP
    }
    if (Take) {
      int32_t Off = int32_t(Ins & 0x3FF);
      if (Off & 0x200)
        Off -= 0x400;
      R[PC] = (R[PC] + uint32_t(Off * 2)) & AddrMask;
    }
    return JumpCycles;
  }
  if (Ins >= 0x1000 && Ins < 0x1300)
    return formatII(Ins);
  if (Ins == 0x1300)
    return formatII(Ins); // RETI
  if (!Mcu.Cpux)
    return illegal(Ins); // 0x0000-0x0FFF and 0x1301-0x1FFF: MSP430X encodings
  if (Ins < 0x1000)
    return (Ins & 0x00E0) == 0x0040 ? rotateMultiple(Ins) : addressInstruction(Ins);
  if (Ins < 0x1400)
    return callA(Ins);
  if (Ins < 0x1800)
    return pushPopMultiple(Ins);
  return extended(Ins);
}

int Cpu::formatI(uint16_t Ins) {
  const unsigned Op = Ins >> 12;
  const unsigned Sreg = (Ins >> 8) & 15, As = (Ins >> 4) & 3;
  const unsigned Dreg = Ins & 15, Ad = (Ins >> 7) & 1;
  const bool Byte = Ins & 0x40;
  const uint32_t Mask = Byte ? 0xFF : 0xFFFF, Msb = Byte ? 0x80 : 0x8000;

  const SrcClass SC = srcClass(Sreg, As);
  const int Cycles = FormatICycles[SC][Ad ? 2 : (Dreg == PC ? 1 : 0)];
  BusTime = this->Cycles + Cycles;

  // Source operand (§3.3).
  uint32_t Src;
  if (Sreg == CG2) {
    static constexpr uint32_t Cg2[4] = {0, 1, 2, 0xFFFF};
    Src = Cg2[As] & Mask;
  } else if (Sreg == SR && As >= 2) {
    Src = As == 2 ? 4 : 8;
  } else if (As == 0) {
    Src = R[Sreg] & Mask;
  } else {
    uint32_t A;
    if (As == 1) {
      uint16_t X = readWord(R[PC]);
      A = Sreg == SR ? X : indexed(R[Sreg], X); // symbolic: PC = address of X
      R[PC] = (R[PC] + 2) & AddrMask;
    } else {
      A = R[Sreg];
      if (As == 3)
        R[Sreg] = (R[Sreg] + ((Byte && Sreg != PC && Sreg != SP) ? 1 : 2)) & AddrMask;
    }
    Src = Byte ? readByte(A) : readWord(A);
  }

  // Destination operand.
  uint32_t DstAddr = 0, Dst = 0;
  if (Ad) {
    uint16_t X = readWord(R[PC]);
    DstAddr = Dreg == SR ? X : indexed(R[Dreg], X);
    R[PC] = (R[PC] + 2) & AddrMask;
    if (Op != 4) // MOV does not read its destination
      Dst = Byte ? readByte(DstAddr) : readWord(DstAddr);
  } else {
    Dst = Dreg == CG2 ? 0 : (R[Dreg] & Mask);
  }

  uint32_t Res;
  uint32_t Sr = R[SR];
  bool Store = true;
  auto Logic = [&](uint32_t V) {
    Sr &= ~(SR_C | SR_Z | SR_N | SR_V);
    Sr |= (V & Mask) ? SR_C : SR_Z;
    if (V & Msb)
      Sr |= SR_N;
  };
  auto Arith = [&](uint32_t S, uint32_t D, uint32_t CarryIn) {
    uint32_t T = S + D + CarryIn;
    Sr &= ~(SR_C | SR_Z | SR_N | SR_V);
    if (!(T & Mask))
      Sr |= SR_Z;
    if (T & Msb)
      Sr |= SR_N;
    if (T > Mask)
      Sr |= SR_C;
    if ((S ^ T) & (D ^ T) & Msb) // both operands' sign differs from the result's
      Sr |= SR_V;
    return T & Mask;
  };

  switch (Op) {
  case 4: // MOV: no flags
    Res = Src;
    break;
  case 5: // ADD
    Res = Arith(Src, Dst, 0);
    break;
  case 6: // ADDC
    Res = Arith(Src, Dst, Sr & SR_C);
    break;
  case 7: // SUBC: dst + .not.src + C
    Res = Arith(~Src & Mask, Dst, Sr & SR_C);
    break;
  case 8: // SUB: dst + .not.src + 1
    Res = Arith(~Src & Mask, Dst, 1);
    break;
  case 9: // CMP
    Res = Arith(~Src & Mask, Dst, 1);
    Store = false;
    break;
  case 10: { // DADD (B.4 DADD): decimal src + dst + C; C set when the result exceeds
             // 9999 (99 for bytes); V is undefined in the guide and cleared here.
    uint32_t Carry = Sr & SR_C;
    Res = 0;
    for (unsigned Nib = 0; Nib < (Byte ? 2u : 4u); ++Nib) {
      uint32_t D = ((Src >> (4 * Nib)) & 15) + ((Dst >> (4 * Nib)) & 15) + Carry;
      Carry = D > 9;
      if (Carry)
        D += 6;
      Res |= (D & 15) << (4 * Nib);
    }
    Sr &= ~(SR_C | SR_Z | SR_N | SR_V);
    if (Carry)
      Sr |= SR_C;
    if (!Res)
      Sr |= SR_Z;
    if (Res & Msb)
      Sr |= SR_N;
    break;
  }
  case 11: // BIT
    Res = Src & Dst;
    Logic(Res);
    Store = false;
    break;
  case 12: // BIC: no flags
    Res = Dst & ~Src & Mask;
    break;
  case 13: // BIS: no flags
    Res = Dst | Src;
    break;
  case 14: // XOR: V set when both operands are negative
    Res = (Dst ^ Src) & Mask;
    Logic(Res);
    if (Src & Dst & Msb)
      Sr |= SR_V;
    break;
  default: // 15: AND
    Res = Src & Dst;
    Logic(Res);
    break;
  }
  R[SR] = Sr;

  if (Store) {
    if (Ad) {
      if (Byte)
        writeByte(DstAddr, uint8_t(Res));
      else
        writeWord(DstAddr, uint16_t(Res));
    } else {
      writeReg(Dreg, Res); // a byte result clears the register's high byte (§3.3.1)
    }
  }
  return Cycles;
}

int Cpu::formatII(uint16_t Ins) {
  const unsigned Op = (Ins >> 7) & 7;
  const unsigned Reg = Ins & 15, As = (Ins >> 4) & 3;
  const bool Byte = Ins & 0x40;
  const uint32_t Mask = Byte ? 0xFF : 0xFFFF, Msb = Byte ? 0x80 : 0x8000;

  if (Op == 6) { // RETI (0x1300): TOS -> SR, then TOS -> PC
    if (Ins != 0x1300)
      return illegal(Ins);
    BusTime = Cycles + RetiCycles;
    uint16_t SrWord = readWord(R[SP]);
    R[SP] = (R[SP] + 2) & AddrMask;
    R[PC] = readWord(R[SP]) & ~1u;
    R[SP] = (R[SP] + 2) & AddrMask;
    if (Mcu.Cpux) {
      R[PC] |= uint32_t(SrWord >> 12) << 16;
      SrWord &= 0x0FFF;
    }
    R[SR] = SrWord;
    if (!Running.empty())
      Running.pop_back();
    return RetiCycles;
  }
  // SWPB, SXT and CALL have no byte form.
  if (Byte && (Op == 1 || Op == 3 || Op == 5))
    return illegal(Ins);

  const SrcClass SC = srcClass(Reg, As);
  BusTime = Cycles + (Op == 4 ? PushCycles : Op == 5 ? CallCycles : ShiftCycles)[SC];
  bool InMemory = false;
  uint32_t A = 0, V;
  if (Reg == CG2) {
    static constexpr uint32_t Cg2[4] = {0, 1, 2, 0xFFFF};
    V = Cg2[As] & Mask;
  } else if (Reg == SR && As >= 2) {
    V = As == 2 ? 4 : 8;
  } else if (As == 0) {
    V = R[Reg] & Mask;
  } else {
    if (As == 1) {
      uint16_t X = readWord(R[PC]);
      A = Reg == SR ? X : indexed(R[Reg], X);
      R[PC] = (R[PC] + 2) & AddrMask;
    } else {
      A = R[Reg];
      if (As == 3)
        R[Reg] = (R[Reg] + ((Byte && Reg != PC && Reg != SP) ? 1 : 2)) & AddrMask;
    }
    InMemory = true;
    V = Byte ? readByte(A) : readWord(A);
  }
  const bool WritesBack = InMemory || (As == 0 && Reg != CG2);

  uint32_t Sr = R[SR];
  uint32_t Res;
  int Cycles;
  switch (Op) {
  case 0: { // RRC (B.4 RRC): C -> MSB ... LSB -> C
    Res = (V >> 1) | ((Sr & SR_C) ? Msb : 0);
    bool V_ = Mcu.RrcSetsOverflow && !(V & Msb) && (Sr & SR_C);
    Sr &= ~(SR_C | SR_Z | SR_N | SR_V);
    if (V & 1)
      Sr |= SR_C;
    if (!Res)
      Sr |= SR_Z;
    if (Res & Msb)
      Sr |= SR_N;
    if (V_)
      Sr |= SR_V;
    Cycles = ShiftCycles[SC];
    break;
  }
  case 1: // SWPB: no flags
    Res = ((V & 0xFF) << 8) | (V >> 8);
    Cycles = ShiftCycles[SC];
    break;
  case 2: // RRA: MSB -> MSB, LSB -> C, V reset
    Res = (V >> 1) | (V & Msb);
    Sr &= ~(SR_C | SR_Z | SR_N | SR_V);
    if (V & 1)
      Sr |= SR_C;
    if (!Res)
      Sr |= SR_Z;
    if (Res & Msb)
      Sr |= SR_N;
    Cycles = ShiftCycles[SC];
    break;
  case 3: // SXT: bit 7 into bits 8-15; C = not Z, V reset
    Res = (V & 0x80) ? (V | 0xFF00) : (V & 0xFF);
    Sr &= ~(SR_C | SR_Z | SR_N | SR_V);
    Sr |= Res ? SR_C : SR_Z;
    if (Res & 0x8000)
      Sr |= SR_N;
    Cycles = ShiftCycles[SC];
    break;
  case 4: // PUSH: SP - 2 -> SP, src -> @SP (PUSH.B writes the byte only)
    R[SP] = (R[SP] - 2) & AddrMask;
    if (Byte)
      writeByte(R[SP], uint8_t(V));
    else
      writeWord(R[SP], uint16_t(V));
    return PushCycles[SC];
  default: // 5: CALL: SP - 2 -> SP, PC -> @SP, dst -> PC
    R[SP] = (R[SP] - 2) & AddrMask;
    writeWord(R[SP], uint16_t(R[PC]));
    R[PC] = V & ~1u;
    return CallCycles[SC];
  }
  R[SR] = Sr;
  if (WritesBack) {
    if (!InMemory)
      writeReg(Reg, Res);
    else if (Byte)
      writeByte(A, uint8_t(Res));
    else
      writeWord(A, uint16_t(Res));
  }
  return Cycles;
}

} // namespace wsn::msp430
