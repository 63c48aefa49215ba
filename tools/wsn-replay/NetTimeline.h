//===- NetTimeline.h - a network replay as a timeline and as a graph ------===//
//
// wsn-replay net --timeline FILE: the replayed events of every selected node
// in the Chrome / Perfetto trace-event JSON format ({"traceEvents": [...]}):
// one process track per node, tasks and functions ("B"/"E" pairs) and
// interrupt handlers as slices, invariant checks as instants, messages as
// flow events ("s" at the sender's SEND, "f" with "bp":"e" at the receiver's
// RECV) bound to one-unit "X" slices at those points.
//
// The trace has no clock, so "ts" is a Lamport clock over happened-before
// (thesis chapter 5): each event of a node one unit after the previous one,
// and a RECV after the SEND of its message. Units are reported as
// microseconds (the format's unit); durations mean nothing beyond order.
//
// wsn-replay net --hb FILE: the happened-before graph in Graphviz DOT: per
// node a chain of its SEND, RECV, start and stop events in record order,
// and an edge from each followed message's SEND to its RECV.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_TOOLS_NETTIMELINE_H
#define WSN_TOOLS_NETTIMELINE_H

#include "ReplayEngine.h"
#include "TraceMap.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wsn {

/// One replayed node, as the timeline needs it.
struct TimelineNode {
  uint16_t Node = 0;
  const TraceMap *Map = nullptr;
  std::vector<ReplayEvent> Events; ///< in order
  std::string Label;               ///< e.g. "node 3 (netsense.elf)"
  size_t StartRecord = 0;          ///< the replay's start checkpoint
  std::string StopWhat;            ///< how its replay ended
};

/// A followed message: the records on both sides.
struct TimelineMessage {
  uint16_t Sender = 0, Receiver = 0;
  uint32_t Seq = 0;
  size_t SendRecord = 0, RecvRecord = 0;
};

/// Writes the trace-event JSON.
void writeTimeline(llvm::raw_ostream &OS, const std::vector<TimelineNode> &Nodes,
                   const std::vector<TimelineMessage> &Msgs);

/// Writes the happened-before graph as DOT.
void writeHappenedBefore(llvm::raw_ostream &OS, const std::vector<TimelineNode> &Nodes,
                         const std::vector<TimelineMessage> &Msgs);

} // namespace wsn

#endif
