//===- Repl.h - wsn-replay -i: the interactive replay REPL -----------------===//
//
// The REPL walks a replayed execution event by event (thesis section 4.2:
// the replayed run can be inspected with ordinary debugging means). Replay is
// deterministic and fast, so every movement (continue, step-event) re-runs
// the replay from the start checkpoint up to the wanted event index
// (ReplayRunOptions::BreakAt). Commands are described in spec/replay.md,
// section "Interactive replay".
//
//===----------------------------------------------------------------------===//
#ifndef WSN_TOOLS_REPL_H
#define WSN_TOOLS_REPL_H

#include "AddedChecks.h"
#include "Preprocessor.h"
#include "ReplayEngine.h"
#include "TraceMap.h"
#include "ValueOrigin.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <vector>

namespace wsn {

struct ReplOptions {
  /// The replay IR (for the C types of globals from debug info); may be empty.
  std::string IRPath;
  /// Print the prompt "(wsn) " before reading; when false, each command read
  /// is echoed after "(wsn) " so that a scripted session reads like a
  /// terminal one.
  bool Interactive = false;
  /// Checks given with --check (compiled into R's program): `continue` stops
  /// where one fails; `checks` lists them.
  std::vector<AddedCheck> Checks;
  /// Builds a runner whose program also holds these compiled expressions
  /// (their Fn resolved), for `break FUNC if EXPR`; null: conditions are
  /// refused.
  std::function<llvm::Expected<std::unique_ptr<ReplayRunner>>(std::vector<AddedCheck> &)>
      Rebuild;
  /// wsn-replay net -i: `why` also walks the writes behind the value back
  /// across received messages (ValueOrigin.h); Node is this replay's node.
  /// The runner must keep its store history (StoreWatch::KeepHistory).
  std::optional<OriginWalkOptions> Origin;
  uint16_t Node = 0;
};

/// Reads commands from In until `quit` or end of input; returns the exit code
/// (0, or 2 when the replay cannot start). R must have been created with
/// ReplayLoweringOptions::WatchStores for `why` to know about stores.
int runRepl(ReplayRunner &R, const PreprocessedTrace &P, const TraceMap &Map,
            std::istream &In, llvm::raw_ostream &OS, const ReplOptions &Opts);

/// The same, on stdin, with a prompt when stdin is a terminal (Opts.Interactive
/// is set from that).
int runRepl(ReplayRunner &R, const PreprocessedTrace &P, const TraceMap &Map,
            llvm::raw_ostream &OS, ReplOptions Opts);

} // namespace wsn

#endif
