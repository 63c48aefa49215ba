//===- TraceMap.h - ids of a trace mapped back to the program -------------===//
//
// The trace map (OUT.wmap, JSON; spec/trace-map.md) says what every id in a
// trace means: which function a fid is, which handler an irq is, where a site
// is, what bytes a checkpoint / effect / checksum covers. It is produced from
// the instrumented module's `!wsn.*` metadata alone and read by
// wsn-trace-dump and wsn-replay.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_TRACEMAP_H
#define WSN_PASSES_TRACEMAP_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace wsn {

/// The global every anchor stores the status register (AVR SREG, MSP430 SR)
/// into before its checkpoint (spec/instrumentation.md section 5). It is
/// part of every checkpoint; replay starts its status model from it and
/// compares only its interrupt-enable bit, like a "status" local.
constexpr const char *AnchorStatusGlobal = "__wsn_anchor_status";


struct TraceMap {
  struct Function {
    uint32_t Id = 0;
    std::string Name;
    std::string File; ///< "" without debug info
    unsigned Line = 0;
    bool operator==(const Function &O) const;
  };
  struct Irq {
    uint32_t Id = 0;
    std::string Function;
    uint32_t Vector = 0;
    std::string VectorName;
    bool operator==(const Irq &O) const;
  };
  struct Site {
    uint32_t Id = 0;
    std::string Kind; ///< region, input, input.bytes, send, recv, skip
    std::string Function;
    std::string File;
    unsigned Line = 0, Col = 0;
    bool operator==(const Site &O) const;
  };
  struct Var {
    bool IsGlobal = true;
    std::string Name; ///< global symbol, or the local's name
    uint32_t Size = 0;
    std::string CType;
    /// A local holding a copy of the status register (kind "status"):
    /// replay compares only its interrupt-enable bit.
    bool IsStatus = false;
    bool operator==(const Var &O) const;
  };
  struct Anchor {
    uint32_t Id = 0;
    std::string Function;
    std::vector<Var> Vars; ///< record order: globals, then locals
    /// Position in the map file's `anchors` array (parseJSON; fromModule: the sorted
    /// position), for messages that name the entry. Not part of ==.
    uint32_t Index = 0;
    uint32_t recordSize() const;
    bool operator==(const Anchor &O) const;
  };
  struct Invariant {
    uint32_t Id = 0;
    std::string Function;
    std::vector<Var> Inputs; ///< CRC order
    /// R_OP (`recvs`): the RECV sites whose received data is in the
    /// invariant's value slice; absent when the program has no receive site.
    std::optional<std::vector<uint32_t>> Recvs;
    /// Where the invariant function is defined (`file`, `line`; optional: an invariant
    /// may have no ENTRY/EXIT and so no `functions` entry, spec/instrumentation.md 7.3).
    std::string File;
    uint32_t Line = 0;
    bool operator==(const Invariant &O) const;
  };
  struct Effect {
    uint32_t Site = 0;
    std::string Callee; ///< "" for an indirect call
    uint32_t ReturnSize = 0;
    std::vector<Var> Writes;
    /// The short form's globals (spec/trace-format.md section 2.1, "Short effects"): the
    /// indices into Writes, increasing, of what a record of shortRecordSize() bytes holds.
    /// The whole record holds every global of Writes once.
    std::optional<std::vector<uint32_t>> Short;
    /// Position in the map file's `effects` array, as Anchor::Index. Not part of ==.
    uint32_t Index = 0;
    uint32_t recordSize() const;
    /// The short form's size (recordSize() when the effect has none).
    uint32_t shortRecordSize() const;
    /// The globals a payload of Size bytes holds, in payload order: the short form's
    /// when Size is its size and not the whole record's, else every global.
    std::vector<Var> writesFor(size_t Size) const;
    /// Whether an EFFECT payload of Size bytes is one of this site's forms.
    bool acceptsSize(size_t Size) const {
      return Size == recordSize() || Size == shortRecordSize();
    }
    bool operator==(const Effect &O) const;
  };
  struct Task {
    uint32_t Id = 0;
    std::string Function;
    bool operator==(const Task &O) const;
  };

  unsigned FormatVersion = 1;
  std::string Target;
  uint32_t ModuleHash = 0;
  uint32_t BufSize = 0;
  uint32_t SegSize = 0;
  std::vector<Function> Functions;
  std::vector<Irq> Irqs;
  std::vector<Site> Sites;
  std::vector<Anchor> Anchors;
  std::vector<Invariant> Invariants;
  std::vector<Effect> Effects;
  std::vector<Task> Tasks;

  // Lookup by id (nullptr when absent). Vectors are sorted by id.
  const Function *function(uint32_t Id) const;
  const Irq *irq(uint32_t Id) const;
  const Site *site(uint32_t Id) const;
  const Anchor *anchor(uint32_t Id) const;
  const Invariant *invariant(uint32_t Id) const;
  const Effect *effect(uint32_t Site) const;
  const Task *task(uint32_t Id) const;

  bool operator==(const TraceMap &O) const;
  /// The first entry replay would read differently from \p Program's map (the replay IR's
  /// own, TraceMap::fromModule): e.g. "anchors[0] (anchor 1) vars[3]: global 'X' (2 bytes)
  /// where the program has global 'Y' (2 bytes)"; std::nullopt when the two agree. A map
  /// file is checked against the replay IR with it, so that a map edited and resealed (its
  /// digest recomputed) cannot move a checkpoint's bytes into other globals.
  std::optional<std::string> differenceFrom(const TraceMap &Program) const;
  bool operator!=(const TraceMap &O) const { return !(*this == O); }

  /// From the `!wsn.*` metadata of an instrumented module.
  static llvm::Expected<TraceMap> fromModule(const llvm::Module &M);
  /// JSON text (spec/trace-map.md), deterministic, ending with a newline; its
  /// second line is the content digest of the lines after it.
  std::string toJSON() const;

  /// Whether parseJSON verifies the content digest. Only the fuzz targets skip it (to
  /// reach the checks behind it with mutated maps); every tool requires it.
  enum class Digest { Require, Skip };
  /// Errors name FileName and the entry / key that is wrong. Checks, in order: the JSON,
  /// every entry's keys and types, the sanity bounds (ring geometry, record sizes against
  /// a segment, sizes against the data space, latch addresses against the target's I/O
  /// space), unique ids, then the content digest.
  static llvm::Expected<TraceMap> parseJSON(llvm::StringRef Text,
                                            llvm::StringRef FileName,
                                            Digest Check = Digest::Require);
  /// The digest line toJSON() puts on the map's second line for Body, the bytes after
  /// that line: `  "digest": "fnv1a64:<16 hex digits>",\n`.
  static std::string digestLine(llvm::StringRef Body);
  static llvm::Expected<TraceMap> readFile(llvm::StringRef Path);
  llvm::Error writeFile(llvm::StringRef Path) const;

  /// Sorts every vector by id (fromModule and parseJSON do this).
  void sort();
};

} // namespace wsn

#endif
