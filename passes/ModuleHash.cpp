//===- ModuleHash.cpp - the instrumented module's identity hash -----------===//
#include "ModuleHash.h"

#include "TraceOps.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace wsn {

/// FNV-1a of either width: each byte xored in, then a multiply by the width's prime
/// (the unsigned type wraps, which is the modulus the algorithm wants).
template <typename Word, Word Prime> static Word fnv1a(StringRef Bytes, Word Seed) {
  Word H = Seed;
  for (unsigned char C : Bytes) {
    H ^= C;
    H *= Prime;
  }
  return H;
}

uint32_t fnv1a32(StringRef Bytes, uint32_t Seed) {
  return fnv1a<uint32_t, 0x01000193u>(Bytes, Seed);
}

uint64_t fnv1a64(StringRef Bytes, uint64_t Seed) {
  return fnv1a<uint64_t, 0x100000001b3ull>(Bytes, Seed);
}

/// Writes V into the stored hash fields that exist; returns the previous
/// `!wsn.module` tuple and `@__wsn_module_hash` initializer.
static std::pair<MDNode *, Constant *> setHashFields(Module &M, uint32_t V) {
  LLVMContext &Ctx = M.getContext();
  std::pair<MDNode *, Constant *> Old = {nullptr, nullptr};
  if (NamedMDNode *NMD = M.getNamedMetadata(TraceMetadata::ModuleNode)) {
    if (NMD->getNumOperands() == 1 &&
        NMD->getOperand(0)->getNumOperands() > 2) {
      Old.first = NMD->getOperand(0);
      SmallVector<Metadata *, 6> Ops(Old.first->op_begin(),
                                     Old.first->op_end());
      Ops[2] =
          ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(Ctx), V));
      NMD->setOperand(0, MDTuple::get(Ctx, Ops));
    }
  }
  if (GlobalVariable *GV = M.getGlobalVariable(ModuleHashGlobalName)) {
    if (GV->hasInitializer() && GV->getValueType()->isIntegerTy(32)) {
      Old.second = GV->getInitializer();
      GV->setInitializer(ConstantInt::get(Type::getInt32Ty(Ctx), V));
    }
  }
  return Old;
}

static void restoreHashFields(Module &M, std::pair<MDNode *, Constant *> Old) {
  if (Old.first)
    M.getNamedMetadata(TraceMetadata::ModuleNode)->setOperand(0, Old.first);
  if (Old.second)
    M.getGlobalVariable(ModuleHashGlobalName)->setInitializer(Old.second);
}

uint32_t hashModule(Module &M) {
  std::string Text;
  auto Old = setHashFields(M, 0);
  {
    raw_string_ostream OS(Text);
    M.print(OS, nullptr);
  }
  restoreHashFields(M, Old);
  StringRef T(Text);
  if (T.starts_with("; ModuleID"))
    T = T.split('\n').second;
  return fnv1a32(T);
}

Expected<uint32_t> computeModuleHash(Module &M) {
  if (!M.getNamedMetadata(TraceMetadata::ModuleNode))
    return createStringError(inconvertibleErrorCode(),
                             "computeModuleHash: module '%s' has no !wsn.module "
                             "record",
                             M.getModuleIdentifier().c_str());
  LLVMContext &Ctx = M.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  GlobalVariable *GV = M.getGlobalVariable(ModuleHashGlobalName);
  if (!GV) {
    GV = new GlobalVariable(M, I32, /*isConstant=*/true,
                            GlobalValue::ExternalLinkage,
                            ConstantInt::get(I32, 0), ModuleHashGlobalName);
  } else if (!GV->getValueType()->isIntegerTy(32) || !GV->isConstant()) {
    return createStringError(inconvertibleErrorCode(),
                             "@%s exists but is not a constant i32",
                             ModuleHashGlobalName.data());
  } else if (!GV->hasInitializer()) {
    GV->setInitializer(ConstantInt::get(I32, 0));
  }
  uint32_t H = hashModule(M);
  setHashFields(M, H);
  return H;
}

Error checkModuleHash(Module &M) {
  auto Info = TraceMetadata(M).moduleInfo();
  if (!Info)
    return Info.takeError();
  if (!*Info)
    return createStringError(inconvertibleErrorCode(),
                             "module '%s' has no !wsn.module record",
                             M.getModuleIdentifier().c_str());
  uint32_t Now = hashModule(M);
  if (Now != (*Info)->Hash)
    return createStringError(inconvertibleErrorCode(),
                             "module hash mismatch: stored 0x%08x, IR hashes "
                             "to 0x%08x (changed after instrumentation)",
                             (*Info)->Hash, Now);
  return Error::success();
}

} // namespace wsn
