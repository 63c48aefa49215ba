//===- SimFirmware.h - what wsn-sim needs to know about a firmware ELF ----===//
//
// The simulator finds the trace runtime's symbols (spec/trace-format.md, and
// the symbol contract in trace-runtime/include/wsn/trace.h) with LLVM's Object
// library before handing the file to simavr, so that a missing file, a non-ELF,
// a non-AVR ELF or a firmware without the runtime is reported clearly.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_SIMFIRMWARE_H
#define WSN_SIM_SIMFIRMWARE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace wsn {
namespace sim {

/// AVR ELF files place data-space symbols at 0x800000 + address.
constexpr uint32_t AvrDataOffset = 0x800000;

struct FirmwareInfo {
  std::string Path;
  /// Data-space address and size of __wsn_trace (header + ring).
  uint32_t TraceAddr = 0;
  uint32_t TraceSize = 0;
  /// Byte addresses in flash of the break-point hooks.
  uint32_t CheckHook = 0;
  uint32_t ViolationHook = 0;
  /// Flash byte address where the interrupt vectors end (__trampolines_start); 0 if unknown.
  uint32_t VectorsEnd = 0;
  /// Data-space address of __wsn_node_id, when the firmware has it.
  std::optional<uint32_t> NodeIdAddr;
};

/// Reads the ELF at Path and locates the runtime symbols. Errors name the file.
llvm::Expected<FirmwareInfo> inspectFirmware(llvm::StringRef Path);

} // namespace sim
} // namespace wsn

#endif
