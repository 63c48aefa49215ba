//===- RecordTestSupport.h - helpers of the record-kind tests ---*- C++ -*-===//
//
// Shared by the tests of one record kind each (EffectDeltaTest, CheckpointZTest, EffectCTest,
// InputShortTest, EffectZTest, ControlRecordsTest), which compare the host runtime's bytes with TraceWriter's: the runtime's
// trace object as bytes, a writer of the runtime's geometry, an error's message, a whole file
// decoded, and an effect table as the lowering emits it.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_UNITTESTS_TRACEFORMAT_RECORDTESTSUPPORT_H
#define WSN_UNITTESTS_TRACEFORMAT_RECORDTESTSUPPORT_H

#include "TraceFormat.h"
#include "wsn/trace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "gtest/gtest.h"

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>
#include <optional>
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

/// A test that drives the host runtime against TraceWriter: the runtime reset (node 0) before
/// each test, and a seeded linear congruential generator for the records' choices.
class RuntimeWriterTest : public ::testing::Test {
protected:
  explicit RuntimeWriterTest(uint32_t Seed) : Rnd(Seed) {}
  void SetUp() override {
    unsetenv("WSN_NODE_ID");
    __wsn_node_id = 0;
    __wsn_rt_reset();
  }
  uint32_t Rnd;
  unsigned next(unsigned N) {
    Rnd = Rnd * 1103515245u + 12345u;
    return (Rnd >> 16) % N;
  }
};

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

/// A trace of two Seg-byte segments whose ring starts with Ring, written by hand: a header of
/// Version, the head after Ring (or at Head), the check values sealed over the bytes.
inline std::vector<uint8_t> handTrace(uint16_t Seg, llvm::ArrayRef<uint8_t> Ring,
                                      uint8_t Version = TraceVersion,
                                      std::optional<uint16_t> Head = std::nullopt) {
  TraceHeader H;
  H.Version = Version;
  H.BufSize = 2 * Seg;
  H.SegSize = Seg;
  H.Head = Head.value_or(uint16_t(Ring.size()));
  H.ModuleHash = 0xC0FFEE42u;
  std::vector<uint8_t> B = encodeTraceHeader(H);
  std::vector<uint8_t> R(Ring.begin(), Ring.end());
  R.resize(H.BufSize, 0);
  B.insert(B.end(), R.begin(), R.end());
  B.resize(H.fileSize(), 0);
  if (llvm::Error E = resealTrace(B))
    ADD_FAILURE() << llvm::toString(std::move(E));
  return B;
}

inline std::string errorOf(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : "success";
}

/// A file's decode error after its check values are sealed again over a deliberate change
/// ("success" when it decodes): the malformed-record tests of each record kind.
inline std::string decodeError(std::vector<uint8_t> B) {
  llvm::consumeError(resealTrace(B));
  auto F = TraceFile::parse(B);
  if (!F)
    return llvm::toString(F.takeError());
  EXPECT_TRUE(F->damage().empty());
  std::vector<TraceRecord> Out;
  return errorOf(F->decode(Out));
}

/// Every record of a whole trace file, decoded; a parse or decode error fails the test (and,
/// with NoDamage, a damaged segment).
inline std::vector<TraceRecord> decodeAll(llvm::ArrayRef<uint8_t> File, bool NoDamage = false) {
  auto F = TraceFile::parse(File);
  EXPECT_TRUE(bool(F)) << (F ? "" : llvm::toString(F.takeError()));
  if (!F)
    return {};
  if (NoDamage) {
    EXPECT_TRUE(F->damage().empty());
  }
  auto Rs = F->decode();
  EXPECT_TRUE(bool(Rs)) << (Rs ? "" : llvm::toString(Rs.takeError()));
  return Rs ? *Rs : std::vector<TraceRecord>{};
}

/// The (address, size) pairs of a record table as the lowering emits them: each address at
/// the host's pointer width (little-endian), then its size byte.
using TablePairs = std::initializer_list<std::pair<const void *, uint8_t>>;
inline void appendPairs(std::vector<uint8_t> &B, TablePairs V) {
  for (auto [P, Size] : V) {
    uintptr_t A = reinterpret_cast<uintptr_t>(P);
    for (unsigned I = 0; I < sizeof(uintptr_t); ++I)
      B.push_back(uint8_t(A >> (8 * I)));
    B.push_back(Size);
  }
}

/// An effect table as the lowering emits it: len u16, ret-bytes u8, n u8, (addr, size) pairs.
struct EffTable {
  std::vector<uint8_t> B;
  EffTable(uint8_t RetBytes, TablePairs V) {
    uint16_t Len = RetBytes;
    for (auto [P, Size] : V)
      Len = uint16_t(Len + Size);
    B = {uint8_t(Len), uint8_t(Len >> 8), RetBytes, uint8_t(V.size())};
    appendPairs(B, V);
  }
  uintptr_t addr() const { return reinterpret_cast<uintptr_t>(B.data()); }
};

/// A checkpoint table as the lowering emits it: anchor u16, len u16, n u8, (addr, size) pairs.
struct CkTable {
  std::vector<uint8_t> B;
  CkTable(uint16_t Anchor, TablePairs V) {
    uint16_t Len = 0;
    for (auto [P, Size] : V)
      Len = uint16_t(Len + Size);
    B = {uint8_t(Anchor), uint8_t(Anchor >> 8), uint8_t(Len), uint8_t(Len >> 8),
         uint8_t(V.size())};
    appendPairs(B, V);
  }
  uintptr_t addr() const { return reinterpret_cast<uintptr_t>(B.data()); }
};

} // namespace wsn::recordtest

#endif
