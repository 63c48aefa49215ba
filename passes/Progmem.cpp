//===- Progmem.cpp - AVR program-memory data placed in flash --------------===//
//
// avr-libc marks data for program memory with __attribute__((__progmem__)) (PROGMEM,
// PSTR, the prog_* / const_* typedefs TinyOS uses, e.g. McuSleepC's power-state table), and
// code reads it with `lpm` (pgm_read_byte). avr-gcc places such objects in section
// .progmem.data, which the linker puts in flash. clang ignores the attribute: the object
// lands in RAM while lpm reads flash, so even the untraced build reads garbage.
//
// wsn-cc compiles AVR sources with -D__progmem__=btf_decl_tag("wsn.progmem"): a tag clang
// accepts wherever avr-libc writes the attribute (variables and typedefs, where a section
// attribute would be an error and an address space breaks nesC's non-const declarations)
// and keeps in the debug info, of the variable or of a typedef in its type. This pass
// (`-passes=wsn-progmem`, right after linking) gives every global so tagged the section
// .progmem.data, as avr-gcc would, and with -wsn-progmem-strip-debug drops the debug info
// the tag needed when the user did not ask for it. spec/replay.md section 3 ("Program
// memory") says how replay reads such data.
//
//===----------------------------------------------------------------------===//
#include "Progmem.h"
#include "PassRegistry.h"

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<bool> StripDebug(
    "wsn-progmem-strip-debug",
    cl::desc("wsn-progmem: drop the debug info after placing program-memory data (wsn-cc "
             "compiles with -g to see the __progmem__ tags)"),
    cl::init(false));

namespace wsn {

static bool hasProgmemTag(const DINodeArray &A) {
  for (const Metadata *M : A) {
    auto *T = dyn_cast_or_null<MDNode>(M);
    if (!T || T->getNumOperands() != 2)
      continue;
    auto *K = dyn_cast<MDString>(T->getOperand(0));
    auto *V = dyn_cast<MDString>(T->getOperand(1));
    if (K && V && K->getString() == "btf_decl_tag" && V->getString() == ProgmemTag)
      return true;
  }
  return false;
}

/// The type or one of the typedefs it is built from (through arrays, const, volatile)
/// carries the tag.
static bool typeIsProgmem(const DIType *T) {
  for (unsigned Depth = 0; T && Depth < 32; ++Depth) {
    if (auto *D = dyn_cast<DIDerivedType>(T)) {
      if (D->getTag() == dwarf::DW_TAG_typedef && hasProgmemTag(D->getAnnotations()))
        return true;
      if (D->getTag() != dwarf::DW_TAG_typedef && D->getTag() != dwarf::DW_TAG_const_type &&
          D->getTag() != dwarf::DW_TAG_volatile_type)
        return false; // a pointer to program memory is itself in RAM
      T = D->getBaseType();
      continue;
    }
    if (auto *C = dyn_cast<DICompositeType>(T)) {
      if (C->getTag() != dwarf::DW_TAG_array_type)
        return false;
      T = C->getBaseType();
      continue;
    }
    return false;
  }
  return false;
}

bool isTaggedProgmem(const GlobalVariable &GV) {
  SmallVector<DIGlobalVariableExpression *, 1> DIs;
  GV.getDebugInfo(DIs);
  for (DIGlobalVariableExpression *E : DIs) {
    DIGlobalVariable *V = E->getVariable();
    if (V && (hasProgmemTag(V->getAnnotations()) || typeIsProgmem(V->getType())))
      return true;
  }
  return false;
}

unsigned placeProgmem(Module &M) {
  unsigned N = 0;
  for (GlobalVariable &GV : M.globals()) {
    if (GV.isDeclaration() || !isTaggedProgmem(GV))
      continue;
    if (GV.getSection() != ProgmemSection) {
      GV.setSection(ProgmemSection);
      ++N;
    }
  }
  return N;
}

PreservedAnalyses ProgmemPass::run(Module &M, ModuleAnalysisManager &) {
  unsigned N = placeProgmem(M);
  bool Stripped = StripDebug && StripDebugInfo(M);
  return (N || Stripped) ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void registerProgmemPasses(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "wsn-progmem")
          return false;
        MPM.addPass(ProgmemPass());
        return true;
      });
}

} // namespace wsn
