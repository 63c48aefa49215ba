//===- Targets.cpp - the targets and MCUs wsn-cc builds for ---------------===//
#include "Targets.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace wsncc {

// Budgets: ATmega128 (MicaZ) 128K flash / 4K SRAM; ATmega1281 (IRIS) 128K / 8K.
// MSP430F1611 (TelosB): 48K flash (0x4000-0xFFFF incl. vectors) / 10K RAM.
// MSP430F2617 (Z1): 92K flash of which the 16-bit (near) part 0x3100-0xFFFF is what a
// program compiled with the default small memory model can use (code above 64K needs the
// 430X large model, which clang does not generate); 8K RAM.
static const McuInfo Mcus[] = {
    {"atmega128", TargetKind::AVR, 128u * 1024, 4096, "", 0},
    {"atmega1281", TargetKind::AVR, 128u * 1024, 8192, "", 0},
    {"msp430f1611", TargetKind::MSP430, 0x10000 - 0x4000, 10240, "msp430x16x", 16},
    {"msp430f2617", TargetKind::MSP430, 0x10000 - 0x3100, 8192, "msp430x26x", 32},
    {"host", TargetKind::Host, 0, 0, "", 0},
};

ArrayRef<McuInfo> allMcus() { return Mcus; }

StringRef targetName(TargetKind K) {
  switch (K) {
  case TargetKind::AVR:
    return "avr";
  case TargetKind::MSP430:
    return "msp430";
  case TargetKind::Host:
    return "host";
  }
  return "?";
}

Expected<TargetKind> parseTarget(StringRef Name) {
  for (TargetKind K : {TargetKind::AVR, TargetKind::MSP430, TargetKind::Host})
    if (Name == targetName(K))
      return K;
  return createStringError(inconvertibleErrorCode(),
                           formatv("unknown --target={0} (known: avr, msp430, host)",
                                   Name.empty() ? "<empty>" : Name));
}

Expected<const McuInfo *> findMcu(TargetKind K, StringRef Name) {
  std::string Known;
  for (const McuInfo &M : Mcus) {
    if (M.Kind != K)
      continue;
    if (Name == M.Name || (Name.empty() && K == TargetKind::Host))
      return &M;
    Known += Known.empty() ? "" : ", ";
    Known += M.Name;
  }
  if (Name.empty())
    return createStringError(inconvertibleErrorCode(),
                             formatv("--target={0} needs --mcu=MCU (known: {1})",
                                     targetName(K), Known));
  return createStringError(inconvertibleErrorCode(),
                           formatv("unknown --mcu={0} for --target={1} (known: {2})", Name,
                                   targetName(K), Known));
}

} // namespace wsncc
