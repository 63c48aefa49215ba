//===- ErrorPaths.h - wsn-replay --emit-error-paths ------------------------===//
//
// Thesis section 4.4: tracing is iterative. A level-n replay localises the
// fault to the functions it traced; the error-propagation paths it observed
// (from the violation back through the dependences it executed) restrict the
// level-(n+1) build to the functions around them (Algorithm 4). wsn-replay
// writes those paths in the `--error-paths` format (spec/analysis.md section
// 5) so that `wsn-cc --next-level=FILE` builds the next level from them:
//
//  - the sink: the violated invariant (or, for a failed `--check`, none);
//  - for each global the invariant (check) read: its last writer in the
//    replayed run (the store watch: the statement's function, or the
//    function it was inlined into; or the skipped call whose recorded effect
//    wrote it);
//  - the path: the shortest walk of the build's PFDG (`!wsn.pfdg`, written by
//    the instrumentation) from the writer to the sink, so every line is
//    accepted by wsn-cc (consecutive names joined by a PFDG edge).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_TOOLS_ERRORPATHS_H
#define WSN_TOOLS_ERRORPATHS_H

#include "Preprocessor.h"
#include "ReplayEngine.h"
#include "TraceMap.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace wsn {

/// The PFDG a build was selected from (`!wsn.pfdg`).
struct PfdgView {
  bool Present = false;
  unsigned Level = 0;
  std::vector<std::string> Names;
  std::vector<int> Levels; ///< -1: no level
  std::vector<std::vector<unsigned>> Adj; ///< undirected
  std::map<std::string, unsigned> Index;
  /// The shortest walk From..To (names), empty when unconnected.
  std::vector<std::string> path(unsigned From, unsigned To) const;
};

PfdgView readPfdg(const llvm::Module &M);

/// What the replay stopped on, to trace back from.
struct ErrorOrigin {
  std::string Sink;                 ///< the invariant function ("" for a check)
  std::string What;                 ///< "the violation of ... at record N"
  std::vector<std::string> Globals; ///< what the invariant / check read
  size_t Events = 0;                ///< events up to and including the stop
};

/// The text of the error-path file: `# wsn-level: N`, comments naming each
/// global's writer, and one path per line. Lines are deduplicated.
std::string errorPathsText(ReplayRunner &R, const PreprocessedTrace &P, const TraceMap &Map,
                           const PfdgView &G, const ErrorOrigin &O,
                           llvm::StringRef ProgramName, unsigned *NumPaths);

} // namespace wsn

#endif
