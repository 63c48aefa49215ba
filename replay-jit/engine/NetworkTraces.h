//===- NetworkTraces.h - which node traces to replay (thesis Algorithm 5) -===//
//
// From the per-node traces of a network run and the node where the violation
// was detected, follows RECV records back to the SEND records of their
// senders, node by node (thesis chapter 5, Algorithm 5, Theorem 5.2.1), and
// says which nodes' trace segments can have influenced the violation, the
// record range of each (earliest checkpoint .. last matched SEND, or the stop
// record on the violating node), and the replay order (the reverse of the
// search). spec/replay-log.md, section "Network trace selection".
//
//===----------------------------------------------------------------------===//
#ifndef WSN_REPLAY_ENGINE_NETWORKTRACES_H
#define WSN_REPLAY_ENGINE_NETWORKTRACES_H

#include "Preprocessor.h"
#include "TraceFormat.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace wsn {

/// The thesis's R_OP: which receive sites may affect a sent message (or an
/// invariant), and through how many of the latest messages received there.
struct RecvDependence {
  uint32_t RecvSite = 0;
  uint32_t Count = 0; ///< x of <R_ID, x>; 0 = every earlier message
};

/// R_OP per send site and per invariant. A site or invariant without an entry
/// is treated conservatively: every RECV between the checkpoint and the SEND
/// (or the stop record) may have affected it. An entry with an empty list is
/// R_OP = NULL: the message is originated by the node.
struct MessageDependences {
  std::map<uint32_t, std::vector<RecvDependence>> Sends;
  std::map<uint32_t, std::vector<RecvDependence>> Invariants;

  /// JSON: {"sends": {"SITE": [{"recv": R, "x": N}, ...]}, "invariants": {...}}.
  static llvm::Expected<MessageDependences> parseJSON(llvm::StringRef Text,
                                                      llvm::StringRef FileName);
  static llvm::Expected<MessageDependences> readFile(llvm::StringRef Path);
};

/// One node's decoded trace.
struct NodeTrace {
  uint16_t Node = 0;
  std::string Path;
  TraceHeader Header;
  std::vector<TraceRecord> Records;
  /// Index of the earliest CHECKPOINT record, if any.
  std::optional<size_t> Checkpoint;

  static llvm::Expected<NodeTrace> fromFile(const TraceFile &F, std::string Path);
  static llvm::Expected<NodeTrace> load(llvm::StringRef Path);
};

/// A RECV matched with its SEND.
struct MessageLink {
  uint16_t Sender = 0, Receiver = 0;
  uint32_t Seq = 0;
  size_t SendRecord = 0, RecvRecord = 0;
  uint32_t SendSite = 0, RecvSite = 0;
};

/// A RECV whose SEND could not be used.
struct UnresolvedMessage {
  uint16_t Receiver = 0, Sender = 0;
  uint32_t Seq = 0;
  size_t RecvRecord = 0;
  std::string Reason;
};

/// The part of one node's trace to replay.
struct NodeSegment {
  uint16_t Node = 0;
  std::string Path;
  size_t First = 0; ///< the earliest checkpoint (0 when there is none)
  size_t Last = 0;  ///< the last matched SEND, or the stop record
  bool HasCheckpoint = false;
  std::string LastWhat; ///< describeRecord of Last
  uint64_t FirstOffset = 0, LastOffset = 0; ///< file offsets
};

struct NetworkSelection {
  uint16_t ViolationNode = 0;
  std::optional<uint32_t> Invariant; ///< the violated invariant, if any
  size_t StopRecord = 0;
  StopKind Stop = StopKind::End;
  /// Replay order: the reverse of the order in which the search reached the
  /// nodes; the violating node comes last.
  std::vector<NodeSegment> ReplayOrder;
  std::vector<MessageLink> Links;
  std::vector<UnresolvedMessage> Unresolved;
  std::vector<uint16_t> NotSelected; ///< nodes with a trace that play no part
  std::vector<std::string> Warnings;
};

struct NetworkOptions {
  /// Start from this node instead of net.json's violating node (its stop
  /// record is then its first VIOLATION, else its last CHECK, else its last
  /// record).
  std::optional<uint16_t> StartNode;
  /// R_OP; default: conservative (see MessageDependences).
  MessageDependences Deps;
};

/// Algorithm 5 over already loaded traces.
llvm::Expected<NetworkSelection>
selectNetworkTraces(const std::map<uint16_t, NodeTrace> &Traces, uint16_t StartNode,
                    const MessageDependences &Deps = {});

/// Reads DIR/node<ID>/trace.wtr for every node directory and DIR/net.json
/// (the violating node), then runs Algorithm 5.
llvm::Expected<NetworkSelection> selectNetworkTraces(llvm::StringRef Dir,
                                                     const NetworkOptions &Opts = {});

void printNetworkSelection(llvm::raw_ostream &OS, const NetworkSelection &S);

} // namespace wsn

#endif
