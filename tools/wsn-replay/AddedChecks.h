//===- AddedChecks.h - wsn-replay --check: checks added after the fact -----===//
//
// A recorded trace answers more questions than the invariants the firmware
// was built with. `--check 'NAME: EXPR'` compiles the C expression EXPR over
// the program's globals with clang, for the mote's own target (so that int
// widths, promotions and struct layouts are the mote's), into a function that
// is moved into the replay module before it is lowered: the lowering then
// reads the globals from the replay memory model like any other code. The
// firmware is not rebuilt, the replay IR file is unchanged (its hash is still
// checked against the recorded image), and the program replay executes is
// the same; the engine calls the check functions after the events.
//
// A check may read only what the trace reconstructs: the globals the start
// checkpoint restores and constants. Others are refused, naming each missing
// global and the tracing level that would put it into the checkpoints
// (`!wsn.global_levels`, written by the instrumentation). spec/replay.md
// section "Checks added after the fact".
//
//===----------------------------------------------------------------------===//
#ifndef WSN_TOOLS_ADDEDCHECKS_H
#define WSN_TOOLS_ADDEDCHECKS_H

#include "ReplayEngine.h"
#include "TraceMap.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>

#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace wsn {

struct AddedCheck {
  std::string Name;               ///< as given before the colon
  std::string Expr;               ///< the C expression
  std::string Function;           ///< the compiled function in the replay module
  std::vector<std::string> Reads; ///< the globals it reads (IR names)
  uint8_t (*Fn)() = nullptr;      ///< after ReplayRunner lookup
};

/// Parses "NAME: EXPR" (NAME a C identifier).
llvm::Expected<AddedCheck> parseCheckSpec(llvm::StringRef Spec);

/// Compiles the checks with clang and moves them into M (the replay IR, not
/// yet lowered). Allowed: the globals replay reconstructs (the start
/// anchor's checkpoint globals and constants). Errors name the check.
llvm::Error compileChecks(llvm::Module &M, const TraceMap &Map, uint32_t StartAnchor,
                          std::vector<AddedCheck> &Checks);

/// Looks the compiled functions up in the JIT'd program.
llvm::Error resolveChecks(ReplayRunner &R, std::vector<AddedCheck> &Checks);

/// "check 'NAME' (EXPR) FAILED after event N [record R]: <event>" and the
/// values of the globals it reads, one per line.
std::string describeCheckFailure(ReplayRunner &R, const TraceMap &Map, const AddedCheck &C,
                                 size_t Event);

/// The JSON report's "added_checks": each check, whether it failed and where.
llvm::json::Object checksJSON(ReplayRunner &R, const TraceMap &Map,
                              const std::vector<AddedCheck> &Checks,
                              std::optional<size_t> Failed, size_t Event,
                              size_t Evaluations);

/// C declarations of M's globals from their debug info (and the trace map's
/// C types for globals without), the prelude the expressions compile in.
std::string globalDeclarations(const llvm::Module &M, const TraceMap &Map);

} // namespace wsn

#endif
