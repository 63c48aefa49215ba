//===- ReplayLoweringTest.cpp - wsn-lower<replay> on small IR modules ------===//
//
// Each test lowers a hand-written mote module, runs it under LLJIT and checks
// the replay memory, or checks the error the lowering reports.
//
//===----------------------------------------------------------------------===//
#include "ReplayEngine.h"
#include "ReplayStartCache.h"
#include "TraceMap.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <set>

using namespace llvm;

namespace {

const char *AVRHeader =
    "target datalayout = \"e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8\"\n"
    "target triple = \"avr\"\n";
const char *MSPHeader =
    "target datalayout = \"e-m:e-p:16:16-i32:16-i64:16-f32:16-f64:16-a:8-n8:16-S16\"\n"
    "target triple = \"msp430\"\n";

struct Lowered {
  std::unique_ptr<wsn::ReplayRunner> Runner;
  std::string Error;
};

Lowered lowerAndJIT(const std::string &IR, wsn::ReplayLoweringOptions LO = {}) {
  Lowered L;
  auto Ctx = std::make_unique<LLVMContext>();
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseAssemblyString(IR, Diag, *Ctx);
  if (!M) {
    L.Error = "parse: " + Diag.getMessage().str();
    return L;
  }
  auto Info = wsn::lowerModuleForReplay(*M, LO);
  if (!Info) {
    L.Error = toString(Info.takeError());
    return L;
  }
  auto R = wsn::ReplayRunner::create(std::move(Ctx), std::move(M), *Info);
  if (!R) {
    L.Error = toString(R.takeError());
    return L;
  }
  L.Runner = std::move(*R);
  return L;
}

uint32_t addrOf(const wsn::ReplayRunner &R, StringRef Name) {
  for (const wsn::ReplayGlobal &G : R.info().Globals)
    if (G.Name == Name)
      return G.Addr;
  ADD_FAILURE() << "no global " << Name.str();
  return 0;
}

uint32_t le(ArrayRef<uint8_t> M, uint32_t A, unsigned N) {
  uint32_t V = 0;
  for (unsigned I = 0; I < N; ++I)
    V |= uint32_t(M[A + I]) << (8 * I);
  return V;
}

// Struct fields at the mote's offsets (AVR: packed, pointers 2 bytes), a
// pointer to a global stored in memory, and a pointer to a local.
const char *StructProgram = R"(
%struct.s = type { i8, i32, ptr, i16 }
@g = global %struct.s { i8 1, i32 2, ptr null, i16 3 }
@arr = global [4 x i16] [i16 10, i16 20, i16 30, i16 40]
@plocal = global ptr null
@copy = global [4 x i16] zeroinitializer
define i16 @main() {
  %l = alloca [2 x i16]
  %f1 = getelementptr inbounds %struct.s, ptr @g, i16 0, i32 1
  store i32 305419896, ptr %f1
  %e2 = getelementptr inbounds [4 x i16], ptr @arr, i16 0, i16 2
  %f2 = getelementptr inbounds %struct.s, ptr @g, i16 0, i32 2
  store ptr %e2, ptr %f2
  %f3 = getelementptr inbounds %struct.s, ptr @g, i16 0, i32 3
  %p = load ptr, ptr %f2
  %v = load i16, ptr %p
  store i16 %v, ptr %f3
  %l1 = getelementptr inbounds [2 x i16], ptr %l, i16 0, i16 1
  store ptr %l1, ptr @plocal
  call void @llvm.memcpy.p0.p0.i16(ptr @copy, ptr @arr, i16 8, i1 false)
  ret i16 %v
}
declare void @llvm.memcpy.p0.p0.i16(ptr, ptr, i16, i1)
)";

TEST(ReplayLowering, AVRStructLayoutAndPointers) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + StructProgram);
  ASSERT_TRUE(L.Runner) << L.Error;
  auto Out = L.Runner->run();
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_EQ(Out->Reason, wsn::ReplayStop::Returned) << Out->Message;
  EXPECT_EQ(Out->ReturnValue, 30);
  ArrayRef<uint8_t> M = L.Runner->memory();
  uint32_t G = addrOf(*L.Runner, "g"), Arr = addrOf(*L.Runner, "arr");
  EXPECT_EQ(G, 0x100u); // laid out from the start of SRAM without an ELF
  EXPECT_EQ(M[G], 1);
  EXPECT_EQ(le(M, G + 1, 4), 0x12345678u); // i32 at offset 1 (packed)
  EXPECT_EQ(le(M, G + 5, 2), Arr + 4);     // 16-bit pointer to arr[2]
  EXPECT_EQ(le(M, G + 7, 2), 30u);
  uint32_t PL = le(M, addrOf(*L.Runner, "plocal"), 2);
  EXPECT_LT(PL, L.Runner->info().StackTop); // a local lives on the replay stack
  EXPECT_GE(PL, L.Runner->info().StackLimit);
  EXPECT_EQ(le(M, addrOf(*L.Runner, "copy") + 6, 2), 40u);
}

TEST(ReplayLowering, MSP430StructLayoutIsNotAVR) {
  Lowered L = lowerAndJIT(std::string(MSPHeader) + StructProgram);
  ASSERT_TRUE(L.Runner) << L.Error;
  auto Out = L.Runner->run();
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_EQ(Out->ReturnValue, 30);
  ArrayRef<uint8_t> M = L.Runner->memory();
  uint32_t G = addrOf(*L.Runner, "g"), Arr = addrOf(*L.Runner, "arr");
  EXPECT_EQ(G, 0x1100u); // MSP430F1611 RAM
  EXPECT_EQ(le(M, G + 2, 4), 0x12345678u); // i32 aligned to 2
  EXPECT_EQ(le(M, G + 6, 2), Arr + 4);
  EXPECT_EQ(le(M, G + 8, 2), 30u);
  EXPECT_EQ(Arr % 2, 0u);
}

TEST(ReplayLowering, FunctionPointersDispatchThroughTable) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + R"(
@fp = global ptr addrspace(1) @twice
@res = global i16 0
define i16 @twice(i16 %x) addrspace(1) { %r = shl i16 %x, 1
  ret i16 %r }
define i16 @main() addrspace(1) {
  %f = load ptr addrspace(1), ptr @fp
  %r = call addrspace(1) i16 %f(i16 21)
  store i16 %r, ptr @res
  ret i16 %r
}
)");
  ASSERT_TRUE(L.Runner) << L.Error;
  auto Out = L.Runner->run();
  ASSERT_TRUE(bool(Out));
  EXPECT_EQ(Out->ReturnValue, 42);
  ASSERT_EQ(L.Runner->info().FunctionTable.size(), 1u);
  EXPECT_EQ(le(L.Runner->memory(), addrOf(*L.Runner, "fp"), 2),
            L.Runner->info().FunctionTable[0].second);
}

TEST(ReplayLowering, BadFunctionPointerIsAReplayError) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + R"(
@fp = global i16 4660
define void @main() addrspace(1) {
  %f = load ptr addrspace(1), ptr @fp
  call addrspace(1) void %f()
  ret void
}
)");
  ASSERT_TRUE(L.Runner) << L.Error;
  auto Out = L.Runner->run();
  ASSERT_TRUE(bool(Out));
  EXPECT_EQ(Out->Reason, wsn::ReplayStop::Error);
  EXPECT_NE(Out->Message.find("0x1234"), std::string::npos) << Out->Message;
}

TEST(ReplayLowering, SeiCliUpdateModelledSREG) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + R"(
@saved = global i8 0
define void @main() addrspace(1) {
  call addrspace(0) void asm sideeffect "sei", "~{memory}"()
  %s = call addrspace(0) i8 asm sideeffect "in $0, 0x3f", "=r"()
  store i8 %s, ptr @saved
  call addrspace(0) void asm sideeffect "cli", "~{memory}"()
  ret void
}
)");
  ASSERT_TRUE(L.Runner) << L.Error;
  auto Out = L.Runner->run();
  ASSERT_TRUE(bool(Out));
  EXPECT_EQ(L.Runner->memory()[addrOf(*L.Runner, "saved")], 0x80);
  EXPECT_EQ(L.Runner->memory()[0x5F], 0x00);
}

TEST(ReplayLowering, UnknownAsmIsAnErrorWithLocation) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + R"(
define void @main() addrspace(1) !dbg !5 {
  call addrspace(0) void asm sideeffect "lpm r0, Z", ""(), !dbg !8
  ret void
}
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "prog.c", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "main", file: !1, line: 3, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !{})
!8 = !DILocation(line: 7, column: 3, scope: !5)
)");
  EXPECT_FALSE(L.Runner);
  EXPECT_NE(L.Error.find("prog.c:7:3"), std::string::npos) << L.Error;
  EXPECT_NE(L.Error.find("lpm r0, Z"), std::string::npos) << L.Error;
}

TEST(ReplayLowering, UntracedIORegisterReadIsAnError) {
  std::string IR = std::string(AVRHeader) + R"(
@v = global i8 0
define void @main() addrspace(1) {
  %x = load volatile i8, ptr inttoptr (i16 57 to ptr)
  store i8 %x, ptr @v
  ret void
}
)";
  Lowered L = lowerAndJIT(IR);
  EXPECT_FALSE(L.Runner);
  EXPECT_NE(L.Error.find("I/O address 0x39"), std::string::npos) << L.Error;
  wsn::ReplayLoweringOptions LO;
  LO.AllowUntracedIO = true;
  EXPECT_TRUE(lowerAndJIT(IR, LO).Runner);
}

TEST(ReplayLowering, ExternalCallWithoutBodyIsAnError) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + R"(
define void @main() addrspace(1) {
  call addrspace(1) void @radio_send(i16 1)
  ret void
}
declare void @radio_send(i16) addrspace(1)
)");
  EXPECT_FALSE(L.Runner);
  EXPECT_NE(L.Error.find("radio_send"), std::string::npos) << L.Error;
}

TEST(ReplayLowering, StackOverflowIsAReplayError) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + R"(
define i16 @rec(i16 %n) addrspace(1) {
  %buf = alloca [64 x i8]
  store i8 1, ptr %buf
  %m = add i16 %n, 1
  %r = call addrspace(1) i16 @rec(i16 %m)
  ret i16 %r
}
define i16 @main() addrspace(1) {
  %r = call addrspace(1) i16 @rec(i16 0)
  ret i16 %r
}
)");
  ASSERT_TRUE(L.Runner) << L.Error;
  auto Out = L.Runner->run();
  ASSERT_TRUE(bool(Out));
  EXPECT_EQ(Out->Reason, wsn::ReplayStop::Error);
  EXPECT_NE(Out->Message.find("stack overflow"), std::string::npos) << Out->Message;
}

} // namespace

namespace {
// A mote program may define memcpy itself; the host's llvm.memcpy lowering
// must still reach the host memcpy, not the mote one (which takes i16s).
TEST(ReplayLowering, MoteMemcpyDoesNotCaptureHostMemcpy) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + R"(
@a = global [64 x i8] c"0123456789012345678901234567890123456789012345678901234567890123"
@b = global [64 x i8] zeroinitializer
@n = global i16 0
@len = global i16 64
define ptr @memcpy(ptr %d, ptr %s, i16 %n) addrspace(1) {
  store i16 %n, ptr @n
  ret ptr %d
}
define void @main() addrspace(1) {
  %l = load i16, ptr @len
  call void @llvm.memcpy.p0.p0.i16(ptr @b, ptr @a, i16 %l, i1 false)
  %r = call addrspace(1) ptr @memcpy(ptr @b, ptr @a, i16 7)
  ret void
}
declare void @llvm.memcpy.p0.p0.i16(ptr, ptr, i16, i1)
)");
  ASSERT_TRUE(L.Runner) << L.Error;
  auto Out = L.Runner->run();
  ASSERT_TRUE(bool(Out));
  EXPECT_EQ(Out->Reason, wsn::ReplayStop::Returned) << Out->Message;
  ArrayRef<uint8_t> M = L.Runner->memory();
  EXPECT_EQ(M[addrOf(*L.Runner, "b") + 63], '3');
  EXPECT_EQ(le(M, addrOf(*L.Runner, "n"), 2), 7u);
}

// The store watch with history (wsn-replay net -i's `why` across messages,
// spec/replay.md section 9.1): each store carries the sources of its value,
// the loads its computation read: a plain copy (SrcCopy), a computed value
// (no flag), memcpy's source (SrcCopy), a call's result (SrcPartial), and a
// constant (no source).
TEST(ReplayLowering, StoreWatchKeepsTheSourcesOfEachStore) {
  wsn::ReplayLoweringOptions LO;
  LO.WatchStores = true;
  Lowered L = lowerAndJIT(std::string(AVRHeader) + R"(
@a = global i16 5
@b = global i16 0
@c = global [4 x i8] c"wxyz"
@d = global [4 x i8] zeroinitializer
@e = global i16 0
define i16 @f(i16 %x) addrspace(1) {
  ret i16 %x
}
define void @main() addrspace(1) {
  %v = load i16, ptr @a
  store i16 %v, ptr @b
  %w = add i16 %v, 1
  store i16 %w, ptr @b
  call void @llvm.memcpy.p0.p0.i16(ptr @d, ptr @c, i16 4, i1 false)
  %r = call addrspace(1) i16 @f(i16 3)
  store i16 %r, ptr @e
  store i16 7, ptr @e
  ret void
}
declare void @llvm.memcpy.p0.p0.i16(ptr, ptr, i16, i1)
)",
                          LO);
  ASSERT_TRUE(L.Runner) << L.Error;
  L.Runner->machine().Watch.KeepHistory = true;
  auto Out = L.Runner->run();
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_EQ(Out->Reason, wsn::ReplayStop::Returned) << Out->Message;
  const wsn::StoreWatch &W = L.Runner->machine().Watch;
  uint32_t A = addrOf(*L.Runner, "a"), B = addrOf(*L.Runner, "b"),
           C = addrOf(*L.Runner, "c"), D = addrOf(*L.Runner, "d"),
           E = addrOf(*L.Runner, "e");
  ASSERT_EQ(W.History.size(), 5u);
  auto Src = [&](size_t I) {
    const wsn::StoreEvent &H = W.History[I];
    return std::vector<wsn::StoreSource>(W.Sources.begin() + H.SrcBegin,
                                         W.Sources.begin() + H.SrcBegin + H.SrcCount);
  };
  auto Is = [](const wsn::StoreSource &S, uint32_t Addr, uint32_t Size, uint32_t Flags) {
    return S.Addr == Addr && S.Size == Size && S.Flags == Flags;
  };
  EXPECT_EQ(W.History[0].Addr, B);
  ASSERT_EQ(Src(0).size(), 1u);
  EXPECT_TRUE(Is(Src(0)[0], A, 2, wsn::replayabi::SrcCopy));
  EXPECT_EQ(W.History[1].Addr, B);
  ASSERT_EQ(Src(1).size(), 1u);
  EXPECT_TRUE(Is(Src(1)[0], A, 2, 0));
  EXPECT_EQ(W.History[2].Addr, D);
  EXPECT_EQ(W.History[2].Size, 4u);
  ASSERT_EQ(Src(2).size(), 1u);
  EXPECT_TRUE(Is(Src(2)[0], C, 4, wsn::replayabi::SrcCopy));
  EXPECT_EQ(W.History[3].Addr, E);
  ASSERT_EQ(Src(3).size(), 1u);
  EXPECT_TRUE(Is(Src(3)[0], 0, 0, wsn::replayabi::SrcPartial));
  EXPECT_EQ(W.History[4].Addr, E);
  EXPECT_TRUE(Src(4).empty());
  // Seq orders the stores; a run starts the history afresh.
  EXPECT_LT(W.History[0].Seq, W.History[4].Seq);
  ASSERT_TRUE(bool(L.Runner->run()));
  EXPECT_EQ(L.Runner->machine().Watch.History.size(), 5u);
}
} // namespace

namespace {
// A .wtr written by the trace writer drives the replay from its checkpoint
// (thesis 4.2): the anchor restores @sum, then inputs, a received buffer, an
// uninstrumented call's effect and the violation (with its checksum) are
// reproduced.
const char *TracedProgram = R"(
@sum = global i16 0
@buf = global [4 x i8] zeroinitializer
@ret = global i16 0
@seen = global i16 0
define void @main() addrspace(1) {
entry:
  call addrspace(1) void @wsn.func.entry(i32 1)
  br label %loop
loop:
  call addrspace(1) void (i32, ...) @wsn.anchor(i32 1)
  %old = load i16, ptr @sum
  store i16 %old, ptr @seen
  %a = load volatile i16, ptr inttoptr (i16 120 to ptr)
  %x = call addrspace(1) i16 @wsn.input.i16(i32 2, i16 %a, i16 -1)
  %b = load volatile i16, ptr inttoptr (i16 120 to ptr)
  %y = call addrspace(1) i16 @wsn.input.i16(i32 2, i16 %b, i16 -1)
  %s = add i16 %x, %y
  store i16 %s, ptr @sum
  call addrspace(1) void @wsn.input.bytes(i32 3, ptr @buf, i32 4)
  call addrspace(1) void @wsn.skip.begin(i32 4)
  %c = call addrspace(1) i16 @radio_status()
  call addrspace(1) void @wsn.skip.end(i32 4)
  %r = call addrspace(1) i16 @wsn.effect.i16(i32 4, i16 %c)
  store i16 %r, ptr @ret
  %ok = icmp ult i16 %s, 1000
  call addrspace(1) void @wsn.check(i32 1, i1 %ok)
  br label %loop
}
declare i16 @radio_status() addrspace(1)
declare void @wsn.func.entry(i32) addrspace(1)
declare void @wsn.anchor(i32, ...) addrspace(1)
declare i16 @wsn.input.i16(i32, i16, i16) addrspace(1)
declare void @wsn.input.bytes(i32, ptr, i32) addrspace(1)
declare void @wsn.skip.begin(i32) addrspace(1)
declare void @wsn.skip.end(i32) addrspace(1)
declare i16 @wsn.effect.i16(i32, i16) addrspace(1)
declare void @wsn.check(i32, i1) addrspace(1)
)";

wsn::TraceMap tracedMap(uint32_t Hash) {
  wsn::TraceMap M;
  M.Target = "avr";
  M.ModuleHash = Hash;
  M.BufSize = 1024;
  M.SegSize = 256;
  M.Functions.push_back({1, "main", "", 0});
  auto Site = [&](uint32_t Id, const char *Kind) {
    wsn::TraceMap::Site S;
    S.Id = Id;
    S.Kind = Kind;
    S.Function = "main";
    M.Sites.push_back(S);
  };
  Site(2, "input");
  Site(3, "input.bytes");
  Site(4, "skip");
  wsn::TraceMap::Var Sum{true, "sum", 2, "uint16_t"};
  M.Anchors.push_back({1, "main", {Sum}});
  M.Invariants.push_back({1, "main", {Sum}});
  wsn::TraceMap::Effect E;
  E.Site = 4;
  E.Callee = "radio_status";
  E.ReturnSize = 2;
  M.Effects.push_back(E);
  return M;
}

struct TracedRun {
  wsn::TraceMap Map;
  wsn::PreprocessedTrace P;
  wsn::ReplayOutcome Out;
};

/// Writes the trace "ENTRY main; CHECKPOINT sum=Start; INPUT x; INPUT y;
/// INPUT_BYTES 1 2 3 4; SKIP; EFFECT 0x1234; CHECK/VIOLATION" and replays it.
void replayTraced(wsn::ReplayRunner &R, uint16_t Start, uint32_t X, uint32_t Y,
                  bool Ok, uint16_t Crc, TracedRun &T, uint16_t InputSite = 2) {
  wsn::TraceWriter::Options WO;
  WO.Target = 1; // avr, as the program and tracedMap
  auto W = wsn::TraceWriter::create(WO);
  ASSERT_TRUE(bool(W));
  W->entry(1);
  const uint8_t Cp[] = {uint8_t(Start), uint8_t(Start >> 8)};
  W->checkpoint(1, Cp);
  W->input(InputSite, X);
  W->input(2, Y);
  const uint8_t Bytes[] = {1, 2, 3, 4};
  W->inputBytes(3, Bytes);
  W->skipBegin(4);
  W->skipEnd(4);
  const uint8_t Ret[] = {0x34, 0x12};
  W->effect(4, Ret);
  W->check(1, Ok, Crc);
  auto TF = wsn::TraceFile::parse(W->bytes());
  ASSERT_TRUE(bool(TF)) << toString(TF.takeError());
  T.Map = tracedMap(W->header().ModuleHash);
  wsn::PreprocessOptions PO;
  PO.Map = &T.Map;
  auto P = wsn::preprocessTrace(*TF, PO);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  T.P = std::move(*P);
  R.setTrace(&T.P, &T.Map);
  auto Out = R.run();
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  T.Out = std::move(*Out);
}

TEST(ReplayEngine, WtrTraceReproducesTheViolation) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + TracedProgram);
  ASSERT_TRUE(L.Runner) << L.Error;
  TracedRun T;
  const uint8_t Sum[] = {1350 & 0xFF, 1350 >> 8};
  replayTraced(*L.Runner, 77, 700, 650, false, wsn::crc16(Sum), T);
  EXPECT_EQ(T.Out.Reason, wsn::ReplayStop::Stopped) << T.Out.Message;
  ArrayRef<uint8_t> M = L.Runner->memory();
  EXPECT_EQ(le(M, addrOf(*L.Runner, "seen"), 2), 77u); // restored by the checkpoint
  EXPECT_EQ(le(M, addrOf(*L.Runner, "sum"), 2), 1350u);
  EXPECT_EQ(le(M, addrOf(*L.Runner, "buf"), 4), 0x04030201u);
  EXPECT_EQ(le(M, addrOf(*L.Runner, "ret"), 2), 0x1234u);
  EXPECT_EQ(T.Out.RecordsConsumed, 9u);
  EXPECT_EQ(T.Out.StopRecord, 8u);
}

// The inline record consumption (spec/replay-log.md section 2.7) and the callback path
// (live events, as the REPL runs) give the same outcome, memory and event list.
TEST(ReplayEngine, InlineAndLiveRunsAgree) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + TracedProgram);
  ASSERT_TRUE(L.Runner) << L.Error;
  const uint8_t Sum[] = {1350 & 0xFF, 1350 >> 8};
  TracedRun Inline;
  replayTraced(*L.Runner, 77, 700, 650, false, wsn::crc16(Sum), Inline);
  std::vector<uint8_t> MemInline(L.Runner->memory().begin(), L.Runner->memory().end());
  std::vector<wsn::ReplayEvent> EvInline = L.Runner->events();
  L.Runner->setBreakAt([](const wsn::ReplayEvent &, size_t) { return false; });
  TracedRun Live;
  replayTraced(*L.Runner, 77, 700, 650, false, wsn::crc16(Sum), Live);
  EXPECT_EQ(Live.Out.Reason, Inline.Out.Reason);
  EXPECT_EQ(Live.Out.Message, Inline.Out.Message);
  EXPECT_EQ(Live.Out.StopRecord, Inline.Out.StopRecord);
  EXPECT_EQ(Live.Out.RecordsConsumed, Inline.Out.RecordsConsumed);
  EXPECT_TRUE(std::equal(MemInline.begin(), MemInline.end(), L.Runner->memory().begin()));
  const std::vector<wsn::ReplayEvent> &EvLive = L.Runner->events();
  ASSERT_EQ(EvLive.size(), EvInline.size());
  ASSERT_GE(EvLive.size(), 6u); // checkpoint, 2 inputs, input bytes, effect, violation
  for (size_t I = 0; I < EvLive.size(); ++I) {
    EXPECT_EQ(EvLive[I].K, EvInline[I].K) << I;
    EXPECT_EQ(EvLive[I].Id, EvInline[I].Id) << I;
    EXPECT_EQ(EvLive[I].Record, EvInline[I].Record) << I;
    EXPECT_EQ(EvLive[I].Depth, EvInline[I].Depth) << I;
    EXPECT_EQ(EvLive[I].Instance, EvInline[I].Instance) << I;
    EXPECT_EQ(EvLive[I].Value, EvInline[I].Value) << I;
  }
}

TEST(ReplayEngine, TraceOfAnotherRunDiverges) {
  Lowered L = lowerAndJIT(std::string(AVRHeader) + TracedProgram);
  ASSERT_TRUE(L.Runner) << L.Error;
  // The replay computes 1 + 2 < 1000: the check passes, the trace says it failed.
  TracedRun T;
  replayTraced(*L.Runner, 0, 1, 2, false, 0, T);
  EXPECT_EQ(T.Out.Reason, wsn::ReplayStop::Diverged) << T.Out.Message;
  EXPECT_NE(T.Out.Message.find("diverged at record 8"), std::string::npos) << T.Out.Message;
  // A checksum that does not match the replayed inputs is a divergence too.
  TracedRun T2;
  replayTraced(*L.Runner, 0, 700, 650, false, 0x1111, T2);
  EXPECT_EQ(T2.Out.Reason, wsn::ReplayStop::Diverged) << T2.Out.Message;
  EXPECT_NE(T2.Out.Message.find("checksum"), std::string::npos) << T2.Out.Message;
  EXPECT_NE(T2.Out.Message.find("replayed invariant inputs: 4605"), std::string::npos)
      << T2.Out.Message;
}

// The start cache's key (spec/replay.md section 8): the same inputs give the same key, and
// every input the lowering reads changes it: the IR's bytes, the image's bytes, each
// lowering option and the entry. The store watch, --gdb and a missing cache directory turn
// the cache off.
TEST(ReplayStartCache, KeyCoversEveryInput) {
  ASSERT_FALSE(wsn::selfBuildId().empty()) << "the test binary has no GNU build id";
  SmallString<256> Dir(WSN_TEST_WORK_DIR);
  llvm::sys::path::append(Dir, "start-key");
  ASSERT_FALSE(llvm::sys::fs::create_directories(Dir));
  auto Write = [&](const char *Name, StringRef Bytes) {
    SmallString<256> P(Dir);
    llvm::sys::path::append(P, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    EXPECT_FALSE(EC);
    OS << Bytes;
    return std::string(P);
  };
  std::string IR = Write("p.ll", "define void @main() { ret void }\n");
  std::string IR2 = Write("q.ll", "define void @main() { ret void }\n\n");
  std::string Elf = Write("p.elf", "image");
  std::string Elf2 = Write("q.elf", "image2");
  wsn::ReplayLoweringOptions LO;
  LO.ElfPath = Elf;
  wsn::ReplayRunOptions RO;
  RO.JitCacheDir = std::string(Dir);
  auto Key = [&](const wsn::ReplayLoweringOptions &L, const wsn::ReplayRunOptions &R,
                 const std::string &File) {
    auto C = wsn::ReplayStartCache::open(File, L, R);
    return C ? C->key() : std::string("off");
  };
  std::string K0 = Key(LO, RO, IR);
  ASSERT_NE(K0, "off");
  EXPECT_EQ(K0.size(), 64u);
  EXPECT_EQ(Key(LO, RO, IR), K0);
  std::set<std::string> Keys{K0};
  auto Differs = [&](const std::string &K, const char *What) {
    EXPECT_NE(K, "off") << What;
    EXPECT_TRUE(Keys.insert(K).second) << What << " does not change the key";
  };
  Differs(Key(LO, RO, IR2), "the IR's bytes");
  {
    wsn::ReplayLoweringOptions L = LO;
    L.ElfPath = Elf2;
    Differs(Key(L, RO, IR), "the image's bytes");
    L.ElfPath.clear();
    Differs(Key(L, RO, IR), "no image");
  }
  auto Opt = [&](auto Set, const char *What) {
    wsn::ReplayLoweringOptions L = LO;
    Set(L);
    Differs(Key(L, RO, IR), What);
  };
  Opt([](wsn::ReplayLoweringOptions &L) { L.MCU = "atmega1281"; }, "MCU");
  Opt([](wsn::ReplayLoweringOptions &L) { L.StopAt = "done"; }, "StopAt");
  Opt([](wsn::ReplayLoweringOptions &L) { L.AllowUntracedIO = true; }, "AllowUntracedIO");
  Opt([](wsn::ReplayLoweringOptions &L) { L.RequireElfPlacement = true; }, "RequireElfPlacement");
  Opt([](wsn::ReplayLoweringOptions &L) { L.HostTriple = "x86_64-pc-linux-gnu"; }, "HostTriple");
  Opt([](wsn::ReplayLoweringOptions &L) { L.HostDataLayout = "e"; }, "HostDataLayout");
  Opt([](wsn::ReplayLoweringOptions &L) { L.InlineLog = false; }, "InlineLog");
  Opt([](wsn::ReplayLoweringOptions &L) { L.FramePointers = true; }, "FramePointers");
  {
    wsn::ReplayRunOptions R = RO;
    R.Entry = "start";
    Differs(Key(LO, R, IR), "the entry");
  }
  // Off: the store watch (the REPL), a debugger, no cache directory, an unreadable input.
  {
    wsn::ReplayLoweringOptions L = LO;
    L.WatchStores = true;
    EXPECT_EQ(Key(L, RO, IR), "off");
    wsn::ReplayRunOptions R = RO;
    R.DebuggerSupport = true;
    EXPECT_EQ(Key(LO, R, IR), "off");
    R = RO;
    R.JitCacheDir.clear();
    EXPECT_EQ(Key(LO, R, IR), "off");
    EXPECT_EQ(Key(LO, RO, IR + ".missing"), "off");
  }
}

} // namespace
