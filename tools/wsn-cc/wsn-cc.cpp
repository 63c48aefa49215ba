//===- wsn-cc.cpp - wsn-trace compiler driver (thin main) -----------------===//
#include "Driver.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  auto Report = [](llvm::Error E) {
    llvm::handleAllErrors(std::move(E), [](const llvm::ErrorInfoBase &EI) {
      llvm::WithColor::error(llvm::errs(), "wsn-cc") << EI.message() << "\n";
    });
    return 1;
  };
  auto Opts = wsncc::parseArgs(llvm::ArrayRef<const char *>(argv + 1, argv + argc));
  if (!Opts)
    return Report(Opts.takeError());
  if (Opts->Help) {
    wsncc::printHelp(llvm::outs());
    return 0;
  }
  if (llvm::Error E = wsncc::runDriver(*Opts, argv[0]))
    return Report(std::move(E));
  return 0;
}
