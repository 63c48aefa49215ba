//===- TraceFormatTest.cpp - C runtime <-> C++ trace format round trips ---===//
//
// The C runtime (trace-runtime, host build) writes records; the C++ library decodes them; a
// TraceWriter fed the same calls must produce the same bytes. Covers every record kind, the
// ring after several wraps (retained tail, stale part, the anchor-armed checkpoint rule),
// decoding from every segment start, decoder errors and the CRC-16 test vector.
//
//===----------------------------------------------------------------------===//
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <map>
#include <random>
#include <string>

using namespace wsn;
using llvm::ArrayRef;

// The instrumented module's hash: this strong definition overrides the runtime's weak 0.
extern "C" const uint32_t __wsn_module_hash = 0xC0FFEE42u;

namespace {

// Minimal stand-ins for LLVMTestingSupport (not shipped by Debian's LLVM 19).
#define ASSERT_THAT_EXPECTED(E, M) ASSERT_TRUE(checkOk(E, M))
#define EXPECT_THAT_EXPECTED(E, M) EXPECT_TRUE(checkOk(E, M))
#define ASSERT_THAT_ERROR(E, M) ASSERT_TRUE(checkOk(E, M))
enum Want { Succeeded, Failed };

template <typename T>
::testing::AssertionResult checkOk(llvm::Expected<T> &E, Want W) {
  if (bool(E) == (W == Succeeded)) {
    if (!E)
      llvm::consumeError(E.takeError());
    return ::testing::AssertionSuccess();
  }
  if (!E)
    return ::testing::AssertionFailure() << "unexpected error: " << llvm::toString(E.takeError());
  return ::testing::AssertionFailure() << "expected an error";
}
template <typename T>
::testing::AssertionResult checkOk(llvm::Expected<T> &&E, Want W) {
  return checkOk(E, W);
}
inline ::testing::AssertionResult checkOk(llvm::Error E, Want W) {
  bool Failedd = bool(E);
  std::string Msg = Failedd ? llvm::toString(std::move(E)) : "";
  if (Failedd == (W == Failed))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << (Failedd ? "unexpected error: " + Msg
                                                   : std::string("expected an error"));
}

// No automatic trace.wtr from the host runtime while testing.
struct NoAutoTraceFile {
  NoAutoTraceFile() { setenv("WSN_TRACE_OUT", "", 1); }
} NoAutoTraceFileInstance;

ArrayRef<uint8_t> runtimeBytes() {
  return ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&__wsn_trace),
                           WSN_TRACE_FILE_SIZE);
}

TraceWriter makeWriter(uint16_t NodeId = 0) {
  TraceWriter::Options O;
  O.BufSize = WSN_TRACE_BUF_SIZE;
  O.SegSize = WSN_TRACE_SEG_SIZE;
  O.Target = 0;
  O.NodeId = NodeId;
  O.ModuleHash = 0xC0FFEE42u;
  auto W = TraceWriter::create(O);
  EXPECT_THAT_EXPECTED(W, Succeeded);
  return std::move(*W);
}

std::vector<TraceRecord> decodeRuntime() {
  auto T = TraceFile::parse(runtimeBytes());
  EXPECT_THAT_EXPECTED(T, Succeeded);
  if (!T)
    return {};
  auto R = T->decode();
  EXPECT_THAT_EXPECTED(R, Succeeded);
  return R ? *R : std::vector<TraceRecord>();
}

std::string errorOf(llvm::Error E) { return llvm::toString(std::move(E)); }

template <typename T> std::string errorOf(llvm::Expected<T> E) {
  if (E)
    return "<no error>";
  return llvm::toString(E.takeError());
}

size_t varintLen(uint32_t V) {
  std::vector<uint8_t> B;
  appendVarint(B, V);
  return B.size();
}

class TraceFormat : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("WSN_NODE_ID");
    __wsn_node_id = 0;
    __wsn_rt_reset();
  }
};

TEST_F(TraceFormat, Crc16TestVector) {
  const char *S = "123456789";
  EXPECT_EQ(__wsn_crc16(0xFFFF, S, 9), 0x29B1);
  EXPECT_EQ(crc16(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(S), 9)), 0x29B1);
  // Folding in two steps is the same as one.
  EXPECT_EQ(__wsn_crc16(__wsn_crc16(0xFFFF, S, 4), S + 4, 5), 0x29B1);
}

TEST_F(TraceFormat, HeaderAfterInit) {
  setenv("WSN_NODE_ID", "0x2a", 1);
  __wsn_rt_reset();
  auto H = parseTraceHeader(runtimeBytes());
  ASSERT_THAT_EXPECTED(H, Succeeded);
  EXPECT_EQ(H->NodeId, 42);
  EXPECT_EQ(__wsn_node_id, 42);
  EXPECT_EQ(H->ModuleHash, 0xC0FFEE42u);
  EXPECT_EQ(H->BufSize, WSN_TRACE_BUF_SIZE);
  EXPECT_EQ(H->SegSize, WSN_TRACE_SEG_SIZE);
  EXPECT_EQ(H->Head, 0);
  EXPECT_EQ(H->Flags, 0);
  EXPECT_EQ(H->Violation, NoViolation);
  EXPECT_EQ(WSN_TRACE_FILE_SIZE, 32u + WSN_TRACE_BUF_SIZE + 2 * WSN_TRACE_NUM_SEGS);
  // The writer's empty trace is the runtime's empty trace.
  EXPECT_EQ(makeWriter(42).bytes(), std::vector<uint8_t>(runtimeBytes().begin(),
                                                           runtimeBytes().end()));
}

// Every record kind: C runtime -> C++ decoder gives the fields; TraceWriter gives the bytes.
TEST_F(TraceFormat, EveryKindRoundTrips) {
  TraceWriter W = makeWriter();
  const uint8_t Ck[] = {1, 2, 3, 4, 5};
  const uint8_t In[] = {0xAA, 0xBB, 0xCC};
  const uint8_t Ef[] = {9, 8};

  __wsn_rt_entry(7);                W.entry(7);
  __wsn_gv_reference = 300;
  __wsn_rt_irq_entry(12);           W.irq(12, 300);
  __wsn_rt_irq_exit(12);            W.irqExit(12);
  EXPECT_EQ(__wsn_gv_reference, 300); // restored after the handler
  __wsn_rt_sched(0x4000);           W.sched(0x4000);
  ASSERT_TRUE(__wsn_rt_anchor_armed());
  ASSERT_TRUE(W.anchorArmed());
  __wsn_rt_checkpoint_begin(3, sizeof(Ck));
  __wsn_rt_put(Ck, 2);
  __wsn_rt_put(Ck + 2, 3);
  __wsn_rt_record_end();            W.checkpoint(3, Ck);
  EXPECT_FALSE(__wsn_rt_anchor_armed());
  __wsn_rt_input(5, 0xFFFFFFFFu);   W.input(5, 0xFFFFFFFFu);
  __wsn_rt_input_bytes(6, In, 3);   W.inputBytes(6, In);
  __wsn_rt_send(8, 0xFFFF, 17);     W.send(8, 0xFFFF, 17);
  __wsn_rt_recv(9, 4, 18);          W.recv(9, 4, 18);
  __wsn_rt_skip_begin(10);          W.skipBegin(10);
  __wsn_rt_effect_begin(11, 2);
  __wsn_rt_put(Ef, 2);
  __wsn_rt_record_end();            W.effect(11, Ef, false);
  __wsn_rt_skip_end(10);            W.skipEnd(10);
  __wsn_rt_check(13, 1, 0x1234);    W.check(13, true, 0x1234);
  __wsn_gv_reference = 5;
  __wsn_rt_exit(7);                 W.exit(7);
  EXPECT_EQ(__wsn_gv_reference, 0); // reset at exit
  __wsn_rt_check(14, 0, 0xBEEF);    W.check(14, false, 0xBEEF);

  EXPECT_EQ(W.bytes(), std::vector<uint8_t>(runtimeBytes().begin(), runtimeBytes().end()));

  std::vector<TraceRecord> R = decodeRuntime();
  ASSERT_EQ(R.size(), 15u);
  auto Expect = [&](size_t I, RecordKind K, std::vector<uint32_t> F,
                    std::vector<uint8_t> P = {}) {
    SCOPED_TRACE("record " + std::to_string(I));
    EXPECT_EQ(R[I].Kind, K);
    ASSERT_EQ(R[I].NumFields, F.size());
    for (size_t J = 0; J < F.size(); ++J)
      EXPECT_EQ(R[I].Fields[J], F[J]);
    EXPECT_EQ(R[I].Payload, P);
    EXPECT_EQ(R[I].Segment, 0u);
    EXPECT_EQ(R[I].LinearOffset, R[I].RingOffset);
    if (I) {
      EXPECT_EQ(R[I].RingOffset, R[I - 1].RingOffset + R[I - 1].Size);
    }
  };
  Expect(0, RecordKind::Entry, {7});
  Expect(1, RecordKind::Irq, {12, 300});
  Expect(2, RecordKind::IrqExit, {12});
  Expect(3, RecordKind::Sched, {0x4000});
  Expect(4, RecordKind::Checkpoint, {3}, {1, 2, 3, 4, 5});
  Expect(5, RecordKind::Input, {5, 0xFFFFFFFFu});
  Expect(6, RecordKind::InputBytes, {6}, {0xAA, 0xBB, 0xCC});
  Expect(7, RecordKind::Send, {8, 17, 0xFFFF});
  Expect(8, RecordKind::Recv, {9, 4, 18});
  Expect(9, RecordKind::SkipBegin, {10});
  Expect(10, RecordKind::Effect, {11}, {9, 8});
  Expect(11, RecordKind::SkipEnd, {10});
  Expect(12, RecordKind::Check, {13, 0x1234});
  Expect(13, RecordKind::Exit, {7});
  Expect(14, RecordKind::Violation, {14, 0xBEEF});
  EXPECT_EQ(R[7].field("dest"), 0xFFFFu);
  EXPECT_EQ(R[8].field("sender"), 4u);
  EXPECT_EQ(R[1].field("count"), 300u);

  auto H = parseTraceHeader(runtimeBytes());
  ASSERT_THAT_EXPECTED(H, Succeeded);
  EXPECT_EQ(H->Checks, 2u);
  EXPECT_EQ(H->Violation, 14);
  EXPECT_EQ(H->Flags, TF_Violation | TF_Frozen);
  EXPECT_EQ(H->Head, R.back().RingOffset + R.back().Size);
}

TEST_F(TraceFormat, BlackBoxFreezesAfterFirstViolation) {
  __wsn_rt_entry(1);
  __wsn_rt_check(2, 0, 0);
  auto Before = std::vector<uint8_t>(runtimeBytes().begin(), runtimeBytes().end());
  __wsn_rt_entry(3);
  __wsn_rt_input(4, 5);
  EXPECT_FALSE(__wsn_rt_anchor_armed());
  __wsn_rt_check(5, 0, 0);
  __wsn_rt_check(6, 1, 0);
  auto H = parseTraceHeader(runtimeBytes());
  ASSERT_THAT_EXPECTED(H, Succeeded);
  EXPECT_EQ(H->Checks, 3u); // checks keep counting
  EXPECT_EQ(H->Violation, 2);
  // Only the check counter changed: no record was written after the violation.
  std::vector<uint8_t> After(runtimeBytes().begin(), runtimeBytes().end());
  std::copy(Before.begin() + 24, Before.begin() + 28, After.begin() + 24);
  EXPECT_EQ(Before, After);
}

TEST_F(TraceFormat, HostWritesFileAtViolation) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("wsn-violation", "wtr", Path));
  setenv("WSN_TRACE_OUT", Path.c_str(), 1);
  __wsn_rt_entry(1);
  __wsn_rt_check(9, 0, 0x55AA);
  setenv("WSN_TRACE_OUT", "", 1);
  auto MB = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(MB));
  llvm::StringRef Data = (*MB)->getBuffer();
  EXPECT_EQ(std::vector<uint8_t>(Data.begin(), Data.end()),
            std::vector<uint8_t>(runtimeBytes().begin(), runtimeBytes().end()));
  auto T = TraceFile::load(Path);
  ASSERT_THAT_EXPECTED(T, Succeeded);
  EXPECT_EQ(T->header().Violation, 9);
  llvm::sys::fs::remove(Path);
}

TEST_F(TraceFormat, OversizedRecordIsDroppedAndFlagged) {
  TraceWriter W = makeWriter();
  std::vector<uint8_t> Big(WSN_TRACE_SEG_SIZE, 0x11);
  __wsn_rt_entry(1);          W.entry(1);
  __wsn_rt_effect_begin(2, (uint16_t)Big.size());
  __wsn_rt_put(Big.data(), (uint16_t)Big.size());
  __wsn_rt_record_end();      W.effect(2, Big, false);
  __wsn_rt_exit(1);           W.exit(1);
  EXPECT_EQ(W.bytes(), std::vector<uint8_t>(runtimeBytes().begin(), runtimeBytes().end()));
  std::vector<TraceRecord> R = decodeRuntime();
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[1].Kind, RecordKind::Exit);
  EXPECT_TRUE(W.header().Flags & TF_Dropped);
}

TEST_F(TraceFormat, ShortPutIsZeroFilled) {
  const uint8_t B[] = {7};
  __wsn_rt_checkpoint_begin(1, 3);
  __wsn_rt_put(B, 1);
  __wsn_rt_record_end();
  std::vector<TraceRecord> R = decodeRuntime();
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0].Payload, (std::vector<uint8_t>{7, 0, 0}));
  EXPECT_TRUE(__wsn_trace.hdr.flags & WSN_TRACE_FLAG_DROPPED);
}

TEST_F(TraceFormat, NestedHandlersRestoreCounts) {
  __wsn_rt_entry(1);
  __wsn_gv_reference = 3;
  __wsn_rt_irq_entry(1);
  __wsn_gv_reference = 2;
  __wsn_rt_irq_entry(2);
  EXPECT_EQ(__wsn_gv_reference, 0);
  __wsn_rt_irq_exit(2);
  EXPECT_EQ(__wsn_gv_reference, 2);
  __wsn_rt_irq_exit(1);
  EXPECT_EQ(__wsn_gv_reference, 3);
  std::vector<TraceRecord> R = decodeRuntime();
  ASSERT_EQ(R.size(), 5u);
  EXPECT_EQ(R[1].Fields[1], 3u);
  EXPECT_EQ(R[2].Fields[1], 2u);
}

// A table of the table-driven entry points (trace.c): the little-endian head bytes, the
// pair count, then (pointer-sized address, size) pairs.
struct Table {
  std::vector<uint8_t> B;
  Table &u8(uint8_t V) {
    B.push_back(V);
    return *this;
  }
  Table &u16(uint16_t V) { return u8(uint8_t(V)).u8(uint8_t(V >> 8)); }
  Table &pairs(std::initializer_list<std::pair<const void *, uint8_t>> Vars) {
    u8(uint8_t(Vars.size()));
    for (auto [P, Size] : Vars) {
      uintptr_t A = reinterpret_cast<uintptr_t>(P);
      for (unsigned I = 0; I < sizeof(uintptr_t); ++I)
        u8(uint8_t(A >> (8 * I)));
      u8(Size);
    }
    return *this;
  }
  uintptr_t addr() const { return reinterpret_cast<uintptr_t>(B.data()); }
};

// The table-driven entry points write the same records as the call chains they replace
// (the lowering's default), with the count rules of spec/instrumentation.md section 11.
TEST_F(TraceFormat, TableEntryPointsRoundTrip) {
  TraceWriter W = makeWriter();
  uint8_t G1[3] = {1, 2, 3};
  uint16_t G2 = 0xBEEF;
  uint8_t Big[200];
  for (unsigned I = 0; I < sizeof(Big); ++I)
    Big[I] = uint8_t(I * 7);

  // Checkpoint of two globals: armed at the start of segment 0, count reset to 0.
  Table Ck;
  Ck.u16(4).u16(5).pairs({{G1, 3}, {&G2, 2}});
  __wsn_gv_reference = 9;
  __wsn_rt_checkpoint_t(Ck.addr());
  W.checkpoint(4, std::vector<uint8_t>{1, 2, 3, 0xEF, 0xBE});
  EXPECT_EQ(__wsn_gv_reference, 0);
  // Not armed any more: nothing written, the count stays.
  __wsn_gv_reference = 3;
  __wsn_rt_checkpoint_t(Ck.addr());
  EXPECT_EQ(__wsn_gv_reference, 3);

  // SKIP_END merged into the effect, a 2-byte return value first, one variable in two pairs.
  // The table has no site id: sites 200 and 201 share it.
  Table Ef;
  Ef.u16(2 + 150).u8(2).pairs({{Big, 100}, {Big + 100, 50}});
  __wsn_rt_skip_begin(200);                        W.skipBegin(200);
  std::vector<uint8_t> EfBytes = {0x34, 0x12};
  EfBytes.insert(EfBytes.end(), Big, Big + 150);
  __wsn_rt_skip_effect_t(200, Ef.addr(), 0x1234);  W.skipEffect(200, EfBytes);
  __wsn_rt_effect_t(201, Ef.addr(), 0x1234);       W.effect(201, EfBytes);
  // Without SKIP_END and without a return value.
  Table Ef2;
  Ef2.u16(1).u8(0).pairs({{G1 + 2, 1}});
  __wsn_rt_effect_t(7, Ef2.addr(), 0xFFFF);        W.effect(7, std::vector<uint8_t>{3});
  // A 4-byte return value (the 32-bit entry), little-endian before the variables.
  Table Ef4;
  Ef4.u16(4 + 1).u8(4).pairs({{G1, 1}});
  __wsn_rt_effect32_t(8, Ef4.addr(), 0xA1B2C3D4u);
  W.effect(8, std::vector<uint8_t>{0xD4, 0xC3, 0xB2, 0xA1, 1});
  // A checkpoint with a local: the globals by table (__wsn_rt_put_t), the local by put.
  __wsn_rt_checkpoint_begin(9, 3 + 2 + 1);
  Table Vs;
  Vs.u16(3 + 2).pairs({{G1, 3}, {&G2, 2}});
  uint8_t Local = 0x5A;
  __wsn_rt_put_t(Vs.addr());
  __wsn_rt_put(&Local, 1);
  __wsn_rt_record_end();
  W.checkpoint(9, std::vector<uint8_t>{1, 2, 3, 0xEF, 0xBE, 0x5A});

  // Check: CRC-16 over the variables in table order, then the count goes up by one.
  Table Chk;
  Chk.u16(300).pairs({{&G2, 2}, {G1, 3}});
  std::vector<uint8_t> In = {0xEF, 0xBE, 1, 2, 3};
  __wsn_gv_reference = 7;
  __wsn_rt_check_t(Chk.addr(), 1);          W.check(300, true, crc16(In));
  EXPECT_EQ(__wsn_gv_reference, 8);

  // 16-bit inputs: the same INPUT record as the 32-bit entry.
  __wsn_rt_input16(5, 0x7F);                W.input(5, 0x7F);
  __wsn_rt_input16(6, 0xFFFF);              W.input(6, 0xFFFF);
  __wsn_rt_input(7, 0x10000);               W.input(7, 0x10000);

  __wsn_rt_check_t(Chk.addr(), 0);          W.check(300, false, crc16(In));
  EXPECT_EQ(__wsn_gv_reference, 9);
  EXPECT_EQ(__wsn_trace.hdr.violation, 300);

  EXPECT_EQ(W.bytes(), std::vector<uint8_t>(runtimeBytes().begin(), runtimeBytes().end()));
  std::vector<TraceRecord> R = decodeRuntime();
  ASSERT_EQ(R.size(), 13u);
  EXPECT_EQ(R[0].Kind, RecordKind::Checkpoint);
  EXPECT_EQ(R[2].Kind, RecordKind::SkipEnd);
  EXPECT_EQ(R[3].Kind, RecordKind::Effect);
  EXPECT_EQ(R[3].Payload, EfBytes);
  EXPECT_EQ(R[4].Kind, RecordKind::Effect);
  EXPECT_EQ(R[4].Fields[0], 201u);
  EXPECT_EQ(R[6].Kind, RecordKind::Effect);
  EXPECT_EQ(R[6].Payload, (std::vector<uint8_t>{0xD4, 0xC3, 0xB2, 0xA1, 1}));
  EXPECT_EQ(R[7].Kind, RecordKind::Checkpoint);
  EXPECT_EQ(R[7].Payload, (std::vector<uint8_t>{1, 2, 3, 0xEF, 0xBE, 0x5A}));
  EXPECT_EQ(R[8].Kind, RecordKind::Check);
  EXPECT_EQ(R[8].Fields[1], crc16(In));
  EXPECT_EQ(R[12].Kind, RecordKind::Violation);
}

// A pair of size 0 links to another (n, pairs) table, where the walk goes on: an effect and
// a check that share their last variables through one tail table write the same bytes and
// the same CRC as with the variables listed in full.
TEST_F(TraceFormat, TableLinkToSharedTail) {
  TraceWriter W = makeWriter();
  uint8_t A[3] = {1, 2, 3}, Bv[2] = {4, 5};
  uint16_t C = 0x0706;
  Table Tail;
  Tail.pairs({{Bv, 2}, {&C, 2}});
  Table Ef, Ck, CkFull;
  Ef.u16(3 + 2 + 2).u8(0).pairs({{A, 3}, {reinterpret_cast<const void *>(Tail.addr()), 0}});
  Ck.u16(5).pairs({{A + 1, 1}, {reinterpret_cast<const void *>(Tail.addr()), 0}});
  CkFull.u16(5).pairs({{A + 1, 1}, {Bv, 2}, {&C, 2}});
  __wsn_rt_effect_t(40, Ef.addr(), 0);
  W.effect(40, std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7});
  __wsn_rt_check_t(Ck.addr(), 1);
  __wsn_rt_check_t(CkFull.addr(), 1);
  uint16_t Crc = crc16(std::vector<uint8_t>{2, 4, 5, 6, 7});
  W.check(5, true, Crc);
  W.check(5, true, Crc);
  EXPECT_EQ(W.bytes(), std::vector<uint8_t>(runtimeBytes().begin(), runtimeBytes().end()));
}

// A frozen (black-box) trace: table checkpoints neither write nor reset the count; checks
// still count.
TEST_F(TraceFormat, TableEntryPointsWhenFrozen) {
  uint8_t G = 1;
  Table Chk, Ck;
  Chk.u16(1).pairs({{&G, 1}});
  Ck.u16(2).u16(1).pairs({{&G, 1}});
  __wsn_rt_check_t(Chk.addr(), 0);
  uint16_t Head = __wsn_trace.hdr.head;
  __wsn_gv_reference = 4;
  __wsn_rt_checkpoint_t(Ck.addr());
  EXPECT_EQ(__wsn_gv_reference, 4);
  __wsn_rt_check_t(Chk.addr(), 1);
  EXPECT_EQ(__wsn_gv_reference, 5);
  EXPECT_EQ(__wsn_trace.hdr.head, Head);
  EXPECT_EQ(__wsn_trace.hdr.checks, 2u);
}

TEST_F(TraceFormat, InterruptKeysCountEntryExitRecords) {
  __wsn_rt_entry(1);
  __wsn_gv_reference = 4;
  __wsn_rt_irq_entry(9);
  __wsn_rt_irq_exit(9);
  __wsn_rt_entry(2);
  __wsn_rt_exit(2);
  __wsn_rt_irq_entry(9); // count 0 right after the callee returned
  __wsn_rt_irq_exit(9);
  __wsn_rt_exit(1);
  std::vector<TraceRecord> R = decodeRuntime();
  std::vector<InterruptKey> K = interruptKeys(R);
  ASSERT_EQ(K.size(), 2u);
  EXPECT_EQ(K[0].RecordIndex, 1u);
  EXPECT_EQ(K[0].Position, 1u);
  EXPECT_EQ(K[0].Count, 4u);
  EXPECT_EQ(K[1].RecordIndex, 5u);
  EXPECT_EQ(K[1].Position, 3u);
  EXPECT_EQ(K[1].Count, 0u);
  EXPECT_EQ(K[1].Irq, 9u);
}

// One logical record issued by the random driver, with where the runtime put it.
struct Issued {
  RecordKind Kind;
  std::vector<uint32_t> Fields;
  std::vector<uint8_t> Payload;
  uint64_t GlobalStart; // wraps * buf_size + ring offset of the tag
};

// Drives the C runtime and a TraceWriter with the same seeded calls (a scheduler loop with an
// anchor at its header) until the ring has wrapped several times, then checks the retained
// tail record by record against what was issued.
void runWrapScenario(unsigned Seed, unsigned MinWraps) {
  std::mt19937 Rng(Seed);
  auto Rand = [&](uint32_t N) { return uint32_t(Rng() % N); };
  auto Id = [&]() -> uint16_t {
    switch (Rand(3)) {
    case 0: return uint16_t(Rand(0x80));
    case 1: return uint16_t(Rand(0x4000));
    default: return uint16_t(Rand(0x10000));
    }
  };
  TraceWriter W = makeWriter();
  std::vector<Issued> Log;
  const uint32_t Buf = WSN_TRACE_BUF_SIZE;
  auto Global = [&]() {
    return uint64_t(__wsn_trace.hdr.wraps) * Buf + __wsn_trace.hdr.head;
  };
  // Records the issued record from the runtime's head movement (independent of the writer).
  auto Note = [&](RecordKind K, std::vector<uint32_t> F, std::vector<uint8_t> P = {}) {
    size_t Size = 1;
    bool IsCheck = K == RecordKind::Check || K == RecordKind::Violation;
    for (size_t I = 0; I < F.size(); ++I)
      Size += (IsCheck && I == 1) ? 2 : varintLen(F[I]);
    if (recordHasPayload(K))
      Size += varintLen(P.size()) + P.size();
    // Format 7's one-byte forms (spec/trace-format.md section 3.5).
    if (((K == RecordKind::Entry || K == RecordKind::Exit) && F[0] < FidShortIds) ||
        (K == RecordKind::Irq && F[0] >= 1 && F[0] <= IrqShortIds && F[1] < IrqShortCounts) ||
        (K == RecordKind::IrqExit && F[0] >= 1 && F[0] <= IrqShortIds))
      Size = 1;
    Log.push_back({K, F, P, Global() - Size});
  };
  auto Bytes = [&](unsigned Max) {
    std::vector<uint8_t> B(Rand(Max + 1));
    for (auto &X : B)
      X = uint8_t(Rng());
    return B;
  };

  std::vector<uint16_t> AnchorSegmentsVisited;
  unsigned Iter = 0;
  while (__wsn_trace.hdr.wraps < MinWraps && Iter < 100000) {
    ++Iter;
    // Anchor at the loop header (LOG 4).
    ASSERT_EQ(bool(__wsn_rt_anchor_armed()), W.anchorArmed());
    if (__wsn_rt_anchor_armed()) {
      std::vector<uint8_t> Vars = Bytes(24);
      do {
        __wsn_rt_checkpoint_begin(1, uint16_t(Vars.size()));
        for (size_t I = 0; I < Vars.size(); I += 3)
          __wsn_rt_put(Vars.data() + I, uint16_t(std::min<size_t>(3, Vars.size() - I)));
      } while (__wsn_rt_record_end());
      W.checkpoint(1, Vars);
      Note(RecordKind::Checkpoint, {1}, Vars);
    }
    unsigned Ops = 1 + Rand(6);
    for (unsigned O = 0; O < Ops; ++O) {
      uint16_t A = Id(), B = Id(), C = Id();
      switch (Rand(12)) {
      case 0:
        __wsn_rt_entry(A); W.entry(A); Note(RecordKind::Entry, {A});
        break;
      case 1:
        __wsn_rt_exit(A); W.exit(A); Note(RecordKind::Exit, {A});
        break;
      case 2: {
        __wsn_gv_reference = B;
        __wsn_rt_irq_entry(A); W.irq(A, B); Note(RecordKind::Irq, {A, B});
        __wsn_rt_input(C, 0x1234); W.input(C, 0x1234); Note(RecordKind::Input, {C, 0x1234});
        __wsn_rt_irq_exit(A); W.irqExit(A); Note(RecordKind::IrqExit, {A});
        EXPECT_EQ(__wsn_gv_reference, B);
        break;
      }
      case 3:
        __wsn_rt_sched(A); W.sched(A); Note(RecordKind::Sched, {A});
        break;
      case 4: {
        uint32_t V = Rand(2) ? uint32_t(Rng()) : Rand(300);
        __wsn_rt_input(A, V); W.input(A, V); Note(RecordKind::Input, {A, V});
        break;
      }
      case 5: {
        std::vector<uint8_t> P = Bytes(40);
        __wsn_rt_input_bytes(A, P.data(), uint16_t(P.size()));
        W.inputBytes(A, P); Note(RecordKind::InputBytes, {A}, P);
        break;
      }
      case 6:
        __wsn_rt_send(A, B, C); W.send(A, B, C); Note(RecordKind::Send, {A, C, B});
        break;
      case 7:
        __wsn_rt_recv(A, B, C); W.recv(A, B, C); Note(RecordKind::Recv, {A, B, C});
        break;
      case 8: {
        std::vector<uint8_t> P = Bytes(30);
        __wsn_rt_skip_begin(A); W.skipBegin(A); Note(RecordKind::SkipBegin, {A});
        __wsn_rt_effect_begin(A, uint16_t(P.size()));
        __wsn_rt_put(P.data(), uint16_t(P.size()));
        __wsn_rt_record_end();
        W.effect(A, P, false); Note(RecordKind::Effect, {A}, P);
        __wsn_rt_skip_end(A); W.skipEnd(A); Note(RecordKind::SkipEnd, {A});
        break;
      }
      case 9:
      case 10:
        __wsn_rt_check(A, 1, B); W.check(A, true, B); Note(RecordKind::Check, {A, B});
        break;
      default:
        __wsn_rt_entry(A); W.entry(A); Note(RecordKind::Entry, {A});
        __wsn_rt_exit(A); W.exit(A); Note(RecordKind::Exit, {A});
        break;
      }
    }
  }
  ASSERT_GE(__wsn_trace.hdr.wraps, MinWraps);
  std::vector<uint8_t> RtBytes(runtimeBytes().begin(), runtimeBytes().end());
  ASSERT_EQ(W.bytes(), RtBytes) << "C++ writer and C runtime disagree";

  auto T = TraceFile::parse(RtBytes);
  ASSERT_THAT_EXPECTED(T, Succeeded);
  const TraceHeader &H = T->header();
  ASSERT_TRUE(H.wrapped());
  const uint32_t Seg = H.SegSize;
  const uint32_t Cur = H.Head / Seg;
  EXPECT_EQ(T->staleBytes(), (Cur + 1) * Seg - H.Head);
  uint64_t TailLen = 0;
  for (const TraceSpan &S : T->tail())
    TailLen += S.Length;
  EXPECT_EQ(TailLen, Buf - T->staleBytes());
  EXPECT_EQ(T->linearBytes().size(), TailLen);

  // The retained window in global positions: from the start of segment Cur+1 one lap ago to
  // the head. Everything issued before it is stale or overwritten.
  uint64_t WindowStart = (uint64_t(H.Wraps) - 1) * Buf + (Cur + 1) * Seg;
  std::vector<const Issued *> Expected;
  for (const Issued &I : Log)
    if (I.GlobalStart >= WindowStart)
      Expected.push_back(&I);

  auto R = T->decode();
  ASSERT_THAT_EXPECTED(R, Succeeded);
  ASSERT_EQ(R->size(), Expected.size());
  for (size_t I = 0; I < R->size(); ++I) {
    SCOPED_TRACE("tail record " + std::to_string(I));
    const TraceRecord &Rec = (*R)[I];
    const Issued &Is = *Expected[I];
    ASSERT_EQ(Rec.Kind, Is.Kind);
    ASSERT_EQ(Rec.NumFields, Is.Fields.size());
    for (size_t J = 0; J < Is.Fields.size(); ++J)
      EXPECT_EQ(Rec.Fields[J], Is.Fields[J]);
    EXPECT_EQ(Rec.Payload, Is.Payload);
    EXPECT_EQ(Rec.RingOffset, Is.GlobalStart % Buf);
    EXPECT_EQ(Rec.Segment, Rec.RingOffset / Seg);
  }

  // The anchor-armed rule: the loop reaches its anchor at least once per segment, so every
  // full segment of the tail holds exactly one checkpoint (the current one at most one).
  std::map<uint32_t, unsigned> CkPerSeg;
  for (const TraceRecord &Rec : *R)
    if (Rec.Kind == RecordKind::Checkpoint)
      ++CkPerSeg[Rec.Segment];
  for (const TraceSpan &S : T->tail()) {
    if (S.Segment == Cur)
      EXPECT_LE(CkPerSeg[S.Segment], 1u);
    else
      EXPECT_EQ(CkPerSeg[S.Segment], 1u) << "segment " << S.Segment;
  }
  ASSERT_FALSE(R->empty());
  // The oldest retained segment starts the replay: its checkpoint is in it.
  EXPECT_EQ((*R)[0].Segment, T->tail()[0].Segment);

  // Decoding from every segment start gives the suffix of the full decode.
  for (unsigned Sp = 0; Sp < T->tail().size(); ++Sp) {
    SCOPED_TRACE("from span " + std::to_string(Sp));
    auto Part = T->decode(Sp);
    ASSERT_THAT_EXPECTED(Part, Succeeded);
    size_t First = 0;
    while (First < R->size() && (*R)[First].LinearOffset < T->tail()[Sp].LinearOffset)
      ++First;
    ASSERT_EQ(Part->size(), R->size() - First);
    for (size_t I = 0; I < Part->size(); ++I)
      EXPECT_TRUE((*Part)[I] == (*R)[First + I]);
    // And each segment on its own.
    std::vector<TraceRecord> One;
    ASSERT_THAT_ERROR(T->decodeSegment(T->tail()[Sp].Segment, One), Succeeded);
    for (const TraceRecord &Rec : One)
      EXPECT_EQ(Rec.Segment, T->tail()[Sp].Segment);
  }
}

TEST_F(TraceFormat, WrapsSeveralTimesSeed1) { runWrapScenario(1, 3); }
TEST_F(TraceFormat, WrapsSeveralTimesSeed2) { runWrapScenario(2, 5); }
TEST_F(TraceFormat, WrapsSeveralTimesSeed3) { runWrapScenario(3, 4); }

TEST_F(TraceFormat, RecordFillingSegmentExactlyArmsNext) {
  TraceWriter W = makeWriter();
  // A checkpoint that ends exactly on the first segment boundary: the next segment is armed.
  uint16_t Len = WSN_TRACE_SEG_SIZE - 1 - 1 - 2; // tag, anchor varint, 2-byte len varint
  std::vector<uint8_t> P(Len, 0x5A);
  ASSERT_TRUE(__wsn_rt_anchor_armed());
  // Tried packed into the segment first (it does not pack: given up), then plain.
  unsigned Tries = 0;
  do {
    ++Tries;
    __wsn_rt_checkpoint_begin(1, Len);
    __wsn_rt_put(P.data(), Len);
  } while (__wsn_rt_record_end());
  EXPECT_EQ(Tries, 2u);
  W.checkpoint(1, P);
  EXPECT_EQ(__wsn_trace.hdr.head, WSN_TRACE_SEG_SIZE);
  EXPECT_TRUE(__wsn_rt_anchor_armed());
  EXPECT_TRUE(W.anchorArmed());
  EXPECT_EQ(W.bytes(), std::vector<uint8_t>(runtimeBytes().begin(), runtimeBytes().end()));
}

TEST_F(TraceFormat, PaddingBeforeRecordThatDoesNotFit) {
  TraceWriter W = makeWriter();
  std::vector<uint8_t> P(WSN_TRACE_SEG_SIZE - 20, 1);
  __wsn_rt_input_bytes(1, P.data(), uint16_t(P.size()));
  W.inputBytes(1, P);
  __wsn_rt_input_bytes(2, P.data(), uint16_t(P.size())); // does not fit: PAD, segment 1
  W.inputBytes(2, P);
  EXPECT_EQ(W.bytes(), std::vector<uint8_t>(runtimeBytes().begin(), runtimeBytes().end()));
  std::vector<TraceRecord> R = decodeRuntime();
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[1].RingOffset, uint32_t(WSN_TRACE_SEG_SIZE));
  EXPECT_EQ(R[1].Segment, 1u);
  EXPECT_EQ(__wsn_trace.data[R[0].Size], 0); // PAD
}

//===----------------------------------------------------------------------===//
// Decoder errors name offsets.
//===----------------------------------------------------------------------===//

std::vector<uint8_t> smallTrace(std::initializer_list<uint8_t> Ring, uint16_t Head) {
  TraceHeader H;
  H.BufSize = 32;
  H.SegSize = 16;
  H.Head = Head;
  std::vector<uint8_t> B = encodeTraceHeader(H);
  std::vector<uint8_t> R(Ring);
  R.resize(32, 0);
  B.insert(B.end(), R.begin(), R.end());
  B.resize(B.size() + 2 * 2, 0); // the two segments' check values
  // Hand-made records, as a faulty writer would leave them: sealed, so that the decoder's
  // own errors show (spec section 1.2; damage after sealing is IntegrityTest's subject).
  if (llvm::Error E = resealTrace(B))
    llvm::consumeError(std::move(E));
  return B;
}

TEST(TraceFormatErrors, HeaderFields) {
  std::vector<uint8_t> Good = smallTrace({}, 0);
  ASSERT_THAT_EXPECTED(TraceFile::parse(Good), Succeeded);
  EXPECT_EQ(errorOf(TraceFile::parse(ArrayRef<uint8_t>(Good).take_front(10))),
            "offset 10: truncated trace: 10 bytes, the header alone needs 32");
  auto Mut = [&](size_t Off, uint8_t V) {
    std::vector<uint8_t> B = Good;
    B[Off] = V;
    return errorOf(TraceFile::parse(B));
  };
  EXPECT_EQ(Mut(0, 'X').rfind("offset 0: bad magic", 0), 0u);
  EXPECT_NE(Mut(0, 'X').find("not a wsn-trace .wtr file"), std::string::npos);
  {
    // A trace object read before the runtime's start-up: the header is all zero.
    std::vector<uint8_t> Zero(Good.size(), 0);
    std::string E = errorOf(TraceFile::parse(Zero));
    EXPECT_EQ(E.rfind("offset 0: bad magic", 0), 0u);
    EXPECT_NE(E.find("the header is all zero"), std::string::npos) << E;
    EXPECT_NE(E.find("stopped before it recorded anything"), std::string::npos) << E;
  }
  EXPECT_EQ(Mut(4, 1).rfind("offset 4: unsupported version 1 (expected 2 to 10)", 0), 0u);
  EXPECT_EQ(Mut(4, 11).rfind("offset 4: unsupported version 11 (expected 2 to 10)", 0), 0u);
  EXPECT_EQ(Mut(5, 7).rfind("offset 5: unknown target 7", 0), 0u);
  EXPECT_EQ(Mut(14, 0).rfind("offset 12: buf_size 32 is not a multiple of seg_size 0", 0),
            std::string::npos); // seg_size 0 has its own message
  EXPECT_EQ(Mut(14, 0), "offset 14: seg_size is 0");
  EXPECT_EQ(Mut(14, 20), "offset 12: buf_size 32 is not a multiple of seg_size 20");
  EXPECT_EQ(Mut(14, 32), "offset 12: buf_size 32 holds fewer than 2 segments of 32");
  EXPECT_EQ(Mut(16, 32), "offset 16: head 32 is not below buf_size 32");
  EXPECT_EQ(Mut(18, 0x10), "offset 18: unknown flag bits 0x10");
  EXPECT_EQ(Mut(18, 1), "offset 20: wraps 0 disagrees with the wrapped flag");
  EXPECT_EQ(Mut(30, 1), "<no error>"); // the low byte of a closed `open` field is a leftover
  EXPECT_EQ(Mut(31, 1), "offset 31: open field 0x100: bits 8-14 must be 0 when bit 15 is clear");
  EXPECT_EQ(Mut(31, 0x80 | 0x3F), "offset 30: open record: saved head 16128 is not below "
                                   "buf_size 32");
  std::vector<uint8_t> Short = Good;
  Short.pop_back();
  EXPECT_EQ(errorOf(TraceFile::parse(Short)),
            "offset 67: truncated trace: 67 bytes, the header declares 32 + buf_size + 2 x 2 "
            "segments = 68");
  std::vector<uint8_t> Long = Good;
  Long.push_back(0);
  EXPECT_EQ(errorOf(TraceFile::parse(Long)),
            "offset 68: 1 trailing bytes after 32 + buf_size + 2 x 2 segments = 68");
}

std::string decodeError(std::initializer_list<uint8_t> Ring, uint16_t Head) {
  auto T = TraceFile::parse(smallTrace(Ring, Head));
  if (!T)
    return "parse: " + llvm::toString(T.takeError());
  return errorOf(T->decode());
}

TEST(TraceFormatErrors, Records) {
  EXPECT_EQ(decodeError({0x01, 0x05, 0xCF}, 3),
            "offset 34: record tag 0xCF is reserved (record at ring offset 2, tail offset 2, "
            "segment 0)");
  EXPECT_EQ(decodeError({0xFF}, 1).rfind("offset 32: record tag 0xFF (erased memory)", 0), 0u);
  EXPECT_EQ(decodeError({0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 7),
            "offset 38: varint fid is longer than 5 bytes (record at ring offset 0, tail "
            "offset 0, segment 0)");
  EXPECT_EQ(decodeError({0x07, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F}, 7),
            "offset 38: varint value exceeds 32 bits (record at ring offset 0, tail offset 0, "
            "segment 0)");
  // A record cut by the write head.
  EXPECT_EQ(decodeError({0x09, 0x01, 0x02}, 3).rfind(
                "offset 35: record runs past the end of its segment while reading dest", 0),
            0u);
  // A payload longer than what is left of the segment.
  EXPECT_EQ(decodeError({0x06, 0x01, 0x20, 1, 2}, 15).rfind(
                "offset 35: payload of 32 bytes runs past the end of its segment (12 bytes "
                "left)",
                0),
            0u);
  // Records after PAD in the same segment are ignored; segment 1 decodes.
  auto T = TraceFile::parse(smallTrace({0x01, 0x05, 0x00, 0x42, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0x02, 0x05},
                                       18));
  ASSERT_THAT_EXPECTED(T, Succeeded);
  auto R = T->decode();
  ASSERT_THAT_EXPECTED(R, Succeeded);
  ASSERT_EQ(R->size(), 2u);
  EXPECT_EQ((*R)[1].Kind, RecordKind::Exit);
  EXPECT_EQ((*R)[1].RingOffset, 16u);
  std::vector<TraceRecord> Seg1;
  ASSERT_THAT_ERROR(T->decodeSegment(1, Seg1), Succeeded);
  ASSERT_EQ(Seg1.size(), 1u);
  EXPECT_EQ(errorOf(T->decodeSegment(5, Seg1)), "segment 5 does not exist (2 segments)");
}

TEST(TraceFormatErrors, WriterRejectsBadGeometry) {
  TraceWriter::Options O;
  O.BufSize = 100;
  O.SegSize = 64;
  EXPECT_THAT_EXPECTED(TraceWriter::create(O), Failed);
  O.BufSize = 64;
  O.SegSize = 64;
  EXPECT_THAT_EXPECTED(TraceWriter::create(O), Failed);
  O.BufSize = 128;
  O.SegSize = 64;
  EXPECT_THAT_EXPECTED(TraceWriter::create(O), Succeeded);
}

TEST(TraceFormatWriter, WrappedWithHeadAtSegmentStart) {
  // Writer-only geometry: 4 segments of 16 bytes, 2-byte SCHED records.
  TraceWriter::Options O;
  O.BufSize = 64;
  O.SegSize = 16;
  auto W = TraceWriter::create(O);
  ASSERT_THAT_EXPECTED(W, Succeeded);
  for (unsigned I = 0; I < 64; ++I) // exactly two laps: head back at 0
    W->sched(uint16_t(I));
  EXPECT_EQ(W->header().Head, 0);
  EXPECT_EQ(W->header().Wraps, 2u);
  EXPECT_TRUE(W->anchorArmed());
  auto T = TraceFile::parse(W->bytes());
  ASSERT_THAT_EXPECTED(T, Succeeded);
  // Segment 0 is the one being written (empty): all of it is stale; the tail is 1, 2, 3.
  EXPECT_EQ(T->staleBytes(), 16u);
  ASSERT_EQ(T->tail().size(), 3u);
  EXPECT_EQ(T->tail()[0].Segment, 1u);
  EXPECT_EQ(T->tail()[2].Segment, 3u);
  auto R = T->decode();
  ASSERT_THAT_EXPECTED(R, Succeeded);
  ASSERT_EQ(R->size(), 24u);
  EXPECT_EQ(R->front().Fields[0], 40u);
  EXPECT_EQ(R->back().Fields[0], 63u);
  EXPECT_EQ(R->back().LinearOffset, 46u);
}

TEST(TraceFormatWriter, LoadReportsMissingFile) {
  auto T = TraceFile::load("/nonexistent/dir/x.wtr");
  ASSERT_FALSE(bool(T));
  EXPECT_EQ(llvm::toString(T.takeError()).rfind("cannot read: ", 0), 0u);
}

} // namespace
