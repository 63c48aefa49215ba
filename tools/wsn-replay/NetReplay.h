//===- NetReplay.h - wsn-replay net: several nodes of a network run -------===//
//
// wsn-replay net DIR [--start-node N] [--deps FILE] [--segment-only] [--json]
//                    [--timeout S] [--jit-cache DIR | --no-jit-cache]
//
// DIR is a `wsn-sim net` output. Thesis chapter 5: Algorithm 5 picks, from
// the violating node's trace backwards through RECV -> SEND links, the nodes
// whose traces can have influenced the violation (each choice printed with
// its reason); the selected nodes are replayed in one process, in the
// selection's order (senders before receivers, Theorem 5.2.1); each followed
// message is checked across nodes: the receiver's replay received exactly
// the message (sender, sequence number) the sender's replay sent.
// spec/replay.md section 9.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_TOOLS_NETREPLAY_H
#define WSN_TOOLS_NETREPLAY_H

namespace wsn {

/// argv[0] is "net"; returns wsn-replay's exit code.
int netReplayMain(int argc, char **argv);

} // namespace wsn

#endif
