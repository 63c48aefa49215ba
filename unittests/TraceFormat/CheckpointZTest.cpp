//===- CheckpointZTest.cpp - CHECKPOINT_Z records (trace format 4) --------===//
//
// spec/trace-format.md section 3.2: a checkpoint is written without its zero bytes (a mask
// byte per 8 payload bytes, then the non-zero bytes it marks) when that is smaller than the
// plain CHECKPOINT. The host runtime and TraceWriter must write the same bytes; the decoder
// rebuilds the full payload and hands an ordinary CHECKPOINT on; every malformed or cut-off
// CHECKPOINT_Z is refused with its offsets; a node stopped inside one leaves an open record.
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <string>

using namespace wsn;
using llvm::ArrayRef;

namespace {

using namespace wsn::recordtest;

class CheckpointZ : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("WSN_NODE_ID");
    __wsn_node_id = 0;
    __wsn_rt_reset();
  }
};

// The groups on their own (section 3.2): a mask per 8 bytes, bit i for byte i.
TEST(CheckpointZGroups, Encoding) {
  EXPECT_EQ(packZeroGroups({}), std::vector<uint8_t>{});
  EXPECT_EQ(packZeroGroups(std::vector<uint8_t>(8, 0)), std::vector<uint8_t>{0});
  EXPECT_EQ(packZeroGroups({0, 7, 0, 0, 0, 0, 0, 0x80, 0, 0, 3}),
            (std::vector<uint8_t>{0x82, 7, 0x80, 0x04, 3}));
  std::vector<uint8_t> Dense(9, 0xEE);
  std::vector<uint8_t> Want = {0xFF, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0x01, 0xEE};
  EXPECT_EQ(packZeroGroups(Dense), Want);
}

// The runtime packs a mostly-zero checkpoint, writes a dense one plain (packing would not be
// smaller), and TraceWriter writes the same bytes; the decoder gives the full payload back.
TEST_F(CheckpointZ, RuntimeAndWriterAgree) {
  TraceWriter W = writer();
  uint8_t Buf[40] = {};
  uint16_t Count = 0x0102;
  uint8_t Dense[6] = {1, 2, 3, 4, 5, 6};
  CkTable T(3, {{Buf, 40}, {&Count, 2}});
  CkTable TD(4, {{Dense, 6}});
  auto Payload = [&]() {
    std::vector<uint8_t> P(Buf, Buf + 40);
    P.push_back(uint8_t(Count));
    P.push_back(uint8_t(Count >> 8));
    return P;
  };
  std::vector<std::vector<uint8_t>> Want;
  auto Both = [&](const CkTable &Tb, std::vector<uint8_t> P) {
    ASSERT_TRUE(__wsn_rt_anchor_armed());
    __wsn_rt_checkpoint_t(Tb.addr());
    W.checkpoint(uint16_t(Tb.B[0]), P);
    Want.push_back(P);
  };
  Buf[5] = 0x55;
  Both(T, Payload());
  // Fill the segment so that the next checkpoint comes in the next one.
  for (unsigned I = 0; I < 125; ++I) {
    __wsn_rt_entry(uint16_t(50 + I % 70)); // 2 bytes: fid over 46
    W.entry(uint16_t(50 + I % 70));
  }
  Both(TD, std::vector<uint8_t>(Dense, Dense + 6));
  ASSERT_EQ(runtimeBytes(), W.bytes());

  std::vector<TraceRecord> Rs = decodeAll(W.bytes());
  std::vector<const TraceRecord *> Cks;
  for (const TraceRecord &R : Rs)
    if (R.Kind == RecordKind::Checkpoint)
      Cks.push_back(&R);
  ASSERT_EQ(Cks.size(), 2u);
  EXPECT_EQ(Cks[0]->Payload, Want[0]);
  EXPECT_EQ(Cks[1]->Payload, Want[1]);
  EXPECT_TRUE(Cks[0]->Packed);
  EXPECT_FALSE(Cks[1]->Packed);
  // 42 bytes: groups 0 (byte 5), 1-4 (zero), 5 (bytes 40, 41 = Count) -> 6 masks + 3 bytes,
  // 12 bytes with tag, anchor and len against 45 plain; four empty masks against one bitmap
  // byte, so format 8 writes it two-level (section 3.7): bitmap 0x21, groups 0 and 5, 9 bytes.
  // The dense one: 9 plain (6 + 3), packed it would take 10.
  EXPECT_EQ(Cks[0]->Size, 9u);
  EXPECT_TRUE(Cks[0]->TwoLevel);
  EXPECT_EQ(Cks[1]->Size, 9u);
  const std::vector<uint8_t> File = W.bytes();
  auto Ring = ArrayRef<uint8_t>(File).drop_front(TraceHeaderSize);
  EXPECT_EQ(Ring.slice(Cks[0]->RingOffset, 9).vec(),
            (std::vector<uint8_t>{0x15, 3, 42, 0x21, 0x20, 0x55, 0x03, 0x02, 0x01}));
  EXPECT_EQ(Ring[Cks[1]->RingOffset], 0x06);
}

// Placement: a packed checkpoint goes where the plain one would (after a PAD when the plain
// one does not fit in the rest of the segment); one whose plain form would end exactly at the
// segment's end stays plain. Over several wraps the runtime and the writer agree, and every
// segment decodes on its own.
TEST_F(CheckpointZ, PlacementAndWraps) {
  TraceWriter W = writer();
  static uint8_t Big[200];
  CkTable T(9, {{Big, 200}});
  unsigned Packed = 0, Plain = 0;
  uint32_t Seed = 7;
  for (unsigned Step = 0; Step < 600; ++Step) {
    Seed = Seed * 1103515245u + 12345u;
    uint16_t R = uint16_t(Seed >> 12);
    // From mostly zero to dense and back: both forms, and packed sizes of all lengths.
    unsigned NonZero = (Step / 3) % 2 ? 190u : (R % 60u);
    for (unsigned I = 0; I < 200; ++I)
      Big[I] = 0;
    for (unsigned I = 0; I < NonZero; ++I)
      Big[(I * 37u + R) % 200u] = uint8_t(1 + (R + I) % 255u);
    if (__wsn_rt_anchor_armed()) {
      ASSERT_TRUE(W.anchorArmed());
      __wsn_rt_checkpoint_t(T.addr());
      W.checkpoint(9, std::vector<uint8_t>(Big, Big + 200));
    } else {
      ASSERT_FALSE(W.anchorArmed());
    }
    unsigned N = R % 7;
    for (unsigned I = 0; I < N; ++I) {
      __wsn_rt_input(uint16_t(I), R);
      W.input(uint16_t(I), R);
    }
    ASSERT_EQ(runtimeBytes(), W.bytes()) << "step " << Step;
  }
  std::vector<uint8_t> File = W.bytes();
  auto F = TraceFile::parse(File);
  ASSERT_TRUE(bool(F));
  EXPECT_GT(F->header().Wraps, 3u);
  for (unsigned S = 0; S < F->header().numSegments(); ++S) {
    std::vector<TraceRecord> Out;
    ASSERT_EQ(errorOf(F->decodeSegment(S, Out)), "success") << "segment " << S;
    for (const TraceRecord &R : Out)
      if (R.Kind == RecordKind::Checkpoint) {
        ++(R.Packed ? Packed : Plain);
        EXPECT_EQ(R.Payload.size(), 200u);
        EXPECT_LT(R.Packed ? R.Size : 0u, 200u + 3u);
      }
  }
  EXPECT_GT(Packed, 0u);
  EXPECT_GT(Plain, 0u);
}

// A checkpoint with locals (__wsn_rt_checkpoint_begin/put_t/put/record_end) is packed as its
// pieces come: when the first piece leaves room for the rest at its largest (R + ceil(R/8)
// bytes for R more); a dense first piece keeps it plain even when packing the whole would be
// smaller; a frozen trace writes nothing.
TEST_F(CheckpointZ, StreamedPacksAsPiecesCome) {
  TraceWriter W = writer();
  using Way = TraceWriter::CheckpointWay;
  uint8_t Z[16] = {};
  Z[3] = 9;
  uint16_t Local = 0x0500;
  // Globals by table (16 bytes), then a 2-byte local: 18 bytes, 2 non-zero.
  std::vector<uint8_t> T = {16, 0, 1};
  uintptr_t A = reinterpret_cast<uintptr_t>(Z);
  for (unsigned I = 0; I < sizeof(uintptr_t); ++I)
    T.push_back(uint8_t(A >> (8 * I)));
  T.push_back(16);
  auto Streamed = [&](uint16_t Anchor, ArrayRef<uint8_t> Want) {
    do {
      __wsn_rt_checkpoint_begin(Anchor, 18);
      __wsn_rt_put_t(reinterpret_cast<uintptr_t>(T.data()));
      __wsn_rt_put(&Local, 2);
    } while (__wsn_rt_record_end());
    W.checkpoint(Anchor, Want, Way::Streamed, 16);
  };
  auto Bytes = [&]() {
    std::vector<uint8_t> P(Z, Z + 16);
    P.push_back(uint8_t(Local));
    P.push_back(uint8_t(Local >> 8));
    return P;
  };
  EXPECT_TRUE(packsInPieces(Bytes(), 16));
  Streamed(2, Bytes());
  // 15 of the 16 table bytes non-zero: 2 masks + 15 = 17 > 18 - 1 - (2 + 1); packed whole it
  // would take 3 masks + 16 = 19: plain either way. 12 non-zero: 14 <= 14, packed.
  for (unsigned I = 0; I < 15; ++I)
    Z[I] = uint8_t(0x10 + I);
  EXPECT_FALSE(packsInPieces(Bytes(), 16));
  for (unsigned I = 12; I < 15; ++I)
    Z[I] = 0;
  EXPECT_TRUE(packsInPieces(Bytes(), 16));
  Z[12] = 1; // 13: 15 > 14, plain, though the whole (3 + 14 = 17) is smaller than 18
  EXPECT_FALSE(packsInPieces(Bytes(), 16));
  EXPECT_LT(packZeroGroups(Bytes()).size(), 18u);
  for (unsigned I = 0; I < 130; ++I) { // the next segment, armed again
    __wsn_rt_entry(uint16_t(50 + I % 70)); // 2 bytes: fid over 46
    W.entry(uint16_t(50 + I % 70));
  }
  ASSERT_TRUE(__wsn_rt_anchor_armed());
  Streamed(3, Bytes());
  for (unsigned I = 0; I < 130; ++I) {
    __wsn_rt_entry(uint16_t(50 + I % 70)); // 2 bytes: fid over 46
    W.entry(uint16_t(50 + I % 70));
  }
  Z[12] = 0;
  ASSERT_TRUE(__wsn_rt_anchor_armed());
  Streamed(4, Bytes());
  __wsn_rt_check(1, 0, 0x1234);
  W.check(1, false, 0x1234);
  // Frozen now: nothing more is written.
  CkTable Tb(5, {{Z, 16}});
  __wsn_rt_checkpoint_t(Tb.addr());
  ASSERT_EQ(runtimeBytes(), W.bytes());
  std::vector<TraceRecord> Rs = decodeAll(W.bytes());
  std::vector<const TraceRecord *> Cks;
  for (const TraceRecord &R : Rs)
    if (R.Kind == RecordKind::Checkpoint)
      Cks.push_back(&R);
  ASSERT_EQ(Cks.size(), 3u);
  EXPECT_TRUE(Cks[0]->Packed);
  EXPECT_EQ(Cks[0]->Size, 3u + 5u); // 3 masks + 2 bytes after tag, anchor, len
  EXPECT_FALSE(Cks[1]->Packed);
  EXPECT_EQ(Cks[1]->Size, 21u);
  EXPECT_EQ(Cks[1]->Payload[12], 1);
  EXPECT_TRUE(Cks[2]->Packed);
  EXPECT_EQ(Cks[2]->Size, 3u + 3u + 12u + 1u);
  EXPECT_EQ(Cks[2]->Payload, Bytes());
}

// Pieces in every order and size (globals by table and locals by put, interleaved, and a
// record ended early: zero-filled): runtime and writer agree byte for byte.
TEST_F(CheckpointZ, StreamedPiecesAgree) {
  TraceWriter W = writer(1024, 256);
  using Way = TraceWriter::CheckpointWay;
  static uint8_t G[40];
  uint32_t Seed = 99;
  for (unsigned Step = 0; Step < 400; ++Step) {
    Seed = Seed * 1103515245u + 12345u;
    uint16_t R = uint16_t(Seed >> 12);
    for (unsigned I = 0; I < 40; ++I)
      G[I] = ((R >> (I % 13)) & 3) == 0 ? uint8_t(1 + (R + I) % 200) : 0;
    uint8_t Loc[5] = {uint8_t(R), 0, uint8_t(R >> 8), 0, 0};
    unsigned N1 = 1 + R % 40, NL = R % 6;
    std::vector<uint8_t> T = {uint8_t(N1), 0, 1};
    uintptr_t A = reinterpret_cast<uintptr_t>(G);
    for (unsigned I = 0; I < sizeof(uintptr_t); ++I)
      T.push_back(uint8_t(A >> (8 * I)));
    T.push_back(uint8_t(N1));
    const bool LocalFirst = R & 0x40;
    const uint16_t Len = uint16_t(N1 + NL);
    std::vector<uint8_t> Want;
    if (__wsn_rt_anchor_armed()) {
      do { // again when packing into the rest of the segment gave it up (section 3.2)
        __wsn_rt_checkpoint_begin(6, Len);
        if (LocalFirst) {
          __wsn_rt_put(Loc, uint16_t(NL));
          __wsn_rt_put_t(reinterpret_cast<uintptr_t>(T.data()));
          Want.assign(Loc, Loc + NL);
          Want.insert(Want.end(), G, G + N1);
        } else {
          __wsn_rt_put_t(reinterpret_cast<uintptr_t>(T.data()));
          __wsn_rt_put(Loc, uint16_t(NL));
          Want.assign(G, G + N1);
          Want.insert(Want.end(), Loc, Loc + NL);
        }
      } while (__wsn_rt_record_end());
      size_t First = LocalFirst ? NL : N1; // an empty first put leaves it plain
      W.checkpoint(6, Want, Way::Streamed, First);
    }
    for (unsigned I = 0; I < R % 9; ++I) {
      __wsn_rt_input(uint16_t(I), R);
      W.input(uint16_t(I), R);
    }
    ASSERT_EQ(runtimeBytes(), W.bytes()) << "step " << Step;
  }
  std::vector<TraceRecord> Rs = decodeAll(W.bytes());
  unsigned Packed = 0;
  for (const TraceRecord &R : Rs)
    Packed += R.Packed;
  EXPECT_GT(Packed, 0u);
}

// Records of 2 (ENTRY 101) and 3 bytes (INPUT 1 1) until exactly Rest bytes are left in the
// segment being written, in the runtime and in the writer.
void fillTo(TraceWriter &W, unsigned Rest) {
  for (;;) {
    const unsigned R = WSN_TRACE_SEG_SIZE - __wsn_trace.hdr.head % WSN_TRACE_SEG_SIZE;
    ASSERT_EQ(R, WSN_TRACE_SEG_SIZE - W.header().Head % WSN_TRACE_SEG_SIZE);
    if (R == Rest)
      return;
    if (R == Rest + 3) {
      __wsn_rt_input(1, 1);
      W.input(1, 1);
    } else {
      __wsn_rt_entry(101);
      W.entry(101);
    }
  }
}

// Writes the checkpoint of the (anchor, len, n, pairs) table Tb with the pieces' entries as
// the lowering does (begin, put_t of the table's variables, record_end, again while it says
// so) and returns how many tries it took; the writer writes it too.
unsigned streamed(TraceWriter &W, const CkTable &Tb, ArrayRef<uint8_t> Payload) {
  unsigned Tries = 0;
  do {
    ++Tries;
    __wsn_rt_checkpoint_begin(uint16_t(Tb.B[0] | Tb.B[1] << 8), uint16_t(Payload.size()));
    __wsn_rt_put_t(Tb.addr() + 2);
  } while (__wsn_rt_record_end());
  W.checkpoint(uint16_t(Tb.B[0] | Tb.B[1] << 8), Payload, TraceWriter::CheckpointWay::Streamed,
               Payload.size());
  return Tries;
}

// The last checkpoint record of a trace.
TraceRecord lastCheckpoint(ArrayRef<uint8_t> File) {
  TraceRecord Last;
  for (const TraceRecord &R : decodeAll(File))
    if (R.Kind == RecordKind::Checkpoint)
      Last = R;
  return Last;
}

// Section 3.2: a checkpoint whose plain record would reach the segment's end (or not fit) is
// packed into the rest of the segment when it fits there with a byte to spare; else a PAD
// and the next segment, as before. The same for both entry kinds (the pieces' entries give
// the attempt up and say "again"); a dense checkpoint whose plain record fits exactly stays
// plain there. Runtime and writer agree after every step.
TEST_F(CheckpointZ, PacksIntoTheRest) {
  static_assert(WSN_TRACE_SEG_SIZE == 256, "the offsets below assume 256-byte segments");
  TraceWriter W = writer();
  static uint8_t Buf[40];
  static uint16_t Count;
  static uint8_t Dense[6] = {1, 2, 3, 4, 5, 6};
  for (uint8_t &B : Buf)
    B = 0;
  Buf[5] = 0x55;
  Count = 0x0102;
  CkTable T(3, {{Buf, 40}, {&Count, 2}}); // 45 bytes plain, 12 packed (RuntimeAndWriterAgree)
  CkTable TD(4, {{Dense, 6}});             // 9 bytes plain, 10 packed
  std::vector<uint8_t> P(Buf, Buf + 40);
  P.push_back(2);
  P.push_back(1);
  const std::vector<uint8_t> PD(Dense, Dense + 6);
  auto Table = [&](const CkTable &Tb, ArrayRef<uint8_t> Payload) {
    ASSERT_TRUE(__wsn_rt_anchor_armed());
    __wsn_rt_checkpoint_t(Tb.addr());
    W.checkpoint(uint16_t(Tb.B[0]), Payload);
    EXPECT_EQ(bool(__wsn_rt_anchor_armed()), W.anchorArmed());
  };
  struct Step {
    unsigned Rest;
    bool Pieces;
    unsigned Tries; // pieces only
    unsigned At;    // ring offset the checkpoint lands at
    bool Packed;
  };
  const Step Steps[] = {
      {13, false, 0, 243, true},        // fits the rest with a byte to spare
      {12, false, 0, 512, true},        // would end exactly at the end: PAD, next segment
      {13, true, 1, 768 + 243, true},   // the same with the pieces' entries
      {12, true, 2, 256, true},         // given up once, then after the PAD (ring wrapped)
      {40, true, 1, 512 + 216, true},   // plain (45) does not fit, packed (12) does
      {9, false, 0, 768 + 247, false},  // dense, plain fits exactly: not packed, no PAD
      {9, true, 2, 247, false},         // the same in pieces: tried packed, then plain there
  };
  for (const Step &S : Steps) {
    // Into a fresh segment (armed), then down to the rest the step wants.
    fillTo(W, WSN_TRACE_SEG_SIZE - 2);
    fillTo(W, S.Rest);
    const bool D = S.At % 256 == 247;
    if (S.Pieces)
      EXPECT_EQ(streamed(W, D ? TD : T, D ? PD : P), S.Tries) << S.At;
    else
      Table(D ? TD : T, D ? PD : P);
    ASSERT_EQ(runtimeBytes(), W.bytes()) << S.At;
    TraceRecord R = lastCheckpoint(W.bytes());
    EXPECT_EQ(R.RingOffset, S.At);
    EXPECT_EQ(R.Packed, S.Packed) << S.At;
    EXPECT_EQ(R.Payload, D ? PD : P);
  }
}

// A node stopped in the middle of an attempt to pack into the rest (section 1.1): the
// record is open at the saved head, whose byte is the checkpoint's tag, so the decoder drops
// the record and nothing else; once given up, the record is closed with nothing in it and
// the trace reads as before the attempt; in the second try the PAD is at the saved head. No
// segment is ever damaged. The pieces' variables: a sparse table, then a dense local that
// makes the attempt fail.
TEST_F(CheckpointZ, StoppedInAnAttempt) {
  TraceWriter W = writer();
  static uint8_t Sparse[24];
  for (uint8_t &B : Sparse)
    B = 0;
  Sparse[2] = 7;
  uint8_t Local[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<uint8_t> T = {24, 0, 1};
  uintptr_t A = reinterpret_cast<uintptr_t>(Sparse);
  for (unsigned I = 0; I < sizeof(uintptr_t); ++I)
    T.push_back(uint8_t(A >> (8 * I)));
  T.push_back(24);
  std::vector<uint8_t> P(Sparse, Sparse + 24);
  P.insert(P.end(), Local, Local + 8);
  // 32 bytes: 4 masks + 1 + 8 = 13 packed (16 with tag, anchor, len), 35 plain. A rest of
  // 12 holds the masks and the table's byte, not the local.
  fillTo(W, WSN_TRACE_SEG_SIZE - 2);
  fillTo(W, 12);
  const std::vector<uint8_t> Before = runtimeBytes();
  const size_t NBefore = decodeAll(Before).size();
  auto Decoded = [&](const char *When) {
    std::vector<uint8_t> B = runtimeBytes();
    auto F = TraceFile::parse(B);
    EXPECT_TRUE(bool(F)) << When;
    if (!F)
      return size_t(0);
    EXPECT_TRUE(F->damage().empty()) << When;
    auto Rs = F->decode();
    EXPECT_TRUE(bool(Rs)) << When;
    return Rs ? Rs->size() : 0;
  };
  const uint16_t Saved = __wsn_trace.hdr.head;
  __wsn_rt_checkpoint_begin(8, 32);
  __wsn_rt_put_t(reinterpret_cast<uintptr_t>(T.data()));
  EXPECT_EQ(__wsn_trace.hdr.open, 0x8000u | Saved);
  EXPECT_EQ(__wsn_trace.data[Saved], 0x06);
  EXPECT_EQ(Decoded("mid-attempt"), NBefore);
  __wsn_rt_put(Local, 8);
  EXPECT_EQ(__wsn_rt_record_end(), 1);
  EXPECT_EQ(__wsn_trace.hdr.head, Saved);
  EXPECT_EQ(__wsn_trace.hdr.open >> 15, 0u);
  EXPECT_TRUE(__wsn_rt_anchor_armed());
  EXPECT_EQ(Decoded("given up"), NBefore);
  // The ring's segment up to the head and the check values are those before the attempt.
  {
    const std::vector<uint8_t> Now = runtimeBytes();
    const size_t From = TraceHeaderSize + Saved - Saved % WSN_TRACE_SEG_SIZE,
                 To = TraceHeaderSize + Saved,
                 Checks = 2 * WSN_TRACE_BUF_SIZE / WSN_TRACE_SEG_SIZE;
    EXPECT_EQ(std::vector<uint8_t>(Now.begin() + From, Now.begin() + To),
              std::vector<uint8_t>(Before.begin() + From, Before.begin() + To));
    EXPECT_EQ(std::vector<uint8_t>(Now.end() - Checks, Now.end()),
              std::vector<uint8_t>(Before.end() - Checks, Before.end()));
  }
  __wsn_rt_checkpoint_begin(8, 32);
  EXPECT_EQ(__wsn_trace.hdr.open, 0x8000u | Saved);
  EXPECT_EQ(__wsn_trace.data[Saved], 0x00); // the PAD
  EXPECT_EQ(Decoded("second try"), NBefore);
  __wsn_rt_put_t(reinterpret_cast<uintptr_t>(T.data()));
  __wsn_rt_put(Local, 8);
  EXPECT_EQ(__wsn_rt_record_end(), 0);
  W.checkpoint(8, P, TraceWriter::CheckpointWay::Streamed, 24);
  ASSERT_EQ(runtimeBytes(), W.bytes());
  TraceRecord R = lastCheckpoint(W.bytes());
  EXPECT_EQ(R.RingOffset % WSN_TRACE_SEG_SIZE, 0u);
  EXPECT_TRUE(R.Packed);
  EXPECT_EQ(R.Payload, P);
}

// A checkpoint in pieces ended early (section 3.2, DROPPED): the missing bytes are zero-filled
// at their plain place and packed from there as a last piece; in the rest of a segment, where
// there is no plain place, the attempt is given up and the second try packs after the PAD.
TEST_F(CheckpointZ, EndedEarly) {
  TraceWriter W = writer();
  static uint8_t Z[16];
  for (uint8_t &B : Z)
    B = 0;
  Z[3] = 9;
  std::vector<uint8_t> T = {16, 0, 1};
  uintptr_t A = reinterpret_cast<uintptr_t>(Z);
  for (unsigned I = 0; I < sizeof(uintptr_t); ++I)
    T.push_back(uint8_t(A >> (8 * I)));
  T.push_back(16);
  auto Short = [&]() { // 18 announced, 16 given
    unsigned Tries = 0;
    do {
      ++Tries;
      __wsn_rt_checkpoint_begin(5, 18);
      __wsn_rt_put_t(reinterpret_cast<uintptr_t>(T.data()));
    } while (__wsn_rt_record_end());
    return Tries;
  };
  std::vector<uint8_t> P(Z, Z + 16);
  P.push_back(0);
  P.push_back(0);
  // Two of its three masks empty: two-level (format 8, section 3.7), a bitmap 0x01 and group
  // 0; the byte after its end is what the conversion left there (stale).
  const uint8_t Want[] = {0x15, 5, 18, 0x01, 0x08, 9, 0x00};
  EXPECT_EQ(Short(), 1u);
  W.checkpoint(5, P, TraceWriter::CheckpointWay::Streamed, 16); // the same bytes, not DROPPED
  EXPECT_TRUE(__wsn_trace.hdr.flags & WSN_TRACE_FLAG_DROPPED);
  EXPECT_EQ(std::vector<uint8_t>(__wsn_trace.data, __wsn_trace.data + 7),
            std::vector<uint8_t>(Want, Want + 7));
  EXPECT_EQ(__wsn_trace.hdr.head, 6u);
  // In the rest (12 bytes: plain 21 does not fit, the masks do): given up, then at the next
  // segment's start, packed the same way.
  fillTo(W, WSN_TRACE_SEG_SIZE - 2);
  fillTo(W, 12);
  const uint16_t Saved = __wsn_trace.hdr.head;
  EXPECT_EQ(Short(), 2u);
  const uint16_t Next = uint16_t(Saved - Saved % WSN_TRACE_SEG_SIZE + WSN_TRACE_SEG_SIZE);
  EXPECT_EQ(__wsn_trace.data[Saved], 0x00); // the PAD
  EXPECT_EQ(std::vector<uint8_t>(__wsn_trace.data + Next, __wsn_trace.data + Next + 7),
            std::vector<uint8_t>(Want, Want + 7));
  std::vector<TraceRecord> Cks;
  for (const TraceRecord &R : decodeAll(runtimeBytes()))
    if (R.Kind == RecordKind::Checkpoint)
      Cks.push_back(R);
  ASSERT_EQ(Cks.size(), 2u);
  for (const TraceRecord &R : Cks) {
    EXPECT_TRUE(R.Packed);
    EXPECT_EQ(R.Payload, P);
  }
  EXPECT_EQ(Cks[1].RingOffset, Next);
}

// Decoder errors (spec section 3.2): each names the file offset of what is wrong and the
// record's ring offset. The check values are rewritten for the edited bytes, so the decoder
// sees them as the writer's own (not as damage).
class CheckpointZErrors : public ::testing::Test {
protected:
  // ENTRY 101 at ring 0 (2 bytes), then a 20-byte checkpoint at ring 2 with bytes 1, 9 and 19
  // non-zero: 11 05 14 | 02 AA | 02 BB | 08 CC (9 bytes), then EXIT 101.
  std::vector<uint8_t> base() {
    TraceWriter W = writer();
    W.entry(101);
    std::vector<uint8_t> P(20, 0);
    P[1] = 0xAA;
    P[9] = 0xBB;
    P[19] = 0xCC;
    W.checkpoint(5, P);
    W.exit(101);
    std::vector<uint8_t> B = W.bytes();
    EXPECT_EQ(ArrayRef<uint8_t>(B).slice(C, 9).vec(),
              (std::vector<uint8_t>{0x11, 5, 20, 0x02, 0xAA, 0x02, 0xBB, 0x08, 0xCC}));
    return B;
  }
  static constexpr size_t C = TraceHeaderSize + 2; // the checkpoint's tag in the file
};

TEST_F(CheckpointZErrors, IntactDecodes) {
  std::vector<uint8_t> B = base();
  EXPECT_EQ(decodeError(B), "success");
  std::vector<TraceRecord> Rs = decodeAll(B);
  ASSERT_EQ(Rs.size(), 3u);
  EXPECT_EQ(Rs[1].Kind, RecordKind::Checkpoint);
  EXPECT_TRUE(Rs[1].Packed);
  EXPECT_EQ(Rs[1].Size, 9u);
  std::vector<uint8_t> P(20, 0);
  P[1] = 0xAA;
  P[9] = 0xBB;
  P[19] = 0xCC;
  EXPECT_EQ(Rs[1].Payload, P);
  EXPECT_EQ(Rs[2].Kind, RecordKind::Exit);
}

TEST_F(CheckpointZErrors, MaskPastPayload) {
  std::vector<uint8_t> B = base();
  B[C + 7] = 0x18; // the last group holds bytes 16-19: bit 4 is byte 20
  EXPECT_EQ(decodeError(B),
            "offset 41: CHECKPOINT_Z mask 0x18 of group 2 marks bytes past the 20-byte payload "
            "(record at ring offset 2, tail offset 2, segment 0)");
}

TEST_F(CheckpointZErrors, MarkedByteIsZero) {
  std::vector<uint8_t> B = base();
  B[C + 6] = 0; // byte 9
  EXPECT_EQ(decodeError(B),
            "offset 40: CHECKPOINT_Z byte 9 of the payload is marked non-zero by its group's "
            "mask but is 0x00 (record at ring offset 2, tail offset 2, segment 0)");
}

TEST_F(CheckpointZErrors, CountMismatch) {
  // More bits in a mask than the writer set: the record's bytes are read differently; the
  // masks then take the next record's bytes as theirs, and the last group's mask is EXIT's
  // tag 0x02 -- here it is caught as a byte marked non-zero that is 0x00 or a mask past the
  // payload; a packed record that is not smaller than its payload is refused too.
  std::vector<uint8_t> B = base();
  B[C + 2] = 6; // len 6: one group, mask 02 AA, then stray bytes read as the next records
  B[4] = 6;     // (format 6, where the stray 0xCC is a reserved tag: in format 7 it is an
                // ENTRY_S, and the stray bytes happen to decode)
  EXPECT_NE(decodeError(B).find("offset "), std::string::npos);
  B = base();
  B[C + 2] = 8;    // len 8: group 0 only
  B[C + 3] = 0xFF; // all 8 marked: 1 + 8 bytes for an 8-byte payload
  B[C + 5] = 0x11; // the bytes it takes are non-zero
  B[C + 7] = 0x22;
  B[C + 11] = 0x33; // and one more byte, before the head
  B[16] = uint8_t(B[16] + 1);
  EXPECT_EQ(decodeError(B),
            "offset 34: CHECKPOINT_Z of a 8-byte payload takes 9 bytes: the writer packs a "
            "checkpoint only when that is smaller than its payload (record at ring offset 2, "
            "tail offset 2, segment 0)");
}

TEST_F(CheckpointZErrors, NotSmaller) {
  TraceWriter W = writer();
  W.entry(101);
  W.checkpoint(5, std::vector<uint8_t>{1, 2, 3}, TraceWriter::CheckpointWay::Plain);
  // 06 05 03 01 02 03
  std::vector<uint8_t> B = W.bytes();
  // Rewritten by hand as a packed record of 1 mask + 3 bytes in 3 + ... : 11 05 03 07 01 02
  // 03 takes 4 bytes for a 3-byte payload.
  B[C] = 0x11;
  B[C + 3] = 0x07;
  B[C + 4] = 1;
  B[C + 5] = 2;
  B[C + 6] = 3;
  B[16] = uint8_t(B[16] + 1); // head after the longer record
  EXPECT_EQ(decodeError(B),
            "offset 34: CHECKPOINT_Z of a 3-byte payload takes 4 bytes: the writer packs a "
            "checkpoint only when that is smaller than its payload (record at ring offset 2, "
            "tail offset 2, segment 0)");
}

TEST_F(CheckpointZErrors, LengthOutOfRange) {
  std::vector<uint8_t> B = base();
  B[C + 2] = 0; // len 0
  EXPECT_EQ(decodeError(B),
            "offset 34: CHECKPOINT_Z of a 0-byte payload: a packed checkpoint holds 1 to 256 "
            "bytes (record at ring offset 2, tail offset 2, segment 0)");
}

TEST_F(CheckpointZErrors, Truncated) {
  // The write head cuts the record: inside a group's bytes, at a mask, in its len.
  std::vector<uint8_t> B = base();
  B[16] = 2 + 6; // after the second mask: its byte is cut off
  EXPECT_EQ(decodeError(B),
            "offset 40: CHECKPOINT_Z byte 9 of the payload (group 1) runs past the end of its "
            "segment (the write head is there) (record at ring offset 2, tail offset 2, "
            "segment 0)");
  B = base();
  B[16] = 2 + 5; // before the second mask
  EXPECT_EQ(decodeError(B),
            "offset 39: CHECKPOINT_Z mask of group 1 (payload bytes 8-15) cut off by the end "
            "of its segment (the write head is there) (record at ring offset 2, tail offset "
            "2, segment 0)");
  B = base();
  B[16] = 2 + 2; // before len
  EXPECT_NE(decodeError(B).find("(the write head is there)"), std::string::npos);
}

// A segment that is not the current one ends its records with PAD; a packed record running
// into the end of the segment (an edit moved its last mask) is refused without the head.
TEST_F(CheckpointZErrors, PastSegmentEnd) {
  TraceWriter W = writer(1024, 256);
  W.entry(101);
  for (unsigned I = 0; I < 126; ++I)
    W.sched(1); // 2 + 252: 2 bytes left in segment 0
  W.entry(102);   // fills it: the segment is left
  W.entry(103);
  std::vector<uint8_t> B = W.bytes();
  // The last 2 bytes of segment 0 become the start of a packed record cut off there.
  B[TraceHeaderSize + 254] = 0x11;
  B[TraceHeaderSize + 255] = 5;
  std::string E = decodeError(B);
  EXPECT_EQ(E, "offset 288: record runs past the end of its segment while reading len (record "
               "at ring offset 254, tail offset 254, segment 0)");
}

TEST_F(CheckpointZErrors, ReservedInFormat3) {
  std::vector<uint8_t> B = base();
  B[4] = 3;
  EXPECT_EQ(decodeError(B),
            "offset 34: record tag 0x11 is reserved in format 3 (record at ring offset 2, "
            "tail offset 2, segment 0)");
  B[4] = 2;
  EXPECT_EQ(decodeError(B),
            "offset 34: record tag 0x11 is reserved in format 2 (record at ring offset 2, "
            "tail offset 2, segment 0)");
}

// A node stopped inside the packed record (section 1.1): `open` holds the head before it, the
// stored head is wherever the writer was (past the plain reservation, or moved back); the
// decoder drops the record and keeps what precedes it.
TEST_F(CheckpointZErrors, StoppedInside) {
  for (unsigned RawHead : {2u + 9u, 2u + 23u, 2u + 4u}) {
    std::vector<uint8_t> B = base();
    B[16] = uint8_t(RawHead);
    B[30] = 2;    // open: saved head 2
    B[31] = 0x80; // bit 15
    llvm::consumeError(resealTrace(B));
    auto F = TraceFile::parse(B);
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    EXPECT_TRUE(F->damage().empty());
    auto Rs = F->decode();
    ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
    ASSERT_EQ(Rs->size(), 1u) << RawHead;
    EXPECT_EQ((*Rs)[0].Kind, RecordKind::Entry);
  }
}

// Closing had begun when the node stopped: the check value already covers the packed record
// (C1) and the decoder accepts it (section 1.2), since the masks give its size.
TEST_F(CheckpointZErrors, StoppedWhileClosing) {
  std::vector<uint8_t> B = base();
  // Drop EXIT: head right after the checkpoint, its value folded (the writer's), then open.
  B[16] = 2 + 9;
  llvm::consumeError(resealTrace(B)); // value over 11 bytes = C1 for saved head 2
  B[30] = 2;
  B[31] = 0x80;
  auto F = TraceFile::parse(B);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_TRUE(F->damage().empty());
}

} // namespace
