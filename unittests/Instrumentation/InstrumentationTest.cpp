//===- InstrumentationTest.cpp - wsn-trace instrumentation and lowering ---===//
//
// Unit tests of passes/Instrumentation.cpp and passes/RecordLowering.cpp on
// small modules, run through the real PFDG analysis (spec/instrumentation.md).
//
//===----------------------------------------------------------------------===//
#include "Instrumentation.h"
#include "Pfdg.h"
#include "RecordLowering.h"
#include "TraceOps.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <random>
#include <string>

using namespace llvm;
using namespace wsn;

namespace {

struct Fixture {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  explicit Fixture(const std::string &Text) {
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
  Expected<InstrumentStats> instrument(InstrumentOptions O = {}) {
    Expected<PfdgResult> R = computePfdg(*M, MAM, PfdgOptions());
    if (!R)
      return R.takeError();
    return instrumentModule(*M, *R, O);
  }
  std::string text() {
    std::string S;
    raw_string_ostream OS(S);
    M->print(OS, nullptr);
    return S;
  }
};

template <typename OpT> std::vector<OpT *> opsIn(Function &F) {
  std::vector<OpT *> Out;
  for (Instruction &I : instructions(F))
    if (auto *Op = dyn_cast<OpT>(&I))
      Out.push_back(Op);
  return Out;
}

// A task that reads and writes @period (shared with the timer handler) and
// @trace (not shared), an invariant on @period, an infinite scheduler loop in
// main whose header carries a phi (the round counter).
const char *Prog = R"(
@period = global i16 0
@trace = global i16 0
@sw = global i8 0

define zeroext i1 @wsn_invariant_ok() {
  %v = load i16, ptr @period
  %c = icmp ult i16 %v, 100
  ret i1 %c
}
define void @task(i16 %x) {
  %p = load i16, ptr @period
  %t = load i16, ptr @trace
  %s = add i16 %p, %t
  store i16 %s, ptr @trace
  store i16 %x, ptr @period
  %in = load volatile i8, ptr @sw
  %m = and i8 %in, 12
  %z = zext i8 %m to i16
  store i16 %z, ptr @trace
  %r = call zeroext i1 @wsn_invariant_ok()
  ret void
}
define void @__vector_5() #0 {
  %v = load i16, ptr @period
  %v1 = add i16 %v, 1
  store i16 %v1, ptr @period
  ret void
}
define i16 @main() {
entry:
  br label %loop
loop:
  %round = phi i16 [ 0, %entry ], [ %next, %loop ]
  call void @task(i16 %round)
  %next = add i16 %round, 1
  br label %loop
}
attributes #0 = { "signal" }
)";

TEST(Instrumentation, InsertsEveryLogTypeAndVerifies) {
  Fixture X(Prog);
  ASSERT_TRUE(X.M);
  auto S = X.instrument();
  ASSERT_TRUE(!!S) << toString(S.takeError());
  EXPECT_FALSE(verifyModule(*X.M, &errs()));
  EXPECT_TRUE(isInstrumented(*X.M));
  std::vector<std::string> Errors = collectTraceOpErrors(*X.M);
  for (const std::string &E : Errors)
    ADD_FAILURE() << E;

  Function &Task = *X.M->getFunction("task");
  // LOG 1.
  ASSERT_EQ(opsIn<FuncEntryOp>(Task).size(), 1u);
  EXPECT_EQ(opsIn<FuncExitOp>(Task).size(), 1u);
  // LOG 2: the @period read and write are counted, the @trace ones are not;
  // the volatile load of @sw and the call close regions.
  unsigned Counted = 0;
  for (RegionEndOp *E : opsIn<RegionEndOp>(Task))
    Counted += E->count();
  EXPECT_EQ(Counted, 2u);
  // LOG 5: the mask is the bits the program uses.
  auto Inputs = opsIn<InputOp>(Task);
  ASSERT_EQ(Inputs.size(), 1u);
  EXPECT_EQ(Inputs[0]->maskValue(), std::optional<uint64_t>(12));
  // The check follows the invariant call.
  auto Checks = opsIn<CheckOp>(Task);
  ASSERT_EQ(Checks.size(), 1u);
  EXPECT_EQ(Checks[0]->getPrevNode(), Checks[0]->ok());

  // The handler is a signal handler: entry/exit, no region.
  Function &H = *X.M->getFunction("__vector_5");
  EXPECT_EQ(opsIn<IrqEntryOp>(H).size(), 1u);
  EXPECT_EQ(opsIn<RegionBeginOp>(H).size(), 0u);
}

TEST(Instrumentation, AnchorStateIsInMemory) {
  Fixture X(Prog);
  auto S = X.instrument();
  ASSERT_TRUE(!!S) << toString(S.takeError());
  Function &Main = *X.M->getFunction("main");
  auto Anchors = opsIn<AnchorOp>(Main);
  ASSERT_EQ(Anchors.size(), 1u);
  BasicBlock *Header = Anchors[0]->getParent();
  // The round counter was a phi of the header: now a stack slot, passed to
  // the anchor as a live local.
  EXPECT_TRUE(Header->phis().empty());
  EXPECT_GE(S->Demoted, 1u);
  ASSERT_EQ(Anchors[0]->numLocals(), 1u);
  EXPECT_TRUE(isa<AllocaInst>(Anchors[0]->getArgOperand(1)));
  TraceMetadata MD(*X.M);
  auto A = MD.anchors();
  ASSERT_TRUE(!!A) << toString(A.takeError());
  ASSERT_EQ(A->size(), 1u);
  // Globals first (module order), then the local.
  const auto &Vars = (*A)[0].Vars;
  ASSERT_GE(Vars.size(), 2u);
  EXPECT_TRUE(Vars.front().isGlobal());
  EXPECT_FALSE(Vars.back().isGlobal());
  EXPECT_EQ(Vars.back().Size, 2u);
}

TEST(Instrumentation, SecondRunAddsNothing) {
  Fixture X(Prog);
  ASSERT_TRUE(!!X.instrument());
  std::string Once = X.text();
  auto S = X.instrument();
  ASSERT_TRUE(!!S);
  EXPECT_TRUE(S->AlreadyInstrumented);
  EXPECT_EQ(Once, X.text());
}

TEST(Instrumentation, RejectsBadSizes) {
  Fixture X(Prog);
  InstrumentOptions O;
  O.SegSize = 100; // BufSize 1024 is not a multiple
  auto S = X.instrument(O);
  ASSERT_FALSE(!!S);
  EXPECT_NE(toString(S.takeError()).find("bad trace sizes"), std::string::npos);
}

// Counts the inline asm statements containing Needle.
unsigned asmCount(Module &M, StringRef Needle) {
  unsigned N = 0;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (auto *IA = dyn_cast<InlineAsm>(CB->getCalledOperand()))
          N += IA->getAsmString().find(Needle.str()) != std::string::npos;
  return N;
}

std::string withTriple(const char *Triple, const char *Layout) {
  return std::string("target datalayout = \"") + Layout +
         "\"\ntarget triple = \"" + Triple + "\"\n" + Prog;
}

TEST(RecordLowering, NativeSequencesPerTarget) {
  struct Case {
    const char *Triple, *Layout, *Save, *Restore;
  } Cases[] = {
      // MSP430 region ends call the runtime's __wsn_rt_endN (-wsn-region-end-helper).
      {"msp430", "e-m:e-p:16:16-i32:16-i64:16-f32:16-f64:16-a:8-n8:16-S16",
       "dint", "call #__wsn_rt_end"},
      {"x86_64-pc-linux-gnu", "e-m:e-i64:64-n8:16:32:64-S128", nullptr,
       nullptr},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Triple);
    std::string Text = withTriple(C.Triple, C.Layout);
    Fixture X(Text);
    ASSERT_TRUE(X.M);
    ASSERT_TRUE(!!X.instrument());
    // Checks lower to one table-driven runtime call that disables interrupts itself; every
    // other atomic region is the inline sequence.
    unsigned Regions = 0, Checks = 0;
    for (Function &F : *X.M) {
      Regions += opsIn<RegionBeginOp>(F).size();
      Checks += opsIn<CheckOp>(F).size();
    }
    auto L = lowerForRecord(*X.M);
    ASSERT_TRUE(!!L) << toString(L.takeError());
    EXPECT_FALSE(hasTraceOps(*X.M));
    EXPECT_FALSE(verifyModule(*X.M, &errs()));
    for (Function &F : *X.M)
      EXPECT_FALSE(isTraceOpDeclaration(F)) << F.getName().str();
    EXPECT_TRUE(X.M->getFunction("__wsn_rt_entry"));
    Function *CheckT = X.M->getFunction("__wsn_rt_check_t");
    ASSERT_TRUE(CheckT);
    EXPECT_EQ(CheckT->getNumUses(), Checks);
    EXPECT_GT(Checks, 0u);
    if (C.Save) {
      EXPECT_EQ(asmCount(*X.M, C.Save), Regions);
      EXPECT_EQ(asmCount(*X.M, C.Restore), Regions);
    } else {
      EXPECT_EQ(asmCount(*X.M, ""), 0u); // the host has no interrupts
    }
  }
}

TEST(RecordLowering, AvrRegions) {
  // The same program for AVR: functions live in program address space 1.
  std::string Text = withTriple(
      "avr", "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8");
  for (const char *Fn : {"@wsn_invariant_ok()", "@task(i16 %x)",
                         "@__vector_5()", "@main()"}) {
    size_t P = Text.find(Fn);
    ASSERT_NE(P, std::string::npos);
    Text.insert(P + strlen(Fn), " addrspace(1)");
  }
  size_t P = 0;
  while ((P = Text.find("call void @task", P)) != std::string::npos)
    Text.replace(P, strlen("call void @task"), "call addrspace(1) void @task");
  P = Text.find("call zeroext i1 @wsn_invariant_ok");
  Text.replace(P, strlen("call zeroext i1 @wsn_invariant_ok"),
               "call zeroext addrspace(1) i1 @wsn_invariant_ok");
  Fixture X(Text);
  ASSERT_TRUE(X.M);
  ASSERT_TRUE(!!X.instrument());
  // Checks are one table-driven call (the runtime disables interrupts itself).
  unsigned Regions = 0, Checks = 0;
  for (Function &F : *X.M) {
    Regions += opsIn<RegionBeginOp>(F).size();
    Checks += opsIn<CheckOp>(F).size();
  }
  ASSERT_GT(Regions, 0u);
  ASSERT_TRUE(!!lowerForRecord(*X.M));
  EXPECT_FALSE(hasTraceOps(*X.M));
  EXPECT_FALSE(verifyModule(*X.M, &errs()));
  EXPECT_EQ(asmCount(*X.M, "in $0, 0x3f"), Regions);
  EXPECT_EQ(asmCount(*X.M, "out 0x3f"), Regions);
  Function *CheckT = X.M->getFunction("__wsn_rt_check_t");
  ASSERT_TRUE(CheckT);
  EXPECT_EQ(CheckT->getNumUses(), Checks);
  // Its table is in program memory (address space 1) and holds the invariant's id.
  for (GlobalVariable &G : X.M->globals())
    if (G.getName().starts_with("__wsn_tbl"))
      EXPECT_EQ(G.getAddressSpace(), 1u) << G.getName().str();
}

// An invariant input with padding (spec/instrumentation.md section 8): on MSP430 { i8, i16, i32 }
// has a hole at +1, so the check's CRC covers @rec's bytes +0 and +2..+7, one table pair each
// (replay's checksum skips the same byte). An input split into more than 255 runs (300 holes in
// @many) does not fit a table and takes the call chain, one __wsn_crc16 per run.
TEST(RecordLowering, CheckChecksumSkipsPadding) {
  const char *Msp430 = "e-m:e-p:16:16-i32:16-i64:16-f32:16-f64:16-a:8-n8:16-S16";
  auto Program = [&](const char *Global, const char *Read) {
    return std::string("target datalayout = \"") + Msp430 + "\"\ntarget triple = \"msp430\"\n" +
           "%struct.r = type { i8, i16, i32 }\n%struct.s = type { i8, i16 }\n" + Global +
           "\ndefine zeroext i1 @wsn_invariant_ok() {\n" + Read +
           "  %c = icmp ult i16 %v, 100\n  ret i1 %c\n}\n"
           "define i16 @main() {\nentry:\n  br label %loop\nloop:\n"
           "  %r = call zeroext i1 @wsn_invariant_ok()\n  br label %loop\n}\n";
  };
  {
    Fixture X(Program("@rec = global %struct.r zeroinitializer",
                      "  %p = getelementptr %struct.r, ptr @rec, i16 0, i32 1\n"
                      "  %v = load i16, ptr %p\n"));
    ASSERT_TRUE(X.M);
    auto S = X.instrument();
    ASSERT_TRUE(!!S) << toString(S.takeError());
    auto L = lowerForRecord(*X.M);
    ASSERT_TRUE(!!L) << toString(L.takeError());
    EXPECT_FALSE(verifyModule(*X.M, &errs()));
    ASSERT_TRUE(X.M->getFunction("__wsn_rt_check_t"));
    GlobalVariable *Tbl = nullptr;
    for (GlobalVariable &G : X.M->globals())
      if (G.getName().starts_with("__wsn_tbl"))
        Tbl = &G;
    ASSERT_TRUE(Tbl);
    // { i16 inv, i8 pairs, (i16 addr, i8 size)... }
    auto *Init = cast<ConstantStruct>(Tbl->getInitializer());
    ASSERT_EQ(Init->getNumOperands(), 2u + 2 * 2);
    EXPECT_EQ(cast<ConstantInt>(Init->getOperand(1))->getZExtValue(), 2u);
    EXPECT_EQ(Init->getOperand(2), ConstantExpr::getPtrToInt(X.M->getNamedGlobal("rec"),
                                                             Type::getInt16Ty(X.Ctx)));
    EXPECT_EQ(cast<ConstantInt>(Init->getOperand(3))->getZExtValue(), 1u);
    std::string Second;
    raw_string_ostream(Second) << *Init->getOperand(4);
    EXPECT_NE(Second.find("getelementptr (i8, ptr @rec, i16 2)"), std::string::npos) << Second;
    EXPECT_EQ(cast<ConstantInt>(Init->getOperand(5))->getZExtValue(), 6u);
  }
  {
    Fixture X(Program("@many = global [300 x %struct.s] zeroinitializer",
                      "  %p = getelementptr [300 x %struct.s], ptr @many, i16 0, i16 7, i32 1\n"
                      "  %v = load i16, ptr %p\n"));
    ASSERT_TRUE(X.M);
    InstrumentOptions O; // the 1200-byte array is in the loop's checkpoint
    O.SegSize = 2048;
    O.BufSize = 4096;
    auto S = X.instrument(O);
    ASSERT_TRUE(!!S) << toString(S.takeError());
    auto L = lowerForRecord(*X.M);
    ASSERT_TRUE(!!L) << toString(L.takeError());
    EXPECT_FALSE(verifyModule(*X.M, &errs()));
    EXPECT_FALSE(X.M->getFunction("__wsn_rt_check_t"));
    Function *Crc = X.M->getFunction("__wsn_crc16");
    ASSERT_TRUE(Crc);
    // Runs: +0 (1 byte), then the i16 and the next element's i8 (3 bytes) 299 times, the
    // last i16 (2 bytes).
    EXPECT_EQ(Crc->getNumUses(), 301u);
  }
}

// Property test of the region rules on random straight-line blocks: every
// counted access is inside exactly one region, a region holds no call, at most
// MaxBatch counted accesses, and its count is the number it holds.
TEST(Instrumentation, RandomBlocksRegionRules) {
  std::mt19937 Rng(1234);
  for (unsigned Round = 0; Round < 40; ++Round) {
    std::string Body;
    unsigned Tmp = 0;
    for (unsigned I = 0, N = 5 + Rng() % 25; I < N; ++I) {
      switch (Rng() % 5) {
      case 0:
      case 1:
        Body += "  %v" + std::to_string(Tmp++) + " = load i16, ptr @shared\n";
        break;
      case 2:
        Body += "  store i16 7, ptr @shared\n";
        break;
      case 3:
        Body += "  store i16 3, ptr @local\n";
        break;
      case 4:
        Body += "  call void @ext()\n";
        break;
      }
    }
    std::string Text = R"(
@shared = global i16 0
@local = global i16 0
declare void @ext() memory(none)
define zeroext i1 @wsn_invariant_ok() {
  %v = load i16, ptr @shared
  %c = icmp ult i16 %v, 100
  ret i1 %c
}
define void @__vector_3() #0 {
  store i16 1, ptr @shared
  ret void
}
define i16 @main() {
)" + Body + R"(  %r = call zeroext i1 @wsn_invariant_ok()
  ret i16 0
}
attributes #0 = { "signal" }
)";
    Fixture X(Text);
    ASSERT_TRUE(X.M) << Text;
    InstrumentOptions O;
    O.MaxBatch = 1 + Rng() % 4;
    auto S = X.instrument(O);
    ASSERT_TRUE(!!S) << toString(S.takeError());
    EXPECT_TRUE(collectTraceOpErrors(*X.M).empty()) << Text;
    Function &Main = *X.M->getFunction("main");
    unsigned Expected = 0, InRegion = 0, Open = 0;
    bool Inside = false;
    for (Instruction &I : instructions(Main)) {
      bool CountedAccess = (isa<LoadInst>(I) || isa<StoreInst>(I)) &&
                           getLoadStorePointerOperand(&I) ==
                               X.M->getNamedGlobal("shared");
      Expected += CountedAccess;
      if (isa<RegionBeginOp>(&I)) {
        EXPECT_FALSE(Inside);
        Inside = true;
        Open = 0;
      } else if (auto *E = dyn_cast<RegionEndOp>(&I)) {
        EXPECT_TRUE(Inside);
        EXPECT_EQ(E->count(), Open);
        EXPECT_LE(Open, O.MaxBatch);
        Inside = false;
      } else if (CountedAccess) {
        EXPECT_TRUE(Inside) << "uncounted access in round " << Round;
        ++Open;
        ++InRegion;
      } else if (isa<CallBase>(I) && !isa<TraceOp>(&I)) {
        EXPECT_FALSE(Inside) << "call inside a region in round " << Round;
      }
    }
    EXPECT_EQ(InRegion, Expected);
  }
}

} // namespace
