//===- TraceFormat.cpp - reading and writing .wtr traces ------------------===//
//
// Implements spec/trace-format.md. The decoder never trusts the input: every read is bounds
// checked and every failure becomes an llvm::Error naming the offset.
//
//===----------------------------------------------------------------------===//
#include "TraceFormat.h"

#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <iterator>
#include <string>
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace wsn {

namespace {

Error offsetError(uint64_t FileOffset, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "offset " + Twine(FileOffset) + ": " + Msg);
}

uint16_t readU16(ArrayRef<uint8_t> B, size_t Off) {
  return uint16_t(B[Off] | (B[Off + 1] << 8));
}

uint32_t readU32(ArrayRef<uint8_t> B, size_t Off) {
  return uint32_t(B[Off]) | (uint32_t(B[Off + 1]) << 8) | (uint32_t(B[Off + 2]) << 16) |
         (uint32_t(B[Off + 3]) << 24);
}

void putU16(std::vector<uint8_t> &B, size_t Off, uint16_t V) {
  B[Off] = uint8_t(V);
  B[Off + 1] = uint8_t(V >> 8);
}

void putU32(std::vector<uint8_t> &B, size_t Off, uint32_t V) {
  for (int I = 0; I < 4; ++I)
    B[Off + I] = uint8_t(V >> (8 * I));
}

const char *const NoFields[] = {""};
const char *const FidField[] = {"fid"};
const char *const IrqFields[] = {"irq", "count"};
const char *const IrqExitFields[] = {"irq"};
const char *const TaskField[] = {"task"};
const char *const AnchorField[] = {"anchor"};
const char *const SiteField[] = {"site"};
const char *const InputFields[] = {"site", "value"};
const char *const SendFields[] = {"site", "seq", "dest"};
const char *const RecvFields[] = {"site", "sender", "seq"};
const char *const CheckFields[] = {"inv", "checksum"};

} // namespace

StringRef traceTargetName(uint8_t Target) {
  switch (Target) {
  case 0:
    return "host";
  case 1:
    return "avr";
  case 2:
    return "msp430";
  }
  return "unknown";
}

StringRef recordKindName(RecordKind K) {
  switch (K) {
  case RecordKind::Pad:
    return "PAD";
  case RecordKind::Entry:
    return "ENTRY";
  case RecordKind::Exit:
    return "EXIT";
  case RecordKind::Irq:
    return "IRQ";
  case RecordKind::IrqExit:
    return "IRQ_EXIT";
  case RecordKind::Sched:
    return "SCHED";
  case RecordKind::Checkpoint:
    return "CHECKPOINT";
  case RecordKind::Input:
    return "INPUT";
  case RecordKind::InputBytes:
    return "INPUT_BYTES";
  case RecordKind::Send:
    return "SEND";
  case RecordKind::Recv:
    return "RECV";
  case RecordKind::Effect:
    return "EFFECT";
  case RecordKind::SkipBegin:
    return "SKIP_BEGIN";
  case RecordKind::SkipEnd:
    return "SKIP_END";
  case RecordKind::Check:
    return "CHECK";
  case RecordKind::Violation:
    return "VIOLATION";
  }
  return "RESERVED";
}

ArrayRef<const char *> recordFieldNames(RecordKind K) {
  switch (K) {
  case RecordKind::Pad:
    return ArrayRef<const char *>(NoFields).take_front(0);
  case RecordKind::Entry:
  case RecordKind::Exit:
    return FidField;
  case RecordKind::Irq:
    return IrqFields;
  case RecordKind::IrqExit:
    return IrqExitFields;
  case RecordKind::Sched:
    return TaskField;
  case RecordKind::Checkpoint:
    return AnchorField;
  case RecordKind::Input:
    return InputFields;
  case RecordKind::InputBytes:
  case RecordKind::Effect:
  case RecordKind::SkipBegin:
  case RecordKind::SkipEnd:
    return SiteField;
  case RecordKind::Send:
    return SendFields;
  case RecordKind::Recv:
    return RecvFields;
  case RecordKind::Check:
  case RecordKind::Violation:
    return CheckFields;
  }
  return ArrayRef<const char *>(NoFields).take_front(0);
}

bool recordHasPayload(RecordKind K) {
  return K == RecordKind::Checkpoint || K == RecordKind::InputBytes ||
         K == RecordKind::Effect;
}

std::optional<uint32_t> TraceRecord::field(StringRef Name) const {
  ArrayRef<const char *> Names = recordFieldNames(Kind);
  for (unsigned I = 0; I < Names.size() && I < NumFields; ++I)
    if (Name == Names[I])
      return Fields[I];
  return std::nullopt;
}

bool TraceRecord::operator==(const TraceRecord &O) const {
  return Kind == O.Kind && NumFields == O.NumFields && Fields[0] == O.Fields[0] &&
         Fields[1] == O.Fields[1] && Fields[2] == O.Fields[2] && Payload == O.Payload &&
         LinearOffset == O.LinearOffset && RingOffset == O.RingOffset &&
         Segment == O.Segment && Size == O.Size && Delta == O.Delta &&
         KeyRingOffset == O.KeyRingOffset && Packed == O.Packed && Given == O.Given &&
         Short == O.Short && Slot == O.Slot && Compact == O.Compact && Span == O.Span &&
         TwoLevel == O.TwoLevel && Repeat == O.Repeat;
}

//===----------------------------------------------------------------------===//
// Header
//===----------------------------------------------------------------------===//

Expected<TraceHeader> parseTraceHeader(ArrayRef<uint8_t> File) {
  if (File.size() < TraceHeaderSize)
    return offsetError(File.size(), "truncated trace: " + Twine(File.size()) +
                                        " bytes, the header alone needs 32");
  if (File[0] != 'W' || File[1] != 'T' || File[2] != 'R' || File[3] != 'B') {
    // A trace object read from a node that stopped before the runtime's start-up wrote the
    // header (wsn-sim then writes the raw object): all of the header is still zero.
    if (std::all_of(File.begin(), File.begin() + TraceHeaderSize,
                    [](uint8_t B) { return B == 0; }))
      return offsetError(0, "bad magic (expected 'WTRB'): the header is all zero, as a trace "
                            "object is before the trace runtime's start-up writes it: the "
                            "node stopped before it recorded anything");
    return offsetError(0, "bad magic (expected 'WTRB'): not a wsn-trace .wtr file");
  }
  TraceHeader H;
  H.Version = File[4];
  if (H.Version < OldestTraceVersion || H.Version > TraceVersion)
    return offsetError(4, "unsupported version " + Twine(unsigned(H.Version)) + " (expected " +
                              Twine(unsigned(OldestTraceVersion)) + " to " +
                              Twine(unsigned(TraceVersion)) + ")");
  H.Target = File[5];
  if (H.Target > 2)
    return offsetError(5, "unknown target " + Twine(unsigned(H.Target)) +
                              " (0 host, 1 avr, 2 msp430)");
  H.NodeId = readU16(File, 6);
  H.ModuleHash = readU32(File, 8);
  H.BufSize = readU16(File, 12);
  H.SegSize = readU16(File, 14);
  H.Head = readU16(File, 16);
  H.Flags = readU16(File, 18);
  H.Wraps = readU32(File, 20);
  H.Checks = readU32(File, 24);
  H.Violation = readU16(File, 28);
  H.Open = readU16(File, 30);
  H.RawHead = H.Head;

  if (H.SegSize == 0)
    return offsetError(14, "seg_size is 0");
  if (H.BufSize % H.SegSize != 0)
    return offsetError(12, "buf_size " + Twine(H.BufSize) +
                               " is not a multiple of seg_size " + Twine(H.SegSize));
  if (H.BufSize / H.SegSize < 2)
    return offsetError(12, "buf_size " + Twine(H.BufSize) +
                               " holds fewer than 2 segments of " + Twine(H.SegSize));
  if (H.Flags & ~TF_AllKnown)
    return offsetError(18, "unknown flag bits 0x" + utohexstr(H.Flags & ~TF_AllKnown));
  if (H.open()) {
    // Stopped inside a writer (section 1.1): head, wraps, the flags and the violation field
    // may be half-updated; the saved head is the state before the incomplete record.
    uint16_t Saved = H.Open & TraceHeader::OpenHeadMask;
    if (Saved >= H.BufSize)
      return offsetError(30, "open record: saved head " + Twine(Saved) +
                                 " is not below buf_size " + Twine(H.BufSize));
    H.Head = Saved;
  } else {
    if (H.Open >> 8)
      return offsetError(31, "open field 0x" + utohexstr(H.Open) +
                                 ": bits 8-14 must be 0 when bit 15 is clear");
    if (H.Head >= H.BufSize)
      return offsetError(16, "head " + Twine(H.Head) + " is not below buf_size " +
                                 Twine(H.BufSize));
    if (H.wrapped() != (H.Wraps != 0))
      return offsetError(20, "wraps " + Twine(H.Wraps) + " disagrees with the wrapped flag");
    if (bool(H.Flags & TF_Violation) != (H.Violation != NoViolation))
      return offsetError(28, "violation " + Twine(H.Violation) +
                                 " disagrees with the violation flag");
  }

  uint64_t Expected = H.fileSize();
  if (File.size() < Expected)
    return offsetError(File.size(), "truncated trace: " + Twine(File.size()) +
                                        " bytes, the header declares 32 + buf_size + 2 x " +
                                        Twine(H.numSegments()) + " segments = " +
                                        Twine(Expected));
  if (File.size() > Expected)
    return offsetError(Expected, Twine(File.size() - Expected) +
                                     " trailing bytes after 32 + buf_size + 2 x " +
                                     Twine(H.numSegments()) + " segments = " +
                                     Twine(Expected));
  return H;
}

std::vector<uint8_t> encodeTraceHeader(const TraceHeader &H) {
  std::vector<uint8_t> B(TraceHeaderSize, 0);
  B[0] = 'W';
  B[1] = 'T';
  B[2] = 'R';
  B[3] = 'B';
  B[4] = H.Version;
  B[5] = H.Target;
  putU16(B, 6, H.NodeId);
  putU32(B, 8, H.ModuleHash);
  putU16(B, 12, H.BufSize);
  putU16(B, 14, H.SegSize);
  putU16(B, 16, H.open() ? H.RawHead : H.Head);
  putU16(B, 18, H.Flags);
  putU32(B, 20, H.Wraps);
  putU32(B, 24, H.Checks);
  putU16(B, 28, H.Violation);
  putU16(B, 30, H.Open);
  return B;
}

//===----------------------------------------------------------------------===//
// TraceFile
//===----------------------------------------------------------------------===//

Expected<TraceFile> TraceFile::parse(ArrayRef<uint8_t> Bytes) {
  Expected<TraceHeader> H = parseTraceHeader(Bytes);
  if (!H)
    return H.takeError();
  TraceFile T;
  T.Header = *H;
  T.Bytes.assign(Bytes.begin(), Bytes.end());

  // Linearisation, spec section 2.
  uint32_t Seg = H->SegSize, NSeg = H->numSegments(), Head = H->Head;
  uint32_t Cur = Head / Seg;
  uint64_t Linear = 0;
  auto Add = [&](uint32_t Segment, uint32_t Start, uint32_t Len) {
    if (!Len)
      return;
    T.Tail.push_back({Start, Len, Segment, Linear});
    Linear += Len;
  };
  // An open record that did not fit in the rest of its segment may have begun to overwrite
  // the next one (in a wrapped ring the oldest retained segment; in the first lap segment 0
  // when the head is in the last segment): that segment is dropped (section 1.1). It did not
  // when the saved head starts a segment (every record fits there) or the byte at the saved
  // head is not the PAD the writer puts there before it moves on.
  uint32_t Next = (Cur + 1) % NSeg;
  bool DropNext = H->open() && Head % Seg != 0 &&
                  Bytes[TraceHeaderSize + Head] == uint8_t(RecordKind::Pad) &&
                  (H->wrapped() || Next == 0);
  if (DropNext)
    T.DroppedOpenSegment = int(Next);
  auto Keep = [&](uint32_t S) {
    if (DropNext && S == Next)
      return;
    Add(S, S * Seg, Seg);
  };
  if (H->wrapped()) {
    for (uint32_t S = Cur + 1; S < NSeg; ++S)
      Keep(S);
    for (uint32_t S = 0; S < Cur; ++S)
      Keep(S);
  } else {
    for (uint32_t S = 0; S < Cur; ++S)
      Keep(S);
  }
  Add(Cur, Cur * Seg, Head - Cur * Seg);
  // Section 1.2: every retained span against its segment's check value.
  for (unsigned I = 0; I < T.Tail.size(); ++I)
    T.verifySpan(I);
  return std::move(T);
}

std::vector<uint16_t> TraceFile::spanChecks() const {
  // A span is exactly what its segment's value covers: a whole segment that writing has
  // left, or the written part of the current one (section 1.2).
  std::vector<uint16_t> Out;
  for (const TraceSpan &S : Tail)
    Out.push_back(segmentCheck(ring().slice(S.RingOffset, S.Length)));
  return Out;
}

void TraceFile::verifySpan(unsigned I) {
  const TraceSpan &S = Tail[I];
  ArrayRef<uint8_t> R = ring();
  const uint16_t Stored = readU16(Bytes, Header.checkOffset(S.Segment));
  const uint16_t C0 = segmentCheck(R.slice(S.RingOffset, S.Length));
  bool Ok = Stored == C0;
  // Stopped inside a writer (section 1.1): __wsn_rt_close may already have folded the
  // record at the saved head (or the PAD there and the rest of the segment) into this
  // segment's value, completely or only its low byte; that record is complete by then, so
  // it decodes.
  const uint32_t Seg = Header.SegSize;
  if (!Ok && Header.open() && S.Segment == Header.Head / Seg &&
      S.RingOffset + S.Length == Header.Head) {
    uint32_t H = Header.Head, SegEnd = (S.Segment + 1) * Seg, L = 0;
    if (R[H] == uint8_t(RecordKind::Pad)) {
      L = SegEnd - H;
    } else {
      std::vector<TraceRecord> One;
      consumeError(decodeSpan(TraceSpan{H, SegEnd - H, S.Segment, 0}, One,
                              /*Resolve=*/false));
      for (const TraceRecord &X : One) // a SPAN_EFFECT is three records, its EFFECT sized
        if (X.RingOffset == H)
          L = std::max<uint32_t>(L, X.Size);
    }
    if (L) {
      uint16_t C1 = crc16(C0, R.slice(H, L));
      Ok = Stored == C1 || Stored == uint16_t((C1 & 0x00FF) | (C0 & 0xFF00));
    }
  }
  if (Ok)
    return; // records that do not decode are then the writer's own: decode() says so
  SegmentDamage D;
  D.Span = I;
  D.Segment = S.Segment;
  D.RingOffset = S.RingOffset;
  D.Covered = S.Length;
  D.Stored = Stored;
  D.Computed = C0;
  Damage.push_back(std::move(D));
}

const SegmentDamage *TraceFile::spanDamage(unsigned I) const {
  for (const SegmentDamage &D : Damage)
    if (D.Span == I)
      return &D;
  return nullptr;
}

std::string SegmentDamage::message(const TraceHeader &H) const {
  std::string M;
  raw_string_ostream OS(M);
  OS << "offset " << (TraceHeaderSize + RingOffset) << ": segment " << Segment
     << " (ring offset " << RingOffset << ") is damaged: its check value "
     << format_hex(Stored, 6) << " (offset " << H.checkOffset(Segment) << ") does not match its "
     << Covered << " bytes, which give " << format_hex(Computed, 6)
     << "; its records are not used";
  return M;
}

Expected<TraceFile> TraceFile::load(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> MB =
      MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!MB)
    return createStringError(MB.getError(), "cannot read: " + MB.getError().message());
  StringRef Data = (*MB)->getBuffer();
  return parse(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Data.data()), Data.size()));
}

std::vector<uint8_t> TraceFile::linearBytes() const {
  std::vector<uint8_t> Out;
  ArrayRef<uint8_t> R = ring();
  for (const TraceSpan &S : Tail)
    Out.insert(Out.end(), R.begin() + S.RingOffset, R.begin() + S.RingOffset + S.Length);
  return Out;
}

uint32_t TraceFile::tornBytes() const {
  if (!Header.open())
    return 0;
  uint32_t Raw = Header.RawHead, Saved = Header.Head;
  // The stored head moved past the PAD, or past the record in the same segment.
  if (Raw >= Saved)
    return Raw - Saved;
  return Header.BufSize - Saved + Raw; // it wrapped to the start of the ring
}

uint32_t TraceFile::staleBytes() const {
  if (!Header.wrapped())
    return 0;
  uint32_t Seg = Header.SegSize;
  return (Header.Head / Seg + 1) * Seg - Header.Head;
}

/// The tags format 7 added (section 3.5), reserved in older versions.
static bool isFormat7Tag(uint8_t Tag) {
  return Tag == SpanEffectTag || Tag == SpanEffectDeltaTag || Tag == SpanEffectCTag ||
         Tag == EffectZTag || Tag == SpanEffectZTag ||
         (Tag >= IrqShortTag && Tag < IrqShortTag + IrqShortIds * IrqShortCounts) ||
         (Tag >= IrqExitShortTag && Tag < IrqExitShortTag + IrqShortIds) ||
         (Tag >= EntryShortTag && Tag < EntryShortTag + FidShortIds) ||
         (Tag >= ExitShortTag && Tag < ExitShortTag + FidShortIds);
}

/// The tags format 8 added (section 3.7: the two-level forms), reserved in older versions.
static bool isFormat8Tag(uint8_t Tag) {
  return Tag == CheckpointZ2Tag || Tag == EffectC2Tag || Tag == EffectZ2Tag ||
         Tag == SpanEffectC2Tag || Tag == SpanEffectZ2Tag;
}

/// The tags format 9 added (section 3.8: REPEAT), reserved in older versions.
static bool isFormat9Tag(uint8_t Tag) { return Tag >= RepeatTag && Tag <= RepeatLastTag; }

/// The tags format 10 added (section 3.9: CHECK_S), reserved in older versions.
static bool isFormat10Tag(uint8_t Tag) { return isCheckShortTag(Tag); }

Error TraceFile::decodeSpan(const TraceSpan &S, std::vector<TraceRecord> &Out,
                            bool Resolve) const {
  ArrayRef<uint8_t> R = ring();
  const size_t FirstOut = Out.size(); // this span's records start here (EFFECT_DELTA keys)
  const bool IsCurrent = S.Segment == Header.Head / Header.SegSize;
  uint32_t Pos = S.RingOffset, End = S.RingOffset + S.Length;
  uint32_t RecStart = Pos;

  auto Fail = [&](uint32_t At, const Twine &Msg) {
    return offsetError(TraceHeaderSize + At,
                       Msg + " (record at ring offset " + Twine(RecStart) + ", tail offset " +
                           Twine(S.LinearOffset + (RecStart - S.RingOffset)) + ", segment " +
                           Twine(S.Segment) + ")");
  };
  auto PastEnd = [&](uint32_t At, StringRef What) {
    return Fail(At, "record runs past the end of its segment while reading " + What +
                        (IsCurrent ? " (the write head is there)" : ""));
  };
  // Unsigned LEB128, at most 5 bytes and 32 bits.
  auto ReadVarint = [&](StringRef What, uint32_t &V) -> Error {
    uint64_t Acc = 0;
    for (unsigned I = 0;; ++I) {
      if (Pos >= End)
        return PastEnd(Pos, What);
      if (I == 5)
        return Fail(Pos, "varint " + What + " is longer than 5 bytes");
      uint8_t B = R[Pos++];
      Acc |= uint64_t(B & 0x7F) << (7 * I);
      if (!(B & 0x80))
        break;
    }
    if (Acc > 0xFFFFFFFFull)
      return Fail(Pos - 1, "varint " + What + " exceeds 32 bits");
    V = uint32_t(Acc);
    return Error::success();
  };

  // A record of kind K starting at RecStart: its ring offset, segment and tail offset.
  auto StartRecord = [&](RecordKind K) {
    TraceRecord Rec;
    Rec.Kind = K;
    Rec.RingOffset = RecStart;
    Rec.Segment = S.Segment;
    Rec.LinearOffset = S.LinearOffset + (RecStart - S.RingOffset);
    return Rec;
  };

  // EFFECT_DELTA `u site, u len, u dlen, runs[dlen]` (section 3.1): the runs rebuild the
  // payload from the key, the most recent full EFFECT of the same length earlier in this
  // segment.
  auto decodeEffectDelta = [&]() -> Error {
    TraceRecord Rec = StartRecord(RecordKind::Effect);
    Rec.Delta = true;
    ++Pos;
    uint32_t Len, DLen;
    if (Error E = ReadVarint("site", Rec.Fields[0]))
      return E;
    Rec.NumFields = 1;
    if (Error E = ReadVarint("len", Len))
      return E;
    if (Error E = ReadVarint("dlen", DLen))
      return E;
    if (Len > 255)
      return Fail(RecStart, "EFFECT_DELTA of a " + Twine(Len) + "-byte payload: deltas are "
                            "written only for payloads of at most 255 bytes");
    if (DLen > End - Pos)
      return Fail(Pos, "EFFECT_DELTA runs of " + Twine(DLen) + " bytes run past the end of "
                       "its segment (" + Twine(End - Pos) + " bytes left)" +
                           (IsCurrent ? " (the write head is there)" : ""));
    const uint32_t RunsAt = Pos, RunsEnd = Pos + DLen;
    Pos = RunsEnd;
    Rec.Size = Pos - RecStart;
    if (!Resolve) {
      Out.push_back(std::move(Rec));
      return Error::success();
    }
    const TraceRecord *Key = nullptr;
    for (size_t I = Out.size(); I-- > FirstOut;)
      if (Out[I].Kind == RecordKind::Effect && !Out[I].Delta && Out[I].Given.empty() &&
          Out[I].Payload.size() == Len) {
        Key = &Out[I];
        break;
      }
    if (!Key)
      return Fail(RecStart, "EFFECT_DELTA of a " + Twine(Len) + "-byte payload has no key: "
                            "no full EFFECT of that length before it in its segment");
    Rec.KeyRingOffset = Key->RingOffset;
    Rec.Payload = Key->Payload;
    uint32_t At = RunsAt, Off = 0;
    while (At < RunsEnd) {
      if (RunsEnd - At < 2)
        return Fail(At, "EFFECT_DELTA run header cut off by the end of its runs");
      uint32_t Skip = R[At], N = R[At + 1];
      if (N == 0)
        return Fail(At, "EFFECT_DELTA run of 0 bytes (after " + Twine(Skip) +
                            " unchanged ones)");
      At += 2;
      if (Off + Skip + N > Len)
        return Fail(At - 2, "EFFECT_DELTA run at payload byte " + Twine(Off + Skip) + " of " +
                                Twine(N) + " bytes runs past its " + Twine(Len) +
                                "-byte payload");
      if (N > RunsEnd - At)
        return Fail(At, "EFFECT_DELTA run of " + Twine(N) + " bytes runs past the end of its "
                        "runs (" + Twine(RunsEnd - At) + " bytes left)");
      Off += Skip;
      std::copy(R.begin() + At, R.begin() + At + N, Rec.Payload.begin() + Off);
      Off += N;
      At += N;
    }
    Out.push_back(std::move(Rec));
    return Error::success();
  };

  // The mask groups of CHECKPOINT_Z, EFFECT_C and EFFECT_Z (sections 3.2, 3.3, 3.6), from
  // Pos: ceil(Len / 8) groups, each a mask byte (bit i: payload byte 8g + i is in the record)
  // and the bytes it marks, stored into Rec.Payload. The Z kinds mark only non-zero bytes; an
  // EFFECT_C marks the bytes it gives (Rec.Given, with MarkGiven). With TwoLevel (format 8,
  // section 3.7) the groups are preceded by ceil(ng / 8) bitmap bytes, bit j of byte k telling
  // whether group 8k + j is written, and only the written groups follow; a written group never
  // has an empty mask. Marked counts the bytes the masks mark, so the one-level groups of the
  // same payload take ng + Marked bytes.
  auto ReadGroups = [&](StringRef Kind, uint32_t Len, TraceRecord &Rec, bool MarkGiven,
                        bool TwoLevel, uint32_t &Marked) -> Error {
    const uint32_t NumGroups = (Len + 7) / 8;
    const uint32_t BitmapAt = Pos;
    if (TwoLevel) {
      const uint32_t BitmapBytes = (NumGroups + 7) / 8;
      for (uint32_t K = 0; K < BitmapBytes; ++K, ++Pos)
        if (Pos >= End)
          return Fail(Pos, Kind + " bitmap byte " + Twine(K) + " (groups " + Twine(8 * K) +
                               "-" + Twine(std::min(8 * K + 8, NumGroups) - 1) +
                               ") cut off by the end of its segment" +
                               (IsCurrent ? " (the write head is there)" : ""));
      // Only the last bitmap byte can have bits for groups that do not exist.
      const uint8_t Last = R[Pos - 1];
      const uint32_t LastFirst = 8 * (BitmapBytes - 1);
      for (uint32_t J = NumGroups - LastFirst; J < 8; ++J)
        if (Last >> J & 1)
          return Fail(Pos - 1, Kind + " bitmap byte " + Twine(BitmapBytes - 1) + " (0x" +
                                   utohexstr(Last, false, 2) + ") marks group " +
                                   Twine(LastFirst + J) + " past the " + Twine(NumGroups) +
                                   " groups of a " + Twine(Len) + "-byte payload");
    }
    Marked = 0;
    for (uint32_t G = 0; G < NumGroups; ++G) {
      if (TwoLevel && !(R[BitmapAt + G / 8] >> (G % 8) & 1))
        continue; // not written: its mask is 0x00
      if (Pos >= End)
        return Fail(Pos, Kind + " mask of group " + Twine(G) + " (payload bytes " +
                             Twine(G * 8) + "-" + Twine(std::min(G * 8 + 8, Len) - 1) +
                             ") cut off by the end of its segment" +
                             (IsCurrent ? " (the write head is there)" : ""));
      const uint32_t MaskAt = Pos;
      const uint8_t Mask = R[Pos++];
      if (TwoLevel && Mask == 0)
        return Fail(MaskAt, Kind + ": the bitmap marks group " + Twine(G) +
                                " written but its mask is 0x00");
      const uint32_t InGroup = std::min<uint32_t>(8, Len - G * 8);
      if (InGroup < 8 && (Mask >> InGroup))
        return Fail(MaskAt, Kind + " mask 0x" + utohexstr(Mask, false, 2) + " of group " +
                                Twine(G) + " marks bytes past the " + Twine(Len) +
                                "-byte payload");
      for (unsigned I = 0; I < InGroup; ++I) {
        if (!(Mask >> I & 1))
          continue;
        if (Pos >= End)
          return Fail(Pos, Kind + " byte " + Twine(G * 8 + I) + " of the payload (group " +
                               Twine(G) + ") runs past the end of its segment" +
                               (IsCurrent ? " (the write head is there)" : ""));
        if (!MarkGiven && R[Pos] == 0)
          return Fail(Pos, Kind + " byte " + Twine(G * 8 + I) + " of the payload is marked "
                                  "non-zero by its group's mask but is 0x00");
        Rec.Payload[G * 8 + I] = R[Pos++];
        if (MarkGiven)
          Rec.Given[G * 8 + I] = 1;
        ++Marked;
      }
    }
    return Error::success();
  };

  // The writer chooses two-level groups only when they take fewer bytes than the one-level
  // ones (section 3.7); Taken is the two-level groups' size, Marked the bytes they mark.
  auto CheckTwoLevelSmaller = [&](StringRef Kind, uint32_t Len, uint32_t Taken,
                                  uint32_t Marked) -> Error {
    const uint32_t OneLevel = (Len + 7) / 8 + Marked;
    if (Taken < OneLevel)
      return Error::success();
    return Fail(RecStart, Kind + " of a " + Twine(Len) + "-byte payload takes " + Twine(Taken) +
                              " bytes, its one-level groups " + Twine(OneLevel) +
                              ": the writer writes two-level groups only when they are "
                              "smaller");
  };

  // CHECKPOINT_Z `u anchor, u len, groups` (section 3.2) and EFFECT_Z `u site, u len, groups`
  // (section 3.6): ceil(len / 8) groups, each a mask byte and the non-zero bytes it marks; the
  // masks alone give the record's size. CHECKPOINT_Z2 and EFFECT_Z2 (TwoLevel, section 3.7):
  // the same with two-level groups.
  auto decodeZ = [&](RecordKind Kind, bool TwoLevel) -> Error {
    const bool Ck = Kind == RecordKind::Checkpoint;
    const StringRef Name = Ck ? (TwoLevel ? "CHECKPOINT_Z2" : "CHECKPOINT_Z")
                              : (TwoLevel ? "EFFECT_Z2" : "EFFECT_Z");
    TraceRecord Rec = StartRecord(Kind);
    Rec.Packed = true;
    Rec.TwoLevel = TwoLevel;
    ++Pos;
    uint32_t Len;
    if (Error E = ReadVarint(Ck ? "anchor" : "site", Rec.Fields[0]))
      return E;
    Rec.NumFields = 1;
    if (Error E = ReadVarint("len", Len))
      return E;
    if (Len == 0 || Len > Header.SegSize)
      return Fail(RecStart, Name + " of a " + Twine(Len) + "-byte payload: a packed " +
                                (Ck ? "checkpoint" : "effect") + " holds 1 to " +
                                Twine(unsigned(Header.SegSize)) + " bytes");
    const uint32_t GroupsAt = Pos;
    Rec.Payload.assign(Len, 0);
    uint32_t Marked;
    if (Error E = ReadGroups(Name, Len, Rec, /*MarkGiven=*/false, TwoLevel, Marked))
      return E;
    if (Pos - GroupsAt >= Len)
      return Fail(RecStart, Name + " of a " + Twine(Len) + "-byte payload takes " +
                                Twine(Pos - GroupsAt) + " bytes: the writer packs " +
                                (Ck ? "a checkpoint" : "an effect") +
                                " only when that is smaller than its payload");
    if (TwoLevel)
      if (Error E = CheckTwoLevelSmaller(Name, Len, Pos - GroupsAt, Marked))
        return E;
    Rec.Size = Pos - RecStart;
    Out.push_back(std::move(Rec));
    return Error::success();
  };

  // EFFECT_C `u site, u len, groups` (section 3.3): ceil(len / 8) groups, each a mask byte
  // (bit i: payload byte 8g + i changed in the call) and the bytes it marks. EFFECT_C2
  // (TwoLevel, section 3.7): the same with two-level groups.
  auto decodeEffectC = [&](bool TwoLevel) -> Error {
    const StringRef Name = TwoLevel ? "EFFECT_C2" : "EFFECT_C";
    TraceRecord Rec = StartRecord(RecordKind::Effect);
    Rec.TwoLevel = TwoLevel;
    ++Pos;
    uint32_t Len;
    if (Error E = ReadVarint("site", Rec.Fields[0]))
      return E;
    Rec.NumFields = 1;
    if (Error E = ReadVarint("len", Len))
      return E;
    if (Len < 2 || Len > Header.SegSize)
      return Fail(RecStart, Name + " of a " + Twine(Len) + "-byte payload: an effect of "
                            "changes holds 2 to " + Twine(unsigned(Header.SegSize)) + " bytes");
    const uint32_t GroupsAt = Pos;
    Rec.Payload.assign(Len, 0);
    Rec.Given.assign(Len, 0);
    uint32_t Marked;
    if (Error E = ReadGroups(Name, Len, Rec, /*MarkGiven=*/true, TwoLevel, Marked))
      return E;
    if (Pos - GroupsAt >= Len)
      return Fail(RecStart, Name + " of a " + Twine(Len) + "-byte payload takes " +
                                Twine(Pos - GroupsAt) + " bytes: the writer writes the changes "
                                "only when that is smaller than the whole payload");
    if (TwoLevel)
      if (Error E = CheckTwoLevelSmaller(Name, Len, Pos - GroupsAt, Marked))
        return E;
    Rec.Size = Pos - RecStart;
    Out.push_back(std::move(Rec));
    return Error::success();
  };

  // Short inputs (section 3.4): the segment's previous INPUT site and its four recent
  // values, from the segment's start (a span always starts a segment, except the single
  // records verifySpan sizes without Resolve).
  bool InHasSite = false;
  uint16_t InSite = 0, InSlot[InputShortSlots] = {};
  unsigned InNext = 0;
  auto NoteInput = [&](uint32_t Site, uint32_t Value) {
    InHasSite = true;
    InSite = uint16_t(Site);
    if (Value > 0xFFFF ||
        std::find(std::begin(InSlot), std::end(InSlot), Value) != std::end(InSlot))
      return;
    InSlot[InNext] = uint16_t(Value);
    InNext = (InNext + 1) % InputShortSlots;
  };

  // INPUT_S, one tag byte 0x20 + 16k + (d & 15) (section 3.4), then for k = 0 `u value`.
  auto decodeInputShort = [&](uint8_t Tag) -> Error {
    TraceRecord Rec = StartRecord(RecordKind::Input);
    Rec.Short = true;
    ++Pos;
    const unsigned K = (Tag >> 4) - 2;
    const int D = (Tag & 15) >= 8 ? int(Tag & 15) - 16 : int(Tag & 15);
    if (!K) {
      if (Error E = ReadVarint("value", Rec.Fields[1]))
        return E;
      if (Rec.Fields[1] > 0xFFFF)
        return Fail(RecStart, "INPUT_S value " + Twine(Rec.Fields[1]) +
                                  " is over 16 bits (the writer writes such a value as INPUT)");
    }
    Rec.NumFields = 2;
    Rec.Size = Pos - RecStart;
    if (!Resolve) {
      Out.push_back(std::move(Rec));
      return Error::success();
    }
    const std::string Named =
        "INPUT_S (tag 0x" + utohexstr(Tag, false, 2) + ", site " + (D >= 0 ? "+" : "") +
        std::to_string(D) + (K ? ", recent slot " + std::to_string(K - 1) : std::string()) + ")";
    if (!InHasSite)
      return Fail(RecStart, Named + " has no INPUT before it in its segment to take its site "
                                    "from");
    Rec.Fields[0] = uint16_t(InSite + D);
    if (K) {
      Rec.Slot = int8_t(K - 1);
      Rec.Fields[1] = InSlot[K - 1];
    } else {
      for (unsigned I = 0; I < InputShortSlots; ++I)
        if (InSlot[I] == Rec.Fields[1])
          return Fail(RecStart, Named + " gives the value " + Twine(Rec.Fields[1]) +
                                    ", which is the segment's recent value in slot " + Twine(I) +
                                    " (the writer names the slot)");
    }
    NoteInput(Rec.Fields[0], Rec.Fields[1]);
    Out.push_back(std::move(Rec));
    return Error::success();
  };

  // A record of the base format (tags 0x01-0x0F): the tag, its varint fields (CHECK and
  // VIOLATION: a raw 16-bit checksum second), and `u len, bytes[len]` for the payload kinds.
  auto decodePlain = [&](RecordKind K) -> Error {
    ++Pos;
    TraceRecord Rec = StartRecord(K);
    ArrayRef<const char *> Names = recordFieldNames(Rec.Kind);
    bool IsCheck = Rec.Kind == RecordKind::Check || Rec.Kind == RecordKind::Violation;
    for (unsigned I = 0; I < Names.size(); ++I) {
      if (IsCheck && I == 1) {
        if (End - Pos < 2)
          return PastEnd(Pos, "checksum");
        Rec.Fields[1] = readU16(R, Pos);
        Pos += 2;
      } else if (Error E = ReadVarint(Names[I], Rec.Fields[I])) {
        return E;
      }
      ++Rec.NumFields;
    }
    if (recordHasPayload(Rec.Kind)) {
      uint32_t Len;
      if (Error E = ReadVarint("len", Len))
        return E;
      if (Len > End - Pos)
        return Fail(Pos, "payload of " + Twine(Len) + " bytes runs past the end of its "
                                                          "segment (" +
                             Twine(End - Pos) + " bytes left)");
      Rec.Payload.assign(R.begin() + Pos, R.begin() + Pos + Len);
      Pos += Len;
    }
    Rec.Size = Pos - RecStart;
    if (Rec.Kind == RecordKind::Input)
      NoteInput(Rec.Fields[0], Rec.Fields[1]);
    Out.push_back(std::move(Rec));
    return Error::success();
  };

  // REPEAT, tag 0x98 + p - 1 then one byte n (format 9, section 3.8): n records, the j-th the
  // same as the (j mod p)-th of its source, the p records decoded just before it in this
  // span's segment, each a one-byte control record written as its own byte (Compact, Size 1,
  // not itself a copy: such records are contiguous, so they are the p bytes before the tag).
  // A copy takes the source's kind and fields only, as if its byte had been written here:
  // what follows from the order of the records (ENTRY/EXIT nesting, handler depth, interrupt
  // keys) counts the copies as it counts literal bytes. The first copy carries the REPEAT's
  // two bytes and the others none, so the records' sizes still add up to the bytes written.
  auto decodeRepeat = [&](uint8_t Tag) -> Error {
    const unsigned P = Tag - RepeatTag + 1;
    const std::string Name =
        "REPEAT (tag 0x" + utohexstr(Tag, false, 2) + ", period " + std::to_string(P) + ")";
    if (End - Pos < 2)
      return Fail(Pos + 1, Name + " cut off by the end of its segment before its count" +
                               (IsCurrent ? " (the write head is there)" : ""));
    const uint8_t N = R[Pos + 1];
    if (N == 0)
      return Fail(Pos + 1, Name + " of 0 records: its count is 1 to 255");
    Pos += 2;
    if (!Resolve) {
      // verifySpan sizing the record at a saved head (section 1.1: a REPEAT reopened to grow
      // is the open record there): its source lies before the span.
      TraceRecord Rec = StartRecord(RecordKind::Pad);
      Rec.Repeat = uint8_t(P);
      Rec.Size = 2;
      Out.push_back(std::move(Rec));
      return Error::success();
    }
    const size_t Before = Out.size() - FirstOut;
    if (Before < P)
      return Fail(RecStart, Name + " has " + Twine(Before) +
                                (Before == 1 ? " record" : " records") +
                                " before it in its segment; its source is the " + Twine(P) +
                                (P == 1 ? " record" : " records") + " before it there");
    struct Source {
      RecordKind Kind;
      uint8_t NumFields;
      uint32_t Fields[2];
    } Src[RepeatMaxPeriod];
    for (unsigned K = 0; K < P; ++K) {
      const TraceRecord &X = Out[Out.size() - P + K];
      if (!X.Compact || X.Size != 1 || X.Repeat) {
        const bool Control = X.Kind == RecordKind::Entry || X.Kind == RecordKind::Exit ||
                             X.Kind == RecordKind::Irq || X.Kind == RecordKind::IrqExit;
        const std::string Why = X.Repeat   ? "it is one of the records of the REPEAT there"
                                : X.Span   ? "it is part of an empty skip span's record"
                                : !Control ? "it is not a control record"
                                           : "it takes " + std::to_string(X.Size) + " bytes";
        return Fail(RecStart, Name + ": source record " + Twine(K) + " of " + Twine(P) + ", the " +
                                  recordKindName(X.Kind) + " at ring offset " +
                                  Twine(X.RingOffset) +
                                  ", is not a one-byte control record written as its own "
                                  "byte (" +
                                  Why + ")");
      }
      Src[K] = {X.Kind, X.NumFields, {X.Fields[0], X.Fields[1]}};
    }
    for (unsigned J = 0; J < N; ++J) {
      const Source &From = Src[J % P];
      TraceRecord Rec = StartRecord(From.Kind);
      Rec.NumFields = From.NumFields;
      Rec.Fields[0] = From.Fields[0];
      Rec.Fields[1] = From.Fields[1];
      Rec.Repeat = uint8_t(P);
      Rec.Size = J == 0 ? 2 : 0;
      Out.push_back(std::move(Rec));
    }
    return Error::success();
  };

  // CHECK_S, tag 0x19 + 2 (inv - 1) then the raw 16-bit checksum (format 10, section 3.9):
  // a CHECK of inv 1..3, marked Compact, Size 3. Its bytes need nothing before it, so the
  // record at a saved head (verifySpan, without Resolve) is sized the same way.
  auto decodeCheckShort = [&](uint8_t Tag) -> Error {
    const unsigned Inv = 1 + (Tag - CheckShortTag) / 2;
    if (End - Pos < 3)
      return Fail(Pos + 1, "CHECK_S (tag 0x" + utohexstr(Tag, false, 2) + ", inv " +
                               Twine(Inv) + ") cut off by the end of its segment in its checksum" +
                               (IsCurrent ? " (the write head is there)" : ""));
    TraceRecord Rec = StartRecord(RecordKind::Check);
    Rec.Compact = true;
    Rec.Fields[0] = Inv;
    Rec.Fields[1] = readU16(R, Pos + 1);
    Rec.NumFields = 2;
    Rec.Size = 3;
    Pos += 3;
    Out.push_back(std::move(Rec));
    return Error::success();
  };

  while (Pos < End) {
    RecStart = Pos;
    uint8_t Tag = R[Pos];
    if (Tag == uint8_t(RecordKind::Pad))
      break; // the rest of the segment is padding
    if (Tag >= InputShortTag && Tag <= InputShortLastTag && Header.Version >= 6) {
      if (Error E = decodeInputShort(Tag))
        return E;
      continue;
    }
    if (Tag == EffectDeltaTag && Header.Version >= 3) {
      if (Error E = decodeEffectDelta())
        return E;
      continue;
    }
    if (Tag == CheckpointZTag && Header.Version >= 4) {
      if (Error E = decodeZ(RecordKind::Checkpoint, /*TwoLevel=*/false))
        return E;
      continue;
    }
    if (Tag == EffectCTag && Header.Version >= 5) {
      if (Error E = decodeEffectC(/*TwoLevel=*/false))
        return E;
      continue;
    }
    if ((Tag == CheckpointZ2Tag || Tag == EffectC2Tag || Tag == EffectZ2Tag) &&
        Header.Version >= 8) {
      // Format 8 (section 3.7): CHECKPOINT_Z, EFFECT_C and EFFECT_Z with two-level groups.
      if (Error E = Tag == EffectC2Tag
                        ? decodeEffectC(/*TwoLevel=*/true)
                        : decodeZ(Tag == CheckpointZ2Tag ? RecordKind::Checkpoint
                                                         : RecordKind::Effect,
                                  /*TwoLevel=*/true))
        return E;
      continue;
    }
    if (isFormat9Tag(Tag) && Header.Version >= 9) {
      if (Error E = decodeRepeat(Tag))
        return E;
      continue;
    }
    if (isFormat10Tag(Tag) && Header.Version >= 10) {
      if (Error E = decodeCheckShort(Tag))
        return E;
      continue;
    }
    if (Header.Version >= 7) {
      // Format 7 (section 3.5): one-byte ENTRY, EXIT, IRQ, IRQ_EXIT; empty skip spans.
      auto Compact = [&](RecordKind K, uint32_t A, uint32_t B, uint8_t N) {
        TraceRecord Rec = StartRecord(K);
        Rec.Compact = true;
        Rec.Fields[0] = A;
        Rec.Fields[1] = B;
        Rec.NumFields = N;
        Rec.Size = 1;
        ++Pos;
        Out.push_back(std::move(Rec));
      };
      if (Tag >= IrqShortTag && Tag < IrqShortTag + IrqShortIds * IrqShortCounts) {
        Compact(RecordKind::Irq, 1 + (Tag - IrqShortTag) / IrqShortCounts,
                (Tag - IrqShortTag) % IrqShortCounts, 2);
        continue;
      }
      if (Tag >= IrqExitShortTag && Tag < IrqExitShortTag + IrqShortIds) {
        Compact(RecordKind::IrqExit, 1 + Tag - IrqExitShortTag, 0, 1);
        continue;
      }
      if (Tag >= EntryShortTag && Tag < EntryShortTag + FidShortIds) {
        Compact(RecordKind::Entry, Tag - EntryShortTag, 0, 1);
        continue;
      }
      if (Tag >= ExitShortTag && Tag < ExitShortTag + FidShortIds) {
        Compact(RecordKind::Exit, Tag - ExitShortTag, 0, 1);
        continue;
      }
      if (Tag == EffectZTag) {
        if (Error E = decodeZ(RecordKind::Effect, /*TwoLevel=*/false))
          return E;
        continue;
      }
      // The span forms of format 8's effects (section 3.7) are read from version 8 on.
      const bool Span8 =
          Header.Version >= 8 && (Tag == SpanEffectC2Tag || Tag == SpanEffectZ2Tag);
      if (Tag == SpanEffectTag || Tag == SpanEffectDeltaTag || Tag == SpanEffectCTag ||
          Tag == SpanEffectZTag || Span8) {
        const size_t At = Out.size();
        const bool TwoLevel = Tag == SpanEffectC2Tag || Tag == SpanEffectZ2Tag;
        if (Error E = Tag == SpanEffectTag        ? decodePlain(RecordKind::Effect)
                      : Tag == SpanEffectDeltaTag ? decodeEffectDelta()
                      : Tag == SpanEffectZTag || Tag == SpanEffectZ2Tag
                          ? decodeZ(RecordKind::Effect, TwoLevel)
                          : decodeEffectC(TwoLevel))
          return E;
        TraceRecord &Eff = Out[At];
        Eff.Span = true;
        TraceRecord Begin = StartRecord(RecordKind::SkipBegin);
        Begin.Span = true;
        Begin.Fields[0] = Eff.Fields[0];
        Begin.NumFields = 1;
        TraceRecord End = Begin;
        End.Kind = RecordKind::SkipEnd;
        Out.insert(Out.begin() + At, {std::move(Begin), std::move(End)});
        continue;
      }
    }
    if (Tag > LastRecordTag)
      return Fail(Pos, Tag == 0xFF ? Twine("record tag 0xFF (erased memory) is never valid")
                                   : "record tag 0x" + utohexstr(Tag, false, 2) +
                                         " is reserved" +
                                         (Tag == EffectDeltaTag ? " in format 2"
                                          : Tag == CheckpointZTag || Tag == EffectCTag ||
                                                    (Tag >= InputShortTag &&
                                                     Tag <= InputShortLastTag) ||
                                                    isFormat7Tag(Tag) || isFormat8Tag(Tag) ||
                                                    isFormat9Tag(Tag) || isFormat10Tag(Tag)
                                              ? " in format " + Twine(unsigned(Header.Version))
                                              : ""));
    if (Error E = decodePlain(RecordKind(Tag)))
      return E;
  }
  return Error::success();
}

Error TraceFile::decode(std::vector<TraceRecord> &Out, unsigned FirstSpan,
                        bool SkipDamaged) const {
  for (unsigned I = FirstSpan; I < Tail.size(); ++I) {
    if (const SegmentDamage *D = spanDamage(I)) {
      if (SkipDamaged)
        continue;
      return createStringError(inconvertibleErrorCode(), D->message(Header));
    }
    if (Error E = decodeSpan(Tail[I], Out))
      return E;
  }
  return Error::success();
}

Expected<std::vector<TraceRecord>> TraceFile::decode(unsigned FirstSpan) const {
  std::vector<TraceRecord> Out;
  if (Error E = decode(Out, FirstSpan))
    return std::move(E);
  return Out;
}

Error TraceFile::decodeSegment(unsigned Segment, std::vector<TraceRecord> &Out) const {
  for (unsigned I = 0; I < Tail.size(); ++I) {
    if (Tail[I].Segment != Segment)
      continue;
    if (const SegmentDamage *D = spanDamage(I))
      return createStringError(inconvertibleErrorCode(), D->message(Header));
    return decodeSpan(Tail[I], Out);
  }
  if (Segment >= Header.numSegments())
    return createStringError(inconvertibleErrorCode(),
                             "segment " + Twine(Segment) + " does not exist (" +
                                 Twine(Header.numSegments()) + " segments)");
  return Error::success(); // not in the retained tail: nothing to decode
}

std::vector<InterruptKey> interruptKeys(ArrayRef<TraceRecord> Records) {
  std::vector<InterruptKey> Keys;
  uint32_t Position = 0;
  for (size_t I = 0; I < Records.size(); ++I) {
    const TraceRecord &R = Records[I];
    if (R.Kind == RecordKind::Entry || R.Kind == RecordKind::Exit)
      ++Position;
    else if (R.Kind == RecordKind::Irq)
      Keys.push_back({I, R.Fields[0], Position, R.Fields[1]});
  }
  return Keys;
}

namespace {
/// CRC-16/CCITT-FALSE one byte at a time: entry B is the bitwise algorithm
/// (shift left, polynomial 0x1021) applied to B << 8. Replay checksums the
/// invariant inputs at every check, so the table keeps that cheap.
struct Crc16Table {
  uint16_t T[256];
  constexpr Crc16Table() : T() {
    for (unsigned B = 0; B < 256; ++B) {
      uint16_t C = uint16_t(B << 8);
      for (int I = 0; I < 8; ++I)
        C = (C & 0x8000) ? uint16_t((C << 1) ^ 0x1021) : uint16_t(C << 1);
      T[B] = C;
    }
  }
};
constexpr Crc16Table Crc16 = Crc16Table();
} // namespace

uint16_t crc16(uint16_t Crc, ArrayRef<uint8_t> Data) {
  for (uint8_t B : Data)
    Crc = uint16_t(Crc << 8) ^ Crc16.T[uint8_t(Crc >> 8) ^ B];
  return Crc;
}

Error resealTrace(std::vector<uint8_t> &File) {
  Expected<TraceFile> T = TraceFile::parse(File);
  if (!T)
    return T.takeError();
  const TraceHeader &H = T->header();
  std::vector<uint16_t> C = T->spanChecks();
  for (unsigned I = 0; I < C.size(); ++I)
    putU16(File, H.checkOffset(T->tail()[I].Segment), C[I]);
  return Error::success();
}

void appendVarint(std::vector<uint8_t> &Out, uint32_t V) {
  while (V >= 0x80) {
    Out.push_back(uint8_t(V | 0x80));
    V >>= 7;
  }
  Out.push_back(uint8_t(V));
}

//===----------------------------------------------------------------------===//
// TraceWriter: mirrors trace-runtime/src/trace.c step by step.
//===----------------------------------------------------------------------===//

Expected<TraceWriter> TraceWriter::create(const Options &O) {
  if (O.SegSize < 16 || O.BufSize % O.SegSize != 0 || O.BufSize / O.SegSize < 2 ||
      O.BufSize > 0x8000)
    return createStringError(inconvertibleErrorCode(),
                             "invalid trace geometry: buf_size " + Twine(O.BufSize) +
                                 ", seg_size " + Twine(O.SegSize) +
                                 " (need >= 2 segments of >= 16 bytes, buf_size a "
                                 "multiple of seg_size and <= 32768)");
  if (O.Target > 2)
    return createStringError(inconvertibleErrorCode(), "invalid target " + Twine(O.Target));
  return TraceWriter(O);
}

TraceWriter::TraceWriter(const Options &O)
    : Ring(O.BufSize, 0), Checks(O.BufSize / O.SegSize, 0), BlackBox(O.BlackBox),
      Keys(O.EffectKeys), EffectKeys(std::min(O.EffectKeys, 8u)),
      PackCheckpoints(O.PackCheckpoints), PackEffects(O.PackEffects), Repeat(O.Repeat) {
  Header.Target = O.Target;
  Header.NodeId = O.NodeId;
  Header.ModuleHash = O.ModuleHash;
  Header.BufSize = O.BufSize;
  Header.SegSize = O.SegSize;
}

void TraceWriter::commit(uint32_t N) {
  uint32_t Head = Header.Head + N;
  if (Head % Header.SegSize == 0) {
    if (Head == Header.BufSize) {
      Head = 0;
      ++Header.Wraps;
      Header.Flags |= TF_Wrapped;
    }
    Armed = true;
    KeysValid = 0; // the keys were records of the segment left
    InValid = 0;   // and so were the inputs an INPUT_S refers to
    SbAt = -1;     // and the SKIP_BEGIN an empty span takes back
    RepAt = -1;    // and the run of control records a REPEAT continues
  }
  Header.Head = uint16_t(Head);
}

long TraceWriter::emit(ArrayRef<uint8_t> Fixed, uint16_t Extra) {
  if (Header.Flags & TF_Frozen)
    return -1;
  if (Extra > Header.SegSize - Fixed.size()) {
    Header.Flags |= TF_Dropped;
    return -1;
  }
  uint32_t Total = Fixed.size() + Extra;
  uint32_t Room = Header.SegSize - Header.Head % Header.SegSize;
  // The runtime opens the record with the head and closes it by clearing the high byte
  // (section 1.1): what stays is the low byte of the head before the last record.
  Header.Open = Header.Head & 0xFF;
  OpenAt = Header.Head;
  Opened = true;
  if (Room < Total) {
    Ring[Header.Head] = uint8_t(RecordKind::Pad); // the rest of the segment is ignored
    commit(Room);
  }
  uint32_t At = Header.Head;
  std::copy(Fixed.begin(), Fixed.end(), Ring.begin() + At);
  if (Fixed[0] == uint8_t(RecordKind::Checkpoint))
    Armed = false;
  commit(Total);
  return long(At + Fixed.size());
}

void TraceWriter::seal() {
  if (!Opened)
    return;
  Opened = false;
  if (SpanTag >= 0) { // a SPAN_EFFECT* (section 3.5): the effect's tag in its span form
    Ring[SpanTag] += SpanEffectTag - uint8_t(RecordKind::Effect); // + 8 for all three
    SpanTag = -1;
  }
  const uint32_t Seg = Header.SegSize, Buf = Header.BufSize;
  auto Fold = [&](uint32_t Off, uint32_t N) {
    uint16_t &C = Checks[Off / Seg];
    C = crc16(Off % Seg ? C : 0xFFFF, ArrayRef<uint8_t>(Ring).slice(Off, N));
  };
  uint32_t At = OpenAt;
  if (Ring[At] == uint8_t(RecordKind::Pad)) {
    // The segment is left (section 1.2): with two bytes or more after the PAD they become
    // the CRC so far, high byte first, and zeros, so its value is 0.
    uint32_t Rest = Seg - 1 - At % Seg;
    if (Rest >= 2) {
      uint16_t C = crc16(Checks[At / Seg], ArrayRef<uint8_t>(Ring).slice(At, 1));
      Ring[At + 1] = uint8_t(C >> 8);
      Ring[At + 2] = uint8_t(C);
      std::fill(Ring.begin() + At + 3, Ring.begin() + At + 1 + Rest, 0);
      Checks[At / Seg] = 0;
    } else {
      Fold(At, Rest + 1);
    }
    At = At - At % Seg + Seg;
    if (At == Buf)
      At = 0;
  }
  Fold(At, Header.Head >= At ? Header.Head - At : Header.Head + Buf - At);
}

void TraceWriter::fields(RecordKind K, std::initializer_list<uint32_t> F) {
  std::vector<uint8_t> Rec{uint8_t(K)};
  for (uint32_t V : F)
    appendVarint(Rec, V);
  emit(Rec, 0);
  seal();
}

void TraceWriter::payload(RecordKind K, uint16_t Id, ArrayRef<uint8_t> Bytes) {
  // The runtime's len is 16 bits.
  uint16_t Len = uint16_t(std::min<size_t>(Bytes.size(), 0xFFFF));
  std::vector<uint8_t> Rec{uint8_t(K)};
  appendVarint(Rec, Id);
  appendVarint(Rec, Len);
  long At = emit(Rec, Len);
  if (At >= 0)
    std::copy(Bytes.begin(), Bytes.begin() + Len, Ring.begin() + At);
  seal();
}

// As ctl() in trace.c (section 3.8): written as its own byte, or taken into a REPEAT.
void TraceWriter::oneByte(uint8_t Tag) {
  if (!Repeat) {
    emit(ArrayRef<uint8_t>(Tag), 0);
    return seal();
  }
  if (Header.Flags & TF_Frozen)
    return;
  const uint32_t Seg = Header.SegSize, H = Header.Head;
  uint8_t Lit = 0, P = 0;
  if (RepAt == long(H) && H % Seg) {
    P = RepP;
    if (RepN) {
      if (RepN != 255 && Ring[H - 2 - P + RepI] == Tag) {
        // n grows in place: the REPEAT reopened at its tag, its bytes folded again.
        Checks[H / Seg] = RepCrc;
        Ring[H - 1] = ++RepN;
        if (++RepI == P)
          RepI = 0;
        Header.Open = (H - 2) & 0xFF;
        OpenAt = H - 2;
        Opened = true;
        return seal();
      }
      P = 0;
    } else {
      Lit = RepLit;
      if (P && Ring[H - P] == Tag) {
        if (H % Seg <= Seg - 2) {
          RepCrc = Checks[H / Seg];
          const uint8_t Rec[2] = {uint8_t(RepeatTag + P - 1), 1};
          emit(Rec, 0);
          seal();
          RepN = 1;
          RepI = P == 1 ? 0 : 1;
          RepAt = Header.Head;
          return;
        }
      } else {
        P = 0;
        for (uint8_t K = 1; K <= Lit; ++K)
          if (Ring[H - K] == Tag) {
            P = K;
            break;
          }
      }
    }
  }
  emit(ArrayRef<uint8_t>(Tag), 0);
  seal();
  RepN = 0;
  RepP = P;
  RepLit = Lit < RepeatBack ? Lit + 1 : RepeatBack;
  RepAt = Header.Head;
}
// Format 7 (section 3.5): small fids and irq ids in the tag.
void TraceWriter::entry(uint16_t Fid) {
  if (Fid < FidShortIds)
    return oneByte(uint8_t(EntryShortTag + Fid));
  fields(RecordKind::Entry, {Fid});
}
void TraceWriter::exit(uint16_t Fid) {
  if (Fid < FidShortIds)
    return oneByte(uint8_t(ExitShortTag + Fid));
  fields(RecordKind::Exit, {Fid});
}
void TraceWriter::irq(uint16_t Irq, uint16_t Count) {
  if (Irq >= 1 && Irq <= IrqShortIds && Count < IrqShortCounts)
    return oneByte(uint8_t(IrqShortTag + IrqShortCounts * (Irq - 1) + Count));
  fields(RecordKind::Irq, {Irq, Count});
}
void TraceWriter::irqExit(uint16_t Irq) {
  if (Irq >= 1 && Irq <= IrqShortIds)
    return oneByte(uint8_t(IrqExitShortTag + Irq - 1));
  fields(RecordKind::IrqExit, {Irq});
}
void TraceWriter::sched(uint16_t Task) { fields(RecordKind::Sched, {Task}); }
bool TraceWriter::anchorArmed() const { return Armed && !(Header.Flags & TF_Frozen); }
std::vector<uint8_t> packZeroGroups(ArrayRef<uint8_t> Bytes) {
  std::vector<uint8_t> Out;
  for (size_t G = 0; G < Bytes.size(); G += 8) {
    size_t MaskAt = Out.size();
    Out.push_back(0);
    for (size_t I = 0; I < 8 && G + I < Bytes.size(); ++I)
      if (Bytes[G + I]) {
        Out[MaskAt] |= uint8_t(1u << I);
        Out.push_back(Bytes[G + I]);
      }
  }
  return Out;
}

std::vector<uint8_t> packChangeGroups(ArrayRef<uint8_t> Before, ArrayRef<uint8_t> Now) {
  std::vector<uint8_t> Out;
  for (size_t G = 0; G < Now.size(); G += 8) {
    size_t MaskAt = Out.size();
    Out.push_back(0);
    for (size_t I = 0; I < 8 && G + I < Now.size(); ++I)
      if (Now[G + I] != Before[G + I]) {
        Out[MaskAt] |= uint8_t(1u << I);
        Out.push_back(Now[G + I]);
      }
  }
  return Out;
}

size_t twoLevelInPlace(uint8_t *G, uint16_t Len) {
  // As z2 in trace.c (spec section 3.7), store for store: the masks walked to count the empty
  // ones and build the bitmap, the written groups moved down over the empty masks, then up
  // behind the bitmap; what the moves leave after the new end stays (stale, as on the mote).
  const size_t NG = (size_t(Len) + 7) / 8, NB = (NG + 7) / 8;
  if (NB > TwoLevelMaxBitmap)
    return 0;
  uint8_t Map[TwoLevelMaxBitmap] = {};
  size_t Empty = 0, R = 0;
  for (size_t I = 0; I < NG; ++I) {
    const uint8_t M = G[R++];
    if (!M) {
      ++Empty;
      continue;
    }
    Map[I / 8] |= uint8_t(1u << (I % 8));
    R += size_t(llvm::popcount(M));
  }
  if (Empty <= NB)
    return 0;
  size_t W = 0;
  R = 0;
  for (size_t I = 0; I < NG; ++I) {
    const uint8_t M = G[R];
    if (!M) {
      ++R;
      continue;
    }
    for (size_t K = 1 + size_t(llvm::popcount(M)); K; --K)
      G[W++] = G[R++];
  }
  for (size_t I = W; I--;)
    G[I + NB] = G[I];
  std::copy(Map, Map + NB, G);
  return W + NB;
}

std::optional<std::vector<uint8_t>> twoLevelGroups(ArrayRef<uint8_t> G, uint16_t Len) {
  std::vector<uint8_t> B(G.begin(), G.end());
  const size_t N = twoLevelInPlace(B.data(), Len);
  if (!N)
    return std::nullopt;
  B.resize(N);
  return B;
}

namespace {
// The runtime's packer (zbytes/zfinish in trace.c) on offsets from the payload's start: the
// same stores in the same order, and the same refusals at `End`.
struct Packer {
  std::vector<uint8_t> Out; // packed bytes written so far, by offset
  size_t O = 1, M = 0;
  uint8_t Mask = 0x80;
  bool bytes(ArrayRef<uint8_t> B, size_t End) {
    for (uint8_t Byte : B) {
      if (Byte) {
        if (O >= End)
          return false;
        put(O++, Byte);
      }
      bool Outbit = Mask & 1;
      Mask = uint8_t((Mask >> 1) | (Byte ? 0x80 : 0));
      if (Outbit) {
        if (M >= End)
          return false;
        put(M, Mask);
        M = O++;
        Mask = 0x80;
      }
    }
    return true;
  }
  std::optional<size_t> finish(size_t End) {
    if (Mask == 0x80)
      return M;
    bool Outbit;
    do {
      Outbit = Mask & 1;
      Mask >>= 1;
    } while (!Outbit);
    if (M >= End)
      return std::nullopt;
    put(M, Mask);
    return O;
  }
  void put(size_t At, uint8_t B) {
    if (Out.size() <= At)
      Out.resize(At + 1, 0);
    Out[At] = B;
  }
};

// The packed bytes of a checkpoint written in pieces, or nothing when it is written plain
// (zlimit/zpieced in trace.c; a single piece, as __wsn_rt_checkpoint_t: FirstPiece ==
// Bytes.size()).
std::optional<std::vector<uint8_t>> packPieces(ArrayRef<uint8_t> Bytes, size_t FirstPiece) {
  const size_t Len = Bytes.size();
  if (!Len)
    return std::nullopt;
  FirstPiece = std::min(FirstPiece, Len); // an empty first piece leaves no room: plain
  const size_t End = Len - 1, After = Len - FirstPiece, W = After + (After + 7) / 8;
  if (W >= End)
    return std::nullopt;
  Packer P;
  if (!P.bytes(Bytes.take_front(FirstPiece), End - W))
    return std::nullopt;
  std::optional<size_t> E;
  if (!After) {
    E = P.finish(End - W);
  } else {
    if (!P.bytes(Bytes.drop_front(FirstPiece), End))
      return std::nullopt; // cannot happen: the first piece left room for the rest
    E = P.finish(End);
  }
  if (!E)
    return std::nullopt;
  P.Out.resize(*E);
  return P.Out;
}
} // namespace

bool packsInPieces(ArrayRef<uint8_t> Bytes, size_t FirstPiece) {
  return packPieces(Bytes, FirstPiece).has_value();
}

void TraceWriter::checkpoint(uint16_t Anchor, ArrayRef<uint8_t> Bytes, CheckpointWay Way,
                             size_t FirstPiece) {
  // As the runtime (spec section 3.2): the plain record is placed (PAD first when it does not
  // fit), then packed over it when packing applies, unless it ended exactly at the segment's
  // end. The runtime packs as the bytes come, so a record written packed leaves the rest of
  // the plain reservation as it was (stale).
  uint16_t Len = uint16_t(std::min<size_t>(Bytes.size(), 0xFFFF));
  std::vector<uint8_t> Rec{uint8_t(RecordKind::Checkpoint)};
  appendVarint(Rec, Anchor);
  appendVarint(Rec, Len);
  // When the plain record would reach the segment's end (or not fit), it is packed into the
  // rest first, whatever the pieces, with a byte of the segment to spare; only when its masks
  // alone fit there. Given up, it goes on as below (the runtime's stale bytes of the attempt
  // are in the rest the PAD then fills).
  const uint32_t H = Rec.size(), Seg = Header.SegSize,
                 Room = Seg - Header.Head % Seg;
  if (Way != CheckpointWay::Plain && PackCheckpoints && Len && !(Header.Flags & TF_Frozen) &&
      Len <= Seg - H && H + Len >= Room && H + (Len + 7u) / 8 < Room) {
    const size_t End = Room - H - 1;
    Packer P;
    std::optional<size_t> E;
    if (P.bytes(Bytes.take_front(Len), End))
      E = P.finish(End);
    if (E) {
      P.Out.resize(*E);
      Rec[0] = CheckpointZTag;
      Rec.insert(Rec.end(), P.Out.begin(), P.Out.end());
      long At = emit(Rec, 0);
      Armed = false;
      // The record ends before the segment's end (a byte to spare): two-level when smaller.
      if (At >= 0)
        twoLevel(At - Rec.size(), At - P.Out.size(), Len, P.Out.size(), CheckpointZ2Tag);
      seal();
      return;
    }
  }
  long At = emit(Rec, Len);
  if (At < 0) {
    seal();
    return;
  }
  std::optional<std::vector<uint8_t>> Z;
  if (Way != CheckpointWay::Plain && PackCheckpoints && Header.Head % Header.SegSize)
    Z = packPieces(Bytes.take_front(Len), Way == CheckpointWay::Table ? Len : FirstPiece);
  if (Z) {
    Ring[At - Rec.size()] = CheckpointZTag;
    std::copy(Z->begin(), Z->end(), Ring.begin() + At);
    Header.Head = uint16_t(Header.Head - (Len - Z->size()));
    twoLevel(At - Rec.size(), At, Len, Z->size(), CheckpointZ2Tag);
  } else {
    std::copy(Bytes.begin(), Bytes.begin() + Len, Ring.begin() + At);
  }
  seal();
}

void TraceWriter::inNote(uint16_t Site, uint32_t Value) {
  if (!(InValid & 1)) {
    std::fill(std::begin(InSlot), std::end(InSlot), 0);
    InNext = 0;
  }
  InValid = 3;
  InSite = Site;
  if (Value > 0xFFFF || std::find(std::begin(InSlot), std::end(InSlot), Value) != std::end(InSlot))
    return;
  InSlot[InNext] = uint16_t(Value);
  InNext = (InNext + 1) % InputShortSlots;
}

void TraceWriter::input(uint16_t Site, uint32_t Value) {
  std::vector<uint8_t> Rec;
  const uint16_t D = uint16_t(Site - InSite + 8);
  if ((InValid & 3) == 3 && Value <= 0xFFFF && D < 16) {
    unsigned K = std::find(std::begin(InSlot), std::end(InSlot), Value) - std::begin(InSlot);
    K = K == InputShortSlots ? 0 : K + 1;
    Rec.push_back(uint8_t(InputShortTag + (K << 4) + ((D - 8) & 15)));
    if (!K)
      appendVarint(Rec, Value);
    if (Rec.size() > Header.SegSize - Header.Head % Header.SegSize)
      Rec.clear(); // it would open the next segment, which has no previous input: plain
  }
  if (Rec.empty()) {
    Rec.push_back(uint8_t(RecordKind::Input));
    appendVarint(Rec, Site);
    appendVarint(Rec, Value);
  }
  // The state takes the input unless the record ended exactly at its segment's end.
  if (emit(Rec, 0) >= 0 && Header.Head % Header.SegSize)
    inNote(Site, Value);
  seal();
}
void TraceWriter::inputBytes(uint16_t Site, ArrayRef<uint8_t> Bytes) {
  payload(RecordKind::InputBytes, Site, Bytes);
}
void TraceWriter::send(uint16_t Site, uint16_t Dest, uint16_t Seq) {
  fields(RecordKind::Send, {Site, Seq, Dest});
}
void TraceWriter::recv(uint16_t Site, uint16_t Sender, uint16_t Seq) {
  fields(RecordKind::Recv, {Site, Sender, Seq});
}
std::vector<uint8_t> effectDeltaRuns(ArrayRef<uint8_t> Key, ArrayRef<uint8_t> Now) {
  // As delta() in trace.c: runs `u8 skip, u8 n, bytes[n]`.
  std::vector<uint8_t> Out;
  uint8_t Gap = 0;
  bool Open = false;
  size_t CountAt = 0;
  for (size_t I = 0; I < Now.size(); ++I) {
    if (Now[I] == Key[I]) {
      Open = false;
      ++Gap;
      continue;
    }
    if (!Open) {
      Out.push_back(Gap);
      CountAt = Out.size();
      Out.push_back(0);
      Open = true;
      Gap = 0;
    }
    Out.push_back(Now[I]);
    ++Out[CountAt];
  }
  return Out;
}

unsigned TraceWriter::keyFind(uint16_t Len) const {
  unsigned I = 0;
  while (I < EffectKeys && !((KeysValid >> I & 1) && Keys[I].Len == Len))
    ++I;
  return I;
}

void TraceWriter::keyPut(uint16_t Len, uint32_t At) {
  if (!EffectKeys || Len > 255 || At / Header.SegSize != Header.Head / Header.SegSize)
    return;
  unsigned I = keyFind(Len);
  if (I == EffectKeys) {
    I = KeyNext;
    KeyNext = (I + 1) % EffectKeys;
  }
  Keys[I] = {Len, At};
  KeysValid |= uint8_t(1u << I);
}

void TraceWriter::effect(uint16_t Site, ArrayRef<uint8_t> Bytes, bool MayDelta) {
  uint16_t Len = uint16_t(std::min<size_t>(Bytes.size(), 0xFFFF));
  const uint32_t Seg = Header.SegSize, Head = Header.Head;
  const uint32_t Hdr = 4 + (Site >= 0x80) + (Site >= 0x4000) + (Len >= 0x80);
  const uint32_t Room = Seg - Head % Seg;
  unsigned K = keyFind(Len);
  if (MayDelta && K < EffectKeys && Len >= 2 && !(Header.Flags & TF_Frozen) && Hdr <= Room) {
    // As effect_t: the runs go straight into the ring after the head, and stop as soon as
    // they would exceed the limit (the bytes written so far stay, as stale bytes).
    uint32_t Limit = std::min<uint32_t>({uint32_t(Len - 2), 127, Room - Hdr});
    const uint32_t Start = Head + Hdr;
    uint32_t O = Start, CountAt = 0;
    uint8_t Gap = 0;
    bool Open = false, Fits = true;
    for (uint32_t I = 0; I < Len; ++I) {
      uint8_t B = Bytes[I];
      if (B == Ring[Keys[K].At + I]) {
        Open = false;
        ++Gap;
        continue;
      }
      if (O - Start + (Open ? 1 : 3) > Limit) {
        Fits = false;
        break;
      }
      if (!Open) {
        Ring[O++] = Gap;
        CountAt = O++;
        Ring[CountAt] = 0;
        Open = true;
        Gap = 0;
      }
      Ring[O++] = B;
      ++Ring[CountAt];
    }
    if (Fits) {
      uint32_t D = O - Start;
      std::vector<uint8_t> Rec{EffectDeltaTag};
      appendVarint(Rec, Site);
      appendVarint(Rec, Len);
      appendVarint(Rec, D);
      emit(Rec, uint16_t(D));
      seal();
      return;
    }
  }
  // A full EFFECT without its zero bytes when that is smaller (section 3.6).
  if (std::vector<uint8_t> Z = zeroGroups(Bytes); !Z.empty()) {
    groups(EffectZTag, Site, Len, Z);
    return;
  }
  std::vector<uint8_t> Rec{uint8_t(RecordKind::Effect)};
  appendVarint(Rec, Site);
  appendVarint(Rec, Len);
  long At = emit(Rec, Len);
  if (At >= 0) {
    keyPut(Len, uint32_t(At));
    std::copy(Bytes.begin(), Bytes.begin() + Len, Ring.begin() + At);
  }
  seal();
}

void TraceWriter::groups(uint8_t Tag, uint16_t Id, uint16_t Len, ArrayRef<uint8_t> G) {
  std::vector<uint8_t> Rec{Tag};
  appendVarint(Rec, Id);
  appendVarint(Rec, Len);
  long At = emit(Rec, uint16_t(G.size()));
  if (At >= 0) {
    std::copy(G.begin(), G.end(), Ring.begin() + At);
    // An EFFECT_C or EFFECT_Z is made two-level in place once its groups are there (section
    // 3.7), unless it ended exactly at its segment's end; the head moves back. (EFFECT_Z comes
    // only with PackEffects, which needs the runtime's packing, PackCheckpoints.)
    if ((Tag == EffectCTag || Tag == EffectZTag) && PackCheckpoints &&
        Header.Head % Header.SegSize)
      twoLevel(At - Rec.size(), At, Len, G.size(),
               Tag == EffectCTag ? EffectC2Tag : EffectZ2Tag);
  }
  seal();
}

void TraceWriter::twoLevel(size_t TagAt, size_t At, uint16_t Len, size_t OneLevel,
                           uint8_t Tag2) {
  if (size_t K = twoLevelInPlace(&Ring[At], Len)) {
    Ring[TagAt] = Tag2;
    Header.Head = uint16_t(Header.Head - (OneLevel - K));
  }
}

void TraceWriter::effectC(uint16_t Site, ArrayRef<uint8_t> Before, ArrayRef<uint8_t> Bytes) {
  // As effect_t with a snapshot (spec section 3.3): the changes are counted first, and the
  // record reserved at its exact size, so nothing is written for a record not taken.
  uint16_t Len = uint16_t(std::min<size_t>(Bytes.size(), 0xFFFF));
  if (keyFind(Len) == EffectKeys && Len >= 2 && Before.size() == Len) {
    std::vector<uint8_t> G = packChangeGroups(Before, Bytes.take_front(Len));
    if (G.size() < Len) {
      groups(EffectCTag, Site, Len, G);
      return;
    }
  }
  effect(Site, Bytes);
}

void TraceWriter::skipBegin(uint16_t Site) {
  // As record() in trace.c: the check value before the SKIP_BEGIN, kept while the record
  // neither went to the next segment after a PAD nor ended its segment.
  const uint32_t Seg = Header.SegSize, H = Header.Head;
  const uint16_t Crc = H % Seg ? Checks[H / Seg] : 0xFFFF;
  const bool Frozen = Header.Flags & TF_Frozen;
  fields(RecordKind::SkipBegin, {Site});
  SbAt = -1;
  if (!Frozen && Header.Head / Seg == H / Seg && Header.Head % Seg) {
    SbAt = long(H);
    SbSite = Site;
    SbCrc = Crc;
  }
}
void TraceWriter::skipEnd(uint16_t Site) { fields(RecordKind::SkipEnd, {Site}); }

bool TraceWriter::spanOrEnd(uint16_t Site, uint32_t Size) {
  const uint32_t Seg = Header.SegSize, VS = 1 + (Site >= 0x80) + (Site >= 0x4000);
  const long At = SbAt;
  SbAt = -1;
  if (At >= 0 && SbSite == Site && Header.Head == uint32_t(At) + 1 + VS &&
      Size <= Seg - uint32_t(At) % Seg) {
    Checks[At / Seg] = SbCrc; // the SKIP_BEGIN taken back
    Header.Head = uint16_t(At);
    SpanTag = At;
    return true;
  }
  skipEnd(Site);
  return false;
}

static uint32_t varintSize(uint32_t V) {
  uint32_t N = 1;
  while (V >= 0x80) {
    V >>= 7;
    ++N;
  }
  return N;
}

void TraceWriter::skipEffect(uint16_t Site, ArrayRef<uint8_t> Bytes, bool MayDelta) {
  uint16_t Len = uint16_t(std::min<size_t>(Bytes.size(), 0xFFFF));
  std::vector<uint8_t> Z = zeroGroups(Bytes);
  spanOrEnd(Site, 1 + varintSize(Site) + varintSize(Len) + (Z.empty() ? Len : Z.size()));
  effect(Site, Bytes, MayDelta);
  SpanTag = -1;
}

std::vector<uint8_t> TraceWriter::zeroGroups(ArrayRef<uint8_t> Bytes) const {
  // As effect_t: only a runtime without keys packs (a packed record cannot be a key).
  if (!PackEffects || EffectKeys || Bytes.empty() || Bytes.size() > 0xFFFF)
    return {};
  std::vector<uint8_t> Z = packZeroGroups(Bytes);
  if (Z.size() >= Bytes.size())
    Z.clear();
  return Z;
}

void TraceWriter::skipEffectC(uint16_t Site, ArrayRef<uint8_t> Before, ArrayRef<uint8_t> Bytes) {
  uint16_t Len = uint16_t(std::min<size_t>(Bytes.size(), 0xFFFF));
  // As effect_t: the changes are counted when no key of its length is in the segment being
  // written, before the span decision (a SKIP_END that enters the next segment, where the
  // keys are forgotten, does not make it count them after all).
  std::vector<uint8_t> G;
  if (Len >= 2 && Before.size() == Len && keyFind(Len) == EffectKeys) {
    G = packChangeGroups(Before, Bytes.take_front(Len));
    if (G.size() >= Len)
      G.clear();
  }
  std::vector<uint8_t> Z = G.empty() ? zeroGroups(Bytes) : std::vector<uint8_t>();
  spanOrEnd(Site, 1 + varintSize(Site) + varintSize(Len) +
                      (!G.empty() ? G.size() : !Z.empty() ? Z.size() : Len));
  if (G.empty()) {
    effect(Site, Bytes);
  } else {
    groups(EffectCTag, Site, Len, G);
  }
  SpanTag = -1;
}

void TraceWriter::check(uint16_t Inv, bool Ok, uint16_t Crc) {
  ++Header.Checks;
  std::vector<uint8_t> Rec{uint8_t(Ok ? RecordKind::Check : RecordKind::Violation)};
  if (Ok && Inv >= 1 && Inv <= CheckShortInvs) // CHECK_S (section 3.9)
    Rec[0] = uint8_t(CheckShortTag + 2 * (Inv - 1));
  else
    appendVarint(Rec, Inv);
  Rec.push_back(uint8_t(Crc));
  Rec.push_back(uint8_t(Crc >> 8));
  emit(Rec, 0);
  if (!Ok && !(Header.Flags & TF_Violation)) {
    Header.Violation = Inv;
    Header.Flags |= TF_Violation;
    if (BlackBox)
      Header.Flags |= TF_Frozen;
  }
  seal();
}

std::vector<uint8_t> TraceWriter::bytes() const {
  std::vector<uint8_t> B = encodeTraceHeader(Header);
  B.insert(B.end(), Ring.begin(), Ring.end());
  for (uint16_t C : Checks) {
    B.push_back(uint8_t(C));
    B.push_back(uint8_t(C >> 8));
  }
  return B;
}

Error TraceWriter::writeFile(StringRef Path) const {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (EC)
    return createStringError(EC, "cannot write '" + Path + "': " + EC.message());
  std::vector<uint8_t> B = bytes();
  OS.write(reinterpret_cast<const char *>(B.data()), B.size());
  OS.close();
  if (OS.has_error())
    return createStringError(OS.error(), "cannot write '" + Path + "'");
  return Error::success();
}

} // namespace wsn
