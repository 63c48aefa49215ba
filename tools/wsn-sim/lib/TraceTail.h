//===- TraceTail.h - can replay of this trace end where the node stopped? -===//
//
// The questions a bound search asks of the trace read at a cycle bound
// (spec/wsn-sim.md, --bound-moves): does the retained tail hold a CHECKPOINT
// to start from, and does it end at a point replay can name (not inside a
// skipped call, not right after a CHECK with no record open, not inside an
// interrupt handler)? bench/fidelity/tracetail.py answers the same questions
// from wsn-trace-dump's output for the harnesses that still run wsn-sim once
// per bound; the two must agree (lit wsn-sim/bound-moves.test; unit cases in
// unittests/Preprocessor/TraceTailTest.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_TRACETAIL_H
#define WSN_SIM_TRACETAIL_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace wsn {
namespace sim {

struct TraceTail {
  /// The image starts with a trace header ("WTRB", spec/trace-format.md section 1); false
  /// when the runtime had not written one yet (wsn-sim then writes the raw object).
  bool HasHeader = false;
  /// Header flags bit 1: the runtime opened the VIOLATION record.
  bool ViolationFlag = false;
  /// wsn-trace-dump would list the records: the file parses, decodes and no retained
  /// segment is damaged. When false the next four are the "let replay say what is wrong"
  /// answer: HasCheckpoint true, the others false.
  bool Readable = false;
  bool HasCheckpoint = false;
  /// More SKIP_BEGIN than SKIP_END, or the last record is a SKIP_END (its EFFECT, written
  /// right after it, is torn or not begun).
  bool InSkippedCall = false;
  /// No record open and the last record is a CHECK: the trace reads as stopped at that check.
  bool AtCheck = false;
  /// More IRQ than IRQ_EXIT records (never counting below zero: a wrapped tail can keep an
  /// IRQ_EXIT whose IRQ was overwritten).
  bool InHandler = false;

  /// A replay of the trace can start (a header and a checkpoint) and end where the node is.
  bool replayable() const {
    return HasHeader && HasCheckpoint && !InSkippedCall && !AtCheck && !InHandler;
  }
};

/// Reads Trace (a .wtr image as wsn-sim writes trace.wtr).
TraceTail readTraceTail(llvm::ArrayRef<uint8_t> Trace);

} // namespace sim
} // namespace wsn

#endif
