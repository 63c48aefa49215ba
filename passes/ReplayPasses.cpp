//===- ReplayPasses.cpp - registration of wsn-lower<replay>, wsn-replay-prepare ===//
#include "PassRegistry.h"
#include "ReplayLowering.h"

#include "llvm/Passes/PassBuilder.h"

using namespace llvm;

namespace {
/// Parses the parameters of `wsn-lower<replay;elf=F;mcu=M;stop-at=FN;
/// allow-untraced-io;require-elf;no-inline-log>`.
Expected<wsn::ReplayLoweringOptions> parseReplayParams(StringRef Params) {
  wsn::ReplayLoweringOptions O;
  SmallVector<StringRef, 6> Parts;
  Params.split(Parts, ';', -1, false);
  for (StringRef P : Parts) {
    auto [Key, Val] = P.split('=');
    if (Key == "elf")
      O.ElfPath = Val.str();
    else if (Key == "mcu")
      O.MCU = Val.str();
    else if (Key == "stop-at")
      O.StopAt = Val.str();
    else if (P == "allow-untraced-io")
      O.AllowUntracedIO = true;
    else if (P == "require-elf")
      O.RequireElfPlacement = true;
    else if (P == "no-inline-log")
      O.InlineLog = false;
    else
      return createStringError(inconvertibleErrorCode(),
                               "wsn-lower<replay>: unknown parameter '%s' "
                               "(expected elf=, mcu=, stop-at=, "
                               "allow-untraced-io, require-elf, no-inline-log)",
                               P.str().c_str());
  }
  return O;
}
} // namespace

void wsn::registerReplayPasses(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "wsn-replay-prepare") {
          MPM.addPass(ReplayPreparePass());
          return true;
        }
        if (!Name.consume_front("wsn-lower<replay") || !Name.consume_back(">"))
          return false;
        if (!Name.empty() && !Name.consume_front(";"))
          return false;
        Expected<ReplayLoweringOptions> O = parseReplayParams(Name);
        if (!O) {
          errs() << toString(O.takeError()) << "\n";
          return false;
        }
        MPM.addPass(ReplayLoweringPass(std::move(*O)));
        return true;
      });
}
