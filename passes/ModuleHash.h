//===- ModuleHash.h - the instrumented module's identity hash -------------===//
//
// A trace is replayed only against the IR that produced it. The identity is a
// 32-bit FNV-1a hash of the module's textual IR, printed with the hash fields
// themselves (the `!wsn.module` hash operand and the initializer of
// `@__wsn_module_hash`) set to zero, and without the `; ModuleID` comment line
// (the module identifier is the file name the IR happened to be read from).
// See spec/trace-map.md, "Module hash".
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_MODULEHASH_H
#define WSN_PASSES_MODULEHASH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace llvm {
class Module;
}

namespace wsn {

/// FNV-1a, 32 bits (offset basis 0x811c9dc5, prime 0x01000193).
uint32_t fnv1a32(llvm::StringRef Bytes, uint32_t Seed = 0x811c9dc5u);
/// FNV-1a, 64 bits (offset basis 0xcbf29ce484222325, prime 0x100000001b3): the trace
/// map's content digest (spec/trace-map.md, "Content digest").
uint64_t fnv1a64(llvm::StringRef Bytes, uint64_t Seed = 0xcbf29ce484222325ull);

/// Hash of M as defined above; leaves M as it found it (the stored fields are
/// zeroed while printing and restored).
uint32_t hashModule(llvm::Module &M);

/// Computes the hash once instrumentation is finished and stores it in the
/// `!wsn.module` record (which must exist: TraceMetadata::setModuleInfo) and in
/// `@__wsn_module_hash` (an external `constant i32`, created if absent).
/// Returns the hash.
llvm::Expected<uint32_t> computeModuleHash(llvm::Module &M);

/// Recomputes the hash and compares it with the stored one; an error says
/// both values when they differ (the IR was changed after instrumentation).
llvm::Error checkModuleHash(llvm::Module &M);

} // namespace wsn

#endif
