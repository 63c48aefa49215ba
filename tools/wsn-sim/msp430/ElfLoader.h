// ElfLoader.h - load an MSP430 ELF32 image (EM_MSP430) into the core's memory: every
// PT_LOAD segment's file bytes at its physical (load) address.
#ifndef WSN_MSP430_ELFLOADER_H
#define WSN_MSP430_ELFLOADER_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wsn::msp430 {

class Cpu;

struct ElfSegment {
  uint32_t Address; ///< physical (load) address
  std::vector<uint8_t> Bytes;
};

struct ElfImage {
  uint32_t Entry = 0;
  std::vector<ElfSegment> Segments;
};

/// Parse the file; errors name the file and what is wrong with it.
absl::StatusOr<ElfImage> readElf(const std::string &Path);
/// Copy the segments into C's memory (all must fit its address space) and power the core on
/// (PC from the reset vector at 0xFFFE).
absl::Status loadElf(Cpu &C, const ElfImage &Image, const std::string &Path);

} // namespace wsn::msp430

#endif
