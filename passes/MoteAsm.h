//===- MoteAsm.h - the inline asm statements wsn-trace understands --------===//
//
// Mote firmware uses a handful of inline asm statements: interrupt enable and
// disable, sleep, reads and writes of the status register (AVR SREG, the
// MSP430 SR with its GIE bit), e.g. in nesC's atomic sections, and AVR
// program-memory reads (avr-libc's pgm_read_byte: `lpm %0, Z`). The replay
// lowering turns them into replay operations (spec/replay.md section 4), and
// the interrupt-state analysis follows the interrupt flag through them
// (spec/instrumentation.md section 7.1). Both read them through this parser.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_MOTEASM_H
#define WSN_PASSES_MOTEASM_H

#include "MoteMemoryModel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class CallBase;
class Value;
}

namespace wsn {

/// One statement of recognised inline asm.
enum class AsmOp {
  Nothing,     // nop, wdr, empty
  IrqEnable,   // sei / eint
  IrqDisable,  // cli / dint
  Sleep,       // sleep
  ReadStatus,  // in r, SREG / mov r2, x  -> result
  WriteStatus, // out SREG, r / mov x, r2
  OrStatus,    // bis x, r2
  AndNotStatus, // bic x, r2
  LoadProgram  // AVR lpm Rd, Z / lpm Rd, Z+: a flash byte into (byte Imm of) operand Operand
};

struct AsmStmt {
  AsmOp Op;
  int Operand = -1;     // operand index for Write/Or/AndNot ($N), or -1
  uint64_t Imm = 0;     // immediate for Or/AndNot when Operand < 0; LoadProgram: result byte
  int Addr = -1;        // LoadProgram: the operand bound to Z (constraint "z")
  bool PostInc = false; // LoadProgram: Z+ (the next lpm of the statement reads Z + 1)
};

/// Operand k ($k / %k) of an inline asm call: outputs first, then inputs.
/// Element k is the call argument of input operand k, or -1 for an output.
std::vector<int> asmOperandArgs(const llvm::CallBase &CB);

/// AVR's SREG in the data space (I/O 0x3F): C code reads and writes it there.
constexpr uint32_t AvrSregAddr = 0x5F;

/// Ptr is the constant data address of the status register (AVR SREG;
/// MSP430's SR is a CPU register, never addressed).
bool isStatusAddress(const llvm::Value *Ptr, MoteArch Arch);

/// V is a read of the status register: a load of SREG (AVR) or inline asm
/// with a status read (`in r, 0x3f`, `mov r2, r`).
bool isStatusRead(const llvm::Value *V, MoteArch Arch);

/// CB is inline asm that may put the CPU to sleep until an interrupt: AVR
/// `sleep`; MSP430 a status write or `bis` that may set the low-power bits
/// (CPUOFF, OSCOFF, SCG0/1; an operand of unknown value counts). The idle loop
/// of a scheduler is recognised by it (spec/instrumentation.md section 5).
bool asmMaySleep(const llvm::CallBase &CB, MoteArch Arch);

/// Splits the inline asm of CB into statements of Arch. On a statement it
/// does not recognise, returns false and puts the statement in *Unsupported.
bool parseMoteAsm(const llvm::CallBase &CB, MoteArch Arch,
                  std::vector<AsmStmt> &Out, std::string *Unsupported);

} // namespace wsn

#endif
