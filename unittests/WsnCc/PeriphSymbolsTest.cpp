//===- PeriphSymbolsTest.cpp - periph.x and register binding ---------------===//
#include "PeriphSymbols.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace wsncc;

namespace {

std::string errorText(Error E) { return toString(std::move(E)); }

TEST(PeriphSymbols, ParsesAssignmentsAndComments) {
  auto S = parsePeriphSymbols("/* Port 1 */\n__P1IN = 0x0020;\n\n// word\n"
                              "  __TACTL   =   0x0160 ;\n__SEVEN = 7;\n",
                              "p.x");
  ASSERT_TRUE(bool(S)) << errorText(S.takeError());
  EXPECT_EQ(S->size(), 3u);
  EXPECT_EQ(S->lookup("__P1IN"), 0x20u);
  EXPECT_EQ(S->lookup("__TACTL"), 0x160u);
  EXPECT_EQ(S->lookup("__SEVEN"), 7u);
}

TEST(PeriphSymbols, MultiLineComment) {
  auto S = parsePeriphSymbols("/* one\n   two = 3;\n*/\n__ME1 = 0x0004;\n", "p.x");
  ASSERT_TRUE(bool(S)) << errorText(S.takeError());
  EXPECT_EQ(S->size(), 1u);
  EXPECT_EQ(S->lookup("__ME1"), 4u);
}

TEST(PeriphSymbols, ErrorsNameFileAndLine) {
  auto NoSemi = parsePeriphSymbols("__A = 0x10;\n__B = 0x11\n", "f1611/periph.x");
  ASSERT_FALSE(bool(NoSemi));
  EXPECT_EQ(errorText(NoSemi.takeError()),
            "f1611/periph.x:2: expected 'NAME = ADDRESS;': '__B = 0x11'");
  auto Far = parsePeriphSymbols("__A = 0x10000;\n", "p.x");
  ASSERT_FALSE(bool(Far));
  EXPECT_EQ(errorText(Far.takeError()),
            "p.x:1: the address is past the 16-bit address space: '__A = 0x10000'");
  auto NaN = parsePeriphSymbols("__A = P1;\n", "p.x");
  ASSERT_FALSE(bool(NaN));
  EXPECT_EQ(errorText(NaN.takeError()), "p.x:1: the address is not a number: '__A = P1'");
  auto Twice = parsePeriphSymbols("__A = 1;\n__A = 2;\n", "p.x");
  ASSERT_FALSE(bool(Twice));
  EXPECT_EQ(errorText(Twice.takeError()), "p.x:2: '__A' is assigned twice: '__A = 2'");
}

// The addresses msp430mcu's periph.x gives must be the user's guide's: SLAU049 (MSP430x1xx
// family), table 9-2 places P1IFG at 023h and P5OUT at 031h; chapter 11's register table
// TACTL at 0160h; chapter 10's WDTCTL at 0120h.
TEST(PeriphSymbols, F1611PeriphMatchesTheUsersGuide) {
  const char *Path = "/usr/msp430/lib/ldscripts/msp430f1611/periph.x";
  if (!sys::fs::exists(Path))
    GTEST_SKIP() << Path << " not installed (msp430mcu)";
  auto S = readPeriphSymbols(Path);
  ASSERT_TRUE(bool(S)) << errorText(S.takeError());
  EXPECT_EQ(S->lookup("__P1IFG"), 0x023u);
  EXPECT_EQ(S->lookup("__P5OUT"), 0x031u);
  EXPECT_EQ(S->lookup("__TACTL"), 0x160u);
  EXPECT_EQ(S->lookup("__WDTCTL"), 0x120u);
}

TEST(PeriphSymbols, BindsDeclaredRegistersOnly) {
  LLVMContext Ctx;
  SMDiagnostic Diag;
  // As clang emits `extern volatile unsigned char P1IFG __asm("__P1IFG")` (with and without
  // the \01 marker), a program variable that happens to carry a register's name, and an
  // ordinary extern.
  std::unique_ptr<Module> M = parseAssemblyString(R"IR(
target datalayout = "e-m:e-p:16:16-i32:16-i64:16-f32:16-f64:16-a:8-n8:16-S16"
target triple = "msp430"
@"\01__P1IFG" = external global i8
@__TACTL = external global i16
@__P5OUT = global i8 0
@other = external global i8
define void @f() {
  %a = load volatile i8, ptr @"\01__P1IFG"
  %b = and i8 %a, 1
  store volatile i8 %b, ptr @"\01__P1IFG"
  store volatile i16 528, ptr @__TACTL
  store volatile i8 %a, ptr @__P5OUT
  store volatile i8 %a, ptr @other
  ret void
}
)IR",
                                                  Diag, Ctx);
  ASSERT_TRUE(M) << Diag.getMessage().str();
  PeriphSymbolMap Syms;
  Syms["__P1IFG"] = 0x23;
  Syms["__TACTL"] = 0x160;
  Syms["__P5OUT"] = 0x31;
  EXPECT_EQ(bindPeriphSymbols(*M, Syms), 2u);
  EXPECT_FALSE(M->getGlobalVariable("\1__P1IFG"));
  EXPECT_FALSE(M->getGlobalVariable("__TACTL"));
  EXPECT_TRUE(M->getGlobalVariable("__P5OUT")); // defined by the program: left alone
  EXPECT_TRUE(M->getGlobalVariable("other"));

  auto AddressOf = [](const Value *Ptr) -> int64_t {
    if (auto *CE = dyn_cast<ConstantExpr>(Ptr))
      if (CE->getOpcode() == Instruction::IntToPtr)
        return cast<ConstantInt>(CE->getOperand(0))->getSExtValue();
    return -1;
  };
  std::vector<int64_t> Addrs;
  for (Instruction &I : M->getFunction("f")->getEntryBlock()) {
    if (auto *L = dyn_cast<LoadInst>(&I))
      Addrs.push_back(AddressOf(L->getPointerOperand()));
    if (auto *St = dyn_cast<StoreInst>(&I))
      Addrs.push_back(AddressOf(St->getPointerOperand()));
  }
  EXPECT_EQ(Addrs, (std::vector<int64_t>{0x23, 0x23, 0x160, -1, -1}));
  // Binding again finds nothing left to bind.
  EXPECT_EQ(bindPeriphSymbols(*M, Syms), 0u);
}

} // namespace
