//===- Preprocessor.h - the replay preprocessor (thesis section 4.2) ------===//
//
// Turns a decoded trace into what replay needs (thesis 4.2, Figure 4.2: the
// "Reconstructed Log File"): the start point (the earliest complete checkpoint
// of the retained tail), the data section (checkpoints, inputs, effects and
// scheduling decisions, per kind, in recording order), the interrupt table
// keyed by log position and #gv_reference (DESIGN-BRIEF section 4 refines the
// thesis's <function, instance, count> key), and a report of the span the
// trace covers. spec/replay-log.md describes every rule.
//
// Traces are user input: every problem is an llvm::Error naming the trace,
// the record index and its file offset.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_REPLAY_ENGINE_PREPROCESSOR_H
#define WSN_REPLAY_ENGINE_PREPROCESSOR_H

#include "TraceFormat.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace wsn {

struct TraceMap;

struct PreprocessOptions {
  /// The program's trace map. When given, its module hash must equal the
  /// trace's, and every id and payload size of the replayed part is checked
  /// against it.
  const TraceMap *Map = nullptr;
  /// The program's module hash (hashModule on the replay IR) when there is no
  /// map, or in addition to it (then both must agree with the trace).
  std::optional<uint32_t> ProgramHash;
  /// Names used in messages.
  std::string TraceName = "trace";
  std::string ProgramName = "program";
  /// The map's file when it was read from one ("" when built from the IR): a layout
  /// mismatch names the map file and entry as well as the trace record.
  std::string MapName;
};

/// Where replay stops (spec/replay-log.md, "Stop record").
enum class StopKind {
  Violation, ///< the first VIOLATION record
  LastCheck, ///< no violation; the trace ends with a CHECK (--stop-after-checks)
  End,       ///< neither: replay runs to the last record
};
llvm::StringRef stopKindName(StopKind K);

/// The span of execution the retained trace covers.
struct TraceCoverage {
  size_t TotalRecords = 0;   ///< decoded records in the retained tail
  uint64_t TotalBytes = 0;   ///< bytes of the retained tail
  size_t ReplayRecords = 0;  ///< records from the start checkpoint to the stop record
  uint64_t ReplayBytes = 0;  ///< their bytes
  size_t DroppedRecords = 0; ///< records before the start checkpoint (not replayed)
  uint64_t DroppedBytes = 0;
  unsigned SegmentsRetained = 0; ///< ring segments holding part of the tail
  unsigned NumSegments = 0;
  bool Wrapped = false;
  uint32_t Wraps = 0;
  uint32_t StaleBytes = 0; ///< bytes of the current segment lost to wrapping
  bool DroppedFlag = false; ///< header bit 3: some record was lost at run time
  size_t RecordsAfterStop = 0; ///< non-black-box traces: records after the stop
  StopKind Stop = StopKind::End;
  size_t StopRecord = 0; ///< index of the stop record
};

/// One entry of the data section: a record that feeds values to replay.
struct DataEntry {
  size_t RecordIndex = 0;
  RecordKind Kind = RecordKind::Input;
  uint32_t Id = 0;              ///< anchor / site / task
  uint32_t Value = 0;           ///< INPUT value
  std::vector<uint8_t> Bytes;   ///< CHECKPOINT / INPUT_BYTES / EFFECT payload
};

/// The data section (thesis 4.2), per kind, each in recording order. Only the
/// replayed part (start checkpoint .. stop record) is included.
struct DataSection {
  std::vector<DataEntry> Checkpoints;
  std::vector<DataEntry> Inputs;     ///< INPUT and INPUT_BYTES
  std::vector<DataEntry> Effects;
  std::vector<DataEntry> Scheds;
};

/// One row of the interrupt table: the handler `Irq` ran when the interrupted
/// context's #gv_reference was `Count`, after `Position` ENTRY/EXIT records
/// counted from the start checkpoint (all contexts together), at nesting
/// depth `Depth` (0: the interrupted context was the main program).
struct InterruptEntry {
  size_t RecordIndex = 0;
  uint32_t Irq = 0;
  uint32_t Position = 0;
  uint32_t Count = 0;
  unsigned Depth = 0;
  bool operator==(const InterruptEntry &O) const {
    return RecordIndex == O.RecordIndex && Irq == O.Irq && Position == O.Position &&
           Count == O.Count && Depth == O.Depth;
  }
};

struct PreprocessedTrace {
  std::string TraceName;
  std::string MapName; ///< PreprocessOptions::MapName: the map file, for messages
  TraceHeader Header;
  /// Every decoded record of the retained tail (indices in messages refer to
  /// this vector).
  std::vector<TraceRecord> Records;
  size_t Start = 0;        ///< index of the start CHECKPOINT record
  uint32_t StartAnchor = 0;
  DataSection Data;
  std::vector<InterruptEntry> Interrupts;
  TraceCoverage Coverage;
  /// Facts that make replay less than exact (DROPPED flag, ...), for the report.
  std::vector<std::string> Warnings;
  /// Copied from the options when given (the ReplayLog uses it to name
  /// checkpoint variables).
  const TraceMap *Map = nullptr;
};

/// "record N (offset X)": X is the file offset of the record's tag.
std::string recordPlace(const TraceRecord &R, size_t Index);
/// "ENTRY fid=3", "IRQ irq=1 count=4", "CHECK inv=2 checksum=0x1a2b",
/// "INPUT_BYTES site=4 len=6".
std::string describeRecord(const TraceRecord &R);

/// The checks and reorganisation above. Records: the decoded tail of File.
llvm::Expected<PreprocessedTrace> preprocessTrace(const TraceFile &File,
                                                  const PreprocessOptions &Opts);
/// Loads Path (errors start with the path) and preprocesses it.
llvm::Expected<PreprocessedTrace> preprocessTraceFile(llvm::StringRef Path,
                                                      PreprocessOptions Opts);

/// A human-readable report: span, start, stop, data section sizes, interrupt
/// table (at most MaxInterrupts rows; 0 = all).
void printPreprocessReport(llvm::raw_ostream &OS, const PreprocessedTrace &P,
                           unsigned MaxInterrupts = 20);

} // namespace wsn

#endif
