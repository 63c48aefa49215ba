//===- Parser.h - SensorC parser with located diagnostics -----------------===//
#ifndef WSN_SENSORC_PARSER_H
#define WSN_SENSORC_PARSER_H

#include "AST.h"
#include "llvm/Support/Error.h"

namespace wsn {
namespace sensorc {

/// The deepest expression the parser accepts (spec/sensorc.md, "Limits"):
/// each NOT, each pair of parentheses, each '->' and each arithmetic operator
/// of a chain nests one level (a parenthesised formula inside a comparison
/// two). Deeper input is a located error.
constexpr unsigned MaxNestingDepth = 256;

/// Parses a SensorC_G (#GLOBAL) or SensorC_L (#LOCAL n) program. The first
/// error is returned as "FILE:LINE:COL: error: MESSAGE". Besides syntax, the
/// parser checks names: every alias, TEMP and NODE variable must be declared,
/// GLOBAL references in a SensorC_G property need a node index, and a TEMP is
/// assigned once.
llvm::Expected<Program> parseProgram(llvm::StringRef Text,
                                     llvm::StringRef FileName);

/// Reads FILE and parses it.
llvm::Expected<Program> parseFile(llvm::StringRef Path);

} // namespace sensorc
} // namespace wsn

#endif
