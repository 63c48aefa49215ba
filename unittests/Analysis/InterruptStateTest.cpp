//===- InterruptStateTest.cpp - wsn::InterruptState on small mote modules -===//
//
// The interrupt-state analysis (spec/instrumentation.md section 8) on hand-written AVR and
// MSP430 IR: nesC atomic sections, interrupt windows opened by callees, the sleep idiom,
// MSP430's conditional eint, recursion and calls the analysis cannot see into.
#include "InterruptState.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

using namespace llvm;

namespace {

std::unique_ptr<Module> parse(LLVMContext &Ctx, const char *Text) {
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseAssemblyString(Text, Err, Ctx);
  if (!M)
    Err.print("InterruptStateTest", errs());
  return M;
}

/// The call to Callee inside F (the N-th one).
const CallBase *callTo(const Module &M, StringRef F, StringRef Callee, unsigned N = 0) {
  for (const Instruction &I : instructions(*M.getFunction(F)))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (const Function *C = CB->getCalledFunction(); C && C->getName() == Callee)
        if (N-- == 0)
          return CB;
  return nullptr;
}

const char *AVR = R"(
target triple = "avr"

define void @quiet() {
  ret void
}
define void @window() {
  call void asm sideeffect "sei", "~{memory}"()
  call void asm sideeffect "cli", "~{memory}"()
  ret void
}
define void @enable() {
  call void asm sideeffect "sei", "~{memory}"()
  ret void
}
define void @sleeper() {
  call void asm sideeffect "sei\0A\09sleep\0A\09cli", "~{memory}"()
  ret void
}
define void @rec(i8 %n) {
  %z = icmp eq i8 %n, 0
  br i1 %z, label %done, label %more
more:
  %m = sub i8 %n, 1
  call void @rec(i8 %m)
  br label %done
done:
  ret void
}
declare void @external()

; Entered with interrupts off (a signal handler).
define void @__vector_15() {
  call void @quiet()
  call void @rec(i8 3)
  call void @window()
  call void @quiet()
  call void @enable()
  call void @quiet()
  ret void
}

define void @task() {
  call void @quiet()
  %s = load volatile i8, ptr inttoptr (i16 95 to ptr)
  call void asm sideeffect "cli", "~{memory}"()
  call void @quiet()
  call void @sleeper()
  call void @quiet()
  call void @external()
  call void @quiet()
  call void asm sideeffect "", "~{memory}"()
  store volatile i8 %s, ptr inttoptr (i16 95 to ptr)
  call void @quiet()
  call void asm sideeffect "in $0, 0x3f\0A\09cli", "=r,~{memory}"()
  call void @quiet()
  ret void
}

; Entered with interrupts off, and it keeps them off.
define void @calm() {
  call void @quiet()
  %s = load volatile i8, ptr inttoptr (i16 95 to ptr)
  call void asm sideeffect "cli", "~{memory}"()
  store volatile i8 %s, ptr inttoptr (i16 95 to ptr)
  ret void
}

; A nested atomic section restores the state saved inside the outer one.
define void @nested() {
  call void asm sideeffect "cli", "~{memory}"()
  %s = load volatile i8, ptr inttoptr (i16 95 to ptr)
  call void asm sideeffect "cli", "~{memory}"()
  store volatile i8 %s, ptr inttoptr (i16 95 to ptr)
  call void @quiet()
  ret void
}
)";

TEST(InterruptState, AvrHandlersAtomicSectionsAndWindows) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(Ctx, AVR);
  ASSERT_TRUE(M);
  wsn::InterruptState IS(*M, [](const Function &F) {
    return F.getName() == "__vector_15" || F.getName() == "calm";
  });

  EXPECT_TRUE(IS.keepsOff(*M->getFunction("quiet")));
  EXPECT_FALSE(IS.keepsOff(*M->getFunction("window")));
  EXPECT_FALSE(IS.keepsOff(*M->getFunction("sleeper"))) << "on inside the asm statement";
  EXPECT_FALSE(IS.keepsOff(*M->getFunction("rec"))) << "recursion is assumed to enable";
  EXPECT_FALSE(IS.keepsOff(*M->getFunction("external")));

  // The handler: off until rec (not known to keep them off), off again after window
  // (which closes its window before it returns), maybe on after enable.
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "__vector_15", "quiet", 0)));
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "__vector_15", "rec")));
  EXPECT_FALSE(IS.offBefore(*callTo(*M, "__vector_15", "window")));
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "__vector_15", "quiet", 1)));
  EXPECT_FALSE(IS.offBefore(*callTo(*M, "__vector_15", "quiet", 2)));
  EXPECT_TRUE(IS.mayRunEnabled(*M->getFunction("__vector_15")));

  // A task: on at entry; the atomic section; an unknown call and the sleep idiom end it.
  EXPECT_FALSE(IS.offBefore(*callTo(*M, "task", "quiet", 0)));
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "task", "quiet", 1)));
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "task", "quiet", 2))) << "sleeper ends with cli";
  EXPECT_FALSE(IS.offBefore(*callTo(*M, "task", "quiet", 3))) << "external may enable";
  EXPECT_FALSE(IS.offBefore(*callTo(*M, "task", "quiet", 4)))
      << "SREG restored to a value saved while interrupts were maybe on";
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "task", "quiet", 5))) << "in/cli in one asm";

  // A restore of a status saved while interrupts were off keeps them off.
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "nested", "quiet")));
  // A handler that only calls functions keeping interrupts off never runs with them on
  // (its references need no counting); a task is entered maybe on.
  EXPECT_FALSE(IS.mayRunEnabled(*M->getFunction("calm")));
  EXPECT_TRUE(IS.mayRunEnabled(*M->getFunction("nested")));
}

// nesC's MSP430 atomic section: mov r2 + dint, then eint only if GIE was set. Inside a
// handler (entered with GIE clear) the saved GIE is clear, so the eint branch is never
// taken; in a task it may be.
const char *MSP = R"(
target triple = "msp430"

define void @quiet() {
  ret void
}
define void @section() {
entry:
  %sr = call i16 asm sideeffect "mov r2, $0\0A\09dint\0A\09nop", "=r,~{memory}"()
  %s = and i16 %sr, 8
  call void @quiet()
  call void asm sideeffect "", "~{memory}"()
  %c = icmp eq i16 %s, 0
  br i1 %c, label %done, label %on
on:
  call void asm sideeffect "nop\0A\09eint\0A\09nop", "~{memory}"()
  br label %done
done:
  call void @quiet()
  ret void
}
define void @handler() {
  call void @section()
  call void @quiet()
  ret void
}
define void @gie_on() {
  call void asm sideeffect "bis #8, r2", "~{memory}"()
  ret void
}
define void @gie_off() {
  call void asm sideeffect "bic #8, r2", "~{memory}"()
  call void @quiet()
  ret void
}
)";

TEST(InterruptState, Msp430ConditionalEint) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(Ctx, MSP);
  ASSERT_TRUE(M);
  wsn::InterruptState IS(*M, [](const Function &F) { return F.getName() == "handler"; });
  // Entered off, the section keeps interrupts off: the eint edge is infeasible.
  EXPECT_TRUE(IS.keepsOff(*M->getFunction("section")));
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "handler", "quiet")));
  EXPECT_FALSE(IS.mayRunEnabled(*M->getFunction("handler")));
  // Entered maybe on (a task), interrupts are off inside the section, maybe on after it.
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "section", "quiet", 0)));
  EXPECT_FALSE(IS.offBefore(*callTo(*M, "section", "quiet", 1)));
  EXPECT_FALSE(IS.keepsOff(*M->getFunction("gie_on")));
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "gie_off", "quiet")));
}

} // namespace

namespace {

// TinyOS's AVR atomic primitives out of line (nesC output keeps them as functions): the end
// is a status write of its argument, a value the analysis cannot see into from the body.
// A call of the end with a status its start saved while interrupts were off keeps them off
// (spec/instrumentation.md section 7.1), so postTask called from a signal handler keeps them
// off; with a status saved while maybe on, the end may enable them.
const char *AVROutOfLine = R"(
target triple = "avr"

define i8 @__nesc_atomic_start() {
  %s = load volatile i8, ptr inttoptr (i16 95 to ptr)
  call void asm sideeffect "cli", "~{memory}"()
  ret i8 %s
}
define void @__nesc_atomic_end(i8 %s) {
  call void asm sideeffect "", "~{memory}"()
  store volatile i8 %s, ptr inttoptr (i16 95 to ptr)
  ret void
}
define void @quiet() {
  ret void
}
define i8 @postTask(i8 %id) {
  %a = call i8 @__nesc_atomic_start()
  call void @quiet()
  call void @__nesc_atomic_end(i8 %a)
  ret i8 0
}
define void @restore_other(i8 %v) {
  %a = call i8 @__nesc_atomic_start()
  call void @__nesc_atomic_end(i8 %v)
  ret void
}
; Entered with interrupts off (a signal handler).
define void @__vector_15() {
  %r = call i8 @postTask(i8 0)
  call void @quiet()
  call void @restore_other(i8 128)
  call void @quiet()
  ret void
}
define void @task() {
  %r = call i8 @postTask(i8 1)
  call void @quiet()
  ret void
}
)";

} // namespace

TEST(InterruptState, AvrOutOfLineAtomicEnd) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(Ctx, AVROutOfLine);
  ASSERT_TRUE(M);
  wsn::InterruptState IS(*M, [](const Function &F) { return F.getName() == "__vector_15"; });

  EXPECT_FALSE(IS.keepsOff(*M->getFunction("__nesc_atomic_end")))
      << "alone, a status write of an unknown value";
  EXPECT_TRUE(IS.keepsOff(*M->getFunction("postTask")))
      << "its end restores the status its start saved while off";
  EXPECT_FALSE(IS.keepsOff(*M->getFunction("restore_other")))
      << "an end given some other status may enable";
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "postTask", "quiet")));
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "__vector_15", "quiet", 0)));
  EXPECT_FALSE(IS.offBefore(*callTo(*M, "__vector_15", "quiet", 1)));
  EXPECT_TRUE(IS.mayRunEnabled(*M->getFunction("__vector_15")));
  // In a task the start saves a status that may have the flag set: after the end, maybe on.
  EXPECT_TRUE(IS.offBefore(*callTo(*M, "postTask", "__nesc_atomic_end")));
  EXPECT_FALSE(IS.offBefore(*callTo(*M, "task", "quiet")));
}
