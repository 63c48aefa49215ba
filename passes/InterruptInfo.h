//===- InterruptInfo.h - roles of functions: handlers, tasks, invariants --===//
//
// Classifies every function of a mote module (thesis 4.1: interrupt handlers
// are the source of non-determinism; nesC tasks are run by the scheduler):
//  - AVR handlers: avr_intrcc / avr_signalcc calling conventions, the
//    "interrupt" / "signal" function attributes clang emits, or the avr-libc
//    name __vector_N (N is the vector number).
//  - MSP430 handlers: msp430_intrcc, vector from the "interrupt"="N" attribute.
//  - Annotation fallback (wsn/invariant.h): WSN_INTERRUPT(N) ->
//    annotate("wsn.interrupt:N"), WSN_INPUT_HANDLER -> annotate("wsn.input"),
//    WSN_TASK -> annotate("wsn.task").
//  - nesC-generated C: components joined by '$' or "__"; a task body is
//    Component$task$runTask with no parameters (the scheduler's dispatcher,
//    SchedulerBasicP$TaskBasic$runTask(id), takes the task id and is not a
//    task); __nesc_atomic_start/__nesc_atomic_end are atomic-section
//    primitives, transparent to the analyses.
//  - Invariant-checking functions: annotate("wsn.invariant") (WSN_INVARIANT),
//    or, if annotations were lost, a definition named wsn_invariant_<name>.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_INTERRUPTINFO_H
#define WSN_PASSES_INTERRUPTINFO_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace wsn {

enum class HandlerKind { None, AvrSignal, AvrInterrupt, Msp430, Annotated };
const char *handlerKindName(HandlerKind K);

struct FunctionRole {
  bool IsMain = false;
  bool IsInvariant = false;
  HandlerKind Handler = HandlerKind::None;
  int Vector = -1; ///< interrupt vector number, -1 if unknown
  bool IsInputHandler = false; ///< a handler marked as taking external input
  bool IsTask = false;
  bool IsNescAtomic = false; ///< __nesc_atomic_start / __nesc_atomic_end
  bool isInterrupt() const { return Handler != HandlerKind::None; }
};

/// Strings attached to each function through llvm.global.annotations.
using AnnotationMap =
    llvm::DenseMap<const llvm::Function *, llvm::SmallVector<std::string, 2>>;
AnnotationMap collectAnnotations(const llvm::Module &M);

FunctionRole classifyFunction(const llvm::Function &F,
                              const AnnotationMap &Annotations);

/// nesC name split: "A$b$c" or "A__b__c" -> {"A","b","c"}; plain C names give
/// one element.
llvm::SmallVector<llvm::StringRef, 4> splitNescName(llvm::StringRef Name);

} // namespace wsn

#endif
