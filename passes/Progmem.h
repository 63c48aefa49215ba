//===- Progmem.h - AVR program-memory data placed in flash ------*- C++ -*-===//
//
// See Progmem.cpp: globals tagged __progmem__ (through wsn-cc's
// -D__progmem__=btf_decl_tag("wsn.progmem")) get section .progmem.data.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_PROGMEM_H
#define WSN_PASSES_PROGMEM_H

#include "llvm/IR/PassManager.h"

namespace llvm {
class GlobalVariable;
class Module;
} // namespace llvm

namespace wsn {

/// The btf_decl_tag value wsn-cc maps __progmem__ to, and the section avr-gcc uses.
constexpr const char *ProgmemTag = "wsn.progmem";
constexpr const char *ProgmemSection = ".progmem.data";
/// The -D option wsn-cc passes to clang for AVR sources.
constexpr const char *ProgmemDefine = "-D__progmem__=btf_decl_tag(\"wsn.progmem\")";

/// GV's debug info says it was declared __progmem__ (directly or through a typedef).
bool isTaggedProgmem(const llvm::GlobalVariable &GV);
/// Gives every tagged global the section .progmem.data; returns how many changed.
unsigned placeProgmem(llvm::Module &M);

struct ProgmemPass : llvm::PassInfoMixin<ProgmemPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

} // namespace wsn

#endif
