//===- Targets.h - the targets and MCUs wsn-cc builds for -------*- C++ -*-===//
//
// One row per supported MCU: its flash/RAM budget (what the program may use, checked after
// linking) and, for MSP430, the linker-script family in trace-runtime/platform/msp430.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_CC_TARGETS_H
#define WSN_CC_TARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace wsncc {

enum class TargetKind { AVR, MSP430, Host };

struct McuInfo {
  const char *Name;
  TargetKind Kind;
  uint32_t FlashBytes; ///< program memory usable by a wsn-cc build (0: unlimited)
  uint32_t RamBytes;   ///< data memory (0: unlimited)
  const char *LdFamily; ///< MSP430: linker script base name; empty otherwise
  /// MSP430: vectors in the table that ends at 0xFFFE (16 from 0xFFE0 on the F1xx, 32 from
  /// 0xFFC0 on the F2xx); 0 otherwise.
  unsigned VectorSlots = 0;
};

llvm::StringRef targetName(TargetKind K);
llvm::Expected<TargetKind> parseTarget(llvm::StringRef Name);
/// The MCU called \p Name for target \p K. An empty name picks the target's default
/// (host only: the others require --mcu).
llvm::Expected<const McuInfo *> findMcu(TargetKind K, llvm::StringRef Name);
llvm::ArrayRef<McuInfo> allMcus();

} // namespace wsncc

#endif
