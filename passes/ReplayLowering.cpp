//===- ReplayLowering.cpp - wsn-lower<replay>: the mote memory model ------===//
//
// Thesis section 4.2: the replay program is the mote program, recompiled for
// the desktop, whose log-writing operations have become log-reading ones
// (processLOG). We do this on IR, and keep the mote's address space
// (DESIGN-BRIEF section 3, spec/replay.md):
//  - a host byte array (__wsn_mem) mirrors the data space; every global sits
//    at its firmware address;
//  - every pointer becomes a target-width integer (i16) offset into it; GEP
//    offsets, struct layouts and load/store sizes come from the mote
//    DataLayout, read before the module is retargeted to the host;
//  - allocas live in a replay stack inside mem, so the address of a local is
//    a mote address too;
//  - function pointers keep the mote code address; indirect calls dispatch
//    through a generated table;
//  - trace ops become calls to __wsn_replay_* callbacks (the engine);
//  - recognised inline asm becomes replay operations; the rest is an error.
//
// The new body of every function is built in a scratch module and then moved
// into the input module, replacing the mote definitions.
//
//===----------------------------------------------------------------------===//
#include "ReplayLowering.h"
#include "InputFunctions.h"
#include "MoteAsm.h"
#include "TraceMap.h"

#include <set>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <map>

using namespace llvm;

namespace wsn {

namespace {

std::string describeLoc(const Instruction *I) {
  std::string S;
  raw_string_ostream OS(S);
  if (const DebugLoc &DL = I->getDebugLoc()) {
    auto *Scope = cast<DIScope>(DL.getScope());
    OS << Scope->getFilename() << ":" << DL.getLine() << ":" << DL.getCol();
    OS << " (in " << I->getFunction()->getName() << ")";
  } else {
    OS << "function '" << I->getFunction()->getName() << "' (no debug location)";
  }
  return S;
}

std::string printValue(const Value *V) {
  std::string S;
  raw_string_ostream OS(S);
  V->print(OS);
  StringRef R = StringRef(S).trim();
  return R.size() > 160 ? (R.substr(0, 157) + "...").str() : R.str();
}

class Lowerer {
public:
  Lowerer(Module &M, const ReplayLoweringOptions &Opts, const MoteImage *Img,
          MoteTarget T)
      : M(M), Opts(Opts), Img(Img), T(std::move(T)), Ctx(M.getContext()),
        TDL(M.getDataLayout()),
        NM(std::make_unique<Module>("wsn.replay.scratch", Ctx)) {
    I8 = Type::getInt8Ty(Ctx);
    I16 = Type::getInt16Ty(Ctx);
    I32 = Type::getInt32Ty(Ctx);
    I64 = Type::getInt64Ty(Ctx);
    VoidTy = Type::getVoidTy(Ctx);
    HostPtr = PointerType::get(Ctx, 0);
  }

  Expected<ReplayLoweringResult> run();

private:
  Module &M;
  const ReplayLoweringOptions &Opts;
  const MoteImage *Img;
  MoteTarget T;
  LLVMContext &Ctx;
  DataLayout TDL; // the mote layout, kept after the module is retargeted
  std::unique_ptr<Module> NM;
  Type *I8, *I16, *I32, *I64, *VoidTy;
  PointerType *HostPtr;

  ReplayLoweringResult Result;
  std::vector<std::string> Errors;
  DenseMap<const GlobalVariable *, uint32_t> GAddr;
  /// Globals in AVR program memory (GAddr holds their flash address).
  SmallPtrSet<const GlobalVariable *, 8> InFlash;
  /// The flash image as a host constant (created at the first lpm), or null.
  GlobalVariable *FlashGV = nullptr;
  DenseMap<const Function *, uint32_t> FAddr;
  DenseMap<const Function *, Function *> NewFns;
  SetVector<const Function *> AddressTaken;
  DenseMap<Type *, Type *> TypeCache;
  GlobalVariable *MemGV = nullptr, *SPGV = nullptr, *SRGV = nullptr;
  uint32_t StackLimit = 0;

  // Per-function state.
  bool ModuleHasTraceOps = false;
  bool DeferUntracedIO = false;
  DenseSet<const BasicBlock *> BootBlocks;
  const Instruction *CurI = nullptr;
  DenseMap<const Value *, Value *> VMap;
  Value *SP0 = nullptr;
  BasicBlock *Prologue = nullptr;
  bool FrameUsed = false;
  bool InSkip = false;
  AllocaInst *StatusSaveSlot = nullptr; ///< the interrupted status (handlers)
  std::vector<std::pair<const PHINode *, PHINode *>> PendingPhis;
  DenseMap<const BasicBlock *, BasicBlock *> BBMap, BBEnd;
  StringMap<GlobalVariable *> LocStrings;
  Function *FnPtrFn = nullptr;

  Constant *locString(const Instruction *I);

  void error(const Instruction *I, const Twine &Msg) {
    Errors.push_back((I ? describeLoc(I) + ": " : std::string()) + Msg.str());
  }

  IntegerType *ptrIntTy(unsigned AS) {
    return IntegerType::get(Ctx, TDL.getPointerSizeInBits(AS));
  }
  Type *hostType(Type *Ty);
  FunctionType *hostFnType(FunctionType *FT);
  bool hasPointers(Type *Ty);

  Error placeGlobals();
  void placeFunctions();
  Constant *translateConstant(Constant *C);
  Constant *functionAddress(const Function *F);
  void serialize(Constant *C, std::vector<uint8_t> &Bytes, uint64_t Off);

  FunctionCallee callback(StringRef Name, Type *Ret, ArrayRef<Type *> Params,
                          bool NoReturn = false);
  GlobalVariable *CursorGV = nullptr;
  std::vector<Function *> FastHelpers;
  /// The inline consumer of callback Op (spec/replay-log.md section 2.7), a
  /// helper inlined into its callers once every function is lowered.
  Function *inlineHelper(const Twine &Name, FunctionType *FT);
  Function *fastHelper(StringRef Op);
  Function *regionDue();
  Function *ioPointerCheck();
  /// Address of the cursor field at byte Off (the cursor is declared on first use).
  Value *cursorField(IRBuilder<> &B, unsigned Off);
  Value *cursorLoad(IRBuilder<> &B, unsigned Off) {
    return B.CreateLoad(I32, cursorField(B, Off));
  }
  /// Address of the record table entry the cursor is at; N gets the index.
  Value *cursorRecord(IRBuilder<> &B, Value *&N);
  void inlineFastHelpers();
  Value *hostAddr(IRBuilder<> &B, Value *Addr);
  Value *flashByte(IRBuilder<> &B, const CallBase &CB, Value *Z);
  Value *toAddr(IRBuilder<> &B, Value *V) { // any int -> i16 mote address
    return B.CreateZExtOrTrunc(V, I16);
  }
  Value *loadValue(IRBuilder<> &B, Type *MoteTy, Value *Addr, bool Volatile);
  void storeValue(IRBuilder<> &B, Value *V, Type *MoteTy, Value *Addr,
                  bool Volatile);
  Value *mapValue(Value *V);

  void lowerFunction(Function &F);
  void lowerInstruction(IRBuilder<> &B, Instruction &I);
  void lowerCall(IRBuilder<> &B, CallBase &CB);
  bool lowerIntrinsic(IRBuilder<> &B, CallBase &CB, Function *Callee);
  /// --gdb (FramePointers): a mote local's debug location in the lowered
  /// code (a dbg.value of the lowered value; a declared variable lives in
  /// the replay memory at its mote address).
  void lowerDebugVariable(IRBuilder<> &B, Value *Loc, DILocalVariable *Var,
                          DIExpression *Expr, const DILocation *DL, bool Declare);
  /// --gdb: the mote globals' debug info located in @__wsn_mem.
  void locateGlobalsForDebugger();
  void lowerTraceOp(IRBuilder<> &B, CallBase &CB, StringRef Name);
  void lowerLibcCall(IRBuilder<> &B, CallBase &CB, Function *Callee);
  void lowerInlineAsm(IRBuilder<> &B, CallBase &CB);
  bool parseAsm(const CallBase &CB, std::vector<AsmStmt> &Out);
  void enterHandlerStatus(IRBuilder<> &B, const Function &F);
  void leaveHandlerStatus(IRBuilder<> &B);
  AllocaInst *statusSaveSlot();
  Value *statusCell(IRBuilder<> &B); // host pointer to SREG / SR model
  void checkNondetLoad(IRBuilder<> &B, LoadInst &LI, Value *Addr);
  Value *dynamicAlloc(IRBuilder<> &B, Value *Size, Align A);
  void watchStore(IRBuilder<> &B, Value *Addr, Value *Size);
  /// WatchStores: the sources of the value the next watched store writes
  /// (spec/replay.md section 7.1, "Store sources"): `__wsn_replay_store_src(addr, size, flags)`.
  void watchSource(IRBuilder<> &B, Value *Addr, Value *Size, uint32_t Flags);
  void watchStoreSources(IRBuilder<> &B, StoreInst &SI);
  void createFunctions();

  void buildFnPtrTable();
  void buildInitMemory();
  void replaceModuleContents();
};

// --- types ------------------------------------------------------------------

bool Lowerer::hasPointers(Type *Ty) {
  if (Ty->isPointerTy())
    return true;
  for (Type *Sub : Ty->subtypes())
    if (hasPointers(Sub))
      return true;
  return false;
}

Type *Lowerer::hostType(Type *Ty) {
  if (!hasPointers(Ty))
    return Ty;
  auto It = TypeCache.find(Ty);
  if (It != TypeCache.end())
    return It->second;
  Type *R = nullptr;
  if (auto *PT = dyn_cast<PointerType>(Ty)) {
    R = ptrIntTy(PT->getAddressSpace());
  } else if (auto *ST = dyn_cast<StructType>(Ty)) {
    SmallVector<Type *, 8> Elts;
    for (Type *E : ST->elements())
      Elts.push_back(hostType(E));
    R = StructType::get(Ctx, Elts, ST->isPacked());
  } else if (auto *AT = dyn_cast<ArrayType>(Ty)) {
    R = ArrayType::get(hostType(AT->getElementType()), AT->getNumElements());
  } else if (auto *VT = dyn_cast<FixedVectorType>(Ty)) {
    R = FixedVectorType::get(hostType(VT->getElementType()), VT->getNumElements());
  } else if (auto *FT = dyn_cast<FunctionType>(Ty)) {
    R = hostFnType(FT);
  } else {
    R = Ty;
  }
  TypeCache[Ty] = R;
  return R;
}

FunctionType *Lowerer::hostFnType(FunctionType *FT) {
  SmallVector<Type *, 8> Params;
  for (Type *P : FT->params())
    Params.push_back(hostType(P));
  return FunctionType::get(hostType(FT->getReturnType()), Params, FT->isVarArg());
}

// --- placement --------------------------------------------------------------

static void collectPointerOffsets(const DataLayout &DL, Type *Ty, uint64_t Off,
                                  std::vector<uint32_t> &Out) {
  if (Out.size() > 4096)
    return;
  if (auto *PT = dyn_cast<PointerType>(Ty)) {
    if (PT->getAddressSpace() == 0)
      Out.push_back(uint32_t(Off));
  } else if (auto *ST = dyn_cast<StructType>(Ty)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned I = 0, E = ST->getNumElements(); I != E; ++I)
      collectPointerOffsets(DL, ST->getElementType(I), Off + SL->getElementOffset(I), Out);
  } else if (auto *AT = dyn_cast<ArrayType>(Ty)) {
    uint64_t Stride = DL.getTypeAllocSize(AT->getElementType());
    for (uint64_t I = 0, E = AT->getNumElements(); I != E; ++I)
      collectPointerOffsets(DL, AT->getElementType(), Off + I * Stride, Out);
  }
}

static bool isLLVMSpecialGlobal(const GlobalVariable &GV) {
  return GV.getName().starts_with("llvm.");
}

Error Lowerer::placeGlobals() {
  // Globals keep their firmware addresses; without an image they are laid out
  // from the start of SRAM like a linker would (in module order).
  uint32_t Free = T.RamBegin;
  bool HaveImage = Img != nullptr;
  if (HaveImage)
    Free = std::max<uint32_t>(T.RamBegin, Img->DataEnd);
  std::vector<const GlobalVariable *> Late;
  for (GlobalVariable &GV : M.globals()) {
    if (isLLVMSpecialGlobal(GV)) {
      if (GV.getName() == "llvm.global_ctors" || GV.getName() == "llvm.global_dtors") {
        if (auto *CA = dyn_cast_or_null<ConstantArray>(
                GV.hasInitializer() ? GV.getInitializer() : nullptr))
          if (CA->getNumOperands() != 0)
            Errors.push_back("global '" + GV.getName().str() +
                             "': module constructors/destructors are not "
                             "supported by replay");
      }
      continue;
    }
    uint64_t Size = TDL.getTypeAllocSize(GV.getValueType());
    if (std::optional<uint32_t> A = parseLatchSymbolName(GV.getName())) {
      // A latch register named in checkpoints and effects: its I/O cell.
      GAddr[&GV] = *A;
      Result.Globals.push_back({GV.getName().str(), *A, uint32_t(Size), false, false});
      continue;
    }
    if (GV.getAddressSpace() != 0) {
      // AVR PROGMEM / __flash data is in program memory, not the data space.
      // It is an error only if the replayed code touches it (translateConstant).
      continue;
    }
    if (GV.hasSection() && GV.getSection() == "llvm.metadata") {
      // Annotation strings (WSN_INVARIANT's llvm.global.annotations entries) are
      // never emitted by the backend, so they have no firmware address. Like
      // program memory, they are an error only if the replayed code touches them.
      continue;
    }
    if (HaveImage) {
      auto It = Img->Data.find(GV.getName());
      if (It != Img->Data.end()) {
        if (It->second.Size != 0 && It->second.Size != Size)
          Errors.push_back("global '" + GV.getName().str() + "': " +
                           std::to_string(Size) + " bytes in the IR but " +
                           std::to_string(It->second.Size) + " bytes in " +
                           Img->Path + " (is the ELF built from this IR?)");
        GAddr[&GV] = uint32_t(It->second.Addr);
        Result.Globals.push_back({GV.getName().str(), uint32_t(It->second.Addr),
                                  uint32_t(Size), true, GV.isConstant()});
        if (It->second.InRam) // a flash constant (MSP430 .rodata) takes no RAM
          StackLimit = std::max<uint32_t>(StackLimit, It->second.Addr + Size);
        continue;
      }
      auto PIt = Img->Progmem.find(GV.getName());
      if (PIt != Img->Progmem.end()) {
        // Program memory (PROGMEM, .progmem.data): its address is a flash address. Code
        // reads it with lpm (from the flash image); a plain load reads the data space at
        // that address, as on the mote. It takes no replay RAM and is not initialised there.
        GAddr[&GV] = uint32_t(PIt->second.Addr);
        InFlash.insert(&GV);
        continue;
      }
      if (GV.isDeclaration()) {
        // A register declared by name (mspgcc: `extern volatile uint8_t P1IFG
        // asm("__P1IFG")`), placed by an absolute symbol of the image: its address.
        auto AIt = Img->Absolute.find(GV.getName());
        if (AIt != Img->Absolute.end()) {
          GAddr[&GV] = uint32_t(AIt->second.Addr);
          continue;
        }
        Errors.push_back("external global '" + GV.getName().str() +
                         "' is neither defined in the module nor in " + Img->Path);
        continue;
      }
      if (Opts.RequireElfPlacement) {
        Errors.push_back("global '" + GV.getName().str() + "' has no symbol in " +
                         Img->Path + " (private globals need wsn-replay-prepare "
                         "before llc)");
        continue;
      }
      Late.push_back(&GV);
      continue;
    }
    if (GV.isDeclaration()) {
      Errors.push_back("external global '" + GV.getName().str() +
                       "' is not defined in the module and no firmware ELF "
                       "was given to place it");
      continue;
    }
    Late.push_back(&GV);
  }
  for (const GlobalVariable *GV : Late) {
    uint64_t Size = TDL.getTypeAllocSize(GV->getValueType());
    uint64_t A = alignTo(Free, TDL.getPreferredAlign(GV).value());
    if (A + Size > T.RamEnd)
      return createStringError(inconvertibleErrorCode(),
                               "global '%s' (%u bytes) does not fit in the "
                               "RAM of %s",
                               GV->getName().str().c_str(), unsigned(Size),
                               T.MCU.c_str());
    GAddr[GV] = uint32_t(A);
    Result.Globals.push_back({GV->getName().str(), uint32_t(A), uint32_t(Size),
                              false, GV->isConstant()});
    if (HaveImage)
      Result.Warnings.push_back("global '" + GV->getName().str() +
                                "' is not in the firmware image; placed at 0x" +
                                utohexstr(A) + " in free RAM");
    Free = uint32_t(A + Size);
    StackLimit = std::max<uint32_t>(StackLimit, Free);
  }
  StackLimit = std::max(StackLimit, T.RamBegin);
  for (ReplayGlobal &RG : Result.Globals)
    if (const GlobalVariable *GV = M.getNamedGlobal(RG.Name))
    {
      collectPointerOffsets(TDL, GV->getValueType(), 0, RG.PointerOffsets);
      collectPaddingOffsets(TDL, GV->getValueType(), 0, RG.PaddingOffsets);
    }
  Result.StackTop = (Img && Img->StackTop) ? *Img->StackTop : T.StackTop;
  Result.StackLimit = StackLimit;
  if (Result.StackTop <= StackLimit)
    return createStringError(inconvertibleErrorCode(),
                             "no room for the replay stack: globals end at "
                             "0x%x, stack top 0x%x",
                             StackLimit, Result.StackTop);
  return Error::success();
}

void Lowerer::placeFunctions() {
  // Mote code addresses (pointer values: AVR pointers hold word addresses).
  // Functions absent from the image get synthetic addresses from 0x7F00 up
  // (documented in spec/replay.md); they are only consistent within replay.
  uint32_t Synthetic = 0x7F00;
  for (Function &F : M) {
    if (F.isIntrinsic())
      continue;
    if (Img) {
      auto It = Img->Code.find(F.getName());
      if (It != Img->Code.end()) {
        FAddr[&F] = uint32_t(It->second.Addr >> T.CodePtrShift);
        continue;
      }
    }
    FAddr[&F] = Synthetic++;
  }
}

Constant *Lowerer::functionAddress(const Function *F) {
  AddressTaken.insert(F);
  unsigned Bits = TDL.getPointerSizeInBits(F->getAddressSpace());
  return ConstantInt::get(IntegerType::get(Ctx, Bits), FAddr.lookup(F));
}

Constant *Lowerer::translateConstant(Constant *C) {
  Type *HT = hostType(C->getType());
  if (auto *GV = dyn_cast<GlobalVariable>(C)) {
    auto It = GAddr.find(GV);
    if (It == GAddr.end()) {
      error(CurI, "global '" + GV->getName() + "' has no replay address" +
                      (GV->getAddressSpace() != 0
                           ? " (it lives in program memory, addrspace(" +
                                 Twine(GV->getAddressSpace()) +
                                 "), which replay does not model)"
                           : Twine("")));
      return ConstantInt::get(HT, 0);
    }
    return ConstantInt::get(HT, It->second);
  }
  if (auto *F = dyn_cast<Function>(C))
    return functionAddress(F);
  if (auto *GA = dyn_cast<GlobalAlias>(C))
    return translateConstant(GA->getAliasee());
  if (isa<ConstantPointerNull>(C))
    return ConstantInt::get(HT, 0);
  if (isa<PoisonValue>(C))
    return PoisonValue::get(HT);
  if (isa<UndefValue>(C))
    return UndefValue::get(HT);
  if (isa<ConstantAggregateZero>(C))
    return Constant::getNullValue(HT);
  if (!hasPointers(C->getType()) && isa<ConstantData>(C))
    return C;
  if (auto *CA = dyn_cast<ConstantAggregate>(C)) {
    SmallVector<Constant *, 8> Elts;
    for (Use &U : CA->operands())
      Elts.push_back(translateConstant(cast<Constant>(U.get())));
    if (auto *ST = dyn_cast<StructType>(HT))
      return ConstantStruct::get(ST, Elts);
    if (auto *AT = dyn_cast<ArrayType>(HT))
      return ConstantArray::get(AT, Elts);
    return ConstantVector::get(Elts);
  }
  if (auto *CDS = dyn_cast<ConstantDataSequential>(C))
    return CDS;
  if (auto *CE = dyn_cast<ConstantExpr>(C)) {
    switch (CE->getOpcode()) {
    case Instruction::GetElementPtr: {
      auto *GEP = cast<GEPOperator>(CE);
      unsigned Bits = TDL.getIndexSizeInBits(GEP->getPointerAddressSpace());
      APInt Off(Bits, 0);
      if (!GEP->accumulateConstantOffset(TDL, Off)) {
        error(CurI, "unsupported constant GEP: " + printValue(CE));
        return ConstantInt::get(HT, 0);
      }
      auto *Base = cast<ConstantInt>(
          translateConstant(cast<Constant>(GEP->getPointerOperand())));
      return ConstantInt::get(HT, Base->getValue() + Off.zextOrTrunc(Base->getBitWidth()));
    }
    case Instruction::BitCast:
    case Instruction::AddrSpaceCast:
    case Instruction::PtrToInt:
    case Instruction::IntToPtr:
    case Instruction::Trunc: {
      Constant *Op = translateConstant(CE->getOperand(0));
      if (auto *CI = dyn_cast<ConstantInt>(Op))
        if (HT->isIntegerTy())
          return ConstantInt::get(HT, CI->getValue().zextOrTrunc(HT->getIntegerBitWidth()));
      if (CE->getOpcode() == Instruction::BitCast)
        return ConstantExpr::getBitCast(Op, HT);
      break;
    }
    default:
      if (Instruction::isBinaryOp(CE->getOpcode())) {
        Constant *A = translateConstant(CE->getOperand(0));
        Constant *B = translateConstant(CE->getOperand(1));
        return ConstantExpr::get(CE->getOpcode(), A, B);
      }
      break;
    }
  }
  error(CurI, "unsupported constant: " + printValue(C));
  return Constant::getNullValue(HT);
}

void Lowerer::serialize(Constant *C, std::vector<uint8_t> &Bytes, uint64_t Off) {
  // Little-endian bytes of C in the mote layout (AVR, MSP430 are LE).
  Type *Ty = C->getType();
  auto PutAP = [&](APInt V, uint64_t N) {
    V = V.zextOrTrunc(unsigned(N * 8));
    for (uint64_t I = 0; I < N; ++I)
      Bytes[Off + I] = uint8_t(V.extractBitsAsZExtValue(8, unsigned(I * 8)));
  };
  if (isa<ConstantAggregateZero>(C) || isa<UndefValue>(C) ||
      isa<ConstantPointerNull>(C))
    return; // already zero
  uint64_t Store = TDL.getTypeStoreSize(Ty);
  if (auto *CI = dyn_cast<ConstantInt>(C))
    return PutAP(CI->getValue(), Store);
  if (auto *CF = dyn_cast<ConstantFP>(C))
    return PutAP(CF->getValueAPF().bitcastToAPInt(), Store);
  if (auto *CDS = dyn_cast<ConstantDataSequential>(C)) {
    uint64_t Stride = TDL.getTypeAllocSize(CDS->getElementType());
    for (unsigned I = 0, E = CDS->getNumElements(); I != E; ++I) {
      Constant *Elt = CDS->getElementAsConstant(I);
      serialize(Elt, Bytes, Off + I * Stride);
    }
    return;
  }
  if (auto *CA = dyn_cast<ConstantArray>(C)) {
    uint64_t Stride = TDL.getTypeAllocSize(CA->getType()->getElementType());
    for (unsigned I = 0, E = CA->getNumOperands(); I != E; ++I)
      serialize(CA->getOperand(I), Bytes, Off + I * Stride);
    return;
  }
  if (auto *CV = dyn_cast<ConstantVector>(C)) {
    uint64_t Stride = TDL.getTypeAllocSize(CV->getType()->getElementType());
    for (unsigned I = 0, E = CV->getNumOperands(); I != E; ++I)
      serialize(CV->getOperand(I), Bytes, Off + I * Stride);
    return;
  }
  if (auto *CS = dyn_cast<ConstantStruct>(C)) {
    const StructLayout *SL = TDL.getStructLayout(CS->getType());
    for (unsigned I = 0, E = CS->getNumOperands(); I != E; ++I)
      serialize(CS->getOperand(I), Bytes, Off + SL->getElementOffset(I));
    return;
  }
  // Addresses: globals, functions, constant expressions over them.
  Constant *H = translateConstant(C);
  if (auto *CI = dyn_cast<ConstantInt>(H))
    return PutAP(CI->getValue(), Store);
  error(CurI, "cannot lay out initializer constant " + printValue(C));
}

// --- helpers ----------------------------------------------------------------

FunctionCallee Lowerer::callback(StringRef Name, Type *Ret,
                                 ArrayRef<Type *> Params, bool NoReturn) {
  std::string Full = (Twine(replayabi::CallbackPrefix) + Name).str();
  FunctionCallee FC =
      NM->getOrInsertFunction(Full, FunctionType::get(Ret, Params, false));
  if (auto *F = dyn_cast<Function>(FC.getCallee())) {
    F->addFnAttr(Attribute::NoUnwind);
    if (NoReturn)
      F->addFnAttr(Attribute::NoReturn);
  }
  return FC;
}

Value *Lowerer::cursorField(IRBuilder<> &B, unsigned Off) {
  if (!CursorGV)
    CursorGV = new GlobalVariable(*NM, ArrayType::get(I8, sizeof(replayabi::ReplayCursor)),
                                  false, GlobalValue::ExternalLinkage, nullptr,
                                  replayabi::Cursor);
  return B.CreateConstInBoundsGEP1_32(I8, CursorGV, Off);
}

Value *Lowerer::cursorRecord(IRBuilder<> &B, Value *&N) {
  Value *Recs = B.CreateLoad(HostPtr, cursorField(B, replayabi::cursoroff::Recs));
  N = cursorLoad(B, replayabi::cursoroff::Next);
  return B.CreateInBoundsGEP(I8, Recs, B.CreateShl(B.CreateZExt(N, I64), 4));
}

Function *Lowerer::inlineHelper(const Twine &Name, FunctionType *FT) {
  // Built once per module, inlined at every use by inlineFastHelpers().
  Function *F = Function::Create(FT, GlobalValue::InternalLinkage, Name, NM.get());
  F->addFnAttr(Attribute::AlwaysInline);
  F->addFnAttr(Attribute::NoUnwind);
  FastHelpers.push_back(F);
  return F;
}

Function *Lowerer::fastHelper(StringRef Op) {
  using namespace replayabi;
  std::string Name = ("__wsn_inline_" + Op).str();
  if (Function *F = NM->getFunction(Name))
    return F;
  bool IsInput = Op == "input", IsAnchor = Op == "anchor", IsRegion = Op == "region_end";
  Type *Ret = IsInput ? (Type *)I64 : VoidTy;
  SmallVector<Type *, 3> Params;
  if (IsAnchor)
    Params = {I32, I32, HostPtr};
  else if (IsInput || IsRegion)
    Params = {I32, I32};
  else
    Params = {I32};
  Function *F = inlineHelper(Name, FunctionType::get(Ret, Params, false));
  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", F);
  BasicBlock *Fast = BasicBlock::Create(Ctx, "inline", F);
  // When the inline test fails: the op's callback, or for a count update the
  // shared due function (which may call it).
  BasicBlock *SlowBB = BasicBlock::Create(Ctx, IsRegion ? "due" : "callback", F);
  {
    IRBuilder<> SB(SlowBB);
    SmallVector<Value *, 3> Args;
    for (Argument &A : F->args())
      Args.push_back(&A);
    Value *V = IsRegion ? SB.CreateCall(regionDue(), Args)
                        : SB.CreateCall(callback(Op, Ret, Params), Args);
    if (IsInput)
      SB.CreateRet(V);
    else
      SB.CreateRetVoid();
  }
  IRBuilder<> B(Entry);
  if (IsRegion) {
    // wsn.region.end n: the count stays below the pending interrupt's.
    Value *C = B.CreateAdd(cursorLoad(B, cursoroff::Count), F->getArg(1));
    B.CreateCondBr(B.CreateICmpULT(C, cursorLoad(B, cursoroff::IrqAt)), Fast, SlowBB);
    IRBuilder<> FB(Fast);
    FB.CreateStore(C, cursorField(FB, cursoroff::Count));
    FB.CreateRetVoid();
    return F;
  }
  Value *N;
  Value *Rec = cursorRecord(B, N);
  auto RecField = [&](IRBuilder<> &IB, unsigned Off) -> Value * {
    return IB.CreateLoad(I32, IB.CreateConstInBoundsGEP1_32(I8, Rec, Off));
  };
  if (IsAnchor) {
    Value *Quiet = B.CreateAnd(RecField(B, 12), ConstantInt::get(I32, FastAnchorQuiet));
    B.CreateCondBr(B.CreateICmpNE(Quiet, ConstantInt::get(I32, 0)), Fast, SlowBB);
    IRBuilder<> FB(Fast);
    FB.CreateRetVoid();
    return F;
  }
  uint8_t Kind = Op == "func_entry" ? 0x01 : Op == "func_exit" ? 0x02
               : Op == "irq_entry"  ? 0x03 : Op == "irq_exit"  ? 0x04 : 0x07;
  Value *Want = B.CreateOr(ConstantInt::get(I32, fastKey(Kind, 0)), F->getArg(0));
  Value *Ok = B.CreateICmpEQ(RecField(B, 0), Want);
  Value *Depth = nullptr;
  if (Op == "irq_entry") {
    Depth = cursorLoad(B, cursoroff::Depth);
    Value *Count16 = B.CreateAnd(cursorLoad(B, cursoroff::Count), ConstantInt::get(I32, 0xFFFF));
    Ok = B.CreateAnd(Ok, B.CreateICmpEQ(RecField(B, 4), Count16));
    Ok = B.CreateAnd(Ok, B.CreateICmpULT(Depth, ConstantInt::get(I32, FastMaxDepth)));
  } else if (Op == "irq_exit") {
    Depth = cursorLoad(B, cursoroff::Depth);
    Ok = B.CreateAnd(Ok, B.CreateICmpNE(Depth, ConstantInt::get(I32, 0)));
  }
  B.CreateCondBr(Ok, Fast, SlowBB);
  IRBuilder<> FB(Fast);
  FB.CreateStore(FB.CreateAdd(N, ConstantInt::get(I32, 1)), cursorField(FB, cursoroff::Next));
  FB.CreateStore(RecField(FB, 8), cursorField(FB, cursoroff::IrqAt));
  auto SavedSlot = [&](Value *Idx) {
    return FB.CreateInBoundsGEP(
        I8, cursorField(FB, cursoroff::Saved),
        FB.CreateShl(FB.CreateZExt(Idx, I64), 2));
  };
  if (Op == "func_entry" || Op == "func_exit") {
    FB.CreateStore(ConstantInt::get(I32, 0), cursorField(FB, cursoroff::Count));
  } else if (Op == "irq_entry") {
    FB.CreateStore(cursorLoad(FB, cursoroff::Count), SavedSlot(Depth));
    FB.CreateStore(FB.CreateAdd(Depth, ConstantInt::get(I32, 1)), cursorField(FB, cursoroff::Depth));
    FB.CreateStore(ConstantInt::get(I32, 0), cursorField(FB, cursoroff::Count));
  } else if (Op == "irq_exit") {
    Value *D = FB.CreateSub(Depth, ConstantInt::get(I32, 1));
    FB.CreateStore(D, cursorField(FB, cursoroff::Depth));
    FB.CreateStore(FB.CreateLoad(I32, SavedSlot(D)), cursorField(FB, cursoroff::Count));
  }
  if (IsInput)
    FB.CreateRet(FB.CreateZExt(RecField(FB, 4), I64));
  else
    FB.CreateRetVoid();
  return F;
}

Function *Lowerer::regionDue() {
  using namespace replayabi;
  const char *Name = "__wsn_inline_region_due";
  if (Function *F = NM->getFunction(Name))
    return F;
  // A count update reached IrqAt (or IrqAt is 0: inline consumption is off).
  // When the new count is exactly the due interrupt's and the record allows
  // it, the handler runs now (section 2.7); otherwise the callback decides.
  FunctionCallee Slow = callback("region_end", VoidTy, {I32, I32});
  Function *F = Function::Create(FunctionType::get(VoidTy, {I32, I32}, false),
                                 GlobalValue::InternalLinkage, Name, NM.get());
  F->addFnAttr(Attribute::NoInline);
  F->addFnAttr(Attribute::NoUnwind);
  BasicBlock *Due = BasicBlock::Create(Ctx, "entry", F);
  BasicBlock *Lookup = BasicBlock::Create(Ctx, "lookup", F);
  BasicBlock *Call = BasicBlock::Create(Ctx, "call", F);
  BasicBlock *Unconsumed = BasicBlock::Create(Ctx, "unconsumed", F);
  BasicBlock *Done = BasicBlock::Create(Ctx, "done", F);
  BasicBlock *SlowBB = BasicBlock::Create(Ctx, "callback", F);
  IRBuilder<> SB(SlowBB);
  SB.CreateCall(Slow, {F->getArg(0), F->getArg(1)});
  SB.CreateRetVoid();
  IRBuilder<> DB(Due);
  Value *C = DB.CreateAdd(cursorLoad(DB, cursoroff::Count), F->getArg(1));
  Value *N;
  Value *Rec = cursorRecord(DB, N);
  Value *Flags = DB.CreateLoad(I32, DB.CreateConstInBoundsGEP1_32(I8, Rec, 12));
  Value *Irq = DB.CreateLShr(Flags, 8);
  Value *Can = DB.CreateAnd(
      DB.CreateICmpEQ(C, cursorLoad(DB, cursoroff::IrqAt)),
      DB.CreateICmpNE(DB.CreateAnd(Flags, ConstantInt::get(I32, FastIrqDispatch)),
                      ConstantInt::get(I32, 0)));
  Can = DB.CreateAnd(Can, DB.CreateICmpULT(Irq, cursorLoad(DB, cursoroff::NHandlers)));
  DB.CreateCondBr(Can, Lookup, SlowBB);
  IRBuilder<> LB(Lookup);
  Value *Tab = LB.CreateLoad(HostPtr, cursorField(LB, cursoroff::Handlers));
  Value *H = LB.CreateLoad(HostPtr, LB.CreateInBoundsGEP(HostPtr, Tab, LB.CreateZExt(Irq, I64)));
  LB.CreateCondBr(LB.CreateIsNotNull(H), Call, SlowBB);
  IRBuilder<> CB(Call);
  CB.CreateStore(C, cursorField(CB, cursoroff::Count));
  CB.CreateCall(FunctionType::get(VoidTy, false), H);
  // The handler's wsn.irq.entry consumes the IRQ record.
  Value *After = CB.CreateLoad(I32, cursorField(CB, cursoroff::Next));
  CB.CreateCondBr(CB.CreateICmpEQ(After, N), Unconsumed, Done);
  IRBuilder<> UB(Unconsumed);
  UB.CreateCall(callback("irq_unconsumed", VoidTy, {I32}), {Irq});
  UB.CreateRetVoid();
  IRBuilder<> EB(Done);
  EB.CreateRetVoid();
  return F;
}

Function *Lowerer::ioPointerCheck() {
  const char *Name = "__wsn_inline_io_pointer_check";
  if (Function *F = NM->getFunction(Name))
    return F;
  // (addr, size, loc): [addr, addr+size) overlaps [IOBegin, IOEnd) ->
  // the engine decides (latch registers and SREG read back what replay wrote).
  Function *F = inlineHelper(Name, FunctionType::get(VoidTy, {I32, I32, HostPtr}, false));
  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", F);
  BasicBlock *Check = BasicBlock::Create(Ctx, "io", F);
  BasicBlock *Done = BasicBlock::Create(Ctx, "done", F);
  IRBuilder<> B(Entry);
  Value *A = F->getArg(0);
  Value *In = B.CreateAnd(
      B.CreateICmpULT(A, ConstantInt::get(I32, T.IOEnd)),
      B.CreateICmpUGT(B.CreateAdd(A, F->getArg(1)), ConstantInt::get(I32, T.IOBegin)));
  B.CreateCondBr(In, Check, Done,
                 MDBuilder(Ctx).createBranchWeights(1, 1 << 20));
  IRBuilder<> CB(Check);
  CB.CreateCall(callback("io_pointer_read", VoidTy, {I32, I32, HostPtr}),
                {A, F->getArg(1), F->getArg(2)});
  CB.CreateBr(Done);
  IRBuilder<>(Done).CreateRetVoid();
  return F;
}

void Lowerer::inlineFastHelpers() {
  for (Function *F : FastHelpers) {
    SmallVector<CallBase *, 16> Calls;
    for (User *U : F->users())
      if (auto *CB = dyn_cast<CallBase>(U))
        Calls.push_back(CB);
    for (CallBase *CB : Calls) {
      InlineFunctionInfo IFI;
      InlineResult R = InlineFunction(*CB, IFI);
      if (!R.isSuccess())
        error(nullptr, "internal: cannot inline " + F->getName() + ": " +
                           R.getFailureReason());
    }
    if (F->use_empty())
      F->eraseFromParent();
  }
  FastHelpers.clear();
}

Value *Lowerer::hostAddr(IRBuilder<> &B, Value *Addr) {
  return B.CreateInBoundsGEP(I8, MemGV, {B.CreateZExt(Addr, I64)});
}

Value *Lowerer::loadValue(IRBuilder<> &B, Type *MoteTy, Value *Addr,
                          bool Volatile) {
  // Aggregates are assembled element by element at their mote offsets.
  if (auto *ST = dyn_cast<StructType>(MoteTy)) {
    const StructLayout *SL = TDL.getStructLayout(ST);
    Value *Agg = PoisonValue::get(hostType(ST));
    for (unsigned I = 0, E = ST->getNumElements(); I != E; ++I) {
      Value *EA = B.CreateAdd(Addr, ConstantInt::get(I16, SL->getElementOffset(I)));
      Agg = B.CreateInsertValue(Agg, loadValue(B, ST->getElementType(I), EA, Volatile), I);
    }
    return Agg;
  }
  if (auto *AT = dyn_cast<ArrayType>(MoteTy)) {
    uint64_t Stride = TDL.getTypeAllocSize(AT->getElementType());
    Value *Agg = PoisonValue::get(hostType(AT));
    for (unsigned I = 0, E = AT->getNumElements(); I != E; ++I) {
      Value *EA = B.CreateAdd(Addr, ConstantInt::get(I16, I * Stride));
      Agg = B.CreateInsertValue(Agg, loadValue(B, AT->getElementType(), EA, Volatile), I);
    }
    return Agg;
  }
  Type *HT = hostType(MoteTy);
  if (HT->isVectorTy() && TDL.getTypeAllocSize(MoteTy) != TDL.getTypeStoreSize(MoteTy))
    error(CurI, "vector load with padded elements is not supported");
  LoadInst *L = B.CreateAlignedLoad(HT, hostAddr(B, Addr), Align(1), Volatile);
  return L;
}

void Lowerer::storeValue(IRBuilder<> &B, Value *V, Type *MoteTy, Value *Addr,
                         bool Volatile) {
  if (auto *ST = dyn_cast<StructType>(MoteTy)) {
    const StructLayout *SL = TDL.getStructLayout(ST);
    for (unsigned I = 0, E = ST->getNumElements(); I != E; ++I) {
      Value *EA = B.CreateAdd(Addr, ConstantInt::get(I16, SL->getElementOffset(I)));
      storeValue(B, B.CreateExtractValue(V, I), ST->getElementType(I), EA, Volatile);
    }
    return;
  }
  if (auto *AT = dyn_cast<ArrayType>(MoteTy)) {
    uint64_t Stride = TDL.getTypeAllocSize(AT->getElementType());
    for (unsigned I = 0, E = AT->getNumElements(); I != E; ++I) {
      Value *EA = B.CreateAdd(Addr, ConstantInt::get(I16, I * Stride));
      storeValue(B, B.CreateExtractValue(V, I), AT->getElementType(), EA, Volatile);
    }
    return;
  }
  B.CreateAlignedStore(V, hostAddr(B, Addr), Align(1), Volatile);
}

Value *Lowerer::mapValue(Value *V) {
  if (auto *C = dyn_cast<Constant>(V))
    return translateConstant(C);
  if (isa<MetadataAsValue>(V) || isa<InlineAsm>(V))
    return V;
  auto It = VMap.find(V);
  if (It != VMap.end())
    return It->second;
  error(CurI, "internal: value used before its definition was lowered: " +
                  printValue(V));
  return PoisonValue::get(hostType(V->getType()));
}

Value *Lowerer::dynamicAlloc(IRBuilder<> &B, Value *Size, Align A) {
  // The engine moves the replay stack pointer down by Size (aligned) and
  // stops the replay with an error if it would run into the globals.
  Value *SP = B.CreateLoad(I16, SPGV, "wsn.sp");
  Value *New = B.CreateCall(callback("stack_alloc", I32, {I32, I32, I32}),
                            {B.CreateZExt(SP, I32), B.CreateZExtOrTrunc(Size, I32),
                             ConstantInt::get(I32, A.value())});
  Value *New16 = B.CreateTrunc(New, I16);
  B.CreateStore(New16, SPGV);
  return New16;
}


void Lowerer::watchStore(IRBuilder<> &B, Value *Addr, Value *Size) {
  // ReplayLoweringOptions::WatchStores: tell the engine which bytes the
  // current instruction is about to write (the REPL's `why`).
  if (!Opts.WatchStores)
    return;
  // "file:line:col in f", plus "(inlined into g)" when the store's scope is
  // another function than the one it was compiled into.
  std::string S = "<unknown location>";
  if (CurI) {
    S = describeLoc(CurI);
    if (const DebugLoc &DL = CurI->getDebugLoc()) {
      auto *Scope = cast<DIScope>(DL.getScope());
      StringRef Host = CurI->getFunction()->getName();
      std::string Fn = Host.str();
      if (auto *LS = dyn_cast<DILocalScope>(Scope))
        if (DISubprogram *SP = LS->getSubprogram())
          Fn = SP->getLinkageName().empty() ? SP->getName().str()
                                            : SP->getLinkageName().str();
      S = (Scope->getFilename() + ":" + Twine(DL.getLine()) + ":" + Twine(DL.getCol()) +
           " in " + Fn + (Fn != Host ? " (inlined into " + Host + ")" : Twine("")))
              .str();
    }
  }
  GlobalVariable *&GV = LocStrings[S];
  if (!GV) {
    Constant *Str = ConstantDataArray::getString(Ctx, S);
    GV = new GlobalVariable(*NM, Str->getType(), true, GlobalValue::PrivateLinkage,
                            Str, "wsn.loc");
  }
  B.CreateCall(callback("store", VoidTy, {I32, I32, HostPtr}),
               {B.CreateZExtOrTrunc(Addr, I32), B.CreateZExtOrTrunc(Size, I32), GV});
}

void Lowerer::watchSource(IRBuilder<> &B, Value *Addr, Value *Size, uint32_t Flags) {
  if (!Opts.WatchStores)
    return;
  B.CreateCall(callback("store_src", VoidTy, {I32, I32, I32}),
               {B.CreateZExtOrTrunc(Addr, I32), B.CreateZExtOrTrunc(Size, I32),
                ConstantInt::get(I32, Flags)});
}

/// The loads whose values reach a store's value operand through arithmetic,
/// casts, selects and GEPs within the function. Each such load dominates the
/// store (a definition dominates its uses), so its address is available where
/// the store is lowered. A phi, a call's result or an argument ends the walk
/// (Partial); a wsn.input's value is read from the trace (Input).
static void storedValueSources(Value *V, SmallVectorImpl<LoadInst *> &Loads, bool &Partial,
                               bool &Input) {
  SmallVector<Value *, 8> Work{V};
  SmallPtrSet<Value *, 16> Seen;
  while (!Work.empty()) {
    Value *X = Work.pop_back_val();
    if (!Seen.insert(X).second)
      continue;
    if (Seen.size() > 64) {
      Partial = true;
      return;
    }
    if (auto *LI = dyn_cast<LoadInst>(X)) {
      Loads.push_back(LI);
      continue;
    }
    if (isa<Constant>(X) || isa<AllocaInst>(X) || isa<MetadataAsValue>(X))
      continue;
    if (isa<Argument>(X) || isa<PHINode>(X)) {
      Partial = true;
      continue;
    }
    if (auto *CB = dyn_cast<CallBase>(X)) {
      Function *F = CB->getCalledFunction();
      if (F && F->getName().starts_with("wsn.input")) {
        Input = true;
        continue;
      }
      if (F && F->isIntrinsic() && !CB->mayReadOrWriteMemory()) {
        for (Value *Op : CB->args())
          Work.push_back(Op);
        continue;
      }
      Partial = true;
      continue;
    }
    if (auto *I = dyn_cast<Instruction>(X)) {
      for (Value *Op : I->operands())
        Work.push_back(Op);
      continue;
    }
    Partial = true;
  }
}

void Lowerer::watchStoreSources(IRBuilder<> &B, StoreInst &SI) {
  if (!Opts.WatchStores)
    return;
  SmallVector<LoadInst *, 4> Loads;
  bool Partial = false, Input = false;
  Value *V = SI.getValueOperand();
  storedValueSources(V, Loads, Partial, Input);
  uint64_t StoreSize = TDL.getTypeStoreSize(V->getType());
  for (LoadInst *LI : Loads) {
    if (LI->getPointerAddressSpace() != 0)
      continue;
    uint64_t Size = TDL.getTypeStoreSize(LI->getType());
    // A copy: the store writes exactly the bytes the load read.
    bool Copy = LI == V && Size == StoreSize;
    watchSource(B, mapValue(LI->getPointerOperand()), ConstantInt::get(I32, Size),
                Copy ? replayabi::SrcCopy : 0);
  }
  if (Partial || Input)
    watchSource(B, ConstantInt::get(I32, 0), ConstantInt::get(I32, 0),
                (Partial ? replayabi::SrcPartial : 0) | (Input ? replayabi::SrcInput : 0));
}

Constant *Lowerer::locString(const Instruction *I) {
  std::string S = I ? describeLoc(I) : std::string("<unknown location>");
  GlobalVariable *&GV = LocStrings[S];
  if (!GV) {
    Constant *Str = ConstantDataArray::getString(Ctx, S);
    GV = new GlobalVariable(*NM, Str->getType(), true, GlobalValue::PrivateLinkage,
                            Str, "wsn.loc");
  }
  return GV;
}

// --- functions --------------------------------------------------------------

void Lowerer::createFunctions() {
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (F.isVarArg()) {
      Errors.push_back("function '" + F.getName().str() +
                       "': variadic function definitions are not supported by "
                       "replay (va_list layout is target specific)");
      continue;
    }
    // A mote definition named like a function the host backend calls for
    // the lowered IR (memcpy for llvm.memcpy, ...) would capture those calls:
    // it gets a prefixed name in the host module.
    static const char *HostReserved[] = {"memcpy", "memmove", "memset", "memcmp",
                                         "bzero", "abort", "__wsn_mem"};
    std::string Name = F.getName().str();
    if (llvm::is_contained(ArrayRef<const char *>(HostReserved), F.getName()) ||
        F.getName().starts_with(replayabi::CallbackPrefix))
      Name = "__wsn_mote." + Name;
    Function *NF = Function::Create(hostFnType(F.getFunctionType()),
                                    F.getLinkage(), 0, Name, NM.get());
    NF->setVisibility(F.getVisibility());
    NF->addFnAttr(Attribute::NoUnwind);
    if (Opts.FramePointers)
      NF->addFnAttr("frame-pointer", "all");
    if (F.hasFnAttribute(Attribute::NoInline))
      NF->addFnAttr(Attribute::NoInline);
    if (F.hasFnAttribute(Attribute::NoReturn))
      NF->addFnAttr(Attribute::NoReturn);
    if (DISubprogram *SP = F.getSubprogram())
      NF->setSubprogram(SP);
    for (unsigned I = 0, E = F.arg_size(); I != E; ++I)
      NF->getArg(I)->setName(F.getArg(I)->getName());
    NewFns[&F] = NF;
  }
}

static bool isTraceOp(const Value *V, StringRef Prefix) {
  auto *CB = dyn_cast<CallBase>(V);
  if (!CB)
    return false;
  const Function *F = CB->getCalledFunction();
  return F && F->getName().starts_with(Prefix);
}

void Lowerer::lowerFunction(Function &F) {
  Function *NF = NewFns.lookup(&F);
  if (!NF)
    return;
  VMap.clear();
  BBMap.clear();
  BBEnd.clear();
  PendingPhis.clear();
  CurI = nullptr;
  StatusSaveSlot = nullptr;
  for (unsigned I = 0, E = F.arg_size(); I != E; ++I)
    VMap[F.getArg(I)] = NF->getArg(I);

  // In a program with trace ops, untraced I/O reads of functions without
  // any are run-time errors (see checkNondetLoad).
  DeferUntracedIO = false;
  if (ModuleHasTraceOps) {
    DeferUntracedIO = true;
    for (Instruction &I : instructions(F))
      if (isTraceOp(&I, "wsn.")) {
        DeferUntracedIO = false;
        break;
      }
  }
  // main's boot code: the blocks no anchor reaches (the instrumentation
  // records nothing there; spec/instrumentation.md, "Boot code").
  BootBlocks.clear();
  if (ModuleHasTraceOps && F.getName() == "main") {
    SmallVector<const BasicBlock *, 16> Work;
    DenseSet<const BasicBlock *> After;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (isTraceOp(&I, "wsn.anchor") && After.insert(&BB).second)
          Work.push_back(&BB);
    while (!Work.empty())
      for (const BasicBlock *S : successors(Work.pop_back_val()))
        if (After.insert(S).second)
          Work.push_back(S);
    if (!After.empty())
      for (BasicBlock &BB : F)
        if (!After.count(&BB))
          BootBlocks.insert(&BB);
  }
  Prologue = BasicBlock::Create(Ctx, "wsn.prologue", NF);
  ReversePostOrderTraversal<Function *> RPOT(&F);
  for (BasicBlock *BB : RPOT)
    BBMap[BB] = BasicBlock::Create(Ctx, BB->getName(), NF);

  IRBuilder<> PB(Prologue);
  if (F.getName() == Opts.StopAt && !Opts.StopAt.empty())
    PB.CreateCall(callback("stop", VoidTy, {HostPtr}),
                  {locString(&*F.getEntryBlock().getFirstNonPHIOrDbg())});

  // The frame of the static allocas, laid out with the mote's sizes and
  // alignments, allocated in one step on the replay stack.
  FrameUsed = false;
  uint64_t FrameSize = 0;
  Align MaxA(1);
  std::vector<std::pair<AllocaInst *, uint64_t>> Slots;
  for (Instruction &I : F.getEntryBlock())
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      if (AI->isStaticAlloca()) {
        uint64_t Size = TDL.getTypeAllocSize(AI->getAllocatedType()) *
                        cast<ConstantInt>(AI->getArraySize())->getZExtValue();
        FrameSize = alignTo(FrameSize, AI->getAlign());
        Slots.push_back({AI, FrameSize});
        FrameSize += std::max<uint64_t>(Size, 1);
        MaxA = std::max(MaxA, AI->getAlign());
      }
  bool NeedSP = FrameSize > 0;
  for (Instruction &I : instructions(F)) {
    if (isa<AllocaInst>(I))
      NeedSP = true;
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      for (unsigned A = 0; A < CB->arg_size(); ++A)
        if (CB->paramHasAttr(A, Attribute::ByVal))
          NeedSP = true;
      if (auto *II = dyn_cast<IntrinsicInst>(CB))
        if (II->getIntrinsicID() == Intrinsic::stacksave ||
            II->getIntrinsicID() == Intrinsic::stackrestore)
          NeedSP = true;
    }
  }
  SP0 = nullptr;
  if (NeedSP) {
    SP0 = PB.CreateLoad(I16, SPGV, "wsn.sp0");
    FrameUsed = true;
  }
  if (FrameSize > 0) {
    if (FrameSize > 0xFFFF) {
      error(Slots.front().first, "stack frame of " + Twine(FrameSize) +
                                     " bytes does not fit a 16-bit data space");
      FrameSize = 0xFFFF;
    }
    Value *Base = dynamicAlloc(PB, ConstantInt::get(I32, FrameSize), MaxA);
    Base->setName("wsn.frame");
    for (auto &[AI, Off] : Slots)
      VMap[AI] = PB.CreateAdd(Base, ConstantInt::get(I16, Off), AI->getName());
  }
  // Replay may start at an anchor (thesis 4.2: execution resumes from the
  // earliest checkpoint). The engine calls the anchor's function directly and
  // __wsn_replay_resume() returns that anchor's id once: the prologue then
  // jumps to the anchor's block (the loop header) after the frame is set up,
  // skipping the function's entry records, which precede the checkpoint. The
  // instrumentation demoted every value live into the loop to a stack slot
  // (spec/instrumentation.md), and the checkpoint restores those slots.
  SmallVector<std::pair<uint32_t, BasicBlock *>, 2> Resume;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (const Function *Callee = CB->getCalledFunction();
          Callee && Callee->getName() == "wsn.anchor" && CB->arg_size() >= 1) {
        auto *Id = dyn_cast<ConstantInt>(CB->getArgOperand(0));
        BasicBlock *BB = CB->getParent();
        if (!Id || !BBMap.count(BB))
          continue;
        if (isa<PHINode>(BB->front())) {
          error(CB, "cannot resume replay at anchor " + Twine(Id->getZExtValue()) +
                        ": its block has phis (values live into the loop were "
                        "not demoted to memory)");
          continue;
        }
        Resume.push_back({uint32_t(Id->getZExtValue()), BB});
      }
  if (Resume.empty()) {
    PB.CreateBr(BBMap[&F.getEntryBlock()]);
  } else {
    Value *R = PB.CreateCall(callback("resume", I32, {}), {}, "wsn.resume");
    SwitchInst *SW = PB.CreateSwitch(R, BBMap[&F.getEntryBlock()], Resume.size());
    std::set<uint32_t> Seen;
    for (auto &[Id, BB] : Resume)
      if (Seen.insert(Id).second)
        SW->addCase(ConstantInt::get(cast<IntegerType>(I32), Id), BBMap[BB]);
  }

  IRBuilder<> B(Ctx);
  for (BasicBlock *BB : RPOT) {
    B.SetInsertPoint(BBMap[BB]);
    InSkip = false;
    for (Instruction &I : *BB) {
      CurI = &I;
      B.SetCurrentDebugLocation(I.getDebugLoc());
      if (Opts.FramePointers)
        for (DbgVariableRecord &DVR : filterDbgVars(I.getDbgRecordRange()))
          if (DVR.getNumVariableLocationOps() == 1)
            lowerDebugVariable(B, DVR.getVariableLocationOp(0), DVR.getVariable(),
                               DVR.getExpression(), DVR.getDebugLoc().get(),
                               DVR.isDbgDeclare());
      lowerInstruction(B, I);
    }
    if (InSkip)
      error(BB->getTerminator(), "wsn.skip.begin without wsn.skip.end in the same block");
    BBEnd[BB] = B.GetInsertBlock();
  }
  for (auto &[Old, New] : PendingPhis) {
    CurI = Old;
    for (unsigned I = 0, E = Old->getNumIncomingValues(); I != E; ++I) {
      BasicBlock *In = Old->getIncomingBlock(I);
      if (!BBEnd.count(In))
        continue; // unreachable predecessor, dropped
      New->addIncoming(mapValue(Old->getIncomingValue(I)), BBEnd[In]);
    }
  }
}


void Lowerer::checkNondetLoad(IRBuilder<> &B, LoadInst &LI, Value *Addr) {
  // A function's own stack slot (the volatile result of WSN_CHECK) changes
  // only through the program's stores, which replay executes: no input.
  if (isa<AllocaInst>(getUnderlyingObject(LI.getPointerOperand())))
    return;
  auto *CA = dyn_cast<ConstantInt>(Addr);
  bool IO = CA && T.isIOAddress(CA->getZExtValue());
  if (!CA && !LI.isVolatile()) {
    // A plain read through a computed pointer is no input (the
    // instrumentation cannot tell it reads a register; spec/instrumentation.md
    // section 6). Should it reach a register at run time, its value is not in
    // the trace: the replay stops there with an error rather than read a
    // stale cell (spec/replay.md section 5).
    if (!Opts.AllowUntracedIO && T.IOEnd > T.IOBegin)
      B.CreateCall(ioPointerCheck(),
                   {B.CreateZExtOrTrunc(Addr, I32),
                    ConstantInt::get(I32, TDL.getTypeStoreSize(LI.getType())),
                    locString(&LI)});
    return;
  }
  if (!LI.isVolatile() && !IO)
    return;
  // A read fed to wsn.input gets its value from the trace (LOG 5).
  if (LI.hasOneUse() && isTraceOp(LI.user_back(), "wsn.input.") &&
      cast<CallBase>(LI.user_back())->getArgOperand(1) == &LI)
    return;
  // SREG is modelled: cli/sei and SREG save/restore keep it in mem.
  if (CA && T.SREGAddr && CA->getZExtValue() == T.SREGAddr)
    return;
  // Latch registers read back the program's own writes; checkpoints and
  // effects restore them (spec/instrumentation.md, "Latch registers").
  if (CA && T.isLatch(CA->getZExtValue()))
    return;
  if (Opts.AllowUntracedIO)
    return;
  if (DeferUntracedIO || BootBlocks.count(LI.getParent())) {
    // Boot code of main (before any anchor; spec/instrumentation.md, "Boot
    // code") never replays: replay starts at a checkpoint.
    // An uninstrumented function of an instrumented program: replay reaches
    // it only if some instrumented code calls it outside a skip span, and
    // most such functions run only inside skipped calls (their effects come
    // from the trace). Executing the read in replay is the error.
    B.CreateCall(callback("untraced_io", VoidTy, {HostPtr, I32}),
                 {locString(&LI), CA ? B.CreateZExtOrTrunc(CA, I32)
                                     : ConstantInt::get(I32, 0xFFFFFFFFu)});
    return;
  }
  std::string What = CA ? "read of I/O address 0x" + utohexstr(CA->getZExtValue())
                        : std::string("volatile read");
  if (CA && !IO)
    What = "volatile read of RAM address 0x" + utohexstr(CA->getZExtValue());
  error(&LI, What + " without a wsn.input trace op: its value is not "
                    "reproducible in replay (" + printValue(&LI) + ")");
}

void Lowerer::lowerInstruction(IRBuilder<> &B, Instruction &I) {
  switch (I.getOpcode()) {
  case Instruction::Alloca: {
    auto *AI = cast<AllocaInst>(&I);
    if (VMap.count(AI))
      return; // static slot of the frame
    Value *N = B.CreateZExtOrTrunc(mapValue(AI->getArraySize()), I32);
    Value *Size = B.CreateMul(
        N, ConstantInt::get(I32, TDL.getTypeAllocSize(AI->getAllocatedType())));
    VMap[AI] = dynamicAlloc(B, Size, AI->getAlign());
    return;
  }
  case Instruction::Load: {
    auto *LI = cast<LoadInst>(&I);
    Value *Addr = mapValue(LI->getPointerOperand());
    if (LI->getPointerAddressSpace() != 0) {
      error(LI, "load from address space " + Twine(LI->getPointerAddressSpace()) +
                    " (program memory) is not supported by replay");
      VMap[LI] = PoisonValue::get(hostType(LI->getType()));
      return;
    }
    checkNondetLoad(B, *LI, Addr);
    Value *V = loadValue(B, LI->getType(), Addr, LI->isVolatile());
    V->setName(LI->getName());
    VMap[LI] = V;
    return;
  }
  case Instruction::Store: {
    auto *SI = cast<StoreInst>(&I);
    if (SI->getPointerAddressSpace() != 0) {
      error(SI, "store to address space " + Twine(SI->getPointerAddressSpace()) +
                    " is not supported by replay");
      return;
    }
    watchStoreSources(B, *SI);
    watchStore(B, mapValue(SI->getPointerOperand()),
               ConstantInt::get(I32, TDL.getTypeStoreSize(SI->getValueOperand()->getType())));
    storeValue(B, mapValue(SI->getValueOperand()), SI->getValueOperand()->getType(),
               mapValue(SI->getPointerOperand()), SI->isVolatile());
    return;
  }
  case Instruction::GetElementPtr: {
    auto *GEP = cast<GetElementPtrInst>(&I);
    if (GEP->getType()->isVectorTy()) {
      error(GEP, "vector GEPs are not supported by replay");
      VMap[GEP] = PoisonValue::get(hostType(GEP->getType()));
      return;
    }
    unsigned AS = GEP->getPointerAddressSpace();
    unsigned IdxBits = TDL.getIndexSizeInBits(AS);
    IntegerType *PT = ptrIntTy(AS);
    MapVector<Value *, APInt> Vars;
    APInt Const(IdxBits, 0);
    Value *R = mapValue(GEP->getPointerOperand());
    if (!GEP->collectOffset(TDL, IdxBits, Vars, Const)) {
      error(GEP, "cannot compute the offset of " + printValue(GEP));
      VMap[GEP] = R;
      return;
    }
    // Offsets are computed in the mote's index width and wrap like it.
    for (auto &[V, Scale] : Vars) {
      Value *Idx = B.CreateSExtOrTrunc(mapValue(V), PT);
      if (!Scale.isOne())
        Idx = B.CreateMul(Idx, ConstantInt::get(PT, Scale.sextOrTrunc(PT->getBitWidth())));
      R = B.CreateAdd(R, Idx);
    }
    if (!Const.isZero())
      R = B.CreateAdd(R, ConstantInt::get(PT, Const.sextOrTrunc(PT->getBitWidth())));
    if (R->getName().empty() && isa<Instruction>(R))
      R->setName(GEP->getName());
    VMap[GEP] = R;
    return;
  }
  case Instruction::PtrToInt:
    VMap[&I] = B.CreateZExtOrTrunc(mapValue(I.getOperand(0)), I.getType(), I.getName());
    return;
  case Instruction::IntToPtr:
    VMap[&I] = B.CreateZExtOrTrunc(mapValue(I.getOperand(0)),
                                   hostType(I.getType()), I.getName());
    return;
  case Instruction::AddrSpaceCast:
    VMap[&I] = B.CreateZExtOrTrunc(mapValue(I.getOperand(0)), hostType(I.getType()),
                                   I.getName());
    return;
  case Instruction::BitCast:
    if (I.getType()->isPointerTy()) {
      VMap[&I] = mapValue(I.getOperand(0));
      return;
    }
    break; // generic
  case Instruction::PHI: {
    PHINode *P = B.CreatePHI(hostType(I.getType()), cast<PHINode>(I).getNumIncomingValues(),
                             I.getName());
    PendingPhis.push_back({cast<PHINode>(&I), P});
    VMap[&I] = P;
    return;
  }
  case Instruction::Call:
    lowerCall(B, cast<CallBase>(I));
    return;
  case Instruction::Ret: {
    if (FrameUsed)
      B.CreateStore(SP0, SPGV);
    auto *RI = cast<ReturnInst>(&I);
    if (Value *RV = RI->getReturnValue())
      B.CreateRet(mapValue(RV));
    else
      B.CreateRetVoid();
    return;
  }
  case Instruction::Br: {
    auto *BI = cast<BranchInst>(&I);
    if (BI->isUnconditional())
      B.CreateBr(BBMap[BI->getSuccessor(0)]);
    else
      B.CreateCondBr(mapValue(BI->getCondition()), BBMap[BI->getSuccessor(0)],
                     BBMap[BI->getSuccessor(1)]);
    return;
  }
  case Instruction::Switch: {
    auto *SI = cast<SwitchInst>(&I);
    SwitchInst *NS = B.CreateSwitch(mapValue(SI->getCondition()),
                                    BBMap[SI->getDefaultDest()], SI->getNumCases());
    for (auto &C : SI->cases())
      NS->addCase(C.getCaseValue(), BBMap[C.getCaseSuccessor()]);
    return;
  }
  case Instruction::Unreachable:
    B.CreateUnreachable();
    return;
  case Instruction::Fence:
    return; // one core, no threads: ordering is program order
  case Instruction::Invoke:
  case Instruction::CallBr:
  case Instruction::IndirectBr:
  case Instruction::LandingPad:
  case Instruction::Resume:
  case Instruction::CatchPad:
  case Instruction::CatchRet:
  case Instruction::CatchSwitch:
  case Instruction::CleanupPad:
  case Instruction::CleanupRet:
  case Instruction::VAArg:
  case Instruction::AtomicRMW:
  case Instruction::AtomicCmpXchg:
    error(&I, std::string("unsupported instruction '") + I.getOpcodeName() +
                  "' in replay: " + printValue(&I));
    if (!I.getType()->isVoidTy())
      VMap[&I] = PoisonValue::get(hostType(I.getType()));
    if (I.isTerminator())
      B.CreateUnreachable();
    return;
  default:
    break;
  }
  // Generic: the same instruction over the lowered operands (arithmetic,
  // comparisons including pointer compares, select, casts between non-pointer
  // types, aggregate and vector element operations, freeze).
  Instruction *NI = I.clone();
  for (unsigned Op = 0, E = NI->getNumOperands(); Op != E; ++Op)
    NI->setOperand(Op, mapValue(I.getOperand(Op)));
  NI->mutateType(hostType(I.getType()));
  NI->dropUnknownNonDebugMetadata();
  B.Insert(NI, I.getName());
  VMap[&I] = NI;
}

// --- calls ------------------------------------------------------------------

void Lowerer::lowerCall(IRBuilder<> &B, CallBase &CB) {
  if (CB.isInlineAsm())
    return lowerInlineAsm(B, CB);
  Function *Callee = CB.getCalledFunction();
  if (Callee && Callee->getName().starts_with("wsn."))
    return lowerTraceOp(B, CB, Callee->getName());
  if (Callee && Callee->isIntrinsic()) {
    if (InSkip && !isa<DbgInfoIntrinsic>(CB)) {
      // falls through to the skip handling below
    } else {
      if (!lowerIntrinsic(B, CB, Callee))
        error(&CB, "unsupported intrinsic '" + Callee->getName() + "' in replay");
      if (!CB.getType()->isVoidTy() && !VMap.count(&CB))
        VMap[&CB] = PoisonValue::get(hostType(CB.getType()));
      return;
    }
  }
  if (InSkip) {
    // The uninstrumented callee is not executed in replay: its effects (return
    // value, written globals) come from the EFFECT record (multi-level tracing).
    for (const User *U : CB.users())
      if (!isTraceOp(U, "wsn.effect."))
        error(&CB, "the result of a skipped call is used outside wsn.effect");
    if (!CB.getType()->isVoidTy())
      VMap[&CB] = PoisonValue::get(hostType(CB.getType()));
    return;
  }
  // A call whose result is recorded as an input (an input function,
  // spec/instrumentation.md section 6): the value comes from the trace, and
  // the callee, which only reads registers, is not executed.
  if (CB.hasOneUse() && isTraceOp(CB.user_back(), "wsn.input.") &&
      cast<CallBase>(CB.user_back())->getArgOperand(1) == &CB) {
    VMap[&CB] = PoisonValue::get(hostType(CB.getType()));
    return;
  }
  // A void input function (an outlined polling loop): it only waits on
  // registers and writes nothing replay sees, so it is not run and left no
  // record (spec/instrumentation.md section 6, "Polling loops").
  if (CB.getType()->isVoidTy() && CB.getMetadata(InputCallMD))
    return;
  if (Callee && !NewFns.count(Callee)) {
    if (Callee->isDeclaration())
      return lowerLibcCall(B, CB, Callee);
  }
  if (CB.getFunctionType()->isVarArg()) {
    error(&CB, "call of a variadic function is not supported by replay: " +
                   printValue(&CB));
    if (!CB.getType()->isVoidTy())
      VMap[&CB] = PoisonValue::get(hostType(CB.getType()));
    return;
  }
  // Arguments; byval aggregates are copied to the replay stack like the mote
  // caller does.
  SmallVector<Value *, 8> Args;
  Value *SavedSP = nullptr;
  for (unsigned A = 0, E = CB.arg_size(); A != E; ++A) {
    Value *V = mapValue(CB.getArgOperand(A));
    if (CB.paramHasAttr(A, Attribute::ByVal)) {
      if (!SavedSP)
        SavedSP = B.CreateLoad(I16, SPGV, "wsn.sp.call");
      Type *BT = CB.getParamByValType(A);
      uint64_t Size = TDL.getTypeAllocSize(BT);
      Value *Copy = dynamicAlloc(B, ConstantInt::get(I32, Size),
                                 CB.getParamAlign(A).valueOrOne());
      watchSource(B, V, ConstantInt::get(I32, Size), replayabi::SrcCopy);
      watchStore(B, Copy, ConstantInt::get(I32, Size));
      B.CreateMemCpy(hostAddr(B, Copy), Align(1), hostAddr(B, V), Align(1), Size);
      V = Copy;
    }
    Args.push_back(V);
  }
  CallInst *NC;
  if (Callee) {
    NC = B.CreateCall(NewFns[Callee], Args);
  } else {
    Value *FP = mapValue(CB.getCalledOperand());
    Value *Host = B.CreateCall(FnPtrFn, {B.CreateZExt(FP, I32), locString(&CB)},
                               "wsn.fn");
    NC = B.CreateCall(hostFnType(CB.getFunctionType()), Host, Args);
  }
  if (!CB.getType()->isVoidTy()) {
    NC->setName(CB.getName());
    VMap[&CB] = NC;
  }
  if (SavedSP)
    B.CreateStore(SavedSP, SPGV);
}

void Lowerer::lowerDebugVariable(IRBuilder<> &B, Value *Loc, DILocalVariable *Var,
                                 DIExpression *Expr, const DILocation *DL, bool Declare) {
  if (!Loc || !Var || !Expr || !DL || !B.GetInsertBlock())
    return;
  Value *V = nullptr;
  if (isa<Constant>(Loc) && !isa<GlobalValue>(Loc) && !Loc->getType()->isPointerTy()) {
    V = translateConstant(cast<Constant>(Loc));
  } else if (auto It = VMap.find(Loc); It != VMap.end()) {
    V = It->second;
  }
  if (!V || isa<PoisonValue>(V))
    return;
  DIBuilder DIB(*NM, /*AllowUnresolved=*/false);
  if (Declare) {
    // The variable's storage: a mote address (the frame slot) in @__wsn_mem.
    if (!V->getType()->isIntegerTy(16))
      return;
    IRBuilder<> AB(B.GetInsertBlock());
    Value *Host = hostAddr(AB, V);
    Expr = DIExpression::prepend(Expr, DIExpression::DerefBefore);
    DIB.insertDbgValueIntrinsic(Host, Var, Expr, DL, B.GetInsertBlock());
    return;
  }
  DIB.insertDbgValueIntrinsic(V, Var, Expr, DL, B.GetInsertBlock());
}

void Lowerer::locateGlobalsForDebugger() {
  for (GlobalVariable &GV : M.globals()) {
    SmallVector<DIGlobalVariableExpression *, 1> GVEs;
    GV.getDebugInfo(GVEs);
    const ReplayGlobal *RG = GVEs.empty() ? nullptr : Result.global(GV.getName());
    if (!RG)
      continue;
    for (DIGlobalVariableExpression *GVE : GVEs) {
      SmallVector<uint64_t, 4> Ops{dwarf::DW_OP_plus_uconst, RG->Addr};
      DIExpression *Old = GVE->getExpression();
      Ops.append(Old->elements_begin(), Old->elements_end());
      MemGV->addDebugInfo(DIGlobalVariableExpression::get(
          Ctx, GVE->getVariable(), DIExpression::get(Ctx, Ops)));
    }
  }
}

bool Lowerer::lowerIntrinsic(IRBuilder<> &B, CallBase &CB, Function *Callee) {
  Intrinsic::ID ID = Callee->getIntrinsicID();
  auto Arg = [&](unsigned N) { return mapValue(CB.getArgOperand(N)); };
  auto Len64 = [&](unsigned N) { return B.CreateZExt(Arg(N), I64); };
  switch (ID) {
  case Intrinsic::memcpy:
  case Intrinsic::memcpy_inline:
    watchSource(B, Arg(1), Arg(2), replayabi::SrcCopy);
    watchStore(B, Arg(0), Arg(2));
    B.CreateMemCpy(hostAddr(B, Arg(0)), Align(1), hostAddr(B, Arg(1)), Align(1),
                   Len64(2), cast<ConstantInt>(CB.getArgOperand(3))->isOne());
    return true;
  case Intrinsic::memmove:
    watchSource(B, Arg(1), Arg(2), replayabi::SrcCopy);
    watchStore(B, Arg(0), Arg(2));
    B.CreateMemMove(hostAddr(B, Arg(0)), Align(1), hostAddr(B, Arg(1)), Align(1),
                    Len64(2), cast<ConstantInt>(CB.getArgOperand(3))->isOne());
    return true;
  case Intrinsic::memset:
  case Intrinsic::memset_inline:
    watchStore(B, Arg(0), Arg(2));
    B.CreateMemSet(hostAddr(B, Arg(0)), Arg(1), Len64(2), Align(1),
                   cast<ConstantInt>(CB.getArgOperand(3))->isOne());
    return true;
  case Intrinsic::dbg_declare:
  case Intrinsic::dbg_value:
    if (auto *DVI = dyn_cast<DbgVariableIntrinsic>(&CB);
        DVI && Opts.FramePointers && DVI->getNumVariableLocationOps() == 1)
      lowerDebugVariable(B, DVI->getVariableLocationOp(0), DVI->getVariable(),
                         DVI->getExpression(), DVI->getDebugLoc().get(),
                         ID == Intrinsic::dbg_declare);
    return true;
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::dbg_label:
  case Intrinsic::dbg_assign:
  case Intrinsic::assume:
  case Intrinsic::experimental_noalias_scope_decl:
  case Intrinsic::invariant_start:
  case Intrinsic::invariant_end:
  case Intrinsic::var_annotation:
  case Intrinsic::donothing:
  case Intrinsic::sideeffect:
  case Intrinsic::pseudoprobe:
    return true;
  case Intrinsic::launder_invariant_group:
  case Intrinsic::strip_invariant_group:
  case Intrinsic::ptr_annotation:
    VMap[&CB] = Arg(0);
    return true;
  case Intrinsic::stacksave:
    VMap[&CB] = B.CreateLoad(I16, SPGV);
    return true;
  case Intrinsic::stackrestore:
    B.CreateStore(B.CreateZExtOrTrunc(Arg(0), I16), SPGV);
    return true;
  case Intrinsic::objectsize: {
    bool Min = cast<ConstantInt>(CB.getArgOperand(1))->isOne();
    VMap[&CB] = Min ? ConstantInt::get(CB.getType(), 0)
                    : ConstantInt::getAllOnesValue(CB.getType());
    return true;
  }
  case Intrinsic::is_constant:
    VMap[&CB] = ConstantInt::getFalse(Ctx);
    return true;
  case Intrinsic::ptrmask:
    VMap[&CB] = B.CreateAnd(Arg(0), B.CreateZExtOrTrunc(Arg(1), hostType(CB.getType())));
    return true;
  case Intrinsic::trap:
  case Intrinsic::debugtrap:
  case Intrinsic::ubsantrap:
    B.CreateCall(callback("trap", VoidTy, {HostPtr}), {locString(&CB)});
    return true;
  default:
    break;
  }
  if (hasPointers(CB.getFunctionType()))
    return false;
  SmallVector<Type *, 4> Tys;
  if (!Intrinsic::getIntrinsicSignature(Callee, Tys))
    return false;
  Function *Decl = Intrinsic::getDeclaration(NM.get(), ID, Tys);
  SmallVector<Value *, 4> Args;
  for (unsigned A = 0, E = CB.arg_size(); A != E; ++A)
    Args.push_back(Arg(A));
  CallInst *NC = B.CreateCall(Decl, Args);
  if (!CB.getType()->isVoidTy())
    VMap[&CB] = NC;
  return true;
}

void Lowerer::lowerTraceOp(IRBuilder<> &B, CallBase &CB, StringRef Name) {
  // Thesis section 4.2: every log-writing operation of the mote program
  // becomes the matching processLOG (log-reading) operation.
  StringRef Op = Name.drop_front(4); // after "wsn."
  auto ConstId = [&](unsigned N) -> Value * {
    Value *V = CB.getArgOperand(N);
    if (!isa<ConstantInt>(V))
      error(&CB, Name + ": operand " + Twine(N) + " must be a constant id");
    return B.CreateZExtOrTrunc(mapValue(V), I32);
  };
  auto Simple = [&](StringRef CBName, unsigned NArgs) {
    if (CB.arg_size() != NArgs) {
      error(&CB, Name + " expects " + Twine(NArgs) + " operands");
      return;
    }
    SmallVector<Value *, 3> Args;
    SmallVector<Type *, 3> Tys(NArgs, I32);
    for (unsigned A = 0; A < NArgs; ++A)
      Args.push_back(A == 0 ? ConstId(0)
                            : B.CreateZExtOrTrunc(mapValue(CB.getArgOperand(A)), I32));
    bool Inline = Opts.InlineLog && (CBName == "func_entry" || CBName == "func_exit" ||
                                     CBName == "irq_entry" || CBName == "irq_exit" ||
                                     CBName == "region_end");
    if (Inline && isa<ConstantInt>(Args[0]) &&
        cast<ConstantInt>(Args[0])->getZExtValue() < (1u << 24))
      B.CreateCall(fastHelper(CBName), Args);
    else
      B.CreateCall(callback(CBName, VoidTy, Tys), Args);
  };
  if (Op == "func.entry")
    return Simple("func_entry", 1);
  if (Op == "func.exit")
    return Simple("func_exit", 1);
  if (Op == "irq.entry") {
    enterHandlerStatus(B, *CB.getFunction());
    return Simple("irq_entry", 1);
  }
  if (Op == "irq.exit") {
    Simple("irq_exit", 1);
    leaveHandlerStatus(B);
    return;
  }
  if (Op == "region.begin") {
    if (Opts.InlineLog)
      return; // replay has nothing to do at a region's start
    return Simple("region_begin", 1);
  }
  if (Op == "region.end")
    return Simple("region_end", 2);
  if (Op == "sched")
    return Simple("sched", 1);
  if (Op == "send")
    return Simple("send", 3);
  if (Op == "recv")
    return Simple("recv", 3);
  if (Op == "check")
    return Simple("check", 2);
  if (Op == "skip.begin") {
    Simple("skip_begin", 1);
    InSkip = true;
    return;
  }
  if (Op == "skip.end") {
    if (!InSkip)
      error(&CB, "wsn.skip.end without wsn.skip.begin in the same block");
    InSkip = false;
    return Simple("skip_end", 1);
  }
  if (Op == "effect.void")
    return Simple("effect_void", 1);
  if (Op.starts_with("input.i") || Op.starts_with("effect.i")) {
    // The value comes from the trace; the operand computed in replay is not
    // used (for input: the register read; for effect: the skipped call).
    bool Input = Op.starts_with("input.");
    auto *RT = dyn_cast<IntegerType>(CB.getType());
    if (!RT || CB.arg_size() != (Input ? 3u : 2u)) {
      error(&CB, Name + ": unexpected signature");
      return;
    }
    Value *Id = ConstId(0);
    bool Inline = Input && Opts.InlineLog && isa<ConstantInt>(Id) &&
                  cast<ConstantInt>(Id)->getZExtValue() < (1u << 24);
    Value *V = B.CreateCall(Inline ? FunctionCallee(fastHelper("input"))
                                   : callback(Input ? "input" : "effect", I64, {I32, I32}),
                            {Id, ConstantInt::get(I32, RT->getBitWidth())});
    VMap[&CB] = B.CreateTrunc(V, RT, CB.getName());
    return;
  }
  if (Op == "input.bytes") {
    if (CB.arg_size() != 3) {
      error(&CB, Name + " expects 3 operands");
      return;
    }
    watchSource(B, ConstantInt::get(I32, 0), ConstantInt::get(I32, 0), replayabi::SrcInput);
    watchStore(B, mapValue(CB.getArgOperand(1)), mapValue(CB.getArgOperand(2)));
    B.CreateCall(callback("input_bytes", VoidTy, {I32, I32, I32}),
                 {ConstId(0), B.CreateZExt(mapValue(CB.getArgOperand(1)), I32),
                  B.CreateZExtOrTrunc(mapValue(CB.getArgOperand(2)), I32)});
    return;
  }
  if (Op == "msg.payload") {
    if (CB.arg_size() != 3) {
      error(&CB, Name + " expects 3 operands");
      return;
    }
    B.CreateCall(callback("msg_payload", VoidTy, {I32, I32, I32}),
                 {ConstId(0), B.CreateZExt(mapValue(CB.getArgOperand(1)), I32),
                  B.CreateZExtOrTrunc(mapValue(CB.getArgOperand(2)), I32)});
    return;
  }
  if (Op == "anchor") {
    // The anchor's live locals are passed as an array of mote addresses.
    unsigned N = CB.arg_size() - 1;
    IRBuilder<> AB(Prologue, Prologue->begin());
    Value *Arr = AB.CreateAlloca(I32, ConstantInt::get(I32, std::max(N, 1u)), "wsn.anchor.locals");
    for (unsigned A = 0; A < N; ++A)
      B.CreateStore(B.CreateZExt(mapValue(CB.getArgOperand(A + 1)), I32),
                    B.CreateConstGEP1_32(I32, Arr, A));
    B.CreateCall(Opts.InlineLog ? FunctionCallee(fastHelper("anchor"))
                                : callback("anchor", VoidTy, {I32, I32, HostPtr}),
                 {ConstId(0), ConstantInt::get(I32, N), Arr});
    // At the start checkpoint the engine also sets the status model from
    // __wsn_anchor_status (spec/replay.md section 2).
    return;
  }
  error(&CB, "unknown trace op '" + Name + "' (spec/trace-ops.md)");
  if (!CB.getType()->isVoidTy())
    VMap[&CB] = PoisonValue::get(hostType(CB.getType()));
}

void Lowerer::lowerLibcCall(IRBuilder<> &B, CallBase &CB, Function *Callee) {
  // A few C library functions operate on the data space; the engine
  // implements them over mem (__wsn_replay_libc_<name>). Every other external
  // function has no replay body.
  static const char *Known[] = {"memcpy", "memmove", "memset", "memcmp",
                                "strlen", "strcmp", "strncmp", "strcpy",
                                "strncpy"};
  StringRef Name = Callee->getName();
  bool IsKnown = llvm::is_contained(ArrayRef<const char *>(Known), Name);
  if (!IsKnown || CB.getFunctionType()->isVarArg()) {
    error(&CB, "call to external function '" + Name +
                   "', which has no IR body to replay (link its IR into the "
                   "module, or trace it as an uninstrumented callee with "
                   "wsn.skip/wsn.effect)");
    if (!CB.getType()->isVoidTy())
      VMap[&CB] = PoisonValue::get(hostType(CB.getType()));
    return;
  }
  SmallVector<Value *, 4> Args;
  SmallVector<Type *, 4> Tys;
  for (Value *A : CB.args()) {
    Args.push_back(B.CreateZExtOrTrunc(mapValue(A), I32));
    Tys.push_back(I32);
  }
  if (Name == "memcpy" || Name == "memmove")
    watchSource(B, Args[1], Args[2], replayabi::SrcCopy);
  if (Name == "memcpy" || Name == "memmove" || Name == "memset" || Name == "strncpy")
    watchStore(B, Args[0], Args[2]);
  Value *R = B.CreateCall(callback(("libc_" + Name).str(), I32, Tys), Args);
  if (Name == "strcpy" && Opts.WatchStores) // the length is known after the copy
    watchStore(B, Args[0],
               B.CreateAdd(B.CreateCall(callback("libc_strlen", I32, {I32}), {Args[0]}),
                           ConstantInt::get(I32, 1)));
  if (!CB.getType()->isVoidTy())
    VMap[&CB] = B.CreateZExtOrTrunc(R, hostType(CB.getType()));
}

// --- inline asm -------------------------------------------------------------

/// AVR program memory at flash byte address Z (32 bits): what `lpm` reads. The flash image
/// comes from the firmware ELF (MoteImage::Flash); bytes it does not program read 0xFF, as
/// erased flash does.
Value *Lowerer::flashByte(IRBuilder<> &B, const CallBase &CB, Value *Z) {
  if (!Img || Img->Flash.empty()) {
    std::string Text;
    for (char C : cast<InlineAsm>(CB.getCalledOperand())->getAsmString())
      Text += C == '\n' ? std::string("\\n") : C == '\t' ? std::string(" ") : std::string(1, C);
    error(&CB, "inline asm \"" + Text +
                   "\" reads program memory (lpm): replay needs the firmware ELF "
                   "(elf=..., wsn-replay --elf) for the flash image");
    return ConstantInt::get(I8, 0xFF);
  }
  if (!FlashGV) {
    Constant *Bytes = ConstantDataArray::get(Ctx, ArrayRef<uint8_t>(Img->Flash));
    FlashGV = new GlobalVariable(*NM, Bytes->getType(), true, GlobalValue::PrivateLinkage,
                                 Bytes, "wsn.flash");
  }
  uint32_t N = uint32_t(Img->Flash.size());
  Value *In = B.CreateICmpULT(Z, ConstantInt::get(I32, N));
  Value *Idx = B.CreateSelect(In, Z, ConstantInt::get(I32, 0));
  Value *V = B.CreateLoad(I8, B.CreateInBoundsGEP(I8, FlashGV, {B.CreateZExt(Idx, I64)}));
  return B.CreateSelect(In, V, ConstantInt::get(I8, 0xFF));
}

bool Lowerer::parseAsm(const CallBase &CB, std::vector<AsmStmt> &Out) {
  std::string Bad;
  if (parseMoteAsm(CB, T.Arch, Out, &Bad))
    return true;
  const std::string &Text = cast<InlineAsm>(CB.getCalledOperand())->getAsmString();
  // elpm reads flash above 64 KiB through RAMPZ (avr-libc's pgm_read_*_far); no TinyOS
  // micaz code uses it (spec/replay.md section 2), so it stays a refusal that says so.
  bool Elpm = T.Arch == MoteArch::AVR && StringRef(Text).contains_insensitive("elpm");
  error(&CB, "unsupported inline asm statement '" + Bad + "' in \"" + Text + "\" (" +
                 T.archName() + ")" +
                 (Elpm ? ": it reads program memory above 64 KiB with elpm (RAMPZ), which "
                         "replay does not model"
                       : ""));
  return false;
}

/// Interrupt entry as the hardware does it, on the status model: AVR clears
/// SREG.I (an AVR `interrupt` handler sets it again in its prologue); MSP430
/// clears SR but SCG0. Interrupt return restores the interrupted status.
AllocaInst *Lowerer::statusSaveSlot() {
  if (!StatusSaveSlot) {
    IRBuilder<> AB(Prologue, Prologue->begin());
    StatusSaveSlot = AB.CreateAlloca(T.Arch == MoteArch::AVR ? I8 : I16, nullptr,
                                     "wsn.irq.status");
  }
  return StatusSaveSlot;
}

void Lowerer::enterHandlerStatus(IRBuilder<> &B, const Function &F) {
  Type *CellTy = T.Arch == MoteArch::AVR ? I8 : I16;
  statusSaveSlot();
  Value *Cell = statusCell(B);
  Value *Saved = B.CreateLoad(CellTy, Cell);
  B.CreateStore(Saved, StatusSaveSlot);
  Value *V;
  if (T.Arch == MoteArch::AVR)
    V = F.hasFnAttribute("interrupt") ? B.CreateOr(Saved, 0x80)
                                      : B.CreateAnd(Saved, 0x7F);
  else
    V = B.CreateAnd(Saved, 0x40);
  B.CreateStore(V, Cell);
}

void Lowerer::leaveHandlerStatus(IRBuilder<> &B) {
  Type *CellTy = T.Arch == MoteArch::AVR ? I8 : I16;
  B.CreateStore(B.CreateLoad(CellTy, statusSaveSlot()), statusCell(B));
}

Value *Lowerer::statusCell(IRBuilder<> &B) {
  if (T.Arch == MoteArch::AVR)
    return hostAddr(B, ConstantInt::get(I16, T.SREGAddr));
  return SRGV;
}

void Lowerer::lowerInlineAsm(IRBuilder<> &B, CallBase &CB) {
  std::vector<AsmStmt> Stmts;
  if (!parseAsm(CB, Stmts)) {
    if (!CB.getType()->isVoidTy())
      VMap[&CB] = PoisonValue::get(hostType(CB.getType()));
    return;
  }
  // The status register model: AVR SREG is the data-space cell 0x5F (bit 7 =
  // I); MSP430 SR is a replay global (bit 3 = GIE, bits 4-7 = low-power).
  Type *CellTy = T.Arch == MoteArch::AVR ? I8 : I16;
  uint64_t IBit = T.Arch == MoteArch::AVR ? 0x80 : 0x08;
  std::vector<int> OperandArg = asmOperandArgs(CB);
  // Operands in memory ("m": TinyOS's msp430 McuSleepC writes SR with `bis %0, r2` from a
  // local) are passed by address: the statement uses the value stored there.
  std::vector<bool> Indirect;
  for (const InlineAsm::ConstraintInfo &CI :
       cast<InlineAsm>(CB.getCalledOperand())->ParseConstraints())
    if (CI.Type != InlineAsm::isClobber)
      Indirect.push_back(CI.Type == InlineAsm::isInput && CI.isIndirect);
  auto Operand = [&](int K) -> Value * {
    Value *V = mapValue(CB.getArgOperand(OperandArg[K]));
    if (Indirect[K])
      return loadValue(B, CellTy, V, /*Volatile=*/false);
    return B.CreateZExtOrTrunc(V, CellTy);
  };
  Value *Result = nullptr;
  Value *Program = nullptr; // bytes read by lpm, assembled little-endian
  uint32_t ZOffset = 0;     // Z+ post-increments so far
  for (const AsmStmt &S : Stmts) {
    Value *Cell = statusCell(B);
    switch (S.Op) {
    case AsmOp::Nothing:
      break;
    case AsmOp::IrqEnable:
    case AsmOp::IrqDisable: {
      Value *V = B.CreateLoad(CellTy, Cell);
      V = S.Op == AsmOp::IrqEnable ? B.CreateOr(V, IBit)
                                   : B.CreateAnd(V, ~IBit & 0xFFFF);
      B.CreateStore(V, Cell);
      break;
    }
    case AsmOp::Sleep:
      // An interrupt that woke the mote ran when its count came due; the
      // engine's hook ends the replay when no record is left (a node stopped
      // in the idle loop, which passes no trace op).
      B.CreateCall(callback("sleep", VoidTy, {}));
      break;
    case AsmOp::ReadStatus:
      Result = B.CreateLoad(CellTy, Cell);
      break;
    case AsmOp::LoadProgram: {
      Value *Z = B.CreateZExtOrTrunc(mapValue(CB.getArgOperand(OperandArg[S.Addr])), I32);
      if (ZOffset)
        Z = B.CreateAdd(Z, ConstantInt::get(I32, ZOffset));
      if (S.PostInc)
        ++ZOffset;
      Value *Byte = B.CreateShl(B.CreateZExt(flashByte(B, CB, Z), I32), 8 * S.Imm);
      Program = Program ? B.CreateOr(Program, Byte) : Byte;
      Result = Program;
      break;
    }
    case AsmOp::WriteStatus:
      B.CreateStore(Operand(S.Operand), Cell);
      break;
    case AsmOp::OrStatus:
    case AsmOp::AndNotStatus: {
      Value *Bits = S.Operand >= 0 ? Operand(S.Operand)
                                   : ConstantInt::get(CellTy, S.Imm);
      Value *V = B.CreateLoad(CellTy, Cell);
      if (S.Op == AsmOp::OrStatus) {
        // Low-power bits (CPUOFF, OSCOFF, SCG0/1) mean "sleep until an
        // interrupt"; the engine is told, the bits are not kept.
        B.CreateCall(callback("lpm", VoidTy, {I32}), // as for sleep
                     {B.CreateZExt(B.CreateAnd(Bits, 0xF0), I32)});
        V = B.CreateOr(V, B.CreateAnd(Bits, 0xFF0F));
      } else {
        V = B.CreateAnd(V, B.CreateNot(Bits));
      }
      B.CreateStore(V, Cell);
      break;
    }
    }
  }
  if (!CB.getType()->isVoidTy()) {
    if (!Result || !CB.getType()->isIntegerTy()) {
      error(&CB, "inline asm \"" + cast<InlineAsm>(CB.getCalledOperand())->getAsmString() +
                     "\" produces a value replay cannot model");
      VMap[&CB] = PoisonValue::get(hostType(CB.getType()));
    } else {
      VMap[&CB] = B.CreateZExtOrTrunc(Result, CB.getType());
    }
  }
}

// --- module-level -----------------------------------------------------------

void Lowerer::buildFnPtrTable() {
  // Mote code address -> host function (the function-pointer table).
  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", FnPtrFn);
  BasicBlock *Bad = BasicBlock::Create(Ctx, "bad", FnPtrFn);
  IRBuilder<> B(Entry);
  SwitchInst *SW = B.CreateSwitch(FnPtrFn->getArg(0), Bad, AddressTaken.size());
  DenseMap<uint32_t, const Function *> Seen;
  for (const Function *F : AddressTaken) {
    uint32_t A = FAddr.lookup(F);
    Function *NF = NewFns.lookup(F);
    if (!NF) {
      // Only an error if the pointer is called: the table reports it then.
      Result.Warnings.push_back("address of external function '" +
                                F->getName().str() +
                                "' is taken; it has no replay body");
      continue;
    }
    auto [It, New] = Seen.try_emplace(A, F);
    if (!New) {
      Errors.push_back("functions '" + It->second->getName().str() + "' and '" +
                       F->getName().str() + "' share code address 0x" +
                       utohexstr(A));
      continue;
    }
    BasicBlock *Case = BasicBlock::Create(Ctx, "fn." + F->getName(), FnPtrFn);
    IRBuilder<>(Case).CreateRet(NF);
    SW->addCase(B.getInt32(A), Case);
    Result.FunctionTable.push_back({F->getName().str(), A});
  }
  IRBuilder<> BB(Bad);
  BB.CreateCall(callback("bad_fnptr", VoidTy, {I32, HostPtr}, true),
                {FnPtrFn->getArg(0), FnPtrFn->getArg(1)});
  BB.CreateRet(ConstantPointerNull::get(HostPtr));
}

void Lowerer::buildInitMemory() {
  Function *Init = Function::Create(FunctionType::get(VoidTy, false),
                                    GlobalValue::ExternalLinkage, 0,
                                    replayabi::InitMemory, NM.get());
  Init->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Init));
  CurI = nullptr;
  for (GlobalVariable &GV : M.globals()) {
    auto It = GAddr.find(&GV);
    if (It == GAddr.end() || InFlash.count(&GV))
      continue;
    uint64_t Size = TDL.getTypeAllocSize(GV.getValueType());
    Value *Dst = hostAddr(B, ConstantInt::get(I16, It->second));
    if (!GV.hasInitializer() || Size == 0) {
      continue; // defined elsewhere in the image: starts as zero
    }
    std::vector<uint8_t> Bytes(Size, 0);
    serialize(GV.getInitializer(), Bytes, 0);
    if (llvm::all_of(Bytes, [](uint8_t X) { return X == 0; })) {
      B.CreateMemSet(Dst, B.getInt8(0), Size, Align(1));
      continue;
    }
    Constant *Blob = ConstantDataArray::get(Ctx, Bytes);
    auto *BG = new GlobalVariable(*NM, Blob->getType(), true,
                                  GlobalValue::PrivateLinkage, Blob,
                                  "wsn.init." + GV.getName());
    B.CreateMemCpy(Dst, Align(1), BG, Align(1), Size);
  }
  B.CreateStore(ConstantInt::get(I16, Result.StackTop & 0xFFFF), SPGV);
  if (SRGV)
    B.CreateStore(ConstantInt::get(I16, 0), SRGV);
  B.CreateRetVoid();
}

void Lowerer::replaceModuleContents() {
  for (Function &F : M)
    F.dropAllReferences();
  for (GlobalVariable &GV : M.globals())
    GV.dropAllReferences();
  for (GlobalAlias &GA : M.aliases())
    GA.dropAllReferences();
  while (!M.alias_empty()) {
    GlobalAlias &GA = *M.alias_begin();
    GA.replaceAllUsesWith(PoisonValue::get(GA.getType()));
    GA.eraseFromParent();
  }
  while (!M.empty()) {
    Function &F = *M.begin();
    F.replaceAllUsesWith(PoisonValue::get(F.getType()));
    F.eraseFromParent();
  }
  while (!M.global_empty()) {
    GlobalVariable &GV = *M.global_begin();
    GV.replaceAllUsesWith(PoisonValue::get(GV.getType()));
    GV.eraseFromParent();
  }
  std::vector<GlobalVariable *> GVs;
  for (GlobalVariable &GV : NM->globals())
    GVs.push_back(&GV);
  for (GlobalVariable *GV : GVs) {
    GV->removeFromParent();
    M.insertGlobalVariable(GV);
  }
  std::vector<Function *> Fns;
  for (Function &F : *NM)
    Fns.push_back(&F);
  for (Function *F : Fns) {
    F->removeFromParent();
    M.getFunctionList().push_back(F);
  }
}

Expected<ReplayLoweringResult> Lowerer::run() {
  Result.Target = T;
  if (!M.getModuleInlineAsm().empty())
    return createStringError(inconvertibleErrorCode(),
                             "module-level inline asm is not supported by replay");
  if (Error E = placeGlobals())
    return std::move(E);
  placeFunctions();

  auto *MemTy = ArrayType::get(I8, ReplayMemBytes);
  MemGV = new GlobalVariable(*NM, MemTy, false, GlobalValue::ExternalLinkage,
                             ConstantAggregateZero::get(MemTy), replayabi::Mem);
  MemGV->setAlignment(Align(16));
  if (Opts.FramePointers) { // --gdb: `print` of mote globals
    // In a data section, not .bss: the JIT's debug object gives gdb the load
    // addresses of the sections with contents only, and the globals' debug
    // locations are offsets from this array.
    MemGV->setSection(".data.wsn_mem");
    locateGlobalsForDebugger();
  }
  SPGV = new GlobalVariable(*NM, I16, false, GlobalValue::InternalLinkage,
                            ConstantInt::get(I16, Result.StackTop & 0xFFFF),
                            replayabi::StackPtr);
  if (T.Arch == MoteArch::MSP430)
    SRGV = new GlobalVariable(*NM, I16, false, GlobalValue::ExternalLinkage,
                              ConstantInt::get(I16, 0), replayabi::StatusReg);
  FnPtrFn = Function::Create(FunctionType::get(HostPtr, {I32, HostPtr}, false),
                             GlobalValue::InternalLinkage, 0, replayabi::FnPtr,
                             NM.get());
  createFunctions();
  for (Function &F : M)
    if (F.isDeclaration() && F.getName().starts_with("wsn.") && !F.use_empty())
      ModuleHasTraceOps = true;
  for (Function &F : M)
    if (!F.isDeclaration())
      lowerFunction(F);
  buildInitMemory();
  buildFnPtrTable();
  inlineFastHelpers();

  if (!Errors.empty()) {
    std::string Msg;
    for (const std::string &E : Errors)
      Msg += (Msg.empty() ? "" : "\n") + E;
    return createStringError(inconvertibleErrorCode(), Msg);
  }
  replaceModuleContents();
  M.setTargetTriple(Opts.HostTriple.empty() ? sys::getProcessTriple() : Opts.HostTriple);
  M.setDataLayout(Opts.HostDataLayout);
  if (Opts.Verify)
    if (Error E = verifyLoweredModule(M))
      return std::move(E);
  return std::move(Result);
}

} // namespace

Error verifyLoweredModule(const Module &M) {
  std::string VerifyMsg;
  raw_string_ostream VOS(VerifyMsg);
  if (verifyModule(M, &VOS))
    return createStringError(inconvertibleErrorCode(),
                             "internal error: the lowered module is invalid:\n%s",
                             VerifyMsg.c_str());
  return Error::success();
}

Expected<ReplayLoweringResult> lowerModuleForReplay(Module &M,
                                                   const ReplayLoweringOptions &Opts,
                                                   const MoteImage *Img) {
  Expected<MoteTarget> T = moteTargetForModule(M, Opts.MCU);
  if (!T)
    return T.takeError();
  std::optional<MoteImage> Loaded;
  if (!Img && !Opts.ElfPath.empty()) {
    Expected<MoteImage> I = readMoteImage(Opts.ElfPath);
    if (!I)
      return I.takeError();
    Loaded = std::move(*I);
    Img = &*Loaded;
  }
  if (Img && Img->Arch != T->Arch)
    return createStringError(inconvertibleErrorCode(),
                             "%s is an %s image but the module targets %s",
                             Img->Path.c_str(),
                             Img->Arch == MoteArch::AVR ? "avr" : "msp430",
                             T->archName());
  Lowerer L(M, Opts, Img, std::move(*T));
  return L.run();
}

unsigned exposePrivateGlobals(Module &M) {
  unsigned N = 0;
  for (GlobalVariable &GV : M.globals()) {
    if (!GV.hasPrivateLinkage() || GV.getName().starts_with("llvm."))
      continue;
    GV.setLinkage(GlobalValue::InternalLinkage);
    GV.setUnnamedAddr(GlobalValue::UnnamedAddr::None);
    // Internal symbols need a name the assembler keeps (not .L-prefixed).
    if (GV.getName().starts_with("."))
      GV.setName("__wsn_priv" + GV.getName());
    else if (!GV.hasName())
      GV.setName("__wsn_priv.anon");
    ++N;
  }
  return N;
}

PreservedAnalyses ReplayLoweringPass::run(Module &M, ModuleAnalysisManager &) {
  Expected<ReplayLoweringResult> R = lowerModuleForReplay(M, Opts);
  if (!R) {
    M.getContext().emitError("wsn-lower<replay>: " + toString(R.takeError()));
    return PreservedAnalyses::none();
  }
  for (const std::string &W : R->Warnings)
    errs() << "wsn-lower<replay>: warning: " << W << "\n";
  return PreservedAnalyses::none();
}

PreservedAnalyses ReplayPreparePass::run(Module &M, ModuleAnalysisManager &) {
  return exposePrivateGlobals(M) ? PreservedAnalyses::none()
                                 : PreservedAnalyses::all();
}

} // namespace wsn
