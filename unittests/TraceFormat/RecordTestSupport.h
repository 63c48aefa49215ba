//===- RecordTestSupport.h - helpers of the record-kind tests ---*- C++ -*-===//
//
// Shared by the tests of one record kind each (EffectDeltaTest, CheckpointZTest, EffectCTest,
// InputShortTest), which compare the host runtime's bytes with TraceWriter's: the runtime's
// trace object as bytes, a writer of the runtime's geometry, and an error's message.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_UNITTESTS_TRACEFORMAT_RECORDTESTSUPPORT_H
#define WSN_UNITTESTS_TRACEFORMAT_RECORDTESTSUPPORT_H

#include "TraceFormat.h"
#include "wsn/trace.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace wsn::recordtest {

/// The host runtime writes its trace to a file at exit unless WSN_TRACE_OUT is empty; these
/// tests read it from memory. One instance for the program, set before main.
struct NoAutoTraceFile {
  NoAutoTraceFile() { setenv("WSN_TRACE_OUT", "", 1); }
};
inline const NoAutoTraceFile NoAutoTraceFileInstance{};

/// The host runtime's whole trace object (header, ring, check values), as a dump reads it.
inline std::vector<uint8_t> runtimeBytes() {
  auto *P = reinterpret_cast<const uint8_t *>(&__wsn_trace);
  return std::vector<uint8_t>(P, P + WSN_TRACE_FILE_SIZE);
}

/// A TraceWriter with the runtime's geometry and effect keys unless told otherwise.
inline TraceWriter writer(uint16_t Buf = WSN_TRACE_BUF_SIZE, uint16_t Seg = WSN_TRACE_SEG_SIZE,
                          unsigned Keys = WSN_TRACE_EFFECT_KEYS) {
  TraceWriter::Options O;
  O.BufSize = Buf;
  O.SegSize = Seg;
  O.ModuleHash = 0xC0FFEE42u;
  O.EffectKeys = Keys;
  auto W = TraceWriter::create(O);
  EXPECT_TRUE(bool(W));
  return std::move(*W);
}

inline std::string errorOf(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : "success";
}

} // namespace wsn::recordtest

#endif
