//===- PeriphSymbols.cpp - MSP430 registers declared as linker symbols ----===//
#include "PeriphSymbols.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace wsncc {

static Error makeError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

Expected<PeriphSymbolMap> parsePeriphSymbols(StringRef Text, StringRef File) {
  PeriphSymbolMap Syms;
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  bool InComment = false;
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I].trim();
    auto Bad = [&](const Twine &Why) {
      return makeError(formatv("{0}:{1}: {2}: '{3}'", File, I + 1, Why, L).str());
    };
    if (InComment) {
      InComment = !L.contains("*/");
      continue;
    }
    if (L.empty() || L.starts_with("//"))
      continue;
    if (L.starts_with("/*")) {
      InComment = !L.contains("*/");
      continue;
    }
    // NAME = NUMBER;
    if (!L.consume_back(";"))
      return Bad("expected 'NAME = ADDRESS;'");
    auto [Name, Value] = L.split('=');
    Name = Name.trim();
    Value = Value.trim();
    if (Name.empty() || Value.empty() || !all_of(Name, [](char C) {
          return isAlnum(C) || C == '_';
        }))
      return Bad("expected 'NAME = ADDRESS;'");
    uint64_t Addr = 0;
    if (Value.getAsInteger(0, Addr))
      return Bad("the address is not a number");
    if (Addr > 0xFFFF)
      return Bad("the address is past the 16-bit address space");
    if (!Syms.try_emplace(Name, uint32_t(Addr)).second)
      return Bad(formatv("'{0}' is assigned twice", Name).str());
  }
  return std::move(Syms);
}

Expected<PeriphSymbolMap> readPeriphSymbols(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return makeError(Path + ": " + Buf.getError().message());
  return parsePeriphSymbols((*Buf)->getBuffer(), Path);
}

unsigned bindPeriphSymbols(Module &M, const PeriphSymbolMap &Syms) {
  SmallVector<std::pair<GlobalVariable *, uint32_t>, 32> Bound;
  for (GlobalVariable &G : M.globals()) {
    if (!G.isDeclaration())
      continue;
    // An asm label is the symbol itself; clang marks it with \1 where the target would
    // otherwise prefix the name.
    StringRef N = G.getName();
    N.consume_front("\1");
    auto It = Syms.find(N);
    if (It != Syms.end())
      Bound.push_back({&G, It->second});
  }
  IntegerType *IntPtr = M.getDataLayout().getIntPtrType(M.getContext());
  for (auto [G, Addr] : Bound) {
    G->replaceAllUsesWith(
        ConstantExpr::getIntToPtr(ConstantInt::get(IntPtr, Addr), G->getType()));
    G->eraseFromParent();
  }
  return Bound.size();
}

} // namespace wsncc
