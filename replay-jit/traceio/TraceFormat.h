//===- TraceFormat.h - reading and writing .wtr traces ----------*- C++ -*-===//
//
// The desktop side of spec/trace-format.md: header parsing, linearisation of the ring into
// the retained tail, record decoding, the interrupt keys used by replay, and TraceWriter, an
// encoder that produces exactly the bytes of the C runtime (trace-runtime/src/trace.c).
//
// Errors always name a byte offset. Offsets in messages are FILE offsets (header = 0..31,
// ring byte r = 32 + r); record errors also give the ring offset, the offset in the
// linearised tail and the segment.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_TRACEIO_TRACEFORMAT_H
#define WSN_TRACEIO_TRACEFORMAT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wsn {

constexpr unsigned TraceHeaderSize = 32;
constexpr uint8_t TraceVersion = 10;
/// The oldest version still read: format 2 is format 3 without EFFECT_DELTA records, format
/// 3 is format 4 without CHECKPOINT_Z records, format 4 is format 5 without EFFECT_C records,
/// format 5 is format 6 without INPUT_S records, format 6 is format 7 without the compact
/// control records (spec section 3.5), format 7 is format 8 without the two-level groups
/// (section 3.7), format 8 is format 9 without REPEAT records (section 3.8), format 9 is
/// format 10 without CHECK_S records (section 3.9).
constexpr uint8_t OldestTraceVersion = 2;
/// Tag of EFFECT_DELTA (format 3, spec/trace-format.md section 3.1): decoded into an EFFECT
/// record with its full payload (TraceRecord::Delta set).
constexpr uint8_t EffectDeltaTag = 0x10;
/// Tag of CHECKPOINT_Z (format 4, spec section 3.2): a checkpoint without its zero bytes,
/// decoded into a CHECKPOINT record with its full payload (TraceRecord::Packed set).
constexpr uint8_t CheckpointZTag = 0x11;
/// Tag of EFFECT_C (format 5, spec section 3.3): an effect holding only the bytes the skipped
/// call changed, decoded into an EFFECT record whose Given marks the bytes it holds.
constexpr uint8_t EffectCTag = 0x12;
/// Tags of INPUT_S (format 6, spec section 3.4): 0x20 + 16k + (d & 15), k = 0..4; an
/// INPUT whose site is the segment's previous INPUT's site + d (d = -8..7) and whose value
/// follows as a varint (k = 0) or is the segment's recent value in slot k - 1. Decoded into
/// an INPUT record (TraceRecord::Short set).
constexpr uint8_t InputShortTag = 0x20, InputShortLastTag = 0x6F;
/// The recent input values an INPUT_S may name (the runtime's four slots).
constexpr unsigned InputShortSlots = 4;
/// Format 7 (spec section 3.5). SPAN_EFFECT, SPAN_EFFECT_DELTA, SPAN_EFFECT_C: an empty skip
/// span (SKIP_BEGIN site, SKIP_END site, then the span's EFFECT, EFFECT_DELTA or EFFECT_C of
/// the same site) as one record with the effect's fields and its tag + 8; decoded into the
/// three records (TraceRecord::Span set on each).
constexpr uint8_t SpanEffectTag = 0x13, SpanEffectDeltaTag = 0x18, SpanEffectCTag = 0x1A;
/// Tag of EFFECT_Z (format 7, spec section 3.6): an effect without its zero bytes, CHECKPOINT_Z's
/// groups with the site for the anchor, decoded into an EFFECT record with its full payload
/// (TraceRecord::Packed set); SPAN_EFFECT_Z (tag + 8) is its span form.
constexpr uint8_t EffectZTag = 0x14, SpanEffectZTag = 0x1C;
/// Format 8 (spec section 3.7): CHECKPOINT_Z2, EFFECT_C2 and EFFECT_Z2 are CHECKPOINT_Z,
/// EFFECT_C and EFFECT_Z whose groups are written two-level (a bitmap of the groups whose mask
/// is not 0x00, then those groups only); SPAN_EFFECT_C2 and SPAN_EFFECT_Z2 (tag + 8) their
/// span forms. Decoded into the same records as the one-level forms (TraceRecord::TwoLevel).
constexpr uint8_t CheckpointZ2Tag = 0x15, EffectC2Tag = 0x16, EffectZ2Tag = 0x17,
                  SpanEffectC2Tag = 0x1E, SpanEffectZ2Tag = 0x1F;
/// IRQ_S 0x70 + 4 (irq - 1) + count (irq 1..8, count 0..3); IRQ_EXIT_S 0x90 + irq - 1 (irq
/// 1..8); ENTRY_S 0xA0 + fid and EXIT_S 0xD0 + fid (fid 0..46): one-byte records decoded into
/// IRQ, IRQ_EXIT, ENTRY, EXIT (TraceRecord::Compact set).
constexpr uint8_t IrqShortTag = 0x70, IrqExitShortTag = 0x90, EntryShortTag = 0xA0,
                  ExitShortTag = 0xD0;
constexpr unsigned IrqShortIds = 8, IrqShortCounts = 4, FidShortIds = 47;
/// REPEAT (format 9, spec section 3.8): tag 0x98 + p - 1 for a period p = 1..8, then one byte
/// n = 1..255; n one-byte control records, the j-th the same as the (j mod p)-th of the p
/// records written just before it in its segment (each an IRQ_S, IRQ_EXIT_S, ENTRY_S or
/// EXIT_S byte of its own). Decoded into the n records (TraceRecord::Repeat = p on each).
constexpr uint8_t RepeatTag = 0x98, RepeatLastTag = 0x9F;
constexpr unsigned RepeatMaxPeriod = 8;
/// How far back the writer looks for a period (the runtime's WSN_REPEAT_BACK): 4.
constexpr uint8_t RepeatBack = 4;
/// CHECK_S (format 10, spec section 3.9): tag 0x19 + 2 (inv - 1) for inv = 1..3, then the
/// raw 16-bit checksum; a passing CHECK without its inv field, decoded into a CHECK record
/// (TraceRecord::Compact set, Size 3).
constexpr uint8_t CheckShortTag = 0x19;
constexpr unsigned CheckShortInvs = 3;
/// Whether Tag is one of CHECK_S's three (0x19, 0x1B, 0x1D).
constexpr bool isCheckShortTag(uint8_t Tag) {
  return Tag >= CheckShortTag && Tag < CheckShortTag + 2 * CheckShortInvs &&
         (Tag - CheckShortTag) % 2 == 0;
}

/// Header flag bits.
enum TraceFlag : uint16_t {
  TF_Wrapped = 1,
  TF_Violation = 2,
  TF_Frozen = 4,
  TF_Dropped = 8,
  TF_AllKnown = 0xF,
};

enum class TraceTarget : uint8_t { Host = 0, AVR = 1, MSP430 = 2 };
llvm::StringRef traceTargetName(uint8_t Target);

constexpr uint16_t NoViolation = 0xFFFF;

/// Record tags (spec/trace-format.md section 3); the thesis log type is in the comment.
enum class RecordKind : uint8_t {
  Pad = 0x00,
  Entry = 0x01,      // LOG 1
  Exit = 0x02,       // LOG 1
  Irq = 0x03,        // LOG 2
  IrqExit = 0x04,    // LOG 2
  Sched = 0x05,      // LOG 3
  Checkpoint = 0x06, // LOG 4
  Input = 0x07,      // LOG 5
  InputBytes = 0x08, // LOG 5
  Send = 0x09,       // LOG 6
  Recv = 0x0A,       // LOG 6
  Effect = 0x0B,     // multi-level
  SkipBegin = 0x0C,  // multi-level
  SkipEnd = 0x0D,    // multi-level
  Check = 0x0E,
  Violation = 0x0F,
};
constexpr uint8_t LastRecordTag = 0x0F;

/// "ENTRY", "IRQ_EXIT", ... as in the spec.
llvm::StringRef recordKindName(RecordKind K);
/// Names of the fields of a kind, in record order (payload excluded), e.g. {"site","seq","dest"}
/// for SEND. CHECK/VIOLATION: {"inv","checksum"}.
llvm::ArrayRef<const char *> recordFieldNames(RecordKind K);
/// True for the kinds carrying `len` + bytes (CHECKPOINT, INPUT_BYTES, EFFECT).
bool recordHasPayload(RecordKind K);

struct TraceHeader {
  uint8_t Version = TraceVersion;
  uint8_t Target = 0;
  uint16_t NodeId = 0;
  uint32_t ModuleHash = 0;
  uint16_t BufSize = 0;
  uint16_t SegSize = 0;
  uint16_t Head = 0;
  uint16_t Flags = 0;
  uint32_t Wraps = 0;
  uint32_t Checks = 0;
  uint16_t Violation = NoViolation;
  /// The raw `open` field (offset 30, spec section 1.1). Bit 15: the node stopped while a
  /// record was being written; bits 0-14 the head before that record. Closed, the low byte
  /// is a leftover and the high byte is 0.
  uint16_t Open = 0;
  /// The `head` field as stored; Head is the committed head (OpenHead when a record is open).
  uint16_t RawHead = 0;

  bool wrapped() const { return Flags & TF_Wrapped; }
  /// A record was being written when the trace was read (the torn record is not decoded).
  bool open() const { return Open & OpenBit; }
  static constexpr uint16_t OpenBit = 0x8000, OpenHeadMask = 0x7FFF;
  unsigned numSegments() const { return SegSize ? BufSize / SegSize : 0; }
  /// File offset of segment S's check value (after the ring, 2 bytes per segment).
  uint32_t checkOffset(unsigned S) const { return TraceHeaderSize + BufSize + 2 * S; }
  /// Length of the whole file: header, ring and one check value per segment.
  uint32_t fileSize() const { return TraceHeaderSize + BufSize + 2 * numSegments(); }
};

/// Parses and validates the 32-byte header and the file length (spec section 1).
llvm::Expected<TraceHeader> parseTraceHeader(llvm::ArrayRef<uint8_t> File);
/// The 32 header bytes of H.
std::vector<uint8_t> encodeTraceHeader(const TraceHeader &H);

/// A piece of the retained tail: one segment or the written part of the current segment.
struct TraceSpan {
  uint32_t RingOffset;   ///< where the span starts in the ring data
  uint32_t Length;       ///< bytes
  uint32_t Segment;      ///< ring segment index
  uint64_t LinearOffset; ///< where the span starts in the linearised tail
};

/// A retained segment whose bytes do not give its check value (spec section 1.2): damaged
/// after the runtime wrote it (a wild pointer, a bad read-out, an edited file).
struct SegmentDamage {
  unsigned Span;       ///< index in TraceFile::tail()
  uint32_t Segment;    ///< ring segment
  uint32_t RingOffset; ///< first byte of the span in the ring data
  uint32_t Covered;    ///< bytes the check value covers (the span's length)
  uint16_t Stored;     ///< the check value in the file
  uint16_t Computed;   ///< what the bytes give
  /// "offset N: segment S (ring offset R) is damaged: ..." (N = the segment's file offset).
  std::string message(const TraceHeader &H) const;
};

/// One decoded record. Fields hold the varint fields in record order (see
/// recordFieldNames); for CHECK/VIOLATION Fields[1] is the 16-bit checksum.
struct TraceRecord {
  RecordKind Kind = RecordKind::Pad;
  uint8_t NumFields = 0;
  uint32_t Fields[3] = {0, 0, 0};
  std::vector<uint8_t> Payload; ///< CHECKPOINT / INPUT_BYTES / EFFECT bytes
  uint64_t LinearOffset = 0;    ///< offset of the tag in the linearised tail
  uint32_t RingOffset = 0;      ///< offset of the tag in the ring data
  uint32_t Segment = 0;         ///< ring segment holding the record
  unsigned Size = 0;            ///< encoded size in bytes
  /// An EFFECT written as EFFECT_DELTA (tag 0x10): Payload is the full payload rebuilt from
  /// the key; KeyRingOffset is the ring offset of the key's tag.
  bool Delta = false;
  uint32_t KeyRingOffset = 0;
  /// A CHECKPOINT written as CHECKPOINT_Z (tag 0x11): Payload is the full payload rebuilt
  /// from the group masks; Size is the packed record's size.
  bool Packed = false;
  /// An EFFECT written as EFFECT_C (tag 0x12): one byte per payload byte, 1 where the record
  /// gives it (the call changed it). The others are "as memory held before the call" for the
  /// variables, and 0 for the return value's bytes; Payload holds 0 there. Empty for every
  /// other record (all bytes given).
  std::vector<uint8_t> Given;
  /// An INPUT written as INPUT_S (tag 0x20-0x6F): its site and value were resolved against
  /// the segment's earlier inputs; Slot is the recent value's slot it named (0-3), or -1 when
  /// it gave the value.
  bool Short = false;
  int8_t Slot = -1;
  /// An ENTRY, EXIT, IRQ or IRQ_EXIT written in one byte (format 7: ENTRY_S, EXIT_S, IRQ_S,
  /// IRQ_EXIT_S), its fields in the tag; or a CHECK written as CHECK_S (format 10: its inv in
  /// the tag, then the checksum, 3 bytes).
  bool Compact = false;
  /// One of the three records (SKIP_BEGIN, SKIP_END, EFFECT) of an empty skip span written
  /// as one SPAN_EFFECT* record (format 7). All three carry the record's offsets; the EFFECT
  /// carries its Size, the SKIP_BEGIN and SKIP_END have Size 0.
  bool Span = false;
  /// A CHECKPOINT_Z, EFFECT_C or EFFECT_Z written with two-level groups (format 8, spec
  /// section 3.7: CHECKPOINT_Z2, EFFECT_C2, EFFECT_Z2 and the span forms).
  bool TwoLevel = false;
  /// One of the n records of a REPEAT (format 9, spec section 3.8): its period p (1..8), 0 for
  /// a record written on its own. Kind and fields are those of the source record it repeats
  /// (Compact is not set: it was not written as its own byte). All n carry the REPEAT's
  /// offsets; the first carries its Size (2), the others have Size 0.
  uint8_t Repeat = 0;
  /// Whether payload byte I is given (always, except in an EFFECT_C).
  bool given(size_t I) const { return Given.empty() || Given[I]; }

  uint32_t id() const { return Fields[0]; } ///< fid/irq/task/anchor/site/inv
  /// Field by name ("count", "seq", ...), or std::nullopt.
  std::optional<uint32_t> field(llvm::StringRef Name) const;
  bool operator==(const TraceRecord &O) const;
};

/// The runtime's anchor flag after record Last (spec/replay-log.md section 2.4): the writer
/// arms it whenever head reaches a segment boundary (trace-format.md section 2), including
/// the boundary a record ends on and the PAD that moves one to the next segment. So it is set
/// iff such a boundary was reached since the checkpoint LastCheckpoint: Last lies in another
/// segment, or ends on a boundary. The one rule of ReplayLog (replay) and of wsn-sim's
/// settle (SettleAnchor), which must agree. Every record of a REPEAT (format 9) ends where
/// the REPEAT does: the writer grows its count in place, the head staying after it.
/// Where the bytes of the encoding R comes from end, counted from R's offsets: its size, or
/// for a record a REPEAT stands for (format 9: all at the REPEAT's offset, only the first with
/// its size) the REPEAT's 2 bytes.
inline unsigned recordExtent(const TraceRecord &R) { return R.Repeat ? 2 : R.Size; }

inline bool writerArmedAfter(const TraceRecord &Last, const TraceRecord &LastCheckpoint,
                             uint32_t SegSize) {
  if (Last.Segment != LastCheckpoint.Segment)
    return true;
  const uint32_t End = Last.RingOffset + recordExtent(Last);
  return SegSize && End % SegSize == 0;
}

/// A whole .wtr file: header, ring and its linearisation.
class TraceFile {
public:
  /// Validates the header and the length; keeps a copy of the bytes.
  static llvm::Expected<TraceFile> parse(llvm::ArrayRef<uint8_t> Bytes);
  /// Reads and parses a file; errors are prefixed by nothing (the caller names the file).
  static llvm::Expected<TraceFile> load(llvm::StringRef Path);

  const TraceHeader &header() const { return Header; }
  llvm::ArrayRef<uint8_t> bytes() const { return Bytes; }
  llvm::ArrayRef<uint8_t> ring() const {
    return llvm::ArrayRef<uint8_t>(Bytes).drop_front(TraceHeaderSize);
  }
  /// The retained tail, oldest first (spec section 2); empty spans are omitted.
  const std::vector<TraceSpan> &tail() const { return Tail; }
  /// The tail's bytes concatenated.
  std::vector<uint8_t> linearBytes() const;
  /// Bytes of the ring dropped as stale (wrapped traces only).
  uint32_t staleBytes() const;
  /// With an open record (header().open()): the ring segment the torn record may have begun
  /// to overwrite, dropped from the tail because it was retained (else -1).
  int droppedOpenSegment() const { return DroppedOpenSegment; }
  /// Bytes of the incomplete record that the stored head already covered (0 when the head
  /// had not moved yet or the record was not open).
  uint32_t tornBytes() const;

  /// For each retained span (tail order): the check value its bytes give, i.e. what the
  /// runtime stored once the span's last record was closed.
  std::vector<uint16_t> spanChecks() const;
  /// Retained segments whose check value does not match (spec section 1.2), in tail order.
  const std::vector<SegmentDamage> &damage() const { return Damage; }
  /// The damage of tail span I, or null.
  const SegmentDamage *spanDamage(unsigned I) const;

  /// Decodes the tail from span FirstSpan on (0 = whole tail; any span index works since a
  /// span always starts at a record boundary). Records decoded before an error are appended
  /// to Out; the error names the offsets and the reason. A damaged segment is an error
  /// (records are never taken from it) unless SkipDamaged, which leaves its records out and
  /// goes on with the next span.
  llvm::Error decode(std::vector<TraceRecord> &Out, unsigned FirstSpan = 0,
                     bool SkipDamaged = false) const;
  llvm::Expected<std::vector<TraceRecord>> decode(unsigned FirstSpan = 0) const;
  /// Decodes one ring segment on its own (its written part when it is the current one); a
  /// damaged segment is an error.
  llvm::Error decodeSegment(unsigned Segment, std::vector<TraceRecord> &Out) const;

private:
  /// Without Resolve, an EFFECT_DELTA is decoded without its key (Payload stays empty): for
  /// the size of a single record (verifySpan).
  llvm::Error decodeSpan(const TraceSpan &S, std::vector<TraceRecord> &Out,
                         bool Resolve = true) const;
  /// Checks span I against its segment's check value; appends to Damage.
  void verifySpan(unsigned I);
  TraceHeader Header;
  std::vector<uint8_t> Bytes;
  std::vector<TraceSpan> Tail;
  std::vector<SegmentDamage> Damage;
  int DroppedOpenSegment = -1;
};

/// The interrupt key (DESIGN-BRIEF section 4, refining the thesis's <function, instance,
/// count> tuple of section 4.2): the number of ENTRY/EXIT records preceding the IRQ record in
/// the retained tail, plus the interrupted context's #gv_reference count.
struct InterruptKey {
  size_t RecordIndex; ///< index of the IRQ record in the decoded vector
  uint32_t Irq;
  uint32_t Position; ///< ENTRY/EXIT records before it
  uint32_t Count;    ///< #gv_reference at the interrupt
};
std::vector<InterruptKey> interruptKeys(llvm::ArrayRef<TraceRecord> Records);

/// CRC-16/CCITT-FALSE (as __wsn_crc16).
uint16_t crc16(uint16_t Crc, llvm::ArrayRef<uint8_t> Data);
inline uint16_t crc16(llvm::ArrayRef<uint8_t> Data) { return crc16(0xFFFF, Data); }

/// The check value of one segment's written bytes (spec section 1.2): CRC-16/CCITT-FALSE.
inline uint16_t segmentCheck(llvm::ArrayRef<uint8_t> Written) { return crc16(Written); }

/// Rewrites every check value of a trace file as the runtime would have left it for the bytes
/// it now holds (each retained span: a whole segment, or the written part of the current
/// one). For tests and tools that build or edit traces on purpose; the header must parse.
llvm::Error resealTrace(std::vector<uint8_t> &File);

/// Appends the unsigned LEB128 encoding of V.
void appendVarint(std::vector<uint8_t> &Out, uint32_t V);

/// An encoder with the C runtime's exact behaviour: segments, PAD, wrapping, the anchor flag,
/// black-box freezing, the DROPPED flag. Used by tests and by tools that synthesize traces.
class TraceWriter {
public:
  struct Options {
    uint16_t BufSize = 1024;
    uint16_t SegSize = 256;
    uint8_t Target = 0;
    uint16_t NodeId = 0;
    uint32_t ModuleHash = 0;
    bool BlackBox = true;
    /// The runtime's WSN_TRACE_EFFECT_KEYS (0: every effect in full).
    unsigned EffectKeys = 4;
    /// The runtime's WSN_TRACE_PACK (false: every checkpoint plain).
    bool PackCheckpoints = true;
    /// A runtime built with WSN_TRACE_PACK and without effect keys: a full EFFECT is written
    /// as EFFECT_Z when that is smaller (section 3.6).
    bool PackEffects = false;
    /// The runtime's WSN_TRACE_REPEAT: periodic runs of one-byte control records as REPEAT
    /// records (section 3.8).
    bool Repeat = true;
  };
  /// Fails when the geometry is not one the runtime accepts (>= 2 segments of >= 16 bytes,
  /// buf_size a multiple of seg_size and <= 0x8000).
  static llvm::Expected<TraceWriter> create(const Options &O);
  static llvm::Expected<TraceWriter> create() { return create(Options()); }

  void entry(uint16_t Fid);
  void exit(uint16_t Fid);
  void irq(uint16_t Irq, uint16_t Count);
  void irqExit(uint16_t Irq);
  void sched(uint16_t Task);
  /// __wsn_rt_anchor_armed.
  bool anchorArmed() const;
  /// How the runtime writes a checkpoint (spec section 3.2).
  enum class CheckpointWay {
    Table,    ///< __wsn_rt_checkpoint_t: packed when smaller
    Streamed, ///< __wsn_rt_checkpoint_begin/put/record_end, its first piece FirstPiece bytes:
              ///< packed when the first piece leaves room for the rest at its largest
    Plain,    ///< never packed (a format 3 writer)
  };
  /// A checkpoint as the runtime writes it: CHECKPOINT_Z when packing applies, else CHECKPOINT.
  /// When the plain record would reach the segment's end, first packed into the rest of the
  /// segment (every way but Plain, whatever the pieces), else placed as before.
  void checkpoint(uint16_t Anchor, llvm::ArrayRef<uint8_t> Bytes,
                  CheckpointWay Way = CheckpointWay::Table, size_t FirstPiece = 0);
  /// An input as __wsn_rt_input writes it: INPUT_S when its site is within -8..7 of the
  /// segment's previous INPUT, its value at most 16 bits and the short record fits in the rest
  /// of the segment (section 3.4), else INPUT.
  void input(uint16_t Site, uint32_t Value);
  void inputBytes(uint16_t Site, llvm::ArrayRef<uint8_t> Bytes);
  void send(uint16_t Site, uint16_t Dest, uint16_t Seq);
  void recv(uint16_t Site, uint16_t Sender, uint16_t Seq);
  /// An effect as __wsn_rt_effect_t writes it: an EFFECT_DELTA against the segment's key of
  /// the same length when that is smaller and fits (section 3.1), else a full EFFECT, which
  /// becomes a key. MayDelta false: always full, as __wsn_rt_effect_begin/put/record_end.
  void effect(uint16_t Site, llvm::ArrayRef<uint8_t> Bytes, bool MayDelta = true);
  /// An effect as __wsn_rt_skip_effect_c writes it when no handler ran inside the span (spec
  /// section 3.3): with no key of its length in the segment, an EFFECT_C of the bytes that
  /// differ from Before (the payload's value before the call: its return bytes 0) when that is
  /// smaller than the plain record, else as effect(). The caller stands for the runtime's other
  /// conditions: a skipped call with a snapshot (its variable bytes at most
  /// WSN_TRACE_SNAP_MAX) during which no handler ran.
  void effectC(uint16_t Site, llvm::ArrayRef<uint8_t> Before, llvm::ArrayRef<uint8_t> Bytes);
  /// SKIP_BEGIN as __wsn_rt_skip_begin: remembered so that the span's merged end
  /// (skipEffect, skipEffectC) can take it back when nothing was written since (section 3.5).
  void skipBegin(uint16_t Site);
  /// A separate SKIP_END (__wsn_rt_skip_end).
  void skipEnd(uint16_t Site);
  /// The span's end merged into its effect, as __wsn_rt_skip_effect_t: one SPAN_EFFECT* record
  /// when the span is empty and the record fits where its SKIP_BEGIN starts (section 3.5),
  /// else SKIP_END and effect(). The caller stands for a handler having run inside the span
  /// or not (which form the effect has). MayDelta as effect()'s (false: the whole form of a
  /// short effect with a first part of its own, which the runtime never writes as a delta).
  void skipEffect(uint16_t Site, llvm::ArrayRef<uint8_t> Bytes, bool MayDelta = true);
  /// The same as __wsn_rt_skip_effect_c with no handler inside the span: whether an EFFECT_C
  /// applies (effectC's rule) is decided before the span decision and the SKIP_END.
  void skipEffectC(uint16_t Site, llvm::ArrayRef<uint8_t> Before, llvm::ArrayRef<uint8_t> Bytes);
  void check(uint16_t Inv, bool Ok, uint16_t Crc);

  const TraceHeader &header() const { return Header; }
  /// The whole file: header + ring.
  std::vector<uint8_t> bytes() const;
  /// Writes bytes() to Path.
  llvm::Error writeFile(llvm::StringRef Path) const;

private:
  explicit TraceWriter(const Options &O);
  /// Reserves a record of Fixed.size() + Extra bytes (padding to the next segment when
  /// needed), copies Fixed, returns the ring offset of the payload or -1.
  long emit(llvm::ArrayRef<uint8_t> Fixed, uint16_t Extra);
  /// Folds the record just written (and the PAD before it) into the check values, as the
  /// runtime's __wsn_rt_close.
  void seal();
  uint32_t OpenAt = 0;   ///< head before the last emit
  bool Opened = false;   ///< the last emit opened a record
  /// The runtime's rt_sb_* (section 3.5): where the last SKIP_BEGIN starts (-1: none to take
  /// back; entering a segment forgets it), its site and the check value before it.
  long SbAt = -1;
  uint16_t SbSite = 0, SbCrc = 0;
  /// Set while a SPAN_EFFECT* record is written: seal() turns the effect's tag at SpanTag
  /// into the span form before folding it.
  long SpanTag = -1;
  /// Whether the span of Site is empty and a record of Size bytes fits where its SKIP_BEGIN
  /// starts; then takes the SKIP_BEGIN back (head and check value), else writes SKIP_END.
  bool spanOrEnd(uint16_t Site, uint32_t Size);
  void oneByte(uint8_t Tag);
  /// A record of groups (EFFECT_C, EFFECT_Z): tag, Id, Len (the payload it stands for), G.
  void groups(uint8_t Tag, uint16_t Id, uint16_t Len, llvm::ArrayRef<uint8_t> G);
  /// The one-level groups (OneLevel bytes) of a Len-byte payload at ring offset At, the last
  /// bytes of the record whose tag is at TagAt, made two-level in place when smaller (spec
  /// section 3.7, as the runtime's z2): the tag becomes Tag2 and the head moves back.
  void twoLevel(size_t TagAt, size_t At, uint16_t Len, size_t OneLevel, uint8_t Tag2);
  void fields(RecordKind K, std::initializer_list<uint32_t> F);
  void payload(RecordKind K, uint16_t Id, llvm::ArrayRef<uint8_t> Bytes);
  void commit(uint32_t N);

  TraceHeader Header;
  std::vector<uint8_t> Ring;
  std::vector<uint16_t> Checks; ///< one per segment, as the runtime's check array
  bool Armed = true;
  bool BlackBox = true;
  /// The runtime's effect keys: payload length and ring offset of the payload.
  struct Key {
    uint16_t Len = 0;
    uint32_t At = 0;
  };
  std::vector<Key> Keys; ///< EffectKeys slots, replaced round-robin as in the runtime
  uint8_t KeysValid = 0; ///< bit i: slot i holds a key; cleared on entering a segment
  unsigned KeyNext = 0;
  unsigned keyFind(uint16_t Len) const;
  unsigned EffectKeys = 4;
  bool PackCheckpoints = true;
  bool PackEffects = false;
  /// An effect's payload as EFFECT_Z's groups when PackEffects applies and they are smaller,
  /// else empty (section 3.6).
  std::vector<uint8_t> zeroGroups(llvm::ArrayRef<uint8_t> Bytes) const;
  /// The runtime's short-input state (section 3.4): InValid bit 0 the slots are the segment
  /// being written's, bit 1 InSite is; cleared on entering a segment.
  /// The runtime's rt_rep_* (section 3.8): the head after the last control record (-1: the
  /// run was left; entering a segment forgets it), the run of control records written as
  /// their own byte, the candidate or open period, the open REPEAT's n and next source record,
  /// and the check value before its tag.
  bool Repeat = true;
  long RepAt = -1;
  uint8_t RepLit = 0, RepP = 0, RepN = 0, RepI = 0;
  uint16_t RepCrc = 0;
  uint8_t InValid = 0;
  uint16_t InSite = 0;
  uint16_t InSlot[InputShortSlots] = {};
  unsigned InNext = 0;
  void inNote(uint16_t Site, uint32_t Value);
  void keyPut(uint16_t Len, uint32_t At);
};

/// The runs of an EFFECT_DELTA (spec section 3.1) turning Key into Now (same length, at most
/// 255 bytes).
std::vector<uint8_t> effectDeltaRuns(llvm::ArrayRef<uint8_t> Key, llvm::ArrayRef<uint8_t> Now);

/// The groups of a CHECKPOINT_Z (spec section 3.2) holding Bytes: per 8 bytes a mask byte
/// (bit i: byte i is not 0), then the group's non-zero bytes.
std::vector<uint8_t> packZeroGroups(llvm::ArrayRef<uint8_t> Bytes);
/// The largest bitmap of two-level groups the runtime builds (spec section 3.7): payloads of
/// up to 1024 bytes; larger ones stay one-level.
constexpr size_t TwoLevelMaxBitmap = 16;
/// Makes the one-level groups at G (of a Len-byte payload) two-level in place, as the
/// runtime's z2 does, when that is smaller (more empty masks than bitmap bytes); returns the
/// new size, or 0 (nothing changed).
size_t twoLevelInPlace(uint8_t *G, uint16_t Len);
/// The two-level form of the one-level groups G, when smaller.
std::optional<std::vector<uint8_t>> twoLevelGroups(llvm::ArrayRef<uint8_t> G, uint16_t Len);
/// The groups of an EFFECT_C (spec section 3.3) turning Before into Now (same length): per 8
/// bytes a mask byte (bit i: byte i differs), then the group's bytes of Now that differ.
std::vector<uint8_t> packChangeGroups(llvm::ArrayRef<uint8_t> Before,
                                      llvm::ArrayRef<uint8_t> Now);
/// Whether the runtime packs a checkpoint of Bytes written in pieces, the first FirstPiece
/// bytes (spec section 3.2): the first piece packs within len - 1 - (R + ceil(R / 8)) bytes,
/// R = the bytes after it (a single piece: the whole is smaller than len).
bool packsInPieces(llvm::ArrayRef<uint8_t> Bytes, size_t FirstPiece);

} // namespace wsn

#endif // WSN_TRACEIO_TRACEFORMAT_H
