//===- AnalysisIRTest.cpp - wsn::computePfdg on a small mote module -------===//
#include "Pfdg.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

using namespace llvm;

namespace {

// main runs an endless scheduler loop calling task(); task calls set(), which
// writes @period, and log(), which writes only @trace; the invariant reads
// @period; the timer handler writes @period, the radio handler only @rx.
const char *Src = R"(
@period = global i16 0
@trace = global i16 0
@rx = global i16 0

define zeroext i1 @wsn_invariant_ok() {
  %v = load i16, ptr @period
  %c = icmp ult i16 %v, 100
  ret i1 %c
}
define void @set(i16 %x) {
  store i16 %x, ptr @period
  ret void
}
define void @log() {
  %t = load i16, ptr @trace
  %t1 = add i16 %t, 1
  store i16 %t1, ptr @trace
  ret void
}
define void @task() {
  call void @set(i16 5)
  call void @log()
  %r = call zeroext i1 @wsn_invariant_ok()
  ret void
}
define void @__vector_5() #0 {
  %v = load i16, ptr @period
  %v1 = add i16 %v, 1
  store i16 %v1, ptr @period
  ret void
}
define void @__vector_9() #0 {
  store i16 1, ptr @rx
  ret void
}
define i16 @main() {
entry:
  br label %loop
loop:
  call void @task()
  br label %loop
}
attributes #0 = { "signal" }
)";

struct Fixture {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  Fixture(const char *Text) {
    SMDiagnostic Err;
    M = parseAssemblyString(Text, Err, Ctx);
    if (!M)
      Err.print("test", errs());
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  }
};

TEST(PfdgIR, SliceSelectionHandlersAndEffects) {
  Fixture X(Src);
  ASSERT_TRUE(X.M);
  wsn::PfdgOptions O;
  auto R = wsn::computePfdg(*X.M, X.MAM, O);
  ASSERT_TRUE(!!R) << toString(R.takeError());
  auto info = [&](const char *N) { return R->lookup(X.M->getFunction(N)); };

  EXPECT_TRUE(info("set")->InSlice);
  EXPECT_FALSE(info("log")->InSlice);
  EXPECT_EQ(info("wsn_invariant_ok")->Level, 0u);
  EXPECT_EQ(info("task")->Level, 1u);
  EXPECT_TRUE(info("task")->Boundary);
  // set and the invariant are siblings under task: set is level 1.
  EXPECT_EQ(info("set")->Level, 1u);
  EXPECT_TRUE(info("set")->Selected);
  EXPECT_FALSE(info("log")->Selected);
  EXPECT_TRUE(info("main")->Selected);
  // The timer handler writes @period, used by selected functions; the radio
  // handler does not touch anything they use.
  EXPECT_TRUE(info("__vector_5")->Selected);
  EXPECT_TRUE(info("__vector_5")->isInterrupt());
  EXPECT_EQ(info("__vector_5")->vector(), 5);
  EXPECT_FALSE(info("__vector_9")->Selected);
  EXPECT_FALSE(info("__vector_5")->Inline.Inline);

  auto *Period = X.M->getNamedGlobal("period");
  auto *Trace = X.M->getNamedGlobal("trace");
  EXPECT_TRUE(R->SliceGlobals.count(Period));
  EXPECT_FALSE(R->SliceGlobals.count(Trace));
  EXPECT_TRUE(R->InterruptShared.count(Period));
  EXPECT_FALSE(R->InterruptShared.count(Trace));
  auto Inputs = R->InvariantInputs.lookup(X.M->getFunction("wsn_invariant_ok"));
  ASSERT_EQ(Inputs.size(), 1u);
  EXPECT_EQ(Inputs[0], Period);

  // task calls log, which is not instrumented and writes @trace.
  const auto &Skips = info("task")->UninstrumentedCallees;
  ASSERT_EQ(Skips.size(), 1u);
  EXPECT_EQ(Skips[0].Callee->getName(), "log");
  ASSERT_EQ(Skips[0].MayWrite.size(), 1u);
  EXPECT_EQ(Skips[0].MayWrite[0], Trace);

  // The scheduler loop has no exit: one anchor site, in main.
  ASSERT_EQ(R->Anchors.size(), 1u);
  EXPECT_EQ(R->Anchors[0].F->getName(), "main");
  EXPECT_EQ(R->Anchors[0].Header->getName(), "loop");

  // set is called once: Equation 4.1 with n = 0 always favours inlining.
  EXPECT_TRUE(info("set")->Inline.Inline);
  EXPECT_EQ(info("set")->Inline.Why, "eq-4.1");
  EXPECT_FALSE(info("task")->Inline.Inline); // boundary function
}

TEST(PfdgIR, LevelTwoReachesTheSkippedCallee) {
  Fixture X(Src);
  ASSERT_TRUE(X.M);
  wsn::PfdgOptions O;
  O.Level = 2;
  auto R = wsn::computePfdg(*X.M, X.MAM, O);
  ASSERT_TRUE(!!R) << toString(R.takeError());
  // main is the caller of the level-1 boundary: boundary of level 2.
  EXPECT_TRUE(R->lookup(X.M->getFunction("main"))->Boundary);
  EXPECT_FALSE(R->lookup(X.M->getFunction("task"))->Boundary);
}

TEST(PfdgIR, BadErrorPathFileNamesFileAndLine) {
  Fixture X(Src);
  ASSERT_TRUE(X.M);
  wsn::PfdgOptions O;
  O.Level = 2;
  O.PathsFile = "/nonexistent/paths.txt";
  auto R = wsn::computePfdg(*X.M, X.MAM, O);
  ASSERT_FALSE(!!R);
  EXPECT_NE(toString(R.takeError()).find("/nonexistent/paths.txt"),
            std::string::npos);
}

} // namespace
