//===- TraceMapTest.cpp - trace map and module hash -----------------------===//
#include "ModuleHash.h"
#include "TraceMap.h"
#include "TraceOps.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace wsn;

namespace {

const char *Instrumented = R"(
target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"
target triple = "avr"
@counter = global i16 0, !dbg !20
@flag = global i8 0
@buf = global [6 x i8] zeroinitializer

define i16 @main() addrspace(1) !dbg !10 {
entry:
  %i = alloca i32
  call addrspace(1) void @wsn.func.entry(i32 1), !dbg !13
  call addrspace(1) void (i32, ...) @wsn.anchor(i32 1, ptr %i), !dbg !13
  call addrspace(1) void @wsn.region.begin(i32 2), !dbg !13
  %c = load i16, ptr @counter, !dbg !13
  call addrspace(1) void @wsn.region.end(i32 2, i32 1), !dbg !13
  %ok = call addrspace(1) i1 @inv(), !dbg !13
  call addrspace(1) void @wsn.check(i32 1, i1 %ok), !dbg !13
  call addrspace(1) void @wsn.skip.begin(i32 3)
  call addrspace(1) void @ext()
  call addrspace(1) void @wsn.skip.end(i32 3)
  call addrspace(1) void @wsn.effect.void(i32 3)
  call addrspace(1) void @wsn.func.exit(i32 1), !dbg !13
  ret i16 %c, !dbg !13
}
define void @isr() addrspace(1) {
  call addrspace(1) void @wsn.irq.entry(i32 1)
  call addrspace(1) void @wsn.irq.exit(i32 1)
  ret void
}
define i1 @inv() addrspace(1) {
  ret i1 true
}
declare void @ext() addrspace(1)
declare void @wsn.func.entry(i32) addrspace(1)
declare void @wsn.func.exit(i32) addrspace(1)
declare void @wsn.irq.entry(i32) addrspace(1)
declare void @wsn.irq.exit(i32) addrspace(1)
declare void @wsn.anchor(i32, ...) addrspace(1)
declare void @wsn.region.begin(i32) addrspace(1)
declare void @wsn.region.end(i32, i32) addrspace(1)
declare void @wsn.check(i32, i1) addrspace(1)
declare void @wsn.skip.begin(i32) addrspace(1)
declare void @wsn.skip.end(i32) addrspace(1)
declare void @wsn.effect.void(i32) addrspace(1)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!wsn.module = !{!40}
!wsn.funcs = !{!41}
!wsn.irqs = !{!42}
!wsn.sites = !{!43, !44}
!wsn.anchors = !{!45}
!wsn.invariants = !{!48}
!wsn.effects = !{!49}
!wsn.tasks = !{!50}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug, globals: !22)
!1 = !DIFile(filename: "blink.c", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!10 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 21, type: !11, spFlags: DISPFlagDefinition, unit: !0)
!11 = !DISubroutineType(types: !{null})
!13 = !DILocation(line: 22, column: 5, scope: !10)
!20 = !DIGlobalVariableExpression(var: !21, expr: !DIExpression())
!21 = distinct !DIGlobalVariable(name: "counter", scope: !0, file: !1, line: 3, type: !23, isLocal: false, isDefinition: true)
!22 = !{!20}
!23 = !DIDerivedType(tag: DW_TAG_volatile_type, baseType: !24)
!24 = !DIDerivedType(tag: DW_TAG_typedef, name: "uint16_t", file: !1, line: 1, baseType: !25)
!25 = !DIBasicType(name: "unsigned int", size: 16, encoding: DW_ATE_unsigned)
!40 = !{i32 1, !"avr", i32 0, i32 256, i32 64}
!41 = !{i32 1, ptr addrspace(1) @main}
!42 = !{i32 1, ptr addrspace(1) @isr, i32 10, !"TIMER0_OVF \22quoted\22"}
!43 = !{i32 2, !"region", ptr addrspace(1) @main, !"blink.c", i32 22, i32 5}
!44 = !{i32 3, !"skip", ptr addrspace(1) @main, !"", i32 0, i32 0}
!45 = !{i32 1, ptr addrspace(1) @main, !46, !47}
!46 = !{!"global", ptr @counter, i32 2, !"volatile uint16_t"}
!47 = !{!"local", !"i", i32 4, !""}
!48 = !{i32 1, ptr addrspace(1) @inv, !46, !51}
!49 = !{i32 3, !"ext", i32 0, !52}
!50 = !{i32 7, ptr addrspace(1) @main}
!51 = !{!"global", ptr @buf, i32 6, !""}
!52 = !{!"global", ptr @flag, i32 1, !""}
)";

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

std::string print(const Module &M) {
  std::string S;
  raw_string_ostream OS(S);
  M.print(OS, nullptr);
  return S;
}

TEST(TraceMap, FromModuleContents) {
  LLVMContext Ctx;
  auto M = parse(Ctx, Instrumented);
  ASSERT_TRUE(M);
  EXPECT_TRUE(collectTraceOpErrors(*M).empty());
  auto Map = TraceMap::fromModule(*M);
  ASSERT_TRUE(!!Map) << toString(Map.takeError());
  EXPECT_EQ(Map->Target, "avr");
  EXPECT_EQ(Map->BufSize, 256u);
  EXPECT_EQ(Map->SegSize, 64u);
  ASSERT_TRUE(Map->function(1));
  EXPECT_EQ(Map->function(1)->Name, "main");
  EXPECT_EQ(Map->function(1)->File, "blink.c");
  EXPECT_EQ(Map->function(1)->Line, 21u);
  EXPECT_FALSE(Map->function(2));
  ASSERT_TRUE(Map->irq(1));
  EXPECT_EQ(Map->irq(1)->Function, "isr");
  EXPECT_EQ(Map->irq(1)->Vector, 10u);
  ASSERT_TRUE(Map->site(2));
  EXPECT_EQ(Map->site(2)->Kind, "region");
  EXPECT_EQ(Map->site(2)->Line, 22u);
  ASSERT_TRUE(Map->anchor(1));
  ASSERT_EQ(Map->anchor(1)->Vars.size(), 2u);
  EXPECT_TRUE(Map->anchor(1)->Vars[0].IsGlobal);
  EXPECT_FALSE(Map->anchor(1)->Vars[1].IsGlobal);
  EXPECT_EQ(Map->anchor(1)->recordSize(), 6u);
  ASSERT_TRUE(Map->invariant(1));
  EXPECT_EQ(Map->invariant(1)->Inputs[1].Name, "buf");
  ASSERT_TRUE(Map->effect(3));
  EXPECT_EQ(Map->effect(3)->recordSize(), 1u);
  ASSERT_TRUE(Map->task(7));
  EXPECT_EQ(Map->task(7)->Function, "main");
}

TEST(TraceMap, JSONRoundTrip) {
  LLVMContext Ctx;
  auto M = parse(Ctx, Instrumented);
  ASSERT_TRUE(M);
  ASSERT_TRUE(!!computeModuleHash(*M));
  auto Map = TraceMap::fromModule(*M);
  ASSERT_TRUE(!!Map) << toString(Map.takeError());
  EXPECT_NE(Map->ModuleHash, 0u);
  std::string Text = Map->toJSON();
  auto Back = TraceMap::parseJSON(Text, "fw.wmap");
  ASSERT_TRUE(!!Back) << toString(Back.takeError());
  EXPECT_TRUE(*Back == *Map) << Text << "\n---\n" << Back->toJSON();
  EXPECT_EQ(Back->toJSON(), Text);

  // Through a file as well.
  SmallString<128> Path;
  ASSERT_FALSE(sys::fs::createTemporaryFile("tracemap", "wmap", Path));
  ASSERT_FALSE(!!Map->writeFile(Path));
  auto FromFile = TraceMap::readFile(Path);
  sys::fs::remove(Path);
  ASSERT_TRUE(!!FromFile) << toString(FromFile.takeError());
  EXPECT_TRUE(*FromFile == *Map);

  // A difference is seen.
  TraceMap Other = *Map;
  Other.Anchors[0].Vars[1].Size = 2;
  EXPECT_FALSE(Other == *Map);
}

// differenceFrom (spec/trace-map.md, "Against the program"): nothing for an equal map; else
// the first entry replay would read differently, named against the program's.
TEST(TraceMap, DifferenceFromNamesTheFirstEntry) {
  LLVMContext Ctx;
  auto M = parse(Ctx, Instrumented);
  ASSERT_TRUE(M);
  auto Map = TraceMap::fromModule(*M);
  ASSERT_TRUE(!!Map) << toString(Map.takeError());
  EXPECT_EQ(Map->differenceFrom(*Map), std::nullopt);

  TraceMap Renamed = *Map; // a global renamed to another of the same size
  Renamed.Anchors[0].Vars[0].Name = "flag2";
  std::optional<std::string> D = Renamed.differenceFrom(*Map);
  ASSERT_TRUE(D);
  EXPECT_EQ(D->rfind("anchors[0] (anchor 1 in 'main') vars[0]: global 'flag2' (", 0), 0u) << *D;
  EXPECT_NE(D->find("where the program has global '"), std::string::npos) << *D;

  TraceMap Shorter = *Map; // a variable dropped
  Shorter.Invariants[0].Inputs.pop_back();
  D = Shorter.differenceFrom(*Map);
  ASSERT_TRUE(D);
  EXPECT_NE(D->find("invariants[0] (invariant 1 "), std::string::npos) << *D;
  EXPECT_NE(D->find("inputs: 1 entries where the program has 2"), std::string::npos) << *D;

  TraceMap Ret = *Map; // an effect's return size
  Ret.Effects[0].ReturnSize = 2;
  D = Ret.differenceFrom(*Map);
  ASSERT_TRUE(D);
  EXPECT_NE(D->find("effects[0] (effect of site 3"), std::string::npos) << *D;
  EXPECT_NE(D->find("return_size 2 where the program has 0"), std::string::npos) << *D;

  TraceMap Irq = *Map; // an interrupt handler renamed
  Irq.Irqs[0].Function = "other";
  D = Irq.differenceFrom(*Map);
  ASSERT_TRUE(D);
  EXPECT_EQ(*D, "irqs[0] (irq 1 'other') where the program has irq 1 'isr'");

  TraceMap Geo = *Map; // geometry before entries
  Geo.SegSize = 128;
  Geo.Functions.clear();
  EXPECT_EQ(Geo.differenceFrom(*Map), "seg_size 128 where the program has 64");

  TraceMap Fewer = *Map; // an entry missing at the end of a list
  Fewer.Tasks.clear();
  EXPECT_EQ(Fewer.differenceFrom(*Map), "tasks: 0 entries where the program has 1");
}

// R_OP (spec/trace-map.md `recvs`): from !wsn.invariant_recvs, through JSON and back; absent
// without the metadata; a bad site id is a located error.
TEST(TraceMap, InvariantRecvs) {
  LLVMContext Ctx;
  auto M = parse(Ctx, Instrumented);
  ASSERT_TRUE(M);
  auto Plain = TraceMap::fromModule(*M);
  ASSERT_TRUE(!!Plain) << toString(Plain.takeError());
  ASSERT_FALSE(Plain->Invariants.empty());
  EXPECT_FALSE(Plain->Invariants[0].Recvs.has_value());
  EXPECT_EQ(Plain->toJSON().find("\"recvs\""), std::string::npos);

  uint32_t Id = Plain->Invariants[0].Id;
  ASSERT_FALSE(!!TraceMetadata(*M).addInvariantRecvs(Id, {9, 12}));
  auto Map = TraceMap::fromModule(*M);
  ASSERT_TRUE(!!Map) << toString(Map.takeError());
  ASSERT_TRUE(Map->Invariants[0].Recvs.has_value());
  EXPECT_EQ(*Map->Invariants[0].Recvs, (std::vector<uint32_t>{9, 12}));
  EXPECT_FALSE(*Map == *Plain);
  std::string Text = Map->toJSON();
  EXPECT_NE(Text.find("\"recvs\":[9,12]"), std::string::npos) << Text;
  auto Back = TraceMap::parseJSON(Text, "fw.wmap");
  ASSERT_TRUE(!!Back) << toString(Back.takeError());
  EXPECT_TRUE(*Back == *Map);

  std::string Bad = Text;
  size_t P = Bad.find("\"recvs\":[9,12]");
  Bad.replace(P, strlen("\"recvs\":[9,12]"), "\"recvs\":[9,-1]");
  auto R = TraceMap::parseJSON(Bad, "fw.wmap");
  ASSERT_FALSE(!!R);
  EXPECT_EQ(toString(R.takeError()), "fw.wmap: invariants[0]: recvs[1] is not a site id");

  // An empty R_OP (no message reaches the invariant) is kept as such.
  LLVMContext Ctx2;
  auto M2 = parse(Ctx2, Instrumented);
  ASSERT_FALSE(!!TraceMetadata(*M2).addInvariantRecvs(Id, {}));
  auto Empty = TraceMap::fromModule(*M2);
  ASSERT_TRUE(!!Empty);
  ASSERT_TRUE(Empty->Invariants[0].Recvs.has_value());
  EXPECT_TRUE(Empty->Invariants[0].Recvs->empty());
  EXPECT_NE(Empty->toJSON().find("\"recvs\":[]"), std::string::npos);
}

std::string parseError(StringRef Text) {
  auto R = TraceMap::parseJSON(Text, "fw.wmap");
  if (R)
    return "<no error>";
  return toString(R.takeError());
}

TEST(TraceMap, ParseErrorsNameFileAndEntry) {
  LLVMContext Ctx;
  auto M = parse(Ctx, Instrumented);
  auto Map = TraceMap::fromModule(*M);
  ASSERT_TRUE(!!Map);
  std::string Good = Map->toJSON();

  EXPECT_EQ(parseError("{"), parseError("{")); // deterministic
  EXPECT_NE(parseError("{").find("fw.wmap: invalid JSON"), std::string::npos);
  EXPECT_EQ(parseError("[]"), "fw.wmap: top level is not a JSON object");

  std::string NoName = Good;
  size_t P = NoName.find("\"name\":\"main\",");
  ASSERT_NE(P, std::string::npos);
  NoName.erase(P, strlen("\"name\":\"main\","));
  EXPECT_EQ(parseError(NoName), "fw.wmap: functions[0]: missing key 'name'");

  std::string BadSize = Good;
  P = BadSize.find("\"size\":4");
  ASSERT_NE(P, std::string::npos);
  BadSize.replace(P, strlen("\"size\":4"), "\"size\":-4");
  EXPECT_EQ(parseError(BadSize), "fw.wmap: anchors[0].vars[1]: key 'size' is "
                                 "not an unsigned 32-bit integer");

  std::string BadVersion = Good;
  P = BadVersion.find("\"version\": 1");
  ASSERT_NE(P, std::string::npos);
  BadVersion.replace(P, strlen("\"version\": 1"), "\"version\": 7");
  EXPECT_EQ(parseError(BadVersion),
            "fw.wmap: top level: version 7 is not supported (expected 1)");

  std::string LocalInv = Good;
  P = LocalInv.find("\"inputs\":[{\"kind\":\"global\"");
  ASSERT_NE(P, std::string::npos);
  LocalInv.replace(P, strlen("\"inputs\":[{\"kind\":\"global\""),
                   "\"inputs\":[{\"kind\":\"local\"");
  EXPECT_EQ(parseError(LocalInv),
            "fw.wmap: invariants[0].inputs[0]: kind 'local' is not 'global'");

  std::string Dup = Good;
  P = Dup.find("{\"id\":7,");
  ASSERT_NE(P, std::string::npos);
  Dup.insert(P, "{\"id\":7,\"function\":\"x\"},");
  EXPECT_EQ(parseError(Dup), "fw.wmap: tasks[1]: duplicate id 7 (also tasks[0])");

  auto Missing = TraceMap::readFile("/nonexistent/dir/fw.wmap");
  ASSERT_FALSE(!!Missing);
  EXPECT_NE(toString(Missing.takeError()).find("/nonexistent/dir/fw.wmap: cannot read"),
            std::string::npos);
}

// Short effects (spec/trace-format.md 2.1, spec/trace-map.md `short`): the whole record holds
// every global once, the handler part first; the short form is a subsequence of it. Here the
// handler part is flag and counter (the first 2), the callee writes counter and buf: the whole
// record is flag, counter, buf (9 bytes), the short form counter, buf (8 bytes).
std::string withEffect(StringRef Entry) {
  std::string Text = Instrumented;
  size_t P = Text.find("!49 = ");
  size_t E = Text.find('\n', P);
  Text.replace(P, E - P, ("!49 = " + Entry).str());
  return Text;
}

TEST(TraceMap, ShortFormIsASubsequenceOfTheWhole) {
  LLVMContext Ctx;
  auto M = parse(Ctx, withEffect("!{i32 3, !\"ext\", i32 0, !52, !46, !51, !{!\"short\", i32 2, "
                                 "i32 1, i32 2}}"));
  ASSERT_TRUE(M);
  Expected<std::vector<TraceEffectMD>> MD = TraceMetadata(*M).effects();
  ASSERT_TRUE(!!MD) << toString(MD.takeError());
  ASSERT_EQ(MD->size(), 1u);
  EXPECT_EQ((*MD)[0].HandlerPart, 2u);
  EXPECT_EQ((*MD)[0].Short, (std::vector<uint32_t>{1, 2}));
  auto Map = TraceMap::fromModule(*M);
  ASSERT_TRUE(!!Map) << toString(Map.takeError());
  const TraceMap::Effect *E = Map->effect(3);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->recordSize(), 9u);
  EXPECT_EQ(E->shortRecordSize(), 8u);
  EXPECT_TRUE(E->acceptsSize(9));
  EXPECT_TRUE(E->acceptsSize(8));
  EXPECT_FALSE(E->acceptsSize(3)); // the first 2 globals: the layout before the short form
  auto Names = [](const std::vector<TraceMap::Var> &V) {
    std::string S;
    for (const TraceMap::Var &X : V)
      S += X.Name + " ";
    return S;
  };
  EXPECT_EQ(Names(E->writesFor(9)), "flag counter buf ");
  EXPECT_EQ(Names(E->writesFor(8)), "counter buf ");

  // Through JSON and back: `short` lists the indices.
  std::string Text = Map->toJSON();
  EXPECT_NE(Text.find("\"return_size\":0,\"short\":[1,2],\"writes\":"), std::string::npos)
      << Text;
  auto Back = TraceMap::parseJSON(Text, "fw.wmap");
  ASSERT_TRUE(!!Back) << toString(Back.takeError());
  EXPECT_TRUE(*Back == *Map);

  // Indices out of order, repeated or past the writes are located errors (in a map whose
  // digest matches, as another writer could write it).
  auto Resealed = [&](StringRef New) {
    std::string T = Text;
    size_t P = T.find("\"short\":[1,2]");
    T.replace(P, strlen("\"short\":[1,2]"), New.str());
    size_t Body = T.find('\n', 2) + 1; // after the digest, line 2
    return "{\n" + TraceMap::digestLine(StringRef(T).drop_front(Body)) + T.substr(Body);
  };
  auto Replaced = [&](StringRef New) { return parseError(Resealed(New)); };
  EXPECT_EQ(Replaced("\"short\":[2,1]"), "fw.wmap: effects[0]: short[1] is not an index into "
                                         "the 3 writes above the one before it");
  EXPECT_EQ(Replaced("\"short\":[1,1]"), "fw.wmap: effects[0]: short[1] is not an index into "
                                         "the 3 writes above the one before it");
  EXPECT_EQ(Replaced("\"short\":[3]"), "fw.wmap: effects[0]: short[0] is not an index into "
                                       "the 3 writes above the one before it");
  EXPECT_EQ(Replaced("\"short\":[-1]"), "fw.wmap: effects[0]: short[0] is not an index into "
                                        "the 3 writes above the one before it");
  // A map from before (the short form as the first K globals) still reads.
  auto Old = TraceMap::parseJSON(Resealed("\"short_writes\":2"), "fw.wmap");
  ASSERT_TRUE(!!Old) << toString(Old.takeError());
  EXPECT_EQ(Old->effect(3)->Short, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(Old->effect(3)->shortRecordSize(), 3u);

  // In the module: the handler part's length and the indices are checked too.
  for (auto [Entry, Want] : std::initializer_list<std::pair<const char *, const char *>>{
           {"!{i32 3, !\"ext\", i32 0, !52, !46, !{!\"short\", i32 3}}", "handler part of 3"},
           {"!{i32 3, !\"ext\", i32 0, !52, !46, !{!\"short\", i32 1, i32 1, i32 0}}",
            "short-form index 0 is not increasing below the 2 globals"},
           {"!{i32 3, !\"ext\", i32 0, !52, !46, !{!\"short\", i32 1, i32 2}}",
            "short-form index 2 is not increasing below the 2 globals"}}) {
    LLVMContext C2;
    auto M2 = parse(C2, withEffect(Entry));
    ASSERT_TRUE(M2);
    auto Bad = TraceMetadata(*M2).effects();
    ASSERT_FALSE(!!Bad) << Entry;
    std::string Msg = toString(Bad.takeError());
    EXPECT_NE(Msg.find(Want), std::string::npos) << Msg;
  }
}

TEST(TraceMap, DeepNestingIsALocatedErrorNotACrash) {
  // Issue 21: mutated maps with deep nesting overflowed the stack in
  // json::parse. The reader stops at 64 levels, before parsing.
  std::string Deep(200000, '[');
  EXPECT_EQ(parseError(Deep),
            "fw.wmap: invalid JSON: line 1, column 65: JSON nested deeper than 64 levels");
  std::string Objects = "{\"format\":\n";
  for (int I = 0; I < 100000; ++I)
    Objects += "{\"a\":";
  EXPECT_EQ(parseError(Objects),
            "fw.wmap: invalid JSON: line 2, column 316: JSON nested deeper than 64 levels");
  // Brackets inside strings do not nest; 64 levels are fine (the map is then
  // refused for its content, not its depth).
  std::string InString = "{\"format\": \"" + std::string(1000, '[') + "\\\"\"}";
  EXPECT_EQ(parseError(InString).find("nested"), std::string::npos);
  std::string At64 = std::string(64, '[') + std::string(64, ']');
  EXPECT_EQ(parseError(At64), "fw.wmap: top level is not a JSON object");
}

TEST(TraceMap, FromModuleErrors) {
  LLVMContext Ctx;
  auto M = parse(Ctx, "define void @f() {\n ret void\n}\n");
  auto Map = TraceMap::fromModule(*M);
  ASSERT_FALSE(!!Map);
  EXPECT_NE(toString(Map.takeError()).find("no !wsn.module record"),
            std::string::npos);
}

TEST(ModuleHash, FNV1aReferenceValues) {
  // Published FNV-1a 32-bit test vectors.
  EXPECT_EQ(fnv1a32(""), 0x811c9dc5u);
  EXPECT_EQ(fnv1a32("a"), 0xe40c292cu);
  EXPECT_EQ(fnv1a32("foobar"), 0xbf9cf968u);
}

TEST(ModuleHash, StableAcrossPrintParseAndBitcode) {
  LLVMContext Ctx;
  auto M = parse(Ctx, Instrumented);
  ASSERT_TRUE(M);
  auto H = computeModuleHash(*M);
  ASSERT_TRUE(!!H) << toString(H.takeError());
  // Stored in both places.
  GlobalVariable *GV = M->getGlobalVariable(ModuleHashGlobalName);
  ASSERT_TRUE(GV);
  EXPECT_TRUE(GV->isConstant());
  EXPECT_EQ(cast<ConstantInt>(GV->getInitializer())->getZExtValue(), *H);
  auto Info = TraceMetadata(*M).moduleInfo();
  ASSERT_TRUE(!!Info && *Info);
  EXPECT_EQ((*Info)->Hash, *H);
  // Recomputing gives the same value (the stored fields are excluded).
  EXPECT_EQ(hashModule(*M), *H);
  EXPECT_FALSE(!!checkModuleHash(*M));
  auto H2 = computeModuleHash(*M);
  ASSERT_TRUE(!!H2);
  EXPECT_EQ(*H2, *H);

  // Print and parse again (another module id).
  LLVMContext Ctx2;
  std::string Text = print(*M);
  SMDiagnostic Err;
  auto M2 = parseAssemblyString(Text, Err, Ctx2);
  ASSERT_TRUE(M2);
  M2->setModuleIdentifier("elsewhere.ll");
  EXPECT_EQ(hashModule(*M2), *H);
  EXPECT_FALSE(!!checkModuleHash(*M2));

  // Bitcode round trip.
  SmallVector<char, 0> BC;
  raw_svector_ostream BOS(BC);
  WriteBitcodeToFile(*M, BOS);
  LLVMContext Ctx3;
  auto M3 = parseBitcodeFile(MemoryBufferRef(StringRef(BC.data(), BC.size()), "x.bc"),
                             Ctx3);
  ASSERT_TRUE(!!M3) << toString(M3.takeError());
  EXPECT_EQ(hashModule(**M3), *H);
}

TEST(ModuleHash, ChangesWhenCodeChanges) {
  LLVMContext Ctx;
  auto M = parse(Ctx, Instrumented);
  auto H = computeModuleHash(*M);
  ASSERT_TRUE(!!H);
  // Change one constant in the code.
  auto *RE = M->getFunction("main");
  for (Instruction &I : RE->getEntryBlock())
    if (auto *Op = dyn_cast<RegionEndOp>(&I))
      Op->setArgOperand(1, ConstantInt::get(Type::getInt32Ty(Ctx), 2));
  EXPECT_NE(hashModule(*M), *H);
  Error E = checkModuleHash(*M);
  ASSERT_TRUE(!!E);
  EXPECT_NE(toString(std::move(E)).find("module hash mismatch"),
            std::string::npos);

  auto Plain = parse(Ctx, "define void @f() {\n ret void\n}\n");
  auto NoRecord = computeModuleHash(*Plain);
  ASSERT_FALSE(!!NoRecord);
  EXPECT_NE(toString(NoRecord.takeError()).find("no !wsn.module record"),
            std::string::npos);
}

} // namespace
