//===- TraceOpsTest.cpp - builder, typed ops, metadata, ids, verifier -----===//
#include "TraceOps.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace wsn;

namespace {

std::unique_ptr<Module> parse(LLVMContext &Ctx, StringRef Text) {
  SMDiagnostic Err;
  auto M = parseAssemblyString(Text, Err, Ctx);
  if (!M) {
    std::string S;
    raw_string_ostream OS(S);
    Err.print("test", OS);
    ADD_FAILURE() << S;
  }
  return M;
}

// A small mote-like program before instrumentation.
const char *Program = R"(
target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"
target triple = "avr"
@counter = global i16 0
@flag = global i8 0
@rxbuf = global [8 x i8] zeroinitializer

define i16 @main() addrspace(1) {
entry:
  %i = alloca i16
  br label %loop
loop:
  %c = load i16, ptr @counter
  %v = load volatile i8, ptr inttoptr (i16 59 to ptr)
  %w = zext i8 %v to i16
  %r = call addrspace(1) i16 @ext_read()
  %s = add i16 %r, %w
  store i16 %s, ptr @counter
  %ok = call addrspace(1) i1 @inv()
  %done = icmp eq i16 %c, 0
  br i1 %done, label %out, label %loop
out:
  ret i16 0
}
define i1 @inv() addrspace(1) {
  %c = load i16, ptr @counter
  %ok = icmp ult i16 %c, 100
  ret i1 %ok
}
declare i16 @ext_read() addrspace(1)
)";

template <typename T> T *findInst(Function &F, unsigned Opcode, unsigned N = 0) {
  for (Instruction &I : instructions(F))
    if (I.getOpcode() == Opcode && isa<T>(I) && N-- == 0)
      return cast<T>(&I);
  return nullptr;
}

CallInst *findCall(Function &F, StringRef Callee) {
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (CI->getCalledFunction() &&
          CI->getCalledFunction()->getName() == Callee)
        return CI;
  return nullptr;
}

/// Instruments `Program` with every op kind through the builder and metadata
/// writers, as the instrumentation pass would.
void instrument(Module &M) {
  auto BOrErr = TraceOpBuilder::create(M);
  ASSERT_TRUE(!!BOrErr) << toString(BOrErr.takeError());
  TraceOpBuilder &B = **BOrErr;
  TraceMetadata MD(M);
  IdAllocator Ids(M);
  Function &Main = *M.getFunction("main");
  auto *Counter = M.getGlobalVariable("counter");
  auto *Flag = M.getGlobalVariable("flag");

  auto Fid = Ids.getOrAssignFid(Main);
  ASSERT_TRUE(!!Fid);
  BasicBlock &Entry = Main.getEntryBlock();
  B.setInsertPoint(&*Entry.getFirstNonPHIOrDbgOrAlloca());
  B.createFuncEntry(*Fid);
  for (BasicBlock &BB : Main)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator())) {
      B.setInsertPoint(Ret);
      B.createFuncExit(*Fid);
    }

  BasicBlock *Loop = Main.getEntryBlock().getSingleSuccessor();
  auto *I = findInst<AllocaInst>(Main, Instruction::Alloca);
  uint32_t Anchor = Ids.next(IdAllocator::Anchor);
  B.setInsertPoint(&Loop->front());
  B.createAnchor(Anchor, {I});
  ASSERT_FALSE(!!MD.addAnchor(Anchor, Main, {Counter}, {I}));

  auto *C = findInst<LoadInst>(Main, Instruction::Load, 0);
  uint32_t RSite = Ids.next(IdAllocator::Site);
  B.setInsertPoint(C);
  B.createRegionBegin(RSite);
  B.setInsertPointAfter(C);
  B.createRegionEnd(RSite, 1);

  auto *V = findInst<LoadInst>(Main, Instruction::Load, 1);
  B.setInsertPointAfter(V);
  auto In = B.createInput(Ids.next(IdAllocator::Site), V, 0x0F);
  ASSERT_TRUE(!!In);
  V->replaceUsesWithIf(*In, [&](Use &U) { return U.getUser() != *In; });

  CallInst *R = findCall(Main, "ext_read");
  ASSERT_TRUE(R);
  uint32_t SkipSite = Ids.next(IdAllocator::Site);
  auto Eff = B.wrapUninstrumentedCall(*R, SkipSite);
  ASSERT_TRUE(!!Eff);
  ASSERT_FALSE(!!MD.addEffect(SkipSite, "ext_read", 2, {Flag}));

  CallInst *Ok = findCall(Main, "inv");
  ASSERT_TRUE(Ok);
  uint32_t Inv = Ids.next(IdAllocator::Invariant);
  B.setInsertPointAfter(Ok);
  CheckOp *Chk = B.createCheck(Inv, Ok);
  ASSERT_FALSE(!!MD.addInvariant(Inv, *M.getFunction("inv"), {Counter}));

  B.setInsertPointAfter(Chk);
  uint32_t Task = Ids.next(IdAllocator::Task);
  B.createSched(Task);
  ASSERT_FALSE(!!MD.addTask(Task, *M.getFunction("inv")));
  B.createSend(Ids.next(IdAllocator::Site), B.irb().getInt32(1),
               B.irb().getInt32(2));
  B.createRecv(Ids.next(IdAllocator::Site), B.irb().getInt32(3),
               B.irb().getInt32(4));
  B.createInputBytes(Ids.next(IdAllocator::Site), M.getGlobalVariable("rxbuf"),
                     B.irb().getInt32(8));

  TraceModuleInfo Info;
  Info.Target = traceTargetOf(M);
  Info.BufSize = 512;
  Info.SegSize = 128;
  MD.setModuleInfo(Info);
}

TEST(TraceOps, NamesRoundTrip) {
  unsigned W = 99;
  EXPECT_EQ(parseTraceOpName("wsn.input.i16", &W), TraceOpKind::Input);
  EXPECT_EQ(W, 16u);
  EXPECT_EQ(parseTraceOpName("wsn.effect.void", &W), TraceOpKind::Effect);
  EXPECT_EQ(W, 0u);
  EXPECT_EQ(parseTraceOpName("wsn.region.end"), TraceOpKind::RegionEnd);
  EXPECT_FALSE(parseTraceOpName("wsn.input.i24"));
  EXPECT_FALSE(parseTraceOpName("wsn.input.i016"));
  EXPECT_FALSE(parseTraceOpName("wsn.bogus"));
  EXPECT_FALSE(parseTraceOpName("func.entry"));
  EXPECT_EQ(traceOpName(TraceOpKind::Input, 8), "wsn.input.i8");
  EXPECT_EQ(traceOpName(TraceOpKind::Effect, 0), "wsn.effect.void");
  EXPECT_EQ(traceOpName(TraceOpKind::Check), "wsn.check");
}

TEST(TraceOps, BuilderCreatesEveryOpAndVerifierAcceptsIt) {
  LLVMContext Ctx;
  auto M = parse(Ctx, Program);
  ASSERT_TRUE(M);
  instrument(*M);
  std::string VErr;
  raw_string_ostream VOS(VErr);
  EXPECT_FALSE(verifyModule(*M, &VOS)) << VErr;
  std::vector<std::string> Errs = collectTraceOpErrors(*M);
  std::string All;
  for (auto &E : Errs)
    All += E + "\n";
  EXPECT_TRUE(Errs.empty()) << All << "\n" << [&] {
    std::string S;
    raw_string_ostream(S) << *M;
    return S;
  }();

  // Every kind is recognised with the right accessors.
  unsigned Seen[16] = {};
  for (Instruction &I : instructions(*M->getFunction("main"))) {
    auto *Op = dyn_cast<TraceOp>(&I);
    if (!Op)
      continue;
    ++Seen[static_cast<unsigned>(Op->kind())];
    EXPECT_NE(Op->id(), InvalidTraceId);
    if (auto *In = dyn_cast<InputOp>(Op)) {
      EXPECT_EQ(In->bitWidth(), 8u);
      EXPECT_EQ(In->maskValue(), 0x0Fu);
      EXPECT_TRUE(isa<LoadInst>(In->value()));
      EXPECT_TRUE(In->value()->hasOneUse());
    }
    if (auto *RE = dyn_cast<RegionEndOp>(Op))
      EXPECT_EQ(RE->count(), 1u);
    if (auto *A = dyn_cast<AnchorOp>(Op)) {
      EXPECT_EQ(A->numLocals(), 1u);
      EXPECT_TRUE(isa<AllocaInst>(A->locals().begin()->get()));
    }
    if (auto *E = dyn_cast<EffectOp>(Op)) {
      EXPECT_FALSE(E->isVoid());
      EXPECT_EQ(E->bitWidth(), 16u);
      auto *Call = dyn_cast<CallInst>(E->returnValue());
      ASSERT_TRUE(Call);
      EXPECT_EQ(Call->getCalledFunction()->getName(), "ext_read");
      // The call's other uses now read the recorded value.
      EXPECT_TRUE(Call->hasOneUse());
      EXPECT_FALSE(E->use_empty());
    }
    if (auto *C = dyn_cast<CheckOp>(Op))
      EXPECT_TRUE(isa<CallInst>(C->ok()));
    if (auto *FE = dyn_cast<FuncEntryOp>(Op)) {
      EXPECT_EQ(FE->fid(), 1u);
      EXPECT_FALSE(isa<FuncExitOp>(Op));
    }
  }
  for (TraceOpKind K :
       {TraceOpKind::FuncEntry, TraceOpKind::FuncExit, TraceOpKind::RegionBegin,
        TraceOpKind::RegionEnd, TraceOpKind::Sched, TraceOpKind::Anchor,
        TraceOpKind::Input, TraceOpKind::InputBytes, TraceOpKind::Send,
        TraceOpKind::Recv, TraceOpKind::SkipBegin, TraceOpKind::SkipEnd,
        TraceOpKind::Effect, TraceOpKind::Check})
    EXPECT_EQ(Seen[static_cast<unsigned>(K)], 1u) << traceOpKindName(K).str();

  // Sites were recorded once each, with their kinds.
  auto Sites = TraceMetadata(*M).sites();
  ASSERT_TRUE(!!Sites);
  EXPECT_EQ(Sites->size(), 6u);
  EXPECT_EQ((*Sites)[0].Kind, "region");
  EXPECT_EQ((*Sites)[1].Kind, "input");
  EXPECT_EQ((*Sites)[2].Kind, "skip");
}

TEST(TraceOps, IrqOpsAndDeclarationsOnce) {
  LLVMContext Ctx;
  auto M = parse(Ctx, "define void @__vector_5() {\n  ret void\n}\n");
  auto B = TraceOpBuilder::create(*M);
  ASSERT_TRUE(!!B);
  Function &H = *M->getFunction("__vector_5");
  (*B)->setInsertPoint(H.getEntryBlock().getTerminator());
  IrqEntryOp *E = (*B)->createIrqEntry(3);
  IrqExitOp *X = (*B)->createIrqExit(3);
  EXPECT_EQ(E->irq(), 3u);
  EXPECT_EQ(X->irq(), 3u);
  EXPECT_TRUE(isa<IrqEntryOp>(E));
  EXPECT_FALSE(isa<FuncEntryOp>(E));
  EXPECT_EQ(E->getCalledFunction(), M->getFunction("wsn.irq.entry"));
  (*B)->createIrqExit(4);
  unsigned Decls = 0;
  for (Function &F : *M)
    Decls += F.getName() == "wsn.irq.exit";
  EXPECT_EQ(Decls, 1u);
  EXPECT_TRUE(isTraceOpDeclaration(*M->getFunction("wsn.irq.exit")));
}

TEST(TraceOps, ClassofRejectsOtherCalls) {
  LLVMContext Ctx;
  auto M = parse(Ctx, R"(
declare void @wsn.func.entry(i16)
declare void @wsn_other(i32)
define void @f() {
  call void @wsn.func.entry(i16 1)
  call void @wsn_other(i32 1)
  ret void
}
)");
  for (Instruction &I : instructions(*M->getFunction("f")))
    EXPECT_FALSE(isa<TraceOp>(&I)) << "wrongly typed or foreign call";
}

TEST(TraceOps, BuilderReportsClashes) {
  LLVMContext Ctx;
  auto M1 = parse(Ctx, "declare void @wsn.func.entry(i16)\n");
  auto B1 = TraceOpBuilder::create(*M1);
  ASSERT_FALSE(!!B1);
  std::string Msg = toString(B1.takeError());
  EXPECT_NE(Msg.find("'wsn.func.entry' is declared with type 'void (i16)'"),
            std::string::npos)
      << Msg;

  auto M2 = parse(Ctx, "define void @wsn.sched(i32 %t) {\n ret void\n}\n");
  auto B2 = TraceOpBuilder::create(*M2);
  ASSERT_FALSE(!!B2);
  Msg = toString(B2.takeError());
  EXPECT_NE(Msg.find("'wsn.sched' is a reserved trace-op name"),
            std::string::npos)
      << Msg;

  auto M3 = parse(Ctx, "define void @f() {\n ret void\n}\n");
  auto B3 = TraceOpBuilder::create(*M3);
  ASSERT_TRUE(!!B3);
  (*B3)->setInsertPoint(M3->getFunction("f")->getEntryBlock().getTerminator());
  Value *Ptr = M3->getFunction("f");
  auto In = (*B3)->createInput(1, Ptr);
  ASSERT_FALSE(!!In);
  Msg = toString(In.takeError());
  EXPECT_NE(Msg.find("cannot be an input"), std::string::npos) << Msg;
}

TEST(TraceOps, DebugLocFromInsertionPoint) {
  LLVMContext Ctx;
  auto M = parse(Ctx, R"(
define void @f() !dbg !4 {
  ret void, !dbg !7
}
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "app.c", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!4 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 3, type: !5, spFlags: DISPFlagDefinition, unit: !0)
!5 = !DISubroutineType(types: !{null})
!7 = !DILocation(line: 9, column: 4, scope: !4)
)");
  auto B = TraceOpBuilder::create(*M);
  ASSERT_TRUE(!!B);
  Instruction *Ret = M->getFunction("f")->getEntryBlock().getTerminator();
  (*B)->setInsertPoint(Ret);
  (*B)->setDebugLoc(DebugLoc());
  auto *S = (*B)->createSend(5, (*B)->irb().getInt32(1), (*B)->irb().getInt32(2));
  ASSERT_TRUE(S->getDebugLoc());
  EXPECT_EQ(S->getDebugLoc().getLine(), 9u);
  auto Sites = TraceMetadata(*M).sites();
  ASSERT_TRUE(!!Sites);
  ASSERT_EQ(Sites->size(), 1u);
  EXPECT_EQ((*Sites)[0].File, "app.c");
  EXPECT_EQ((*Sites)[0].Line, 9u);
  EXPECT_EQ((*Sites)[0].Col, 4u);
}

TEST(TraceMetadata, RoundTripAndIdempotence) {
  LLVMContext Ctx;
  auto M = parse(Ctx, Program);
  TraceMetadata MD(*M);
  Function &Main = *M->getFunction("main");
  Function &Inv = *M->getFunction("inv");
  GlobalVariable *Counter = M->getGlobalVariable("counter");
  GlobalVariable *Rx = M->getGlobalVariable("rxbuf");
  EXPECT_FALSE(isInstrumented(*M));
  ASSERT_FALSE(!!MD.addFunction(1, Main));
  ASSERT_FALSE(!!MD.addFunction(1, Main)); // same entry again: no-op
  Error Clash = MD.addFunction(1, Inv);
  ASSERT_TRUE(!!Clash);
  EXPECT_NE(toString(std::move(Clash)).find("id 1 is already recorded"),
            std::string::npos);
  ASSERT_FALSE(!!MD.addIrq(2, Inv, 9, "TIMER0_OVF"));
  ASSERT_FALSE(!!MD.addInvariant(1, Inv, {Counter, Rx}));
  ASSERT_FALSE(!!MD.addEffect(7, "ext_read", 2, {Rx}));
  ASSERT_FALSE(!!MD.addTask(4, Main));
  TraceModuleInfo Info{TraceFormatVersion, "avr", 0xABCD, 1024, 256};
  MD.setModuleInfo(Info);
  EXPECT_TRUE(isInstrumented(*M));

  auto F = MD.functions();
  ASSERT_TRUE(!!F);
  ASSERT_EQ(F->size(), 1u);
  EXPECT_EQ((*F)[0].F, &Main);
  EXPECT_EQ(MD.fidOf(Main), 1u);
  EXPECT_FALSE(MD.fidOf(Inv));
  auto I = MD.irqs();
  ASSERT_TRUE(!!I);
  EXPECT_EQ((*I)[0].Vector, 9u);
  EXPECT_EQ((*I)[0].VectorName, "TIMER0_OVF");
  auto Invs = MD.invariants();
  ASSERT_TRUE(!!Invs);
  ASSERT_EQ((*Invs)[0].Inputs.size(), 2u);
  EXPECT_EQ((*Invs)[0].Inputs[0].Global, Counter);
  EXPECT_EQ((*Invs)[0].Inputs[0].Size, 2u);
  EXPECT_EQ((*Invs)[0].Inputs[1].Size, 8u);
  auto Effs = MD.effects();
  ASSERT_TRUE(!!Effs);
  EXPECT_EQ((*Effs)[0].Callee, "ext_read");
  EXPECT_EQ((*Effs)[0].ReturnSize, 2u);
  auto T = MD.tasks();
  ASSERT_TRUE(!!T);
  EXPECT_EQ((*T)[0].F, &Main);
  auto MI = MD.moduleInfo();
  ASSERT_TRUE(!!MI && *MI);
  EXPECT_EQ((*MI)->Target, "avr");
  EXPECT_EQ((*MI)->Hash, 0xABCDu);
  EXPECT_EQ((*MI)->BufSize, 1024u);
  EXPECT_EQ((*MI)->SegSize, 256u);

  // The allocator continues after the ids already present.
  IdAllocator Ids(*M);
  EXPECT_EQ(Ids.next(IdAllocator::Fid), 2u);
  EXPECT_EQ(Ids.next(IdAllocator::Site), 8u);
  EXPECT_EQ(Ids.next(IdAllocator::Task), 5u);
  EXPECT_EQ(Ids.next(IdAllocator::Anchor), 1u);
  auto Again = Ids.getOrAssignFid(Main);
  ASSERT_TRUE(!!Again);
  EXPECT_EQ(*Again, 1u);
  auto New = Ids.getOrAssignFid(Inv);
  ASSERT_TRUE(!!New);
  EXPECT_EQ(*New, 3u);
  EXPECT_EQ(MD.fidOf(Inv), 3u);
}

TEST(TraceMetadata, TargetFromTriple) {
  LLVMContext Ctx;
  auto A = parse(Ctx, "target triple = \"avr\"\n");
  auto B = parse(Ctx, "target triple = \"msp430\"\n");
  auto C = parse(Ctx, "target triple = \"x86_64-pc-linux-gnu\"\n");
  EXPECT_EQ(traceTargetOf(*A), "avr");
  EXPECT_EQ(traceTargetOf(*B), "msp430");
  EXPECT_EQ(traceTargetOf(*C), "host");
}

} // namespace
