//===- ReplayStartCache.h - start a replay without parsing or lowering ----===//
//
// A firmware build is replayed many times (traces of many runs and nodes, the
// fidelity harness, a developer stepping through one failure). The object
// cache already spares JIT compilation; what a cached replay still spends is
// reading the replay IR, lowering it and hashing the lowered module to find
// the object (about 19 M of a cached replay's 30 M instructions). The start
// cache records, for exactly one set of inputs, what those steps produce: the
// object's key, the lowering's result (placement of the globals, function
// table, stack), the defined functions, and the program's own trace map.
//
// The key is a BLAKE3 hash of everything the result depends on: the bytes of
// the replay IR and of the firmware image, every lowering and run option the
// lowering reads, the LLVM version, the host triple and CPU, and the GNU build
// id of the running executable, so a rebuilt wsn-replay (whose lowering may
// differ) never reads an older record. A record that does not parse, or whose
// object is gone or damaged, is a miss: the replay takes the full path and
// writes the record again. spec/replay.md section 8.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_REPLAY_ENGINE_REPLAYSTARTCACHE_H
#define WSN_REPLAY_ENGINE_REPLAYSTARTCACHE_H

#include "ReplayEngine.h"

#include <optional>
#include <string>

namespace wsn {

class ReplayStartCache {
public:
  /// The cache for this program, image and options, or null when it cannot be
  /// used: no object cache (RO.JitCacheDir empty), --gdb, the store watch,
  /// an input that cannot be read, or an executable without a build id.
  static std::unique_ptr<ReplayStartCache> open(llvm::StringRef IRPath,
                                                const ReplayLoweringOptions &LO,
                                                const ReplayRunOptions &RO);

  struct Hit {
    std::unique_ptr<ReplayRunner> Runner;
    uint32_t ModuleHash = 0; ///< the program's (its trace map's) module hash
    std::string MapJSON;     ///< the program's own trace map, TraceMap::toJSON
  };
  /// The started runner, or nullopt on a miss (never an error: a miss takes
  /// the full path).
  std::optional<Hit> lookup(const ReplayRunOptions &RO) const;
  /// Records what a full start produced (R must come from ReplayRunner::create
  /// with the object cache on). Failures to write are ignored.
  void store(const ReplayRunner &R, const TraceMap &ProgramMap) const;

  const std::string &key() const { return Key; }

private:
  ReplayStartCache(std::string Dir, std::string Key)
      : Dir(std::move(Dir)), Key(std::move(Key)) {}
  std::string path() const;
  std::string Dir, Key;
};

/// The GNU build id of the running executable (hex), or "" when it has none.
std::string selfBuildId();

} // namespace wsn

#endif
