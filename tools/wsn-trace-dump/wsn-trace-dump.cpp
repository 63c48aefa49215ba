//===- wsn-trace-dump.cpp - print a .wtr trace ----------------------------===//
//
//   wsn-trace-dump TRACE [--map MAP] [--json]
//
// Text (default): a header summary, then one line per record of the retained tail, oldest
// first, with its offsets; function entries/exits and interrupts are indented by nesting.
// --json prints the same as one JSON object. Corrupt input gives
// "wsn-trace-dump: FILE: offset N: reason" and exit code 1; usage and I/O errors exit 2.
//
//===----------------------------------------------------------------------===//
#include "TraceFormat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace wsn;

static cl::OptionCategory DumpCat("wsn-trace-dump options");
static cl::opt<std::string> TracePath(cl::Positional, cl::desc("<trace.wtr>"), cl::Required,
                                      cl::cat(DumpCat));
static cl::opt<bool> Json("json", cl::desc("Print JSON instead of text"), cl::cat(DumpCat));

namespace {

enum ExitCode { ExitOk = 0, ExitBadTrace = 1, ExitUsage = 2 };

[[noreturn]] void fail(StringRef File, Error E, int Code) {
  errs() << "wsn-trace-dump: " << File << ": " << toString(std::move(E)) << "\n";
  exit(Code);
}

std::string hexBytes(ArrayRef<uint8_t> B) {
  std::string S;
  for (size_t I = 0; I < B.size(); ++I) {
    if (I)
      S += ' ';
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
}

void printRecordsText(raw_ostream &OS, ArrayRef<TraceRecord> Records) {
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
        OS << " bytes=" << hexBytes(R.Payload);
    }
    OS << "\n";
  }
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
      {"spans", std::move(Spans)},
  };
}

json::Array recordsJSON(ArrayRef<TraceRecord> Records) {
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
    A.push_back(std::move(O));
  }
  return A;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(DumpCat);
  cl::ParseCommandLineOptions(argc, argv,
                              "wsn-trace-dump: print a wsn-trace .wtr trace as text or JSON\n");

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

  std::vector<TraceRecord> Records;
  Error DecodeErr = T->decode(Records);

  if (Json) {
    if (DecodeErr)
      fail(TracePath, std::move(DecodeErr), ExitBadTrace);
    json::Object Root{{"file", TracePath},
                      {"header", headerJSON(*T)},
                      {"records", recordsJSON(Records)}};
    outs() << formatv("{0:2}", json::Value(std::move(Root))) << "\n";
    return ExitOk;
  }

  printText(outs(), *T, Records);
  printRecordsText(outs(), Records);
  outs().flush();
  if (DecodeErr)
    fail(TracePath, std::move(DecodeErr), ExitBadTrace);
  return ExitOk;
}
