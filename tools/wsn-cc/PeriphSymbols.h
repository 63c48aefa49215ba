//===- PeriphSymbols.h - MSP430 registers declared as linker symbols -*- C++ -*-===//
//
// msp430mcu's headers (iomacros.h's sfrb/sfrw) and the nesC output of TinyOS's telosb and z1
// platforms declare each peripheral register as an external variable with an asm label:
// `extern volatile unsigned char P1IFG __asm("__P1IFG");`. The address comes only from the
// link: the MCU's periph.x defines `__P1IFG = 0x0023;`. Left as they are, such registers are
// globals to the wsn-trace passes (state that goes into checkpoints and effects) instead of
// memory-mapped I/O. wsn-cc therefore binds them before instrumentation: every use of a
// declared, undefined global whose symbol periph.x defines becomes the constant address the
// link would have given it, exactly like avr-libc's `*(volatile uint8_t *)0x3B`
// (spec/wsn-cc.md, "Registers declared as linker symbols").
//
//===----------------------------------------------------------------------===//
#ifndef WSN_CC_PERIPHSYMBOLS_H
#define WSN_CC_PERIPHSYMBOLS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace llvm {
class Module;
} // namespace llvm

namespace wsncc {

/// Symbol name -> address, as a periph.x assigns them.
using PeriphSymbolMap = llvm::StringMap<uint32_t>;

/// Parses the text of a periph.x: one `NAME = NUMBER;` assignment a line (hex with 0x or
/// decimal); blank lines and /* */ or // comment lines are skipped. Any other line, an address
/// past 0xFFFF or a name assigned twice is an error naming \p File and the line.
llvm::Expected<PeriphSymbolMap> parsePeriphSymbols(llvm::StringRef Text, llvm::StringRef File);

/// Reads and parses the file \p Path.
llvm::Expected<PeriphSymbolMap> readPeriphSymbols(llvm::StringRef Path);

/// Replaces every use of a global declared (not defined) in \p M whose symbol \p Syms
/// defines by that constant address, and removes the declaration. A *defined* global with
/// such a name is left alone (it is the program's own variable; the link would reject the
/// clash). Returns the number of globals bound.
unsigned bindPeriphSymbols(llvm::Module &M, const PeriphSymbolMap &Syms);

} // namespace wsncc

#endif
