//===- SimFirmware.h - what wsn-sim needs to know about a firmware ELF ----===//
//
// The simulator finds the trace runtime's symbols (spec/trace-format.md, and
// the symbol contract in trace-runtime/include/wsn/trace.h) and the node-id
// variables TinyOS's tos-set-symbols patches, with LLVM's Object library,
// before handing the file to a core, so that a missing file, a non-ELF or an
// ELF for another machine (AVR and MSP430 run) is reported clearly. Firmware
// without the runtime runs too.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_SIMFIRMWARE_H
#define WSN_SIM_SIMFIRMWARE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wsn {
namespace sim {

/// AVR ELF files place data-space symbols at 0x800000 + address (MSP430 files
/// use the plain address: one address space).
constexpr uint32_t AvrDataOffset = 0x800000;

/// A variable that receives the node id (spec/wsn-sim.md, "Node ids").
struct IdSymbol {
  std::string Name;
  uint32_t Addr = 0; ///< data-space address
  uint32_t Size = 0; ///< 1 or 2 bytes are written (little-endian)
  /// Where the value must go: into the initial value of .data (the C startup
  /// copies it from flash), or straight into SRAM (.noinit). Zero-initialised
  /// variables (.bss) cannot be given a value before start: warned about.
  enum Kind { Data, NoInit, Bss } Where = Data;
  uint32_t DataOffset = 0; ///< offset in .data (Where == Data)
};

struct FirmwareInfo {
  std::string Path;
  /// ELF e_machine: EM_AVR (83) or EM_MSP430 (105); picks the node type.
  uint16_t Machine = 0;
  /// MSP430: the load (flash) address of .data's initial values, where node ids
  /// in .data are patched before the startup code copies them to RAM.
  uint32_t DataLoadAddr = 0;
  /// MSP430: the address of the .vectors section (0xFFE0 for a 16-slot table as on the
  /// msp430f1611, 0xFFC0 for the msp430f2617's 32 slots); 0 if the image has none.
  uint32_t Msp430VectorBase = 0;
  /// MSP430: the part the image was linked for: the msp430f2617 when its vector table starts
  /// at 0xFFC0 or its loadable bytes lie in 0x3100-0x3FFF or above 0xFFFF (the F2617's flash
  /// starts at 0x3100 and goes past 64 KB; the msp430f1611's is 0x4000-0xFFFF); else
  /// msp430f1611.
  std::string Msp430Part;
  /// Whether the firmware has the trace runtime (__wsn_trace and its hooks).
  bool HasRuntime = false;
  /// Data-space address and size of __wsn_trace (header + ring).
  uint32_t TraceAddr = 0;
  uint32_t TraceSize = 0;
  /// Byte addresses in flash of the break-point hooks.
  uint32_t CheckHook = 0;
  uint32_t ViolationHook = 0;
  /// Flash byte address where the interrupt vectors end (__trampolines_start); 0 if unknown.
  uint32_t VectorsEnd = 0;
  /// Data-space address of the runtime's __wsn_rt_skip_depth (skipped calls whose EFFECT is
  /// not written yet), when the firmware has it: --settle finishes such a call.
  std::optional<uint32_t> SkipDepthAddr;
  /// Data-space address of __wsn_node_id, when the firmware has it.
  std::optional<uint32_t> NodeIdAddr;
  /// Data-space address where the image's static RAM ends (.data, .bss, .noinit): avr-libc's
  /// `_end`, the project's MSP430 crt0 `__wsn_noinit_end`. A stack that grows below it has
  /// run into the globals (the trace ring last): wsn-sim stops the node as crashed.
  std::optional<uint32_t> RamEnd;
  /// TOS_NODE_ID, ActiveMessageAddressC$addr / ActiveMessageAddressC__addr
  /// and __wsn_node_id, those the image has.
  std::vector<IdSymbol> IdSymbols;
  /// --count-pc: names and flash byte addresses whose execution is counted
  /// (filled by the tool, codeAddress).
  std::vector<std::pair<std::string, uint32_t>> CountPcs;
};

/// The names of the node-id variables, as tos-set-symbols knows them.
extern const char *const NodeIdSymbolNames[4];

/// The flash byte address of function symbol Name, or of "0xADDR" given as a
/// number. Errors name the file and the symbol.
llvm::Expected<uint32_t> codeAddress(llvm::StringRef Path, llvm::StringRef Name);

/// Reads the ELF at Path and locates the runtime symbols. Errors name the file.
llvm::Expected<FirmwareInfo> inspectFirmware(llvm::StringRef Path);

} // namespace sim
} // namespace wsn

#endif
