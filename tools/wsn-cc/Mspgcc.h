//===- Mspgcc.h - the mspgcc dialect of TinyOS's MSP430 output --*- C++ -*-===//
//
// nesC output for telosb and z1 was written for mspgcc, whose dialect differs from clang's
// in four places (spec/wsn-cc.md, "The mspgcc dialect"):
//  - interrupt(X) takes the vector's byte offset from the start of the MCU's vector table,
//    clang's interrupt(N) a slot of a 64-slot table ending at 0xFFFE;
//  - `wakeup` clears the low-power bits of the saved SR when the handler returns; clang ignores
//    the attribute;
//  - the intrinsics of mspgcc's intrinsics.h (__nop, __dint, __eint, __read_status_register,
//    ...) are compiler builtins there and undefined functions here;
//  - registers declared with a numeric asm label (`volatile uint8_t U0CTLnr __asm("0x0070")`)
//    name an absolute address, which clang turns into an undefined symbol "0x0070".
// The front end part is a force-included header (trace-runtime/include/wsn/mspgcc.h) and a
// -D for `wakeup`; the rest works on the IR here.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_CC_MSPGCC_H
#define WSN_CC_MSPGCC_H

#include "Targets.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace wsncc {

/// Function attribute that marks a `wakeup` handler in the IR.
constexpr const char *WakeupAttr = "wsn-wakeup";

/// Whether \p Source (its text) is in the mspgcc dialect: nesC output (it declares nesC's
/// atomic-section functions) or code that uses mspgcc's `wakeup` attribute.
bool looksLikeMspgcc(llvm::StringRef Source);

/// The clang flags that read the mspgcc dialect; \p IncludeDir is trace-runtime/include.
std::vector<std::string> mspgccClangFlags(llvm::StringRef IncludeDir);

/// Rewrites a freshly compiled module of \p File for \p Mcu: interrupt(byte offset) becomes
/// the slot clang's backend and our linker scripts use, `wakeup` annotations become the
/// WakeupAttr attribute, and numeric asm-label globals become constant addresses. An offset
/// the MCU's table does not have (odd, past the end, the reset vector) is an error naming the
/// function and the offset.
llvm::Error applyMspgccDialect(llvm::Module &M, const McuInfo &Mcu, llvm::StringRef File);

/// Mote side (after instrumentation, before llc): each handler with WakeupAttr becomes an
/// ordinary function called by a small interrupt entry that saves the call-clobbered
/// registers, calls it, restores them, clears CPUOFF/OSCOFF/SCG0/SCG1 in the SR saved on the
/// stack and returns with reti. Returns the number of handlers wrapped.
llvm::Expected<unsigned> lowerWakeupHandlers(llvm::Module &M);

/// A handler the image's vector table must point to: its slot (clang numbering) and the
/// symbol the entry must hold (the handler, or the wakeup entry wrapping it).
struct VectorEntry {
  unsigned Slot;
  std::string Symbol;
};

/// The interrupt handlers defined in \p M (call before lowerWakeupHandlers).
std::vector<VectorEntry> interruptVectors(const llvm::Module &M);

/// Checks the linked MSP430 image \p Elf: it has a vector table, and each entry of \p Want
/// holds its handler's address. This is what makes an empty or partial vector table (a
/// handler's vector section dropped or misplaced by the link) an error instead of an image.
llvm::Error checkVectorTable(llvm::StringRef Elf, const McuInfo &Mcu,
                             llvm::ArrayRef<VectorEntry> Want);

/// Loads the IR or bitcode file \p Path into \p Ctx; the error is the parser's located
/// message. (The driver's stages share it.)
llvm::Expected<std::unique_ptr<llvm::Module>> loadIRFile(llvm::StringRef Path,
                                                         llvm::LLVMContext &Ctx);

/// Loads the bitcode file \p Path, applies \p Fn and writes the result back.
llvm::Error rewriteBitcodeFile(llvm::StringRef Path,
                               llvm::function_ref<llvm::Error(llvm::Module &)> Fn);

} // namespace wsncc

#endif
