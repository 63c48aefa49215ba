//===- CodeGen.h - C for a node's local checks ----------------------------===//
//
// Turns a node's SensorC_L program into C the firmware links: one
// WSN_INVARIANT function per check (wsn/invariant.h), monitors for the
// property-checking functions of Table 3.1, a cache of remote values with
// request/reply hooks, and a fixed message layout (spec/sensorc.md, "Generated
// C"). Thesis 3.2.2: remote values are only requested when the local guard of
// a check holds.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SENSORC_CODEGEN_H
#define WSN_SENSORC_CODEGEN_H

#include "Decompose.h"
#include "llvm/Support/Error.h"
#include <string>

namespace wsn {
namespace sensorc {

struct CodeGenOptions {
  /// Header declaring the application globals the spec aliases.
  std::string AppHeader = "app.h";
  /// Named in the file's banner.
  std::string SpecName;
};

/// Global numbering of every item any node reads or serves; the id carried
/// in request/reply messages.
std::map<std::string, unsigned> itemIds(const Decomposition &D);

/// Generates the C of several nodes of one decomposition, sharing the item
/// tables.
class CodeGenerator {
public:
  CodeGenerator(const Decomposition &D, CodeGenOptions Opts);
  llvm::Expected<std::string> node(unsigned Node) const;

private:
  const Decomposition &D;
  CodeGenOptions Opts;
  std::map<std::string, unsigned> Ids;
  std::map<std::string, std::shared_ptr<const Expr>> Exprs;
};

/// One node's C (builds the item tables each call; see CodeGenerator).
llvm::Expected<std::string> generateNodeC(const Decomposition &D,
                                          unsigned Node,
                                          const CodeGenOptions &Opts);

} // namespace sensorc
} // namespace wsn

#endif
