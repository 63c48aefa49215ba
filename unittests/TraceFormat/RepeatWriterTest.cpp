//===- RepeatWriterTest.cpp - REPEAT records written (trace format 9) -----===//
//
// spec/trace-format.md section 3.8: a periodic run of one-byte control records (ENTRY_S,
// EXIT_S, IRQ_S, IRQ_EXIT_S) is written as a REPEAT record whose count grows in place. The
// host runtime (ctl in trace.c) and TraceWriter (oneByte) write the same file after every
// record, over many wraps, with runs broken by other records, by a segment's end and by the
// count's limit; the decoder gives back every record in order. (The decoder's malformed
// forms are in RepeatTest.cpp.)
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace wsn;
using namespace wsn::recordtest;

namespace {

class RepeatWriter : public RuntimeWriterTest {
protected:
  RepeatWriter() : RuntimeWriterTest(11) {}
  // One event: 0 ENTRY, 1 EXIT, 2 IRQ (with count), 3 IRQ_EXIT; id and count as given.
  struct Ev {
    uint8_t Kind;
    uint16_t Id;
    uint16_t Count;
  };
  std::vector<Ev> Written; ///< every control event, in order
  void put(TraceWriter &W, Ev E) {
    switch (E.Kind) {
    case 0:
      __wsn_rt_entry(E.Id);
      W.entry(E.Id);
      break;
    case 1:
      __wsn_rt_exit(E.Id);
      W.exit(E.Id);
      break;
    case 2:
      __wsn_gv_reference = E.Count;
      (void)__wsn_rt_irq_enter(E.Id); // the frame-kept form: any nesting, nothing DROPPED
      W.irq(E.Id, E.Count);
      break;
    default:
      __wsn_rt_irq_leave(E.Id, 0);
      W.irqExit(E.Id);
      break;
    }
    Written.push_back(E);
  }
  // The decoded control records of the trace's tail, as events.
  static std::vector<Ev> controlOf(const std::vector<TraceRecord> &Rs) {
    std::vector<Ev> Out;
    for (const TraceRecord &R : Rs) {
      switch (R.Kind) {
      case RecordKind::Entry:
        Out.push_back({0, uint16_t(R.id()), 0});
        break;
      case RecordKind::Exit:
        Out.push_back({1, uint16_t(R.id()), 0});
        break;
      case RecordKind::Irq:
        Out.push_back({2, uint16_t(R.id()), uint16_t(*R.field("count"))});
        break;
      case RecordKind::IrqExit:
        Out.push_back({3, uint16_t(R.id()), 0});
        break;
      default:
        break;
      }
    }
    return Out;
  }
};

// The spec's example: ENTRY_S 4, EXIT_S 4, IRQ_S (1, 1), IRQ_EXIT_S 1 and eight more of the
// same loop: A4 D4 71 90 A4, then a REPEAT of period 4 that holds the other 7.
TEST_F(RepeatWriter, SpecExample) {
  TraceWriter W = writer();
  for (unsigned I = 0; I < 3; ++I) {
    put(W, {0, 4, 0});
    put(W, {1, 4, 0});
    put(W, {2, 1, 1});
    put(W, {3, 1, 0});
  }
  std::vector<uint8_t> B = W.bytes();
  ASSERT_EQ(runtimeBytes(), B);
  const std::vector<uint8_t> Expect{0xA4, 0xD4, 0x71, 0x90, 0xA4, 0x9B, 0x07};
  EXPECT_EQ(std::vector<uint8_t>(B.begin() + TraceHeaderSize,
                                 B.begin() + TraceHeaderSize + Expect.size()),
            Expect);
  EXPECT_EQ(W.header().Head, Expect.size());
  // The open field keeps the low byte of the REPEAT's tag, where it was last reopened.
  EXPECT_EQ(W.header().Open, 5u);
  const std::vector<Ev> Got = controlOf(decodeAll(B, true));
  ASSERT_EQ(Got.size(), Written.size());
  for (size_t I = 0; I < Got.size(); ++I)
    EXPECT_TRUE(Got[I].Kind == Written[I].Kind && Got[I].Id == Written[I].Id &&
                Got[I].Count == Written[I].Count)
        << "record " << I;
}

// Period 1 (the same record over and over) up to the count's limit: 255 in one REPEAT, then
// the run starts again as its own bytes.
TEST_F(RepeatWriter, CountLimit) {
  TraceWriter W = writer();
  for (unsigned I = 0; I < 2 + 255 + 3; ++I)
    put(W, {0, 7, 0});
  std::vector<uint8_t> B = W.bytes();
  ASSERT_EQ(runtimeBytes(), B);
  // A7 A7 (the candidate), REPEAT p=1 n=255, then A7 A7 (a new run) and REPEAT p=1 n=1.
  const std::vector<uint8_t> Expect{0xA7, 0xA7, 0x98, 0xFF, 0xA7, 0xA7, 0x98, 0x01};
  EXPECT_EQ(std::vector<uint8_t>(B.begin() + TraceHeaderSize,
                                 B.begin() + TraceHeaderSize + Expect.size()),
            Expect);
}

// Loops of 1 to 8 control records, now and then perturbed (a record of the loop replaced by
// another, an ENTRY with a fid too large for one byte, a SCHED, an input) so that runs break
// at every place, over many wraps of a small ring: runtime and writer agree after every
// record, and the decoded tail is the end of what was written.
TEST_F(RepeatWriter, RuntimeAndWriterAgree) {
  TraceWriter W = writer();
  unsigned Repeats = 0, Other = 0;
  for (unsigned L = 0; L < 900; ++L) {
    const unsigned P = 1 + next(8);
    std::vector<Ev> Loop;
    for (unsigned J = 0; J < P; ++J) {
      const uint8_t K = uint8_t(next(4));
      Loop.push_back({K, uint16_t(K >= 2 ? 1 + next(3) : next(12)), uint16_t(K == 2 ? next(4) : 0)});
    }
    for (unsigned T = 0, N = next(40); T < N; ++T) {
      Ev E = Loop[T % P];
      if (next(25) == 0)
        E = {uint8_t(next(2)), uint16_t(next(47)), 0};
      put(W, E);
      ASSERT_EQ(runtimeBytes(), W.bytes()) << "loop " << L << " record " << T;
      if (next(60) == 0) {
        switch (next(3)) {
        case 0:
          __wsn_rt_entry(300);
          W.entry(300);
          Written.push_back({0, 300, 0});
          break;
        case 1:
          __wsn_rt_sched(5);
          W.sched(5);
          break;
        default: {
          const uint16_t V = uint16_t(next(1000));
          __wsn_rt_input16(9, V);
          W.input(9, V);
          break;
        }
        }
        ++Other;
        ASSERT_EQ(runtimeBytes(), W.bytes()) << "loop " << L << " after another record";
      }
    }
  }
  const std::vector<TraceRecord> Rs = decodeAll(W.bytes(), true);
  for (const TraceRecord &R : Rs)
    Repeats += R.Repeat != 0;
  const std::vector<Ev> Got = controlOf(Rs);
  ASSERT_GT(Got.size(), 100u);
  ASSERT_LE(Got.size(), Written.size());
  for (size_t I = 0; I < Got.size(); ++I) {
    const Ev &A = Got[Got.size() - 1 - I], &E = Written[Written.size() - 1 - I];
    ASSERT_TRUE(A.Kind == E.Kind && A.Id == E.Id && A.Count == E.Count)
        << "control record " << I << " from the end";
  }
  EXPECT_GT(W.header().Wraps, 5u);
  EXPECT_GT(Repeats, 100u); // records a REPEAT stands for, in the retained tail
  EXPECT_GT(Other, 10u);
}

} // namespace
