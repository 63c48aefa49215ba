//===- JsonNesting.h - bound the nesting of JSON before parsing it --------===//
//
// llvm::json::parse and llvm::json::Value's destructor recurse once per
// nested array or object, so a file of a few hundred thousand '[' overflows
// the stack. Readers of outside JSON (trace maps, network run files) call
// checkJsonNesting first: one iterative pass that rejects deeper input with
// its line and column.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_JSONNESTING_H
#define WSN_PASSES_JSONNESTING_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace wsn {

/// The deepest nesting of arrays and objects any of the project's JSON
/// readers accepts (a trace map needs 5).
constexpr unsigned MaxJsonNesting = 64;

/// Error "line L, column C: JSON nested deeper than N levels" when Text opens
/// more than MaxDepth arrays/objects at once (brackets inside strings do not
/// count). Other syntax errors are left to json::parse.
llvm::Error checkJsonNesting(llvm::StringRef Text, unsigned MaxDepth = MaxJsonNesting);

} // namespace wsn

#endif
