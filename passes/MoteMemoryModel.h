//===- MoteMemoryModel.h - the mote address space as seen by replay -------===//
//
// Replay keeps the mote's data space (DESIGN-BRIEF section 3; thesis section
// 4.2, where replay executes the mote program on the desktop): a host byte
// array mirrors the mote's data addresses, pointers stay target-width
// integers, and every global sits at its address in the firmware image.
// This header describes the target (sizes and special addresses) and the
// placement of globals and functions, read from the firmware ELF with LLVM's
// Object library.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_MOTEMEMORYMODEL_H
#define WSN_PASSES_MOTEMEMORYMODEL_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class DataLayout;
class Module;
class Type;
}

namespace wsn {

enum class MoteArch { AVR, MSP430 };

/// Size of the host array that mirrors the data space. Every 16-bit address is
/// inside it, plus slack so that an 8-byte access at 0xFFFF stays in bounds.
constexpr uint32_t ReplayMemBytes = 0x10000 + 16;

/// What replay needs to know about a mote MCU.
struct MoteTarget {
  MoteArch Arch = MoteArch::AVR;
  std::string MCU;
  /// [IOBegin, IOEnd): memory-mapped registers (reads are nondeterministic).
  uint32_t IOBegin = 0, IOEnd = 0;
  /// [RamBegin, RamEnd): SRAM.
  uint32_t RamBegin = 0, RamEnd = 0;
  /// The replay stack grows down from here (exclusive).
  uint32_t StackTop = 0;
  /// Function pointers hold code address >> CodePtrShift (AVR: word address).
  unsigned CodePtrShift = 0;
  /// AVR: data address of SREG (modelled: cli/sei update bit 7). 0 if none.
  uint32_t SREGAddr = 0;
  /// AVR: ELF data symbols carry this offset.
  uint64_t ElfDataOffset = 0;

  const char *archName() const {
    return Arch == MoteArch::AVR ? "avr" : "msp430";
  }
  bool isIOAddress(uint64_t A) const { return A >= IOBegin && A < IOEnd; }
  /// I/O registers that read back what the program last wrote (AVR PORTx,
  /// DDRx, MCUCR, TIMSK, EIMSK): output latches and control bits that the
  /// hardware does not change. The instrumentation treats their reads as
  /// deterministic when no interrupt handler writes them, and checkpoints
  /// their values (spec/instrumentation.md, "Latch registers").
  std::vector<uint16_t> Latches;
  bool isLatch(uint64_t A) const {
    return std::find(Latches.begin(), Latches.end(), A) != Latches.end();
  }
};

/// The name of the symbol that stands for latch register Addr in
/// checkpoints and effects ("__wsn_io_0x3b"); the record lowering uses Addr in
/// its place and the replay lowering places it at Addr.
std::string latchSymbolName(uint32_t Addr);
/// The address encoded in a latch symbol name, if Name is one.
std::optional<uint32_t> parseLatchSymbolName(llvm::StringRef Name);
/// The end of the I/O register space over every known MCU of a trace target ("avr",
/// "msp430"): the bound of a latch symbol's address when the MCU is not known (the
/// trace map names only the target). 0 for "host" and unknown targets (no registers).
uint32_t ioSpaceEndOfTarget(llvm::StringRef Target);

/// Appends to Out the offsets (from Off) of the bytes of Ty, in the layout DL, that no scalar
/// member covers: struct holes and tail padding, recursively through arrays and nested
/// structs (at most about 4096 offsets). C leaves their values unspecified (a struct copy may
/// carry any bytes there), so replay neither compares them nor lets them enter an invariant's
/// check checksum (spec/replay.md section 4).
void collectPaddingOffsets(const llvm::DataLayout &DL, llvm::Type *Ty, uint64_t Off,
                           std::vector<uint32_t> &Out);

/// The runs (offset, length) of the first Size bytes of Ty that are not padding
/// (collectPaddingOffsets), in address order: what a check checksum covers of an input.
std::vector<std::pair<uint32_t, uint32_t>> nonPaddingRuns(const llvm::DataLayout &DL,
                                                          llvm::Type *Ty, uint32_t Size);

/// Known MCUs; the name is clang's -mmcu (also the "target-cpu" attribute on
/// AVR functions). Unknown names are an error listing the known ones.
llvm::Expected<MoteTarget> lookupMoteTarget(llvm::StringRef MCU);

/// The target of a mote module: MCUOverride if given, else the functions'
/// "target-cpu" (AVR), else the default MCU of the triple (atmega128,
/// msp430f1611). Errors on a module that is not avr/msp430.
llvm::Expected<MoteTarget> moteTargetForModule(const llvm::Module &M,
                                              llvm::StringRef MCUOverride);

/// One symbol of the firmware image.
struct MoteSymbol {
  uint64_t Addr = 0; // data address (AVR: without 0x800000) or code byte address
  uint64_t Size = 0;
  bool InRam = true; // false: a constant in flash (MSP430 .rodata in the unified space)
};

/// The placement read from a linked firmware ELF.
struct MoteImage {
  std::string Path;
  MoteArch Arch = MoteArch::AVR;
  llvm::StringMap<MoteSymbol> Data; // STT_OBJECT (and NOTYPE in data sections)
  llvm::StringMap<MoteSymbol> Code; // STT_FUNC
  std::optional<uint32_t> StackTop; // from __stack (AVR) / __stack or _estack
  uint32_t DataEnd = 0; // one past the highest data symbol in RAM (first free byte)
  /// AVR program memory: objects placed in flash (PROGMEM, section .progmem.data), by
  /// their flash byte address.
  llvm::StringMap<MoteSymbol> Progmem;
  /// MSP430: absolute symbols in the peripheral space (below 0x200), e.g. mspgcc's register
  /// names `__P1IFG` = 0x23 that nesC output declares with asm labels; their address only.
  llvm::StringMap<MoteSymbol> Absolute;
  /// AVR: the bytes of the flash image (allocated PROGBITS sections below the data space,
  /// at their addresses); what `lpm` reads. Bytes the image does not program read 0xFF
  /// (erased flash).
  std::vector<uint8_t> Flash;
};

/// Reads the symbol table of a linked AVR or MSP430 ELF. Errors name the file
/// and what is wrong.
llvm::Expected<MoteImage> readMoteImage(llvm::StringRef Path);

} // namespace wsn

#endif
