//===- WholeEffectTest.cpp - effects with a short form (effect tables) ----===//
//
// spec/trace-format.md sections 2.1 and 4: an effect whose table is a short form's (ret-bytes
// | 0x80) is written short when no handler ran inside the skipped call, else whole. The whole
// record is the module's handler table's variables (__wsn_effect_handlers), then, when the
// table is flagged 0x40 too, the variables of the second table its head names; the short
// form's list ends with a link to that same table. A global the callee and a handler both
// write (Shared here) is in each record once. The host runtime and TraceWriter write the
// same bytes; the decoder gives each form's length.
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace wsn;
using namespace wsn::recordtest;

namespace {
uint16_t Shared = 0x1111; // written by the callee and by handlers
uint8_t HandlerOnly = 0x22;
uint8_t Mine[3] = {1, 2, 3}; // written by the callee only
} // namespace

// The program's handler part, as the lowering defines it (`u16 bytes, u8 n, n pairs`); it
// replaces the runtime's weak empty one in this test program.
extern "C" {
struct __attribute__((packed)) WholeTestPair {
  const void *Addr;
  uint8_t Size;
};
struct __attribute__((packed)) WholeTestHandlers {
  uint16_t Bytes;
  uint8_t N;
  WholeTestPair Pairs[2];
};
extern const WholeTestHandlers __wsn_effect_handlers;
const WholeTestHandlers __wsn_effect_handlers = {3, 2, {{&Shared, 2}, {&HandlerOnly, 1}}};
}

namespace {

void put16(std::vector<uint8_t> &B, uint16_t V) {
  B.push_back(uint8_t(V));
  B.push_back(uint8_t(V >> 8));
}
void putPtr(std::vector<uint8_t> &B, const void *P) {
  uintptr_t A = reinterpret_cast<uintptr_t>(P);
  for (unsigned I = 0; I < sizeof(uintptr_t); ++I)
    B.push_back(uint8_t(A >> (8 * I)));
}

class WholeEffect : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("WSN_NODE_ID");
    __wsn_node_id = 0;
    __wsn_rt_reset();
  }
};

// Two tables as the lowering makes them for RetBytes = 2: Both (the callee writes Shared and
// Mine: flagged 0xC0, its list Shared then a link to the table of Mine) and Own (the callee
// writes Shared only: flagged 0x80).
struct Tables {
  std::vector<uint8_t> Rest, Both, Own;
  Tables() {
    Rest = {1};
    putPtr(Rest, Mine);
    Rest.push_back(3);
    put16(Both, 2 + 2 + 3); // the short form: return, Shared, Mine
    Both.push_back(2 | 0xC0);
    put16(Both, 2 + 3 + 3); // the whole form: return, Shared, HandlerOnly, Mine
    putPtr(Both, Rest.data());
    Both.push_back(2);
    putPtr(Both, &Shared);
    Both.push_back(2);
    putPtr(Both, Rest.data());
    Both.push_back(0); // a link
    put16(Own, 2 + 2);
    Own.push_back(2 | 0x80);
    Own.push_back(1);
    putPtr(Own, &Shared);
    Own.push_back(2);
  }
  uintptr_t both() const { return reinterpret_cast<uintptr_t>(Both.data()); }
  uintptr_t own() const { return reinterpret_cast<uintptr_t>(Own.data()); }
};

std::vector<uint8_t> payload(uint16_t Ret, bool Handler, bool WithMine) {
  std::vector<uint8_t> P;
  put16(P, Ret);
  put16(P, Shared);
  if (Handler)
    P.push_back(HandlerOnly);
  if (WithMine)
    P.insert(P.end(), Mine, Mine + 3);
  return P;
}

// Over several wraps: each table, with and without a (quiet) handler inside the span, merged
// with its SKIP_END or as a separate EFFECT (always whole), and through the snapshot entry
// (the short form as changes). The record lengths are the map's two forms.
TEST_F(WholeEffect, EachGlobalOnceInEitherForm) {
  Tables T;
  TraceWriter W = writer();
  uint8_t Snap[16];
  unsigned Short = 0, Whole = 0;
  for (unsigned I = 0; I < 300; ++I) {
    uint16_t Site = uint16_t(5 + I % 4);
    bool Two = I % 2 == 0; // the 0xC0 table
    uintptr_t Tbl = Two ? T.both() : T.own();
    bool Handler = I % 5 == 3;
    bool Snapshot = I % 7 == 1;
    __wsn_rt_skip_begin(Site);
    W.skipBegin(Site);
    ASSERT_EQ(__wsn_rt_snap(Tbl, Snap), Two ? 5u : 2u);
    std::vector<uint8_t> Before = payload(0, false, Two);
    if (Handler) { // inside the span: quiet, but the effect must be whole
      uint16_t C = __wsn_rt_irq_enter(2);
      HandlerOnly = uint8_t(HandlerOnly + 1);
      Shared = uint16_t(Shared + 0x101);
      __wsn_rt_irq_leave(2, C);
    }
    Shared = uint16_t(Shared * 3 + I);
    if (Two)
      Mine[I % 3] = uint8_t(I);
    uint16_t Ret = uint16_t(I * 7);
    if (Snapshot)
      __wsn_rt_skip_effect_c(Site, Tbl, Ret, Snap);
    else
      __wsn_rt_skip_effect_t(Site, Tbl, Ret);
    // The span's end merged into its effect (format 7: one record over the SKIP_BEGIN when
    // the span is empty, spec/trace-format.md 3.5).
    if (Handler)
      W.skipEffect(Site, payload(Ret, true, Two), /*MayDelta=*/!Two);
    else if (Snapshot)
      W.skipEffectC(Site, Before, payload(Ret, false, Two));
    else
      W.skipEffect(Site, payload(Ret, false, Two));
    (Handler ? Whole : Short) += 1;
    if (I % 11 == 4) { // an EFFECT apart from its span's end: whole
      __wsn_rt_effect_t(uint16_t(Site + 100), Tbl, Ret);
      W.effect(uint16_t(Site + 100), payload(Ret, true, Two), /*MayDelta=*/!Two);
      ++Whole;
    }
    __wsn_rt_entry(uint16_t(I));
    W.entry(uint16_t(I));
    ASSERT_EQ(runtimeBytes(), W.bytes()) << "after effect " << I;
  }
  EXPECT_GT(W.header().Wraps, 2u);
  EXPECT_GT(Short, 0u);
  EXPECT_GT(Whole, 0u);
  // What the decoder reads: the short forms (4 and 7 bytes) and the whole ones (5 and 8).
  auto F = TraceFile::parse(W.bytes());
  ASSERT_TRUE(bool(F));
  auto Rs = F->decode();
  ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
  unsigned Lens[9] = {};
  for (const TraceRecord &R : *Rs)
    if (R.Kind == RecordKind::Effect && R.Payload.size() < 9)
      ++Lens[R.Payload.size()];
  EXPECT_GT(Lens[4], 0u);
  EXPECT_GT(Lens[5], 0u);
  EXPECT_GT(Lens[7], 0u);
  EXPECT_GT(Lens[8], 0u);
}

} // namespace
