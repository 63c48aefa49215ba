//===- IntegrityTest.cpp - per-segment check values (trace-format.md 1.2) ------===//
//
// Each segment carries the CRC-16/CCITT-FALSE of the bytes written into it in the current
// lap, which the runtime updates as it closes each record. Damage after the write (a wild
// pointer in the firmware, a bad read-out, an edited file) is found per segment: every
// single-byte change and every burst of up to 16 bits in a retained segment is detected (a
// property of the CRC: its generator has degree 16 and a nonzero constant term). A segment
// that writing has left is covered whole (also the bytes after its PAD, which closing the
// PAD turns into the CRC so far and zeros when there are two or more), the current one up to
// the head; the stale rest of the current segment is not covered.
//
//===----------------------------------------------------------------------===//
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "gtest/gtest.h"

#include <random>

using namespace llvm;
using namespace wsn;

namespace {

// No automatic trace.wtr from the host runtime while testing.
struct NoAutoTraceFile {
  NoAutoTraceFile() { setenv("WSN_TRACE_OUT", "", 1); }
} NoAutoTraceFileInstance;

std::string errorOf(Error E) { return E ? toString(std::move(E)) : "<no error>"; }

/// A wrapped 4 x 64-byte ring: every kind of record, PADs, a stale part after the head.
std::vector<uint8_t> wrappedTrace() {
  TraceWriter::Options O;
  O.BufSize = 256;
  O.SegSize = 64;
  auto W = TraceWriter::create(O);
  EXPECT_TRUE(bool(W));
  for (unsigned I = 0; I < 40; ++I) {
    W->entry(uint16_t(I));
    W->irq(2, uint16_t(I % 3));
    W->input(7, 1000 + I);
    if (W->anchorArmed())
      W->checkpoint(1, std::vector<uint8_t>(9, uint8_t(I)));
    W->effect(4, {uint8_t(I), 0xFF, 0x00});
    W->irqExit(2);
    W->check(3, true, uint16_t(0x1234 + I));
    W->exit(uint16_t(I));
  }
  EXPECT_TRUE(W->header().wrapped());
  return W->bytes();
}

/// The file offsets the retained segments' check values cover (the tail's spans), and the
/// stale ones.
void coveredOffsets(const std::vector<uint8_t> &File, std::vector<size_t> &Covered,
                    std::vector<size_t> &Stale) {
  auto T = TraceFile::parse(File);
  ASSERT_TRUE(bool(T));
  std::vector<bool> In(File.size(), false);
  for (const TraceSpan &S : T->tail())
    for (unsigned I = 0; I < S.Length; ++I)
      In[32 + S.RingOffset + I] = true;
  for (size_t I = 32; I < 32 + 256; ++I)
    (In[I] ? Covered : Stale).push_back(I);
}

TEST(Integrity, RuntimeStoresTheCrcOfEachSegment) {
  __wsn_rt_reset();
  __wsn_rt_entry(50);  // fid over 46: the two-byte ENTRY
  __wsn_rt_sched(300); // varint 0xAC 0x02
  __wsn_rt_entry(5);   // ENTRY_S (format 7)
  const uint8_t Seg0[] = {0x01, 0x32, 0x05, 0xAC, 0x02, 0xA5};
  EXPECT_EQ(__wsn_trace.check[0][0] | (__wsn_trace.check[0][1] << 8), crc16(Seg0));
  // The byte-wise step of the runtime and the bitwise/table CRC agree on every byte value
  // after every CRC state's high byte (the step only depends on the two bytes' xor).
  for (unsigned B = 0; B < 256; ++B) {
    __wsn_rt_reset();
    uint8_t P[1] = {uint8_t(B)};
    __wsn_rt_input_bytes(1, P, 1); // 0x08 0x01 0x01 B
    const uint8_t Rec[] = {0x08, 0x01, 0x01, uint8_t(B)};
    ASSERT_EQ(__wsn_trace.check[0][0] | (__wsn_trace.check[0][1] << 8), crc16(Rec)) << B;
  }
  // The standard check value of CRC-16/CCITT-FALSE.
  const char *S = "123456789";
  EXPECT_EQ(crc16(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(S), 9)), 0x29B1);
}

TEST(Integrity, IntactTraceHasNoDamage) {
  auto T = TraceFile::parse(wrappedTrace());
  ASSERT_TRUE(bool(T));
  EXPECT_TRUE(T->damage().empty());
  EXPECT_EQ(T->tail().size(), 4u);
}

TEST(Integrity, EverySingleByteChangeIsFound) {
  std::vector<uint8_t> Good = wrappedTrace();
  std::vector<size_t> Covered, Stale;
  coveredOffsets(Good, Covered, Stale);
  ASSERT_GT(Covered.size(), 192u); // three whole segments and part of the fourth
  auto Good0 = TraceFile::parse(Good);
  ASSERT_TRUE(bool(Good0));
  std::vector<TraceRecord> Want;
  ASSERT_FALSE(bool(Good0->decode(Want)));
  unsigned Tried = 0;
  for (size_t Off : Covered) {
    for (unsigned V = 0; V < 256; ++V) {
      if (V == Good[Off])
        continue;
      std::vector<uint8_t> B = Good;
      B[Off] = uint8_t(V);
      auto T = TraceFile::parse(B);
      ASSERT_TRUE(bool(T));
      ++Tried;
      ASSERT_EQ(T->damage().size(), 1u) << "offset " << Off << " value " << V;
      const SegmentDamage &D = T->damage()[0];
      EXPECT_EQ(D.Segment, (Off - 32) / 64);
      EXPECT_FALSE(bool(T->decode())) << "offset " << Off;
    }
  }
  EXPECT_EQ(Tried, Covered.size() * 255);
  // A changed check value is damage too.
  for (size_t S = 0; S < 4; ++S) {
    std::vector<uint8_t> B = Good;
    B[32 + 256 + 2 * S + 1] ^= 0x01;
    auto T = TraceFile::parse(B);
    ASSERT_TRUE(bool(T));
    ASSERT_EQ(T->damage().size(), 1u);
    EXPECT_EQ(T->damage()[0].Segment, S);
  }
}

TEST(Integrity, BurstsUpTo16BitsAreFound) {
  // Every burst of 2 to 16 bits (first and last bit flipped, any bits between) at a sample
  // of positions, across byte boundaries: what a stray 16-bit store or a shifted write does.
  std::vector<uint8_t> Good = wrappedTrace();
  std::vector<size_t> Covered, Stale;
  coveredOffsets(Good, Covered, Stale);
  std::mt19937 Rng(21);
  unsigned Tried = 0;
  for (size_t I = 0; I + 2 < Covered.size(); I += 3) {
    size_t Off = Covered[I];
    if (Covered[I + 2] != Off + 2 || (Off - 32) / 64 != (Off + 2 - 32) / 64)
      continue; // three covered bytes of one segment
    for (unsigned Len = 2; Len <= 16; ++Len) {
      unsigned Start = Rng() % 8; // bit offset within the first byte, MSB first
      uint32_t Pattern = (1u << (Len - 1)) | 1u | (Rng() & ((1u << (Len - 1)) - 1));
      uint32_t Mask = Pattern << (24 - Start - Len);
      std::vector<uint8_t> B = Good;
      B[Off] ^= uint8_t(Mask >> 16);
      B[Off + 1] ^= uint8_t(Mask >> 8);
      B[Off + 2] ^= uint8_t(Mask);
      auto T = TraceFile::parse(B);
      ASSERT_TRUE(bool(T));
      ++Tried;
      ASSERT_EQ(T->damage().size(), 1u) << "offset " << Off << " burst " << Len;
    }
  }
  EXPECT_GT(Tried, 500u);
}

TEST(Integrity, StaleBytesAreNotDamage) {
  std::vector<uint8_t> Good = wrappedTrace();
  std::vector<size_t> Covered, Stale;
  coveredOffsets(Good, Covered, Stale);
  ASSERT_FALSE(Stale.empty());
  auto G = TraceFile::parse(Good);
  ASSERT_TRUE(bool(G));
  auto Want = G->decode();
  ASSERT_TRUE(bool(Want));
  for (size_t Off : Stale) {
    std::vector<uint8_t> B = Good;
    B[Off] ^= 0xFF;
    auto T = TraceFile::parse(B);
    ASSERT_TRUE(bool(T));
    EXPECT_TRUE(T->damage().empty()) << Off;
    auto R = T->decode();
    ASSERT_TRUE(bool(R));
    EXPECT_EQ(*R, *Want);
  }
}

TEST(Integrity, DamagedSegmentIsRefusedOrSkipped) {
  std::vector<uint8_t> Good = wrappedTrace();
  auto G = TraceFile::parse(Good);
  ASSERT_TRUE(bool(G));
  const TraceSpan &Second = G->tail()[1];
  std::vector<uint8_t> B = Good;
  B[32 + Second.RingOffset + 1] ^= 0x04; // the first record's id
  auto T = TraceFile::parse(B);
  ASSERT_TRUE(bool(T));
  ASSERT_EQ(T->damage().size(), 1u);
  const SegmentDamage &D = T->damage()[0];
  EXPECT_EQ(D.Span, 1u);
  EXPECT_EQ(D.Segment, Second.Segment);
  std::string Msg = D.message(T->header());
  std::string Head = "offset " + std::to_string(32 + Second.RingOffset) + ": segment " +
                     std::to_string(Second.Segment) + " (ring offset " +
                     std::to_string(Second.RingOffset) + ") is damaged: its check value 0x";
  EXPECT_EQ(Msg.rfind(Head, 0), 0u) << Msg;
  EXPECT_NE(Msg.find("(offset " + std::to_string(32 + 256 + 2 * Second.Segment) + ")"),
            std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find("its records are not used"), std::string::npos);
  // decode() refuses; from the span after it, the records are those of the good trace.
  EXPECT_EQ(errorOf(T->decode().takeError()), Msg);
  std::vector<TraceRecord> One;
  EXPECT_EQ(errorOf(T->decodeSegment(Second.Segment, One)), Msg);
  auto Rest = T->decode(2);
  auto Want = G->decode(2);
  ASSERT_TRUE(bool(Rest) && bool(Want));
  EXPECT_EQ(*Rest, *Want);
  // Skipping: every record but the damaged segment's, at their own offsets.
  std::vector<TraceRecord> Skipped, All;
  ASSERT_FALSE(bool(T->decode(Skipped, 0, /*SkipDamaged=*/true)));
  ASSERT_FALSE(bool(G->decode(All)));
  std::vector<TraceRecord> Expect;
  for (const TraceRecord &R : All)
    if (R.Segment != Second.Segment)
      Expect.push_back(R);
  EXPECT_EQ(Skipped, Expect);
  // resealTrace accepts the bytes as they are (tools that edit traces on purpose).
  ASSERT_FALSE(bool(resealTrace(B)));
  auto Resealed = TraceFile::parse(B);
  ASSERT_TRUE(bool(Resealed));
  EXPECT_TRUE(Resealed->damage().empty());
}

TEST(Integrity, DamageThatBreaksDecodingIsNamedAsDamage) {
  // The check value is verified before anything is decoded: a tag turned into a reserved one
  // is damage (the segment is named), not a decoder error at the record.
  std::vector<uint8_t> Good = wrappedTrace();
  auto G = TraceFile::parse(Good);
  ASSERT_TRUE(bool(G));
  const TraceSpan &First = G->tail()[0];
  std::vector<uint8_t> B = Good;
  B[32 + First.RingOffset] = 0x72; // a reserved tag
  auto T = TraceFile::parse(B);
  ASSERT_TRUE(bool(T));
  ASSERT_EQ(T->damage().size(), 1u);
  std::string Msg = T->damage()[0].message(T->header());
  EXPECT_EQ(Msg.rfind("offset " + std::to_string(32 + First.RingOffset) + ": segment " +
                          std::to_string(First.Segment) + " (ring offset " +
                          std::to_string(First.RingOffset) + ") is damaged",
                      0),
            0u)
      << Msg;
  EXPECT_EQ(toString(T->decode().takeError()), Msg);
}

TEST(Integrity, BytesAfterAPadAreCoveredOnceTheSegmentIsLeft) {
  // 4 x 16 bytes: a 10-byte record does not fit after 12 bytes, so segment 0 ends with a PAD
  // and 3 stale bytes. The value of segment 0 covers all 16; a change after the PAD (where
  // no record is read) is damage too, since the value no longer matches.
  TraceWriter::Options O;
  O.BufSize = 64;
  O.SegSize = 16;
  auto W = TraceWriter::create(O);
  ASSERT_TRUE(bool(W));
  for (unsigned I = 0; I < 6; ++I)
    W->sched(uint16_t(I)); // head 12
  W->inputBytes(1, std::vector<uint8_t>(7, 0x33)); // PAD at 12, record at 16
  std::vector<uint8_t> B = W->bytes();
  ASSERT_EQ(B[32 + 12], 0);
  const uint8_t *Seg0 = B.data() + 32;
  EXPECT_EQ(B[32 + 64] | (B[32 + 65] << 8), crc16(ArrayRef<uint8_t>(Seg0, 16)));
  B[32 + 15] ^= 0x80;
  auto T = TraceFile::parse(B);
  ASSERT_TRUE(bool(T));
  ASSERT_EQ(T->damage().size(), 1u);
  EXPECT_EQ(T->damage()[0].Segment, 0u);
  EXPECT_EQ(T->damage()[0].Covered, 16u);
}

TEST(Integrity, RestAfterAPadIsTheCrcSoFarThenZeros) {
  // Section 1.2: closing a PAD with r >= 2 bytes after it writes the CRC of the segment up to
  // and including the PAD (high byte first) and r - 2 zeros, so the segment's CRC, which
  // covers all of it, is 0, whatever stale bytes were there. The host runtime (256-byte
  // segments) and TraceWriter write the same bytes.
  __wsn_rt_reset();
  std::vector<uint8_t> Fill(246, 0x5A), Stale(6, 0xEE);
  auto W = TraceWriter::create();
  ASSERT_TRUE(bool(W));
  __wsn_rt_input_bytes(1, Fill.data(), 246); // 08 01 F6 01 + 246 bytes: head 250
  W->inputBytes(1, Fill);
  for (unsigned I = 250; I < 256; ++I) // an earlier lap's bytes
    __wsn_trace.data[I] = 0xEE;
  __wsn_rt_input_bytes(2, Stale.data(), 6); // 9 bytes: PAD at 250, the record at 256
  W->inputBytes(2, Stale);
  const uint8_t *Seg0 = __wsn_trace.data;
  EXPECT_EQ(Seg0[250], 0);
  const uint16_t UpToPad = crc16(ArrayRef<uint8_t>(Seg0, 251));
  EXPECT_EQ(Seg0[251], UpToPad >> 8);
  EXPECT_EQ(Seg0[252], UpToPad & 0xFF);
  EXPECT_EQ(Seg0[253] | Seg0[254] | Seg0[255], 0);
  EXPECT_EQ(crc16(ArrayRef<uint8_t>(Seg0, 256)), 0);
  EXPECT_EQ(__wsn_trace.check[0][0] | (__wsn_trace.check[0][1] << 8), 0);
  std::vector<uint8_t> B = W->bytes();
  EXPECT_TRUE(std::equal(Seg0, Seg0 + 256 + 9, B.begin() + 32));
  EXPECT_EQ(B[32 + 1024] | (B[32 + 1025] << 8), 0);
  auto T = TraceFile::parse(B);
  ASSERT_TRUE(bool(T));
  EXPECT_TRUE(T->damage().empty());
  // Every change of a byte of the closed segment (the PAD's rest included) is still damage.
  for (unsigned I = 0; I < 256; I += 5) {
    std::vector<uint8_t> D = B;
    D[32 + I] ^= 0x01;
    auto TD = TraceFile::parse(D);
    ASSERT_TRUE(bool(TD));
    ASSERT_EQ(TD->damage().size(), 1u) << I;
    EXPECT_EQ(TD->damage()[0].Segment, 0u);
  }
}

TEST(Integrity, PadInTheLastTwoBytesFoldsTheRest) {
  // With fewer than two bytes after the PAD there is no room for the CRC: the PAD and the
  // byte after it, if any, are folded into the value as they are.
  for (unsigned Head : {14u, 15u}) {
    TraceWriter::Options O;
    O.BufSize = 64;
    O.SegSize = 16;
    auto W = TraceWriter::create(O);
    ASSERT_TRUE(bool(W));
    W->inputBytes(1, std::vector<uint8_t>(Head - 3, 0x11)); // 08 01 n + n bytes
    ASSERT_EQ(W->header().Head, Head);
    W->inputBytes(1, std::vector<uint8_t>(5, 0x22)); // 8 bytes: PAD at Head
    std::vector<uint8_t> B = W->bytes();
    const uint8_t *Seg0 = B.data() + 32;
    EXPECT_EQ(Seg0[Head], 0);
    EXPECT_EQ(B[32 + 64] | (B[32 + 65] << 8), crc16(ArrayRef<uint8_t>(Seg0, 16))) << Head;
    EXPECT_NE(crc16(ArrayRef<uint8_t>(Seg0, 16)), 0) << Head;
    auto T = TraceFile::parse(B);
    ASSERT_TRUE(bool(T));
    EXPECT_TRUE(T->damage().empty());
  }
}

} // namespace
