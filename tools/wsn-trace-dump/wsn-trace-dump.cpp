//===- wsn-trace-dump.cpp - print a .wtr trace ----------------------------===//
//
//   wsn-trace-dump TRACE [--map MAP] [--json]
//
// Text (default): a header summary, then one line per record of the retained tail, oldest
// first, with its offsets; function entries/exits and interrupts are indented by nesting.
// With --map (a .wmap trace map, spec/trace-map.md) ids get names and source locations and
// checkpoint / effect bytes are split into the variables they hold.
// --json prints the same as one JSON object. Corrupt input gives
// "wsn-trace-dump: FILE: offset N: reason" and exit code 1; usage and I/O errors exit 2.
//
//===----------------------------------------------------------------------===//
#include "TraceFormat.h"
#include "TraceMap.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;
using namespace wsn;

static cl::OptionCategory DumpCat("wsn-trace-dump options");
static cl::opt<std::string> TracePath(cl::Positional, cl::desc("<trace.wtr>"), cl::Required,
                                      cl::cat(DumpCat));
static cl::opt<bool> Json("json", cl::desc("Print JSON instead of text"), cl::cat(DumpCat));
static cl::opt<std::string> MapPath("map", cl::desc("Trace map (.wmap) naming the ids"),
                                    cl::value_desc("MAP"), cl::cat(DumpCat));

namespace {

enum ExitCode { ExitOk = 0, ExitBadTrace = 1, ExitUsage = 2 };

[[noreturn]] void fail(StringRef File, Error E, int Code) {
  errs() << "wsn-trace-dump: " << File << ": " << toString(std::move(E)) << "\n";
  exit(Code);
}

/// Given: one flag per byte (EFFECT_C, spec/trace-format.md 3.3); a byte not given (the call
/// left it as it was) prints as `--`.
std::string hexBytes(ArrayRef<uint8_t> B, ArrayRef<uint8_t> Given = {}) {
  std::string S;
  for (size_t I = 0; I < B.size(); ++I) {
    if (I)
      S += ' ';
    if (!Given.empty() && !Given[I]) {
      S += "--";
      continue;
    }
    S += hexdigit(B[I] >> 4, /*LowerCase=*/true);
    S += hexdigit(B[I] & 0xF, /*LowerCase=*/true);
  }
  return S;
}

std::string flagNames(uint16_t F) {
  std::string S;
  auto Add = [&](const char *N) { S += S.empty() ? N : std::string(" ") + N; };
  if (F & TF_Wrapped)
    Add("wrapped");
  if (F & TF_Violation)
    Add("violation");
  if (F & TF_Frozen)
    Add("frozen");
  if (F & TF_Dropped)
    Add("dropped");
  return S.empty() ? "none" : S;
}

/// Nesting depth of each record: ENTRY and IRQ open a level, EXIT and IRQ_EXIT close one. The
/// tail may start inside calls, so the depth never goes below 0.
std::vector<unsigned> depths(ArrayRef<TraceRecord> Records) {
  std::vector<unsigned> D;
  unsigned Depth = 0;
  for (const TraceRecord &R : Records) {
    switch (R.Kind) {
    case RecordKind::Exit:
    case RecordKind::IrqExit:
      if (Depth)
        --Depth;
      D.push_back(Depth);
      break;
    case RecordKind::Entry:
    case RecordKind::Irq:
      D.push_back(Depth++);
      break;
    default:
      D.push_back(Depth);
    }
  }
  return D;
}

/// The scalar a map C type names: its size and signedness (0 size: not one we know).
struct ScalarType {
  unsigned Size = 0;
  bool Signed = false;
};
ScalarType scalarType(StringRef T) {
  static const struct {
    const char *Name;
    unsigned Size;
    bool Signed;
  } Known[] = {{"uint8_t", 1, false},  {"int8_t", 1, true},   {"char", 1, true},
               {"unsigned char", 1, false}, {"signed char", 1, true}, {"bool", 1, false},
               {"_Bool", 1, false},    {"uint16_t", 2, false}, {"int16_t", 2, true},
               {"uint32_t", 4, false}, {"int32_t", 4, true},   {"uint64_t", 8, false},
               {"int64_t", 8, true}};
  for (const auto &K : Known)
    if (T == K.Name)
      return {K.Size, K.Signed};
  return {};
}

json::Value scalarJson(ArrayRef<uint8_t> B, bool Signed) {
  uint64_t V = 0;
  for (size_t I = 0; I < B.size(); ++I)
    V |= uint64_t(B[I]) << (8 * I);
  if (Signed && !B.empty() && (B.back() & 0x80))
    return int64_t(B.size() < 8 ? V | (~uint64_t(0) << (8 * B.size())) : V);
  return V;
}

std::string scalarText(ArrayRef<uint8_t> B, bool Signed) {
  uint64_t V = 0;
  for (size_t I = 0; I < B.size(); ++I)
    V |= uint64_t(B[I]) << (8 * I);
  if (Signed && !B.empty() && B.size() < 8 && (B.back() & 0x80))
    return itostr(int64_t(V | (~uint64_t(0) << (8 * B.size()))));
  if (Signed && B.size() == 8)
    return itostr(int64_t(V));
  return utostr(V);
}

/// The elements of an array variable ("uint8_t[8]") whose bytes match its type, else
/// nothing.
std::optional<std::vector<std::string>> arrayElements(ArrayRef<uint8_t> B, StringRef CType) {
  size_t Open = CType.rfind('[');
  if (Open == StringRef::npos || !CType.ends_with("]"))
    return std::nullopt;
  ScalarType E = scalarType(CType.take_front(Open).rtrim());
  unsigned N = 0;
  if (!E.Size || CType.slice(Open + 1, CType.size() - 1).getAsInteger(10, N) ||
      uint64_t(N) * E.Size != B.size())
    return std::nullopt;
  std::vector<std::string> Out;
  for (unsigned I = 0; I < N; ++I)
    Out.push_back(scalarText(B.slice(I * E.Size, E.Size), E.Signed));
  return Out;
}

/// A variable's value from its little-endian bytes and the map's C type: arrays of scalars
/// as {e0, e1, ...}, signed types signed, other values up to 8 bytes as a number, else hex.
std::string varValue(ArrayRef<uint8_t> B, StringRef CType) {
  if (auto Elems = arrayElements(B, CType)) {
    std::string S = "{";
    for (size_t I = 0; I < Elems->size(); ++I)
      S += (I ? ", " : "") + (*Elems)[I];
    return S + "}";
  }
  if (B.empty() || B.size() > 8)
    return "0x" + toHex(B, /*LowerCase=*/true);
  ScalarType T = scalarType(CType);
  return scalarText(B, T.Size == B.size() && T.Signed);
}

std::string location(StringRef File, unsigned Line, unsigned Col = 0) {
  if (File.empty())
    return "";
  std::string S = (File + ":" + Twine(Line)).str();
  if (Col)
    S += ":" + utostr(Col);
  return S;
}

/// What a map says about a record's payload: (name, bytes) pairs in record order. Returns
/// false when the map has no layout for it; Mismatch is set when the sizes disagree.
struct PayloadPart {
  std::string Name, CType;
  ArrayRef<uint8_t> Bytes;
};
bool splitPayload(const TraceMap &M, const TraceRecord &R, std::vector<PayloadPart> &Parts,
                  std::string &Mismatch) {
  struct Slot {
    std::string Name, CType;
    uint32_t Size;
  };
  std::vector<Slot> Layout;
  if (R.Kind == RecordKind::Checkpoint) {
    const TraceMap::Anchor *A = M.anchor(R.id());
    if (!A)
      return false;
    for (const TraceMap::Var &V : A->Vars)
      Layout.push_back({V.Name, V.CType, V.Size});
  } else if (R.Kind == RecordKind::Effect) {
    const TraceMap::Effect *E = M.effect(R.id());
    if (!E)
      return false;
    if (E->ReturnSize)
      Layout.push_back({"return", "", E->ReturnSize});
    // The short form holds only its globals (spec/trace-format.md section 2.1).
    for (const TraceMap::Var &V : E->writesFor(R.Payload.size()))
      Layout.push_back({V.Name, V.CType, V.Size});
  } else {
    return false;
  }
  uint64_t Want = 0;
  for (auto &L : Layout)
    Want += L.Size;
  if (Want != R.Payload.size()) {
    Mismatch = "map expects " + utostr(Want) + " bytes";
    return false;
  }
  size_t Off = 0;
  for (auto &L : Layout) {
    Parts.push_back({L.Name, L.CType, ArrayRef<uint8_t>(R.Payload).slice(Off, L.Size)});
    Off += L.Size;
  }
  return true;
}

/// The text annotation of a record from the map ("" when the map does not know the id).
std::string annotate(const TraceMap &M, const TraceRecord &R) {
  std::string S;
  auto Site = [&](uint32_t Id) {
    if (const TraceMap::Site *St = M.site(Id)) {
      S += " [" + St->Kind + " in " + St->Function;
      std::string L = location(St->File, St->Line, St->Col);
      if (!L.empty())
        S += " at " + L;
      S += "]";
    }
  };
  switch (R.Kind) {
  case RecordKind::Entry:
  case RecordKind::Exit:
    if (const TraceMap::Function *F = M.function(R.id())) {
      S += " " + F->Name;
      std::string L = location(F->File, F->Line);
      if (!L.empty())
        S += " [" + L + "]";
    }
    break;
  case RecordKind::Irq:
  case RecordKind::IrqExit:
    if (const TraceMap::Irq *I = M.irq(R.id())) {
      S += " " + I->Function + " [vector " + utostr(I->Vector);
      if (!I->VectorName.empty())
        S += " " + I->VectorName;
      S += "]";
    }
    break;
  case RecordKind::Sched:
    if (const TraceMap::Task *T = M.task(R.id()))
      S += " " + T->Function;
    break;
  case RecordKind::Checkpoint:
    if (const TraceMap::Anchor *A = M.anchor(R.id()))
      S += " [anchor in " + A->Function + "]";
    break;
  case RecordKind::Effect:
    Site(R.id());
    if (const TraceMap::Effect *E = M.effect(R.id()))
      S += " callee " + (E->Callee.empty() ? std::string("<indirect>") : E->Callee);
    break;
  case RecordKind::Input:
  case RecordKind::InputBytes:
  case RecordKind::Send:
  case RecordKind::Recv:
  case RecordKind::SkipBegin:
  case RecordKind::SkipEnd:
    Site(R.id());
    break;
  case RecordKind::Check:
  case RecordKind::Violation:
    if (const TraceMap::Invariant *I = M.invariant(R.id()))
      S += " " + I->Function;
    break;
  case RecordKind::Pad:
    break;
  }
  if (recordHasPayload(R.Kind)) {
    std::vector<PayloadPart> Parts;
    std::string Mismatch;
    if (splitPayload(M, R, Parts, Mismatch)) {
      S += " {";
      bool First = true;
      for (size_t I = 0; I < Parts.size(); ++I) {
        ArrayRef<uint8_t> G;
        if (!R.Given.empty())
          G = ArrayRef<uint8_t>(R.Given).slice(Parts[I].Bytes.data() - R.Payload.data(),
                                               Parts[I].Bytes.size());
        // EFFECT_C: a variable the call did not change is left out; one it changed in part
        // shows its bytes, `--` for those it kept.
        if (!G.empty() && llvm::none_of(G, [](uint8_t X) { return X != 0; }))
          continue;
        S += (First ? "" : ", ") + Parts[I].Name + "=" +
             (!G.empty() && llvm::is_contained(G, 0) ? hexBytes(Parts[I].Bytes, G)
                                                      : varValue(Parts[I].Bytes, Parts[I].CType));
        First = false;
      }
      S += "}";
    } else if (!Mismatch.empty()) {
      S += " (" + Mismatch + ")";
    }
  }
  return S;
}

/// The JSON annotation of a record from the map.
void annotateJSON(const TraceMap &M, const TraceRecord &R, json::Object &O) {
  auto Site = [&](uint32_t Id) {
    if (const TraceMap::Site *St = M.site(Id)) {
      O["site_kind"] = St->Kind;
      O["function"] = St->Function;
      O["file"] = St->File;
      O["line"] = St->Line;
      O["col"] = St->Col;
    }
  };
  switch (R.Kind) {
  case RecordKind::Entry:
  case RecordKind::Exit:
    if (const TraceMap::Function *F = M.function(R.id())) {
      O["function"] = F->Name;
      O["file"] = F->File;
      O["line"] = F->Line;
    }
    break;
  case RecordKind::Irq:
  case RecordKind::IrqExit:
    if (const TraceMap::Irq *I = M.irq(R.id())) {
      O["function"] = I->Function;
      O["vector"] = I->Vector;
      O["vector_name"] = I->VectorName;
    }
    break;
  case RecordKind::Sched:
    if (const TraceMap::Task *T = M.task(R.id()))
      O["function"] = T->Function;
    break;
  case RecordKind::Checkpoint:
    if (const TraceMap::Anchor *A = M.anchor(R.id()))
      O["function"] = A->Function;
    break;
  case RecordKind::Effect:
    Site(R.id());
    if (const TraceMap::Effect *E = M.effect(R.id()))
      O["callee"] = E->Callee;
    break;
  case RecordKind::Input:
  case RecordKind::InputBytes:
  case RecordKind::Send:
  case RecordKind::Recv:
  case RecordKind::SkipBegin:
  case RecordKind::SkipEnd:
    Site(R.id());
    break;
  case RecordKind::Check:
  case RecordKind::Violation:
    if (const TraceMap::Invariant *I = M.invariant(R.id()))
      O["invariant"] = I->Function;
    break;
  case RecordKind::Pad:
    break;
  }
  if (recordHasPayload(R.Kind)) {
    std::vector<PayloadPart> Parts;
    std::string Mismatch;
    if (splitPayload(M, R, Parts, Mismatch)) {
      json::Array Vars;
      for (auto &P : Parts) {
        json::Object V{{"name", P.Name},
                       {"size", int64_t(P.Bytes.size())},
                       {"bytes", toHex(P.Bytes, /*LowerCase=*/true)}};
        if (!P.CType.empty())
          V["ctype"] = P.CType;
        if (arrayElements(P.Bytes, P.CType)) {
          size_t Open = StringRef(P.CType).rfind('[');
          ScalarType E = scalarType(StringRef(P.CType).take_front(Open).rtrim());
          json::Array A;
          for (size_t I = 0; I < P.Bytes.size(); I += E.Size)
            A.push_back(scalarJson(P.Bytes.slice(I, E.Size), E.Signed));
          V["elements"] = std::move(A);
        } else if (!P.Bytes.empty() && P.Bytes.size() <= 8) {
          ScalarType T = scalarType(P.CType);
          V["value"] = scalarJson(P.Bytes, T.Signed && T.Size == P.Bytes.size());
        }
        Vars.push_back(std::move(V));
      }
      O["vars"] = std::move(Vars);
    } else if (!Mismatch.empty()) {
      O["map_mismatch"] = Mismatch;
    }
  }
}

bool isCheck(RecordKind K) { return K == RecordKind::Check || K == RecordKind::Violation; }

void printText(raw_ostream &OS, const TraceFile &T, ArrayRef<TraceRecord> Records) {
  const TraceHeader &H = T.header();
  OS << "trace " << TracePath << "\n";
  OS << "  version " << unsigned(H.Version) << ", target " << traceTargetName(H.Target)
     << ", node " << H.NodeId << ", module hash " << format_hex(H.ModuleHash, 10) << "\n";
  OS << "  ring " << H.BufSize << " bytes = " << H.numSegments() << " segments of "
     << H.SegSize << ", head " << H.Head << " (segment " << H.Head / H.SegSize << "), wraps "
     << H.Wraps << "\n";
  OS << "  flags " << flagNames(H.Flags) << ", checks " << H.Checks << ", violation ";
  if (H.Violation == NoViolation)
    OS << "none\n";
  else
    OS << "inv " << H.Violation << "\n";
  uint64_t TailBytes = 0;
  for (const TraceSpan &S : T.tail())
    TailBytes += S.Length;
  OS << "  tail " << TailBytes << " bytes in " << T.tail().size() << " spans, "
     << T.staleBytes() << " stale bytes dropped\n";
  if (H.open()) {
    OS << "  open record: the node stopped while writing a record at ring offset " << H.Head
       << " (stored head " << H.RawHead << ", " << T.tornBytes()
       << " bytes covered); the incomplete record is dropped";
    if (T.droppedOpenSegment() >= 0)
      OS << ", and segment " << T.droppedOpenSegment()
         << ", whose start it may have overwritten";
    OS << "\n";
  }
  // Section 1.2: a damaged segment is named and its records are left out; the other
  // segments decode on their own (every segment starts with a record).
  for (const SegmentDamage &D : T.damage())
    OS << "  DAMAGED segment " << D.Segment << " at offset " << (TraceHeaderSize + D.RingOffset)
       << " (ring offset " << D.RingOffset << "): check value " << format_hex(D.Stored, 6)
       << ", its " << D.Covered << " bytes give " << format_hex(D.Computed, 6)
       << "; its records are skipped\n";
}

void printRecordsText(raw_ostream &OS, ArrayRef<TraceRecord> Records, const TraceMap *Map) {
  std::vector<unsigned> D = depths(Records);
  OS << "records " << Records.size() << "\n";
  OS << "  offset   ring seg  record\n";
  for (size_t I = 0; I < Records.size(); ++I) {
    const TraceRecord &R = Records[I];
    OS << format("%8llu %6u %3u  ", (unsigned long long)R.LinearOffset, R.RingOffset,
                 R.Segment);
    OS.indent(2 * D[I]);
    OS << recordKindName(R.Kind);
    ArrayRef<const char *> Names = recordFieldNames(R.Kind);
    for (unsigned F = 0; F < R.NumFields; ++F) {
      OS << ' ' << Names[F] << '=';
      if (isCheck(R.Kind) && F == 1)
        OS << format_hex(R.Fields[F], 6);
      else
        OS << R.Fields[F];
    }
    if (recordHasPayload(R.Kind)) {
      OS << " len=" << R.Payload.size();
      if (!R.Payload.empty())
        OS << " bytes=" << hexBytes(R.Payload, R.Given);
    }
    if (R.Delta) // an EFFECT_DELTA (format 3): its bytes were rebuilt from the key
      OS << " (delta of " << R.Size << " bytes against the key at ring offset "
         << R.KeyRingOffset << ")";
    if (Map)
      OS << annotate(*Map, R);
    // Format 8 (spec/trace-format.md 3.7) writes either kind with two-level groups.
    const char *Levels = R.TwoLevel ? ", two-level" : "";
    if (R.Packed) // a CHECKPOINT_Z (format 4): its zero bytes were left out
      OS << " (packed in " << R.Size << " bytes" << Levels << ")";
    if (!R.Given.empty()) // an EFFECT_C (format 5): only the bytes the call changed
      OS << " (changes in " << R.Size << " bytes" << Levels << ")";
    if (R.Short) { // an INPUT_S (format 6): site and maybe value from the segment's inputs
      OS << " (short in " << R.Size << (R.Size == 1 ? " byte" : " bytes");
      if (R.Slot >= 0)
        OS << ", the value of recent slot " << int(R.Slot);
      OS << ")";
    }
    // ENTRY_S, EXIT_S, IRQ_S, IRQ_EXIT_S (format 7): the fields in the tag; CHECK_S (format
    // 10, spec/trace-format.md 3.9): the inv in the tag, then the checksum.
    if (R.Compact)
      OS << " (in " << R.Size << (R.Size == 1 ? " byte)" : " bytes)");
    if (R.Span) { // SPAN_EFFECT* (format 7): an empty skip span written as one record
      OS << " (empty span: one record";
      if (R.Kind == RecordKind::Effect)
        OS << " of " << R.Size << " bytes";
      OS << ")";
    }
    // One of the n records of a REPEAT (format 9, spec/trace-format.md 3.8): all at the
    // REPEAT's offset, the first of size 2 (JSON `size`), the others 0.
    if (R.Repeat)
      OS << " (repeat of " << unsigned(R.Repeat) << ")";
    OS << "\n";
  }
}

json::Array damageJSON(const TraceFile &T) {
  json::Array A;
  for (const SegmentDamage &D : T.damage())
    A.push_back(json::Object{{"segment", D.Segment},
                             {"offset", TraceHeaderSize + D.RingOffset},
                             {"ring_offset", D.RingOffset},
                             {"check_offset", T.header().checkOffset(D.Segment)},
                             {"stored", D.Stored},
                             {"computed", D.Computed},
                             {"covered", D.Covered},
                             {"message", D.message(T.header())}});
  return A;
}

json::Object headerJSON(const TraceFile &T) {
  const TraceHeader &H = T.header();
  json::Array Spans;
  uint64_t TailBytes = 0;
  for (const TraceSpan &S : T.tail()) {
    Spans.push_back(json::Object{{"segment", S.Segment},
                                 {"ring_offset", S.RingOffset},
                                 {"length", S.Length},
                                 {"offset", int64_t(S.LinearOffset)}});
    TailBytes += S.Length;
  }
  return json::Object{
      {"version", H.Version},
      {"target", traceTargetName(H.Target)},
      {"node_id", H.NodeId},
      {"module_hash", H.ModuleHash},
      {"buf_size", H.BufSize},
      {"seg_size", H.SegSize},
      {"head", H.Head},
      {"flags", H.Flags},
      {"wrapped", bool(H.Flags & TF_Wrapped)},
      {"violation_recorded", bool(H.Flags & TF_Violation)},
      {"frozen", bool(H.Flags & TF_Frozen)},
      {"dropped", bool(H.Flags & TF_Dropped)},
      {"wraps", H.Wraps},
      {"checks", H.Checks},
      {"violation", H.Violation == NoViolation ? json::Value(nullptr)
                                               : json::Value(H.Violation)},
      {"tail_bytes", int64_t(TailBytes)},
      {"stale_bytes", T.staleBytes()},
      {"open_record", H.open()},
      {"torn_bytes", T.tornBytes()},
      {"dropped_segment", T.droppedOpenSegment() >= 0
                              ? json::Value(T.droppedOpenSegment())
                              : json::Value(nullptr)},
      {"spans", std::move(Spans)},
      {"damaged_segments", damageJSON(T)},
  };
}

json::Array recordsJSON(ArrayRef<TraceRecord> Records, const TraceMap *Map) {
  std::vector<unsigned> D = depths(Records);
  json::Array A;
  for (size_t I = 0; I < Records.size(); ++I) {
    const TraceRecord &R = Records[I];
    json::Object O{{"offset", int64_t(R.LinearOffset)},
                   {"ring_offset", R.RingOffset},
                   {"segment", R.Segment},
                   {"size", R.Size},
                   {"depth", D[I]},
                   {"kind", recordKindName(R.Kind)}};
    ArrayRef<const char *> Names = recordFieldNames(R.Kind);
    for (unsigned F = 0; F < R.NumFields; ++F)
      O[Names[F]] = R.Fields[F];
    if (recordHasPayload(R.Kind)) {
      O["len"] = int64_t(R.Payload.size());
      O["bytes"] = toHex(ArrayRef<uint8_t>(R.Payload), /*LowerCase=*/true);
    }
    if (R.Delta) {
      O["delta"] = true;
      O["key_ring_offset"] = R.KeyRingOffset;
    }
    if (R.Packed) {
      O["packed"] = true;
      O["packed_size"] = R.Size;
    }
    if (!R.Given.empty()) { // EFFECT_C: which bytes the record gives (the others: unchanged)
      O["changes"] = true;
      json::Array G;
      for (uint8_t X : R.Given)
        G.push_back(bool(X));
      O["given"] = std::move(G);
    }
    if (R.Short) { // INPUT_S: resolved against the segment's earlier inputs
      O["short"] = true;
      if (R.Slot >= 0)
        O["recent_slot"] = int64_t(R.Slot);
    }
    if (R.Compact) // ENTRY_S, EXIT_S, IRQ_S, IRQ_EXIT_S, CHECK_S: the fields in the tag
      O["compact"] = true;
    if (R.Span) // SPAN_EFFECT*: the SKIP_BEGIN, SKIP_END and EFFECT of one record
      O["span"] = true;
    if (R.TwoLevel) // CHECKPOINT_Z2, EFFECT_C2, EFFECT_Z2 and their span forms (format 8)
      O["two_level"] = true;
    if (R.Repeat) // the records of a REPEAT (format 9): its period
      O["repeat"] = unsigned(R.Repeat);
    if (Map)
      annotateJSON(*Map, R, O);
    A.push_back(std::move(O));
  }
  return A;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(DumpCat);
  if (!cl::ParseCommandLineOptions(
          argc, argv, "wsn-trace-dump: print a wsn-trace .wtr trace as text or JSON\n", &errs()))
    return ExitUsage; // cl's own exit code would be 1, which means a corrupt trace here

  Expected<TraceFile> T = TraceFile::load(TracePath);
  if (!T) {
    // I/O problems carry an errno-style code; format problems do not.
    Error E = T.takeError();
    int Code = ExitBadTrace;
    E = handleErrors(std::move(E), [&](std::unique_ptr<StringError> SE) -> Error {
      if (SE->convertToErrorCode() != inconvertibleErrorCode())
        Code = ExitUsage;
      return Error(std::move(SE));
    });
    fail(TracePath, std::move(E), Code);
  }

  std::optional<TraceMap> Map;
  if (!MapPath.empty()) {
    Expected<TraceMap> M = TraceMap::readFile(MapPath);
    if (!M) {
      errs() << "wsn-trace-dump: " << toString(M.takeError()) << "\n";
      return ExitUsage;
    }
    Map = std::move(*M);
    if (Map->ModuleHash != T->header().ModuleHash)
      WithColor::warning(errs(), "wsn-trace-dump")
          << MapPath << ": module hash " << format_hex(Map->ModuleHash, 10)
          << " differs from the trace's " << format_hex(T->header().ModuleHash, 10)
          << ": names may be wrong\n";
  }
  const TraceMap *MapPtr = Map ? &*Map : nullptr;

  std::vector<TraceRecord> Records;
  Error DecodeErr = T->decode(Records, 0, /*SkipDamaged=*/true);
  // Damaged segments are shown and skipped, and the exit code says the trace is damaged.
  auto FailDamaged = [&]() {
    if (T->damage().empty())
      return;
    for (const SegmentDamage &D : T->damage())
      errs() << "wsn-trace-dump: " << TracePath << ": " << D.message(T->header()) << "\n";
    exit(ExitBadTrace);
  };

  if (Json) {
    if (DecodeErr)
      fail(TracePath, std::move(DecodeErr), ExitBadTrace);
    json::Object Root{{"file", TracePath},
                      {"header", headerJSON(*T)},
                      {"records", recordsJSON(Records, MapPtr)}};
    if (MapPtr)
      Root["map"] = MapPath;
    outs() << formatv("{0:2}", json::Value(std::move(Root))) << "\n";
    outs().flush();
    FailDamaged();
    return ExitOk;
  }

  printText(outs(), *T, Records);
  if (MapPtr)
    outs() << "  map " << MapPath << " (target " << MapPtr->Target << ")\n";
  printRecordsText(outs(), Records, MapPtr);
  outs().flush();
  if (DecodeErr)
    fail(TracePath, std::move(DecodeErr), ExitBadTrace);
  FailDamaged();
  return ExitOk;
}
