#include "PassRegistry.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

// The pass registry can be installed into an in-process PassBuilder and a
// module parses against the same LLVM the passes were built for.
TEST(Smoke, RegistryInstallsAndModuleParses) {
  llvm::LLVMContext Ctx;
  llvm::SMDiagnostic Err;
  auto M = llvm::parseAssemblyString("define i16 @main() { ret i16 0 }", Err, Ctx);
  ASSERT_TRUE(M);
  llvm::PassBuilder PB;
  wsn::registerAllPasses(PB);
  EXPECT_NE(M->getFunction("main"), nullptr);
}
