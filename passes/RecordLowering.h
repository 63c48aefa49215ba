//===- RecordLowering.h - wsn-lower<record>: trace ops to the runtime -----===//
//
// Lowers the trace ops of an instrumented module for recording on the mote
// (or on the host), spec/instrumentation.md section "Record lowering":
//  - atomic regions become the cheapest correct native sequence: AVR
//    `in rX, 0x3f; cli` ... `out 0x3f, rX`; MSP430 `mov r2, rX; dint; nop` ...
//    `mov rX, r2`; nothing on the host (no interrupts there);
//  - the #gv_reference update of a region is an inline load/add/store of
//    @__wsn_gv_reference inside the region;
//  - everything else becomes calls into trace-runtime (wsn/trace.h).
// After lowering no trace op and no `wsn.` declaration is left; the metadata
// stays (the trace map can still be written from the lowered module).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_RECORDLOWERING_H
#define WSN_PASSES_RECORDLOWERING_H

#include "llvm/IR/PassManager.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Module;
}

namespace wsn {

enum class RecordTarget { AVR, MSP430, Host };

/// From the module triple (avr*, msp430*, anything else is the host).
RecordTarget recordTargetOf(const llvm::Module &M);

struct RecordLoweringStats {
  unsigned Lowered = 0; ///< trace ops replaced
  /// Record tables made (after sharing), their (address, size) pairs without the links to
  /// shared tails, the links, and their bytes (spec/trace-format.md section 4).
  unsigned Tables = 0, Pairs = 0, Links = 0;
  uint64_t TableBytes = 0;
};

/// Lowers every trace op of M for recording on target T. Errors name the
/// function and op that cannot be lowered (e.g. missing metadata).
llvm::Expected<RecordLoweringStats> lowerForRecord(llvm::Module &M,
                                                   RecordTarget T);
/// The same with the target taken from the module triple.
llvm::Expected<RecordLoweringStats> lowerForRecord(llvm::Module &M);

/// `-passes=wsn-lower<record>` (target from the triple) or
/// `wsn-lower<record;avr>` / `<record;msp430>` / `<record;host>`.
class RecordLoweringPass : public llvm::PassInfoMixin<RecordLoweringPass> {
public:
  RecordLoweringPass() = default;
  explicit RecordLoweringPass(RecordTarget T) : HasTarget(true), T(T) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }

private:
  bool HasTarget = false;
  RecordTarget T = RecordTarget::Host;
};

} // namespace wsn

#endif
