//===- ReplayFidelityTest.cpp - replay vs simavr, byte for byte -----------===//
//
// Milestone 1 of the replay (DESIGN-BRIEF section 3): for every deterministic
// program in examples/plain/, the SAME IR is (a) compiled for the ATmega128,
// linked with avr-gcc and run in simavr until done(), and (b) lowered with
// wsn-lower<replay> and run under ORC LLJIT until done(). Every global, at its
// firmware address, must hold the same bytes on both sides.
//
//===----------------------------------------------------------------------===//
#include "ReplayEngine.h"
#include "SimavrOracle.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <algorithm>

using namespace llvm;

namespace {

std::vector<std::string> plainExamples() {
  std::vector<std::string> Out;
  std::error_code EC;
  SmallString<256> Dir(WSN_SOURCE_DIR);
  sys::path::append(Dir, "examples", "plain");
  for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC; I.increment(EC))
    if (sys::path::extension(I->path()) == ".c")
      Out.push_back(I->path());
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// Runs a program; returns its stderr on failure.
Error run(StringRef Prog, std::vector<std::string> Args) {
  std::vector<StringRef> Argv{Prog};
  for (const std::string &A : Args)
    Argv.push_back(A);
  SmallString<128> ErrFile;
  sys::fs::createTemporaryFile("wsn-replay-test", "err", ErrFile);
  std::optional<StringRef> Redirects[] = {std::nullopt, std::nullopt, StringRef(ErrFile)};
  std::string Msg;
  int RC = sys::ExecuteAndWait(Prog, Argv, std::nullopt, Redirects, 120, 0, &Msg);
  auto Err = MemoryBuffer::getFile(ErrFile);
  sys::fs::remove(ErrFile);
  if (RC != 0) {
    std::string Cmd;
    for (StringRef A : Argv)
      Cmd += A.str() + " ";
    return createStringError(inconvertibleErrorCode(), "%s failed (%d %s): %s",
                             Cmd.c_str(), RC, Msg.c_str(),
                             Err ? (*Err)->getBuffer().str().c_str() : "");
  }
  return Error::success();
}

struct Built {
  std::string PrepBC, Elf;
};

/// clang -> prepare (private globals get symbols) -> llc -> avr-gcc.
Expected<Built> buildForAVR(const std::string &Src, const std::string &OptLevel = "-O1") {
  std::string Tools = WSN_LLVM_TOOLS_DIR;
  SmallString<256> Work(WSN_TEST_WORK_DIR);
  sys::path::append(Work, sys::path::stem(Src) + OptLevel);
  sys::fs::create_directories(Work);
  auto P = [&](StringRef Ext) {
    SmallString<256> S(Work);
    sys::path::append(S, sys::path::stem(Src) + Ext);
    return std::string(S);
  };
  Built B{P(".prep.bc"), P(".elf")};
  if (Error E = run(Tools + "/clang", {"--target=avr", "-mmcu=atmega128", OptLevel, "-g",
                                       "-emit-llvm", "-c", Src, "-o", P(".bc")}))
    return std::move(E);
  LLVMContext Ctx;
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseIRFile(P(".bc"), Diag, Ctx);
  if (!M)
    return createStringError(inconvertibleErrorCode(), "cannot read %s",
                             P(".bc").c_str());
  wsn::exposePrivateGlobals(*M);
  {
    std::error_code EC;
    raw_fd_ostream OS(B.PrepBC, EC);
    if (EC)
      return createStringError(EC, "cannot write %s", B.PrepBC.c_str());
    WriteBitcodeToFile(*M, OS);
  }
  if (Error E = run(Tools + "/llc", {"-mtriple=avr", "-mcpu=atmega128", "-filetype=obj",
                                     B.PrepBC, "-o", P(".o")}))
    return std::move(E);
  if (Error E = run(WSN_AVR_GCC, {"-mmcu=atmega128", P(".o"), "-o", B.Elf}))
    return std::move(E);
  return B;
}

class PlainExample : public ::testing::TestWithParam<std::string> {};
void checkAgainstSimavr(const std::string &Src, const std::string &Opt);

TEST_P(PlainExample, ReplayMemoryMatchesSimavr) {
  const std::string &Src = GetParam();
  for (const char *Opt : {"-O1", "-O0", "-Os"})
    checkAgainstSimavr(Src, Opt);
}

void checkAgainstSimavr(const std::string &Src, const std::string &Opt) {
  SCOPED_TRACE(Src + " " + Opt);
  auto B = buildForAVR(Src, Opt);
  ASSERT_TRUE(bool(B)) << toString(B.takeError());

  auto Sim = wsn::runSimavrToMarker(B->Elf, "atmega128", "done");
  ASSERT_TRUE(bool(Sim)) << toString(Sim.takeError());

  wsn::ReplayLoweringOptions LO;
  LO.ElfPath = B->Elf;
  LO.StopAt = "done";
  LO.RequireElfPlacement = true;
  auto Runner = wsn::loadForReplay(B->PrepBC, LO);
  ASSERT_TRUE(bool(Runner)) << toString(Runner.takeError());
  auto Out = (*Runner)->run();
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  ASSERT_EQ(Out->Reason, wsn::ReplayStop::Marker) << Out->Message;

  const wsn::ReplayLoweringResult &Info = (*Runner)->info();
  unsigned Compared = 0;
  for (const wsn::ReplayGlobal &G : Info.Globals) {
    EXPECT_TRUE(G.FromElf) << G.Name << " not placed from the ELF";
    Compared += G.FromElf;
  }
  EXPECT_GE(Compared, 3u) << "an example should have several globals to compare";
  wsn::CompareSummary Sum = wsn::compareGlobals(Info, (*Runner)->memory(), Sim->Data);
  EXPECT_EQ(Sum.Compared, Compared);
  for (const wsn::GlobalMismatch &M : Sum.Mismatches)
    ADD_FAILURE() << Src << ": " << wsn::describeMismatch(M);

  // The oracle is sensitive: a one-byte change of the snapshot in any global
  // is reported.
  std::vector<uint8_t> Tampered = Sim->Data;
  auto GI = std::find_if(Info.Globals.begin(), Info.Globals.end(),
                         [](const wsn::ReplayGlobal &G) {
                           return G.PointerOffsets.empty() && G.Size > 0;
                         });
  ASSERT_NE(GI, Info.Globals.end());
  const wsn::ReplayGlobal &G = *GI;
  Tampered[G.Addr] ^= 0x5A;
  auto Sum2 = wsn::compareGlobals(Info, (*Runner)->memory(), Tampered);
  ASSERT_FALSE(Sum2.Mismatches.empty());
  EXPECT_EQ(Sum2.Mismatches.front().Name, G.Name);
}

// The same C lowered for the MSP430 (its own layout, no ELF: globals laid out
// in its RAM) must compute the same values: every global without pointers and
// of the same size on both targets holds the bytes simavr shows for the AVR.
TEST_P(PlainExample, MSP430ReplayComputesTheSameGlobals) {
  const std::string &Src = GetParam();
  auto B = buildForAVR(Src);
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  auto Sim = wsn::runSimavrToMarker(B->Elf, "atmega128", "done");
  ASSERT_TRUE(bool(Sim)) << toString(Sim.takeError());
  wsn::ReplayLoweringOptions AL;
  AL.ElfPath = B->Elf;
  auto AVR = wsn::loadForReplay(B->PrepBC, AL);
  ASSERT_TRUE(bool(AVR)) << toString(AVR.takeError());

  SmallString<256> MspBC(WSN_TEST_WORK_DIR);
  sys::path::append(MspBC, sys::path::stem(Src) + ".msp430.bc");
  if (Error E = run(std::string(WSN_LLVM_TOOLS_DIR) + "/clang",
                    {"--target=msp430", "-mmcu=msp430f1611", "-O1", "-g", "-emit-llvm",
                     "-c", Src, "-o", std::string(MspBC)}))
    FAIL() << toString(std::move(E));
  wsn::ReplayLoweringOptions ML;
  ML.StopAt = "done";
  auto Msp = wsn::loadForReplay(MspBC, ML);
  ASSERT_TRUE(bool(Msp)) << toString(Msp.takeError());
  EXPECT_EQ((*Msp)->info().Target.MCU, "msp430f1611");
  auto Out = (*Msp)->run();
  ASSERT_TRUE(bool(Out));
  ASSERT_EQ(Out->Reason, wsn::ReplayStop::Marker) << Out->Message;

  // A source line "wsn-replay-layout-dependent: a b" names globals whose
  // bytes legitimately depend on the target layout (raw copies of structs).
  std::vector<std::string> LayoutDependent;
  if (auto Text = MemoryBuffer::getFile(Src)) {
    StringRef T = (*Text)->getBuffer();
    size_t P = T.find("wsn-replay-layout-dependent:");
    if (P != StringRef::npos) {
      StringRef L = T.substr(P).split('\n').first.split(':').second;
      SmallVector<StringRef, 4> Names;
      L.split(Names, ' ', -1, false);
      for (StringRef N : Names)
        if (!N.trim().empty() && N.trim() != "*/")
          LayoutDependent.push_back(N.trim().str());
    }
  }
  unsigned Compared = 0;
  for (const wsn::ReplayGlobal &MG : (*Msp)->info().Globals) {
    if (llvm::is_contained(LayoutDependent, MG.Name))
      continue;
    auto AG = std::find_if((*AVR)->info().Globals.begin(), (*AVR)->info().Globals.end(),
                           [&](const wsn::ReplayGlobal &G) { return G.Name == MG.Name; });
    if (AG == (*AVR)->info().Globals.end() || AG->Size != MG.Size ||
        !AG->PointerOffsets.empty() || !MG.PointerOffsets.empty())
      continue;
    ++Compared;
    ArrayRef<uint8_t> Want = ArrayRef<uint8_t>(Sim->Data).slice(AG->Addr, AG->Size);
    ArrayRef<uint8_t> Got = (*Msp)->memory().slice(MG.Addr, MG.Size);
    EXPECT_EQ(Want, Got) << Src << ": global " << MG.Name;
  }
  EXPECT_GE(Compared, 2u);
}

INSTANTIATE_TEST_SUITE_P(Examples, PlainExample, ::testing::ValuesIn(plainExamples()),
                         [](const ::testing::TestParamInfo<std::string> &I) {
                           std::string N = sys::path::stem(I.param).str();
                           std::replace_if(N.begin(), N.end(),
                                           [](char C) { return !isalnum(C); }, '_');
                           return N;
                         });

TEST(PlainExamples, AtLeastFourPrograms) { EXPECT_GE(plainExamples().size(), 4u); }

} // namespace
