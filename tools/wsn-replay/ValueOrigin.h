//===- ValueOrigin.h - `why` across nodes: a value's writes back to its source -===//
//
// The net REPL's `why X` (wsn-replay net -i, spec/replay.md section 9.1)
// walks a value back through the writes that produced it: the store that
// wrote X, the bytes that store's value was computed from (the replay
// lowering's store sources), the writes of those bytes, and so on. When a
// source is a received message's payload (still the bytes the RECV delivered),
// the walk crosses the RECV -> SEND link to the sender's replay and goes on
// from the same payload bytes as the sender held them when it sent the
// message: relay -> relay -> source.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_TOOLS_VALUEORIGIN_H
#define WSN_TOOLS_VALUEORIGIN_H

#include "Preprocessor.h"
#include "ReplayEngine.h"
#include "TraceMap.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>

namespace wsn {

/// One node's replay, with the store history of its last run
/// (StoreWatch::KeepHistory, events built live).
struct OriginView {
  uint16_t Node = 0;
  ReplayRunner *R = nullptr;
  const PreprocessedTrace *P = nullptr;
  const TraceMap *Map = nullptr;
};

/// The sender of a message, replayed at least up to its SEND record.
struct OriginSender {
  OriginView View;
  size_t SendRecord = 0;
};

struct OriginWalkOptions {
  /// Replays node Sender (if it is one of the replayed nodes) so that its run
  /// covers its SEND of message Seq to Receiver; returns the view and the
  /// SEND record, or an explanation why not.
  std::function<std::variant<OriginSender, std::string>(uint16_t Sender, uint32_t Seq,
                                                        uint16_t Receiver)>
      FindSender;
  /// "    89 | <text>" for a location string, or "".
  std::function<std::string(llvm::StringRef Loc)> SourceLine;
  unsigned MaxSteps = 40;
};

/// Prints the chain of writes behind the bytes [Addr, Addr+Size) of node V
/// at the end of its last run (the REPL's current event).
void printValueOrigin(llvm::raw_ostream &OS, const OriginView &V, uint32_t Addr,
                      uint32_t Size, const OriginWalkOptions &O);

} // namespace wsn

#endif
