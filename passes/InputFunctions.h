//===- InputFunctions.h - functions recorded as one input ------*- C++ -*-===//
//
// An input function only reads (registers, and at least one of them in a
// loop) and returns an integer: TinyOS's Msp430Timer.get(), which reads TBR
// until two reads agree. Recording every read inside such a loop changes the
// loop's timing, and for read-until-stable loops it never ends (each recorded
// read takes longer than a timer tick). So the instrumentation records the
// call's result as one INPUT record and leaves the callee uninstrumented;
// replay takes the value from the trace and does not run the callee
// (spec/instrumentation.md section 6, "Input functions").
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_INPUTFUNCTIONS_H
#define WSN_PASSES_INPUTFUNCTIONS_H

#include "InterruptInfo.h"
#include "MoteMemoryModel.h"

namespace llvm {
class Function;
} // namespace llvm

namespace wsn {

/// The metadata on a call of a void input function in instrumented code:
/// nothing is recorded, and replay does not run the call.
inline constexpr const char *InputCallMD = "wsn.input.call";

/// Whether F is an input function: defined, not address-taken, no role
/// (main, handler, task, invariant, nesC atomic helper), an integer result
/// of a recordable width or none (void: its calls record nothing), a loop, at least one nondeterministic read
/// (volatile, or a constant address in T's I/O range when T is given), and
/// no effect other than on its own stack slots (calls only to intrinsics
/// that write no memory and to nesC's atomic start/end).
bool isInputFunction(const llvm::Function &F, const FunctionRole &Role,
                     const MoteTarget *T,
                     const AnnotationMap &Annotations);

} // namespace wsn

#endif
