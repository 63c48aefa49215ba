//===- ReplayReport.h - what wsn-replay prints about a replay --------------===//
//
// The replay report (issue: "report the invariant, its source location, the
// invariant's variables with their C types and values, and the task/interrupt
// interleaving that led there"), as text or JSON.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_TOOLS_REPLAYREPORT_H
#define WSN_TOOLS_REPLAYREPORT_H

#include "Preprocessor.h"
#include "ReplayEngine.h"
#include "TraceMap.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace wsn {

/// The globals replay claims to reproduce byte for byte: the globals of the
/// start anchor's checkpoint (the slice plus every global an instrumented
/// function uses), in map order.
std::vector<std::string> comparedGlobals(const TraceMap &Map, uint32_t Anchor);

/// The value of Size bytes at Addr, formatted for the C type (integers as
/// decimal, pointers and other types as hex bytes).
std::string formatValue(llvm::ArrayRef<uint8_t> Mem, uint32_t Addr, uint32_t Size,
                        llvm::StringRef CType);

/// formatValue, and arrays of scalars ("uint16_t[4]") element by element as
/// {e0, e1, ...}: the one C-type formatter of the report, the JSON report,
/// the REPL (without debug info) and --check's inputs.
std::string formatCValue(llvm::ArrayRef<uint8_t> Mem, uint32_t Addr, uint32_t Size,
                         llvm::StringRef CType);

/// "task SenseC$send$runTask#3", "irq __vector_15#12", "check inv 1", ...
std::string describeEvent(const TraceMap &Map, const ReplayEvent &E);

void printReport(llvm::raw_ostream &OS, llvm::raw_ostream &Err, ReplayRunner &R,
                 const PreprocessedTrace *P, const TraceMap *Map,
                 const ReplayOutcome &Out, const CompareSummary *Sum,
                 unsigned MaxEvents, llvm::StringRef Entry);

llvm::json::Object reportJSON(ReplayRunner &R, const PreprocessedTrace *P,
                              const TraceMap *Map, const ReplayOutcome &Out,
                              const CompareSummary *Sum, unsigned MaxEvents);

} // namespace wsn

#endif
