//===- EffectZTest.cpp - EFFECT_Z records (trace format 7) ----------------===//
//
// spec/trace-format.md section 3.6: a full EFFECT written by a runtime without effect keys
// leaves its zero bytes out when that is smaller, with CHECKPOINT_Z's groups and the site for
// the anchor; its span form is tag + 8. TraceWriter (PackEffects) writes it; the decoder gives
// an EFFECT with its full payload (Packed) and refuses every malformed form with its offsets.
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"

#include "gtest/gtest.h"

using namespace wsn;
using namespace wsn::recordtest;
using llvm::ArrayRef;

namespace {

TraceWriter packingWriter() {
  TraceWriter::Options O;
  O.BufSize = 1024;
  O.SegSize = 256;
  O.ModuleHash = 0xC0FFEE42u;
  O.EffectKeys = 0;
  O.PackEffects = true;
  auto W = TraceWriter::create(O);
  EXPECT_TRUE(bool(W));
  return std::move(*W);
}

// ENTRY 101 at ring 0 (2 bytes: format 7 writes fid 101 as ENTRY), then a 20-byte effect of
// site 5 with bytes 1, 9 and 19 non-zero: 14 05 14 | 02 AA | 02 BB | 08 CC, then EXIT 101.
class EffectZ : public ::testing::Test {
protected:
  static std::vector<uint8_t> payload() {
    std::vector<uint8_t> P(20, 0);
    P[1] = 0xAA;
    P[9] = 0xBB;
    P[19] = 0xCC;
    return P;
  }
  std::vector<uint8_t> base() {
    TraceWriter W = packingWriter();
    W.entry(101);
    W.effect(5, payload());
    W.exit(101);
    std::vector<uint8_t> B = W.bytes();
    EXPECT_EQ(ArrayRef<uint8_t>(B).slice(C, 9).vec(),
              (std::vector<uint8_t>{0x14, 5, 20, 0x02, 0xAA, 0x02, 0xBB, 0x08, 0xCC}));
    return B;
  }
  static constexpr size_t C = TraceHeaderSize + 2; // the effect's tag in the file
};

TEST_F(EffectZ, Layout) {
  std::vector<uint8_t> B = base();
  EXPECT_EQ(decodeError(B), "success");
  std::vector<TraceRecord> Rs = decodeAll(B);
  ASSERT_EQ(Rs.size(), 3u);
  EXPECT_EQ(Rs[1].Kind, RecordKind::Effect);
  EXPECT_EQ(Rs[1].id(), 5u);
  EXPECT_TRUE(Rs[1].Packed);
  EXPECT_TRUE(Rs[1].Given.empty()); // every byte: the zeros are the payload's own
  EXPECT_EQ(Rs[1].Size, 9u);
  EXPECT_EQ(Rs[1].Payload, payload());
}

// Not smaller (one mask byte per 8 bytes, every byte non-zero): the plain EFFECT. Without
// PackEffects (a runtime with keys, or built without packing): plain as before.
TEST_F(EffectZ, OnlyWhenSmaller) {
  TraceWriter W = packingWriter();
  W.effect(7, std::vector<uint8_t>{1, 2, 3, 4});
  std::vector<TraceRecord> Rs = decodeAll(W.bytes());
  ASSERT_EQ(Rs.size(), 1u);
  EXPECT_FALSE(Rs[0].Packed);
  EXPECT_EQ(Rs[0].Size, 3u + 4u);
  TraceWriter Plain = writer(1024, 256, 0);
  Plain.effect(5, payload());
  Rs = decodeAll(Plain.bytes());
  ASSERT_EQ(Rs.size(), 1u);
  EXPECT_FALSE(Rs[0].Packed);
}

// The span form (tag + 8, section 3.5): SKIP_BEGIN, SKIP_END and the EFFECT.
TEST_F(EffectZ, SpanForm) {
  TraceWriter W = packingWriter();
  W.skipBegin(5);
  W.skipEffect(5, payload());
  std::vector<uint8_t> B = W.bytes();
  EXPECT_EQ(B[TraceHeaderSize], SpanEffectZTag);
  std::vector<TraceRecord> Rs = decodeAll(B);
  ASSERT_EQ(Rs.size(), 3u);
  EXPECT_EQ(Rs[0].Kind, RecordKind::SkipBegin);
  EXPECT_EQ(Rs[1].Kind, RecordKind::SkipEnd);
  EXPECT_EQ(Rs[2].Kind, RecordKind::Effect);
  EXPECT_TRUE(Rs[2].Packed);
  EXPECT_TRUE(Rs[2].Span);
  EXPECT_EQ(Rs[2].Payload, payload());
}

TEST_F(EffectZ, MalformedForms) {
  std::vector<uint8_t> B = base();
  B[C + 7] = 0x18; // the last group holds bytes 16-19: bit 4 is byte 20
  EXPECT_EQ(decodeError(B),
            "offset 41: EFFECT_Z mask 0x18 of group 2 marks bytes past the 20-byte payload "
            "(record at ring offset 2, tail offset 2, segment 0)");
  B = base();
  B[C + 6] = 0; // byte 9
  EXPECT_EQ(decodeError(B),
            "offset 40: EFFECT_Z byte 9 of the payload is marked non-zero by its group's "
            "mask but is 0x00 (record at ring offset 2, tail offset 2, segment 0)");
  B = base();
  B[C + 2] = 0; // len 0
  EXPECT_EQ(decodeError(B),
            "offset 34: EFFECT_Z of a 0-byte payload: a packed effect holds 1 to 256 bytes "
            "(record at ring offset 2, tail offset 2, segment 0)");
  B = base();
  B[C + 2] = 8;    // len 8: group 0 only
  B[C + 3] = 0xFF; // all 8 marked: 1 + 8 bytes for an 8-byte payload
  B[C + 5] = 0x11;
  B[C + 7] = 0x22;
  B[C + 11] = 0x33;
  B[16] = uint8_t(B[16] + 1);
  EXPECT_EQ(decodeError(B),
            "offset 34: EFFECT_Z of a 8-byte payload takes 9 bytes: the writer packs an "
            "effect only when that is smaller than its payload (record at ring offset 2, "
            "tail offset 2, segment 0)");
  B = base();
  B[4] = 6; // format 6: the tag is reserved
  EXPECT_NE(decodeError(B).find("record tag 0x14 is reserved in format 6"), std::string::npos)
      << decodeError(B);
}

} // namespace
