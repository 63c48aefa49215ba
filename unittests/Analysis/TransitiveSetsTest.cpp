//===- TransitiveSetsTest.cpp - ModuleModel's transitive mod/ref sets ------===//
//
// ModuleModel computes the transitive mod and ref sets per call-graph
// component as bit sets, callee components first, and keeps them between
// queries. This test checks them against their definition (the union, over
// every function reachable through calls, of what its instructions may write
// or access) on random modules with call cycles, writes through pointers
// that the model cannot resolve, and queries in random order (so that later
// queries find part of the components already computed).
//
//===----------------------------------------------------------------------===//
#include "Slice.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <set>
#include <string>

using namespace llvm;

namespace {

// A module of N functions f0..f(N-1) over G globals: each function stores to
// one global and loads another; f_i calls a few f_j with j > i (a DAG), some
// call back to an earlier function (cycles), a few store through a pointer
// loaded from memory (unknown target) and one global is address-taken.
std::string randomModule(std::mt19937 &Rng, unsigned N, unsigned G) {
  auto pick = [&](unsigned K) { return (unsigned)(Rng() % K); };
  std::string S;
  for (unsigned I = 0; I < G; ++I)
    S += "@g" + std::to_string(I) + " = global i16 0\n";
  S += "@slot = global ptr @g0\n"; // takes g0's address
  for (unsigned I = 0; I < N; ++I) {
    S += "define void @f" + std::to_string(I) + "() {\n";
    S += "  %a = load i16, ptr @g" + std::to_string(pick(G)) + "\n";
    S += "  store i16 %a, ptr @g" + std::to_string(pick(G)) + "\n";
    if (pick(8) == 0) {
      S += "  %p = load ptr, ptr @slot\n";
      S += "  store i16 1, ptr %p\n";
    }
    unsigned Calls = pick(3);
    for (unsigned C = 0; C < Calls && I + 1 < N; ++C)
      S += "  call void @f" + std::to_string(I + 1 + pick(N - I - 1)) + "()\n";
    if (I > 0 && pick(6) == 0) // a call back: a recursive cycle
      S += "  call void @f" + std::to_string(pick(I)) + "()\n";
    S += "  ret void\n}\n";
  }
  return S;
}

struct Expected {
  std::set<const GlobalVariable *> Globals;
  bool Unknown = false;
};

// The definition: everything reachable from F through calls.
Expected direct(wsn::ModuleModel &MM, const Function *F, bool Mod) {
  Expected E;
  std::set<const Function *> Seen{F};
  std::vector<const Function *> Work{F};
  while (!Work.empty()) {
    const Function *X = Work.back();
    Work.pop_back();
    for (const Instruction &I : instructions(*X)) {
      wsn::ObjSet O;
      if (Mod) {
        MM.writes(I, O);
      } else {
        MM.reads(I, O);
        MM.writes(I, O);
      }
      E.Unknown |= O.Unknown;
      for (unsigned Id : O.Objs)
        if (const GlobalVariable *GV = MM.objectGlobal(Id))
          E.Globals.insert(GV);
    }
    for (const Function *C : MM.callees(X))
      if (!C->isDeclaration() && Seen.insert(C).second)
        Work.push_back(C);
  }
  return E;
}

TEST(AnalysisModel, TransitiveSetsMatchTheirDefinitionOnRandomModules) {
  std::mt19937 Rng(7);
  for (unsigned Round = 0; Round < 40; ++Round) {
    LLVMContext Ctx;
    SMDiagnostic Err;
    unsigned N = 5 + Rng() % 40, G = 1 + Rng() % 12;
    std::unique_ptr<Module> M =
        parseAssemblyString(randomModule(Rng, N, G), Err, Ctx);
    ASSERT_TRUE(M) << Err.getMessage().str();
    wsn::ModuleModel MM(*M);
    std::vector<const Function *> Fns;
    for (const Function &F : *M)
      Fns.push_back(&F);
    std::shuffle(Fns.begin(), Fns.end(), Rng);
    for (bool Mod : {true, false})
      for (const Function *F : Fns) {
        const wsn::GlobalSet &Got =
            Mod ? MM.transitiveMod(F) : MM.transitiveRef(F);
        Expected Want = direct(MM, F, Mod);
        std::set<const GlobalVariable *> GotGlobals;
        for (unsigned Id : Got.Ids)
          GotGlobals.insert(MM.objectGlobal(Id));
        EXPECT_EQ(GotGlobals, Want.Globals)
            << "round " << Round << (Mod ? " mod " : " ref ") << F->getName().str();
        EXPECT_EQ(Got.Unknown, Want.Unknown)
            << "round " << Round << (Mod ? " mod " : " ref ") << F->getName().str();
      }
  }
}

} // namespace
