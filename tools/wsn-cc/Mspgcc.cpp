//===- Mspgcc.cpp - the mspgcc dialect of TinyOS's MSP430 output ----------===//
#include "Mspgcc.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <map>

using namespace llvm;

namespace wsncc {

static Error makeError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

bool looksLikeMspgcc(StringRef Source) {
  // nesC's output starts with its own preamble; mspgcc code marks wake-up handlers.
  return Source.starts_with("#define nx_struct struct") ||
         Source.contains("__attribute((wakeup))") || Source.contains("__attribute__((wakeup))");
}

std::vector<std::string> mspgccClangFlags(StringRef IncludeDir) {
  SmallString<128> Header(IncludeDir);
  Header += "/wsn/mspgcc.h";
  return {"-include", std::string(Header), "-Dwakeup=annotate(\"wsn.wakeup\")",
          // mspgcc accepted what clang calls GNU extensions only under this flag (casts as
          // asm lvalues and the like).
          "-Xclang", "-fheinous-gnu-extensions", "-Wno-unknown-attributes"};
}

/// Globals the wakeup annotation names, removed from llvm.global.annotations.
static SmallVector<Function *, 8> takeWakeupAnnotations(Module &M) {
  SmallVector<Function *, 8> Found;
  GlobalVariable *GA = M.getGlobalVariable("llvm.global.annotations");
  if (!GA || !GA->hasInitializer())
    return Found;
  auto *Arr = dyn_cast<ConstantArray>(GA->getInitializer());
  if (!Arr)
    return Found;
  SmallVector<Constant *, 8> Keep;
  for (Use &U : Arr->operands()) {
    auto *E = dyn_cast<ConstantStruct>(U.get());
    bool IsWakeup = false;
    if (E && E->getNumOperands() >= 2) {
      auto *Str = dyn_cast<GlobalVariable>(E->getOperand(1)->stripPointerCasts());
      if (Str && Str->hasInitializer())
        if (auto *CDA = dyn_cast<ConstantDataArray>(Str->getInitializer()))
          IsWakeup = CDA->isCString() && CDA->getAsCString() == "wsn.wakeup";
      if (IsWakeup)
        if (auto *F = dyn_cast<Function>(E->getOperand(0)->stripPointerCasts()))
          Found.push_back(F);
    }
    if (!IsWakeup)
      Keep.push_back(cast<Constant>(U.get()));
  }
  if (Keep.size() == Arr->getNumOperands())
    return Found;
  if (Keep.empty()) {
    GA->eraseFromParent();
  } else {
    ArrayType *T = ArrayType::get(Arr->getType()->getElementType(), Keep.size());
    auto *NewGA = new GlobalVariable(M, T, GA->isConstant(), GA->getLinkage(),
                                     ConstantArray::get(T, Keep), "", GA);
    NewGA->setSection(GA->getSection());
    NewGA->takeName(GA);
    GA->eraseFromParent();
  }
  return Found;
}

Error applyMspgccDialect(Module &M, const McuInfo &Mcu, StringRef File) {
  unsigned Slots = Mcu.VectorSlots;
  if (!Slots)
    return makeError(formatv("{0}: the mspgcc dialect needs an MSP430 MCU", File));
  unsigned TableStart = 0x10000 - 2 * Slots;
  for (Function &F : M) {
    if (F.isDeclaration() || !F.hasFnAttribute("interrupt"))
      continue;
    StringRef V = F.getFnAttribute("interrupt").getValueAsString();
    unsigned Offset = 0;
    if (V.getAsInteger(0, Offset))
      return makeError(formatv("{0}: interrupt({1}) on '{2}': not a number", File, V,
                               F.getName()));
    // mspgcc: the byte offset of the vector from the table's start (0xFFE0 on the F1xx,
    // 0xFFC0 on the F2xx); the last entry is reset, which crt0 owns.
    if (Offset % 2 || Offset >= 2 * Slots - 2)
      return makeError(formatv(
          "{0}: interrupt(0x{1:x-4}) on '{2}': not a vector of the {3} (mspgcc byte offsets "
          "from 0x{4:x-4}: even, 0x0000..0x{5:x-4}; 0x{6:x-4} is reset)",
          File, Offset, F.getName(), Mcu.Name, TableStart, 2 * Slots - 4, 2 * Slots - 2));
    unsigned Slot = 64 - Slots + Offset / 2;
    F.removeFnAttr("interrupt");
    F.addFnAttr("interrupt", utostr(Slot));
  }
  for (Function *F : takeWakeupAnnotations(M))
    if (F->hasFnAttribute("interrupt")) // mspgcc gives `wakeup` no meaning elsewhere either
      F->addFnAttr(WakeupAttr);

  // Registers named by a numeric asm label: `static volatile uint8_t X __asm("0x0070")`.
  SmallVector<GlobalVariable *, 8> Numeric;
  for (GlobalVariable &G : M.globals()) {
    StringRef N = G.getName();
    N.consume_front("\1");
    uint64_t Addr;
    if (N.empty() || !isDigit(N[0]) || N.getAsInteger(0, Addr))
      continue;
    if (Addr > 0xFFFF)
      return makeError(formatv("{0}: asm label \"{1}\" is past the 16-bit address space", File,
                               N));
    if (G.hasInitializer() && !G.getInitializer()->isNullValue())
      return makeError(formatv("{0}: asm label \"{1}\" names a register at a fixed address; it "
                               "cannot have an initial value",
                               File, N));
    Numeric.push_back(&G);
  }
  for (GlobalVariable *G : Numeric) {
    uint64_t Addr = 0;
    StringRef N = G->getName();
    N.consume_front("\1");
    N.getAsInteger(0, Addr);
    IntegerType *IntPtr = M.getDataLayout().getIntPtrType(M.getContext());
    G->replaceAllUsesWith(
        ConstantExpr::getIntToPtr(ConstantInt::get(IntPtr, Addr), G->getType()));
    G->eraseFromParent();
  }
  return Error::success();
}

Expected<unsigned> lowerWakeupHandlers(Module &M) {
  std::string Asm;
  raw_string_ostream OS(Asm);
  unsigned N = 0;
  for (Function &F : M) {
    if (F.isDeclaration() || !F.hasFnAttribute(WakeupAttr))
      continue;
    if (!F.hasFnAttribute("interrupt"))
      return makeError(formatv("'{0}' is marked wakeup but is no interrupt handler",
                               F.getName()));
    StringRef Slot = F.getFnAttribute("interrupt").getValueAsString();
    std::string Wrapper = ("__wsn_wakeup_" + F.getName()).str();
    // The handler becomes an ordinary function (it saves the callee-saved r4-r10 itself);
    // the entry saves the call-clobbered r11-r15 around the call. After the pops the SR that
    // the interrupt pushed is at 0(r1): clearing SCG1|SCG0|OSCOFF|CPUOFF there (0xF0, SLAU049
    // section 3.2.3) makes reti resume the interrupted code awake.
    F.removeFnAttr("interrupt");
    F.removeFnAttr(WakeupAttr);
    F.setCallingConv(CallingConv::C);
    F.addFnAttr(Attribute::NoInline);
    appendToUsed(M, {&F});
    OS << "\t.section\t.text." << Wrapper << ",\"ax\",@progbits\n"
       << "\t.p2align\t1\n"
       << "\t.type\t\"" << Wrapper << "\",@function\n"
       << "\"" << Wrapper << "\":\n"
       << "\tpush\tr15\n\tpush\tr14\n\tpush\tr13\n\tpush\tr12\n\tpush\tr11\n"
       << "\tcall\t#\"" << F.getName() << "\"\n"
       << "\tpop\tr11\n\tpop\tr12\n\tpop\tr13\n\tpop\tr14\n\tpop\tr15\n"
       << "\tbic\t#240, 0(r1)\n"
       << "\treti\n"
       << "\t.size\t\"" << Wrapper << "\", .-\"" << Wrapper << "\"\n"
       << "\t.section\t__interrupt_vector_" << Slot << ",\"ax\",@progbits\n"
       << "\t.short\t\"" << Wrapper << "\"\n"
       << "\t.text\n";
    ++N;
  }
  if (N)
    M.appendModuleInlineAsm(OS.str());
  return N;
}

std::vector<VectorEntry> interruptVectors(const Module &M) {
  std::vector<VectorEntry> V;
  for (const Function &F : M) {
    if (F.isDeclaration())
      continue;
    bool Wakeup = F.hasFnAttribute(WakeupAttr);
    if (!F.hasFnAttribute("interrupt"))
      continue;
    unsigned Slot = 0;
    if (F.getFnAttribute("interrupt").getValueAsString().getAsInteger(0, Slot))
      continue;
    V.push_back({Slot, Wakeup ? ("__wsn_wakeup_" + F.getName()).str() : F.getName().str()});
  }
  return V;
}

Error checkVectorTable(StringRef Elf, const McuInfo &Mcu, ArrayRef<VectorEntry> Want) {
  auto Bin = object::ObjectFile::createObjectFile(Elf);
  if (!Bin)
    return makeError(Elf + ": " + toString(Bin.takeError()));
  object::ObjectFile &Obj = *Bin->getBinary();
  std::map<std::string, uint64_t> Syms;
  for (const object::SymbolRef &S : Obj.symbols()) {
    Expected<StringRef> Name = S.getName();
    Expected<uint64_t> Addr = S.getAddress();
    if (Name && Addr)
      Syms[Name->str()] = *Addr;
    else {
      consumeError(Name.takeError());
      consumeError(Addr.takeError());
    }
  }
  // The vector table is the last 2 * VectorSlots bytes below 0x10000.
  uint64_t Start = 0x10000 - 2 * Mcu.VectorSlots;
  std::vector<uint8_t> Table(2 * Mcu.VectorSlots, 0);
  std::vector<bool> Have(Table.size(), false);
  for (const object::SectionRef &Sec : Obj.sections()) {
    uint64_t A = Sec.getAddress(), Sz = Sec.getSize();
    // Only what is loaded: debug sections sit at address 0 and can be larger than 64 KiB.
    if (!(object::ELFSectionRef(Sec).getFlags() & ELF::SHF_ALLOC))
      continue;
    if (!Sz || A + Sz <= Start || A >= 0x10000 || Sec.isBSS())
      continue;
    Expected<StringRef> Data = Sec.getContents();
    if (!Data) {
      consumeError(Data.takeError());
      continue;
    }
    for (uint64_t I = 0; I < Sz && I < Data->size(); ++I)
      if (A + I >= Start && A + I < 0x10000) {
        Table[A + I - Start] = uint8_t((*Data)[I]);
        Have[A + I - Start] = true;
      }
  }
  if (!Have[Table.size() - 1])
    return makeError(formatv("{0}: the image has no vector table at 0x{1:x-4}..0xffff", Elf,
                             Start));
  for (const VectorEntry &E : Want) {
    if (E.Slot < 64 - Mcu.VectorSlots || E.Slot > 62)
      return makeError(formatv("{0}: handler '{1}' uses vector slot {2}, which the {3} does "
                               "not have (slots {4}..62)",
                               Elf, E.Symbol, E.Slot, Mcu.Name, 64 - Mcu.VectorSlots));
    unsigned Off = 2 * (E.Slot - (64 - Mcu.VectorSlots));
    uint64_t Entry = Table[Off] | (uint64_t(Table[Off + 1]) << 8);
    auto It = Syms.find(E.Symbol);
    if (It == Syms.end())
      return makeError(formatv("{0}: interrupt handler '{1}' is not in the image (vector at "
                               "0x{2:x-4})",
                               Elf, E.Symbol, Start + Off));
    if (Entry != (It->second & 0xFFFF))
      return makeError(formatv("{0}: the vector at 0x{1:x-4} holds 0x{2:x-4}, not the handler "
                               "'{3}' at 0x{4:x-4}",
                               Elf, Start + Off, Entry, E.Symbol, It->second));
  }
  return Error::success();
}

Expected<std::unique_ptr<Module>> loadIRFile(StringRef Path, LLVMContext &Ctx) {
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseIRFile(Path, Diag, Ctx);
  if (!M) {
    std::string Msg;
    raw_string_ostream MS(Msg);
    Diag.print("wsn-cc", MS);
    return makeError(MS.str());
  }
  return std::move(M);
}

Error rewriteBitcodeFile(StringRef Path, function_ref<Error(Module &)> Fn) {
  LLVMContext Ctx;
  auto M = loadIRFile(Path, Ctx);
  if (!M)
    return M.takeError();
  if (Error E = Fn(**M))
    return E;
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (EC)
    return makeError(Path + ": " + EC.message());
  WriteBitcodeToFile(**M, OS);
  return Error::success();
}

} // namespace wsncc
