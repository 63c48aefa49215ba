//===- SimavrOracle.h - run an AVR ELF in simavr until a marker -----------===//
//
// The fidelity oracle of the replay tests (DESIGN-BRIEF section 3): runs the
// firmware in libsimavr until the program counter reaches a marker function
// and returns the data space. Kept small on purpose; the product simulator is
// tools/wsn-sim.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_UNITTESTS_REPLAY_SIMAVRORACLE_H
#define WSN_UNITTESTS_REPLAY_SIMAVRORACLE_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wsn {

struct SimavrRun {
  std::vector<uint8_t> Data; ///< data space, index = data address
  uint64_t Cycles = 0;
};

/// Runs ElfPath on MCU until the PC reaches the code address of function
/// Marker. Errors: unreadable ELF, unknown marker, crash, or no marker within
/// MaxCycles.
llvm::Expected<SimavrRun> runSimavrToMarker(const std::string &ElfPath,
                                            const std::string &MCU,
                                            const std::string &Marker,
                                            uint64_t MaxCycles = 200000000);

} // namespace wsn

#endif
