//===- MessageSites.h - wsn-trace: where messages are sent and received --===//
//
// LOG 6 of the thesis (Wang 2013, section 5.1): a SEND record right after a
// message is sent successfully and a RECV record right after one is received,
// both naming the message by its sender's sequence number, so that the
// preprocessor can follow a received message back to the sender's trace
// (Algorithm 5). This file decides which functions are a program's radio
// interface and how to read (peer, sequence number) there; the
// instrumentation inserts the wsn.send / wsn.recv ops (spec/instrumentation.md
// section 7).
//
// Three sources, first match wins:
//  - an annotation (WSN_MSG_SEND / WSN_MSG_RECV, wsn/net.h) on the send
//    function or the receive event of any stack; the project's CC2420 stack
//    (examples/radio/radio.h) uses it;
//  - TinyOS's CC2420 stack as nesC writes it ('$' or '__' separators): the
//    unique-send layer's Send.send (UniqueSendP, where the DSN is assigned)
//    and the unique-receive layer's Receive.receive event (UniqueReceiveP,
//    signalled once per message after the duplicate filter).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_MESSAGESITES_H
#define WSN_PASSES_MESSAGESITES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace wsn {

class TraceOpBuilder;
class IdAllocator;

/// Where a record field comes from, at the function's entry (receive) or at
/// its return (send).
struct MessageField {
  enum Kind { Arg, ArgMemory, Global } K = Arg;
  unsigned ArgNo = 0;    ///< Arg, ArgMemory
  uint32_t Offset = 0;   ///< ArgMemory: bytes from the pointer argument
  uint32_t Size = 2;     ///< ArgMemory, Global: 1 or 2 bytes, little endian
  std::string GlobalName; ///< Global
  std::string str() const;
};

/// One function of a radio interface.
struct MessageInterface {
  bool Send = true;    ///< else receive
  MessageField Peer;   ///< send: destination; receive: sender
  MessageField Seq;    ///< the sender's sequence number of the message
  /// Send: the SEND record is written only when the function returns 0
  /// (TinyOS SUCCESS, RADIO_SUCCESS).
  bool OkIsZero = true;
  std::string Source;  ///< "annotation" or "tinyos-cc2420"
  /// The message's payload (optional: `payload=argN[+OFF] len=F`): replay
  /// copies these bytes at the op, and `wsn-replay net` compares what the
  /// sender's replay sent with what the receiver's replay got.
  bool HasPayload = false;
  unsigned PayloadArg = 0;    ///< a pointer argument
  uint32_t PayloadOffset = 0; ///< bytes after it
  MessageField PayloadLen;    ///< the payload's length in bytes
};

/// Parses an annotation string: "wsn.send dest=F seq=F [ok=any]" or
/// "wsn.recv sender=F seq=F", F = argN | argN[OFF:SIZE] | @GLOBAL, either
/// with "payload=argN[+OFF] len=F" (both or neither).
/// nullopt when S is not a message annotation.
std::optional<llvm::Expected<MessageInterface>>
parseMessageAnnotation(llvm::StringRef S);

/// The radio-interface role of F, or nullopt. Errors: a malformed annotation,
/// or a field the function's signature cannot provide.
std::optional<llvm::Expected<MessageInterface>>
messageInterfaceOf(const llvm::Function &F);

/// True when F has a message role (any, even a malformed one): the
/// pre-instrumentation pipeline keeps such functions out of line.
bool hasMessageRole(const llvm::Function &F);

struct MessageOpStats {
  unsigned Sends = 0, Recvs = 0;
  /// The site id of each receive function (one site per function).
  std::vector<std::pair<uint32_t, const llvm::Function *>> RecvSites;
  std::vector<std::string> Warnings;
};

/// Inserts the LOG 6 ops, after the rest of the instrumentation. In a traced
/// function: wsn.recv after its entry op, wsn.send before the exit op of
/// every return. An untraced function (replay skips its calls): around each
/// call in a traced caller, wsn.recv before the call's skip span and wsn.send
/// after it. A send's op is guarded by its status when OkIsZero (the effect
/// op's value in replay).
llvm::Expected<MessageOpStats> insertMessageOps(llvm::Module &M, TraceOpBuilder &B,
                                                IdAllocator &Ids);

} // namespace wsn

#endif
