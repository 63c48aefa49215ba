//===- TraceOps.cpp - the wsn trace-op dialect ----------------------------===//
//
// Names, types, typed wrappers, builder, id allocation and metadata of the
// trace ops (spec/trace-ops.md).
//
//===----------------------------------------------------------------------===//

#include "TraceOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace wsn {

//===----------------------------------------------------------------------===//
// Names and types
//===----------------------------------------------------------------------===//

static const unsigned ValueWidths[] = {1, 8, 16, 32, 64};

ArrayRef<unsigned> traceValueWidths() { return ValueWidths; }

static bool isValueWidth(unsigned W) {
  return is_contained(ValueWidths, W);
}

StringRef traceOpKindName(TraceOpKind K) {
  switch (K) {
  case TraceOpKind::FuncEntry: return "func.entry";
  case TraceOpKind::FuncExit: return "func.exit";
  case TraceOpKind::IrqEntry: return "irq.entry";
  case TraceOpKind::IrqExit: return "irq.exit";
  case TraceOpKind::RegionBegin: return "region.begin";
  case TraceOpKind::RegionEnd: return "region.end";
  case TraceOpKind::Sched: return "sched";
  case TraceOpKind::Anchor: return "anchor";
  case TraceOpKind::Input: return "input";
  case TraceOpKind::InputBytes: return "input.bytes";
  case TraceOpKind::Send: return "send";
  case TraceOpKind::Recv: return "recv";
  case TraceOpKind::SkipBegin: return "skip.begin";
  case TraceOpKind::SkipEnd: return "skip.end";
  case TraceOpKind::Effect: return "effect";
  case TraceOpKind::Check: return "check";
  case TraceOpKind::MsgPayload: return "msg.payload";
  }
  llvm_unreachable("bad TraceOpKind");
}

std::optional<TraceOpKind> parseTraceOpName(StringRef Name, unsigned *Width) {
  if (!Name.consume_front(TraceOpPrefix))
    return std::nullopt;
  unsigned W = 0;
  auto SetWidth = [&](StringRef Digits) -> bool {
    if (Digits.getAsInteger(10, W) || !isValueWidth(W) ||
        Digits != std::to_string(W))
      return false;
    return true;
  };
  std::optional<TraceOpKind> K;
  if (Name.consume_front("input.i")) {
    if (!SetWidth(Name))
      return std::nullopt;
    K = TraceOpKind::Input;
  } else if (Name.consume_front("effect.")) {
    if (Name == "void")
      K = TraceOpKind::Effect;
    else if (Name.consume_front("i") && SetWidth(Name))
      K = TraceOpKind::Effect;
    else
      return std::nullopt;
  } else {
    K = StringSwitch<std::optional<TraceOpKind>>(Name)
            .Case("func.entry", TraceOpKind::FuncEntry)
            .Case("func.exit", TraceOpKind::FuncExit)
            .Case("irq.entry", TraceOpKind::IrqEntry)
            .Case("irq.exit", TraceOpKind::IrqExit)
            .Case("region.begin", TraceOpKind::RegionBegin)
            .Case("region.end", TraceOpKind::RegionEnd)
            .Case("sched", TraceOpKind::Sched)
            .Case("anchor", TraceOpKind::Anchor)
            .Case("input.bytes", TraceOpKind::InputBytes)
            .Case("send", TraceOpKind::Send)
            .Case("recv", TraceOpKind::Recv)
            .Case("skip.begin", TraceOpKind::SkipBegin)
            .Case("skip.end", TraceOpKind::SkipEnd)
            .Case("check", TraceOpKind::Check)
            .Case("msg.payload", TraceOpKind::MsgPayload)
            .Default(std::nullopt);
  }
  if (K && Width)
    *Width = W;
  return K;
}

std::string traceOpName(TraceOpKind K, unsigned Width) {
  std::string N = (TraceOpPrefix + traceOpKindName(K)).str();
  if (K == TraceOpKind::Input)
    N += ".i" + std::to_string(Width);
  else if (K == TraceOpKind::Effect)
    N += Width ? ".i" + std::to_string(Width) : std::string(".void");
  return N;
}

static FunctionType *opType(LLVMContext &Ctx, TraceOpKind K, unsigned W) {
  Type *Void = Type::getVoidTy(Ctx);
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *Ptr = PointerType::get(Ctx, 0);
  switch (K) {
  case TraceOpKind::FuncEntry:
  case TraceOpKind::FuncExit:
  case TraceOpKind::IrqEntry:
  case TraceOpKind::IrqExit:
  case TraceOpKind::RegionBegin:
  case TraceOpKind::Sched:
  case TraceOpKind::SkipBegin:
  case TraceOpKind::SkipEnd:
    return FunctionType::get(Void, {I32}, false);
  case TraceOpKind::RegionEnd:
    return FunctionType::get(Void, {I32, I32}, false);
  case TraceOpKind::Anchor:
    return FunctionType::get(Void, {I32}, true);
  case TraceOpKind::Input: {
    Type *IN = IntegerType::get(Ctx, W);
    return FunctionType::get(IN, {I32, IN, IN}, false);
  }
  case TraceOpKind::InputBytes:
  case TraceOpKind::MsgPayload:
    return FunctionType::get(Void, {I32, Ptr, I32}, false);
  case TraceOpKind::Send:
  case TraceOpKind::Recv:
    return FunctionType::get(Void, {I32, I32, I32}, false);
  case TraceOpKind::Effect: {
    if (W == 0)
      return FunctionType::get(Void, {I32}, false);
    Type *IN = IntegerType::get(Ctx, W);
    return FunctionType::get(IN, {I32, IN}, false);
  }
  case TraceOpKind::Check:
    return FunctionType::get(Void, {I32, Type::getInt1Ty(Ctx)}, false);
  }
  llvm_unreachable("bad TraceOpKind");
}

FunctionType *expectedTraceOpType(LLVMContext &Ctx, StringRef Name) {
  unsigned W = 0;
  auto K = parseTraceOpName(Name, &W);
  if (!K)
    return nullptr;
  return opType(Ctx, *K, W);
}

bool isTraceOpDeclaration(const Function &F) {
  return F.isDeclaration() && parseTraceOpName(F.getName()).has_value();
}

static bool hasNoInstrumentAnnotation(const Function &F) {
  const GlobalVariable *GA =
      F.getParent()->getGlobalVariable("llvm.global.annotations");
  if (!GA || !GA->hasInitializer())
    return false;
  auto *Arr = dyn_cast<ConstantArray>(GA->getInitializer());
  if (!Arr)
    return false;
  for (const Use &U : Arr->operands()) {
    auto *CS = dyn_cast<ConstantStruct>(U.get());
    if (!CS || CS->getNumOperands() < 2)
      continue;
    if (CS->getOperand(0)->stripPointerCasts() != &F)
      continue;
    auto *StrGV =
        dyn_cast<GlobalVariable>(CS->getOperand(1)->stripPointerCasts());
    if (!StrGV || !StrGV->hasInitializer())
      continue;
    if (auto *CDA = dyn_cast<ConstantDataArray>(StrGV->getInitializer()))
      if (CDA->isCString() && CDA->getAsCString() == NoInstrumentAttr)
        return true;
  }
  return false;
}

bool isNoInstrumentFunction(const Function &F) {
  return F.getName().starts_with("__wsn_") ||
         F.hasFnAttribute(NoInstrumentAttr) || hasNoInstrumentAnnotation(F);
}

std::optional<StringRef> siteKindOf(TraceOpKind K) {
  switch (K) {
  case TraceOpKind::RegionBegin:
  case TraceOpKind::RegionEnd:
    return StringRef("region");
  case TraceOpKind::Input:
    return StringRef("input");
  case TraceOpKind::InputBytes:
    return StringRef("input.bytes");
  case TraceOpKind::Send:
    return StringRef("send");
  case TraceOpKind::Recv:
    return StringRef("recv");
  case TraceOpKind::SkipBegin:
  case TraceOpKind::SkipEnd:
  case TraceOpKind::Effect:
    return StringRef("skip");
  default:
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// Typed wrappers
//===----------------------------------------------------------------------===//

bool TraceOp::classof(const CallInst *I) {
  const Function *F = I->getCalledFunction();
  if (!F || !F->getName().starts_with(TraceOpPrefix) || !F->isDeclaration())
    return false;
  // The type must be the spec'd one, so that the accessors are safe; the
  // verifier reports any other declaration of a reserved name.
  return F->getFunctionType() ==
         expectedTraceOpType(F->getContext(), F->getName());
}

TraceOpKind TraceOp::kind() const {
  return *parseTraceOpName(getCalledFunction()->getName());
}

unsigned TraceOp::valueWidth() const {
  unsigned W = 0;
  parseTraceOpName(getCalledFunction()->getName(), &W);
  return W;
}

uint32_t TraceOp::id() const {
  if (auto *C = dyn_cast<ConstantInt>(idOperand()))
    return static_cast<uint32_t>(C->getZExtValue());
  return InvalidTraceId;
}

uint32_t RegionEndOp::count() const {
  if (auto *C = dyn_cast<ConstantInt>(countOperand()))
    return static_cast<uint32_t>(C->getZExtValue());
  return 0;
}

std::optional<uint64_t> InputOp::maskValue() const {
  if (auto *C = dyn_cast<ConstantInt>(mask()))
    return C->getZExtValue();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Debug-info type names
//===----------------------------------------------------------------------===//

std::string cTypeName(const DIType *T) {
  if (!T)
    return "void";
  if (auto *BT = dyn_cast<DIBasicType>(T))
    return BT->getName().str();
  if (auto *DT = dyn_cast<DIDerivedType>(T)) {
    switch (DT->getTag()) {
    case dwarf::DW_TAG_typedef:
      return DT->getName().str();
    case dwarf::DW_TAG_pointer_type:
      return cTypeName(DT->getBaseType()) + " *";
    case dwarf::DW_TAG_const_type:
      return "const " + cTypeName(DT->getBaseType());
    case dwarf::DW_TAG_volatile_type:
      return "volatile " + cTypeName(DT->getBaseType());
    default:
      return cTypeName(DT->getBaseType());
    }
  }
  if (auto *CT = dyn_cast<DICompositeType>(T)) {
    StringRef Name = CT->getName().empty() ? "<anon>" : CT->getName();
    switch (CT->getTag()) {
    case dwarf::DW_TAG_structure_type:
      return ("struct " + Name).str();
    case dwarf::DW_TAG_union_type:
      return ("union " + Name).str();
    case dwarf::DW_TAG_enumeration_type:
      return ("enum " + Name).str();
    case dwarf::DW_TAG_array_type: {
      std::string S = cTypeName(CT->getBaseType());
      for (const DINode *E : CT->getElements()) {
        auto *SR = dyn_cast_or_null<DISubrange>(E);
        if (!SR)
          continue;
        auto *Cnt = dyn_cast_if_present<ConstantInt *>(SR->getCount());
        S += Cnt ? "[" + std::to_string(Cnt->getSExtValue()) + "]" : "[]";
      }
      return S;
    }
    default:
      return Name.str();
    }
  }
  if (isa<DISubroutineType>(T))
    return "function";
  return T->getName().str();
}

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

std::string traceTargetOf(const Module &M) {
  Triple T(M.getTargetTriple());
  if (T.getArch() == Triple::avr)
    return "avr";
  if (T.getArch() == Triple::msp430)
    return "msp430";
  return "host";
}

static Metadata *mdU32(LLVMContext &Ctx, uint32_t V) {
  return ConstantAsMetadata::get(
      ConstantInt::get(Type::getInt32Ty(Ctx), V));
}
static Metadata *mdStr(LLVMContext &Ctx, StringRef S) {
  return MDString::get(Ctx, S);
}

TraceVarRef TraceMetadata::globalRef(GlobalVariable &GV) {
  TraceVarRef R;
  R.Global = &GV;
  R.Name = GV.getName().str();
  R.Size = static_cast<uint32_t>(
      GV.getParent()->getDataLayout().getTypeAllocSize(GV.getValueType()));
  SmallVector<DIGlobalVariableExpression *, 1> GVEs;
  GV.getDebugInfo(GVEs);
  if (!GVEs.empty() && GVEs.front()->getVariable())
    R.CType = cTypeName(GVEs.front()->getVariable()->getType());
  return R;
}

TraceVarRef TraceMetadata::localRef(AllocaInst &AI) {
  TraceVarRef R;
  const DataLayout &DL = AI.getModule()->getDataLayout();
  if (auto Sz = AI.getAllocationSize(DL))
    R.Size = static_cast<uint32_t>(Sz->getFixedValue());
  R.Name = AI.getName().str();
  const DILocalVariable *Var = nullptr;
  for (DbgDeclareInst *DDI : findDbgDeclares(&AI))
    Var = DDI->getVariable();
  for (DbgVariableRecord *DVR : findDVRDeclares(&AI))
    Var = DVR->getVariable();
  if (Var) {
    R.Name = Var->getName().str();
    R.CType = cTypeName(Var->getType());
  }
  return R;
}

static MDNode *varNode(LLVMContext &Ctx, const TraceVarRef &V) {
  if (V.Global)
    return MDTuple::get(Ctx, {mdStr(Ctx, "global"),
                              ValueAsMetadata::get(V.Global),
                              mdU32(Ctx, V.Size), mdStr(Ctx, V.CType)});
  return MDTuple::get(Ctx, {mdStr(Ctx, V.Status ? "status" : "local"), mdStr(Ctx, V.Name),
                            mdU32(Ctx, V.Size), mdStr(Ctx, V.CType)});
}

void TraceMetadata::setModuleInfo(const TraceModuleInfo &Info) {
  LLVMContext &Ctx = M.getContext();
  NamedMDNode *NMD = M.getOrInsertNamedMetadata(ModuleNode);
  NMD->clearOperands();
  NMD->addOperand(MDTuple::get(
      Ctx, {mdU32(Ctx, Info.FormatVersion), mdStr(Ctx, Info.Target),
            mdU32(Ctx, Info.Hash), mdU32(Ctx, Info.BufSize),
            mdU32(Ctx, Info.SegSize)}));
}

static std::optional<uint32_t> entryId(const MDNode *N) {
  if (!N || N->getNumOperands() == 0)
    return std::nullopt;
  if (auto *C = mdconst::dyn_extract_or_null<ConstantInt>(N->getOperand(0)))
    return static_cast<uint32_t>(C->getZExtValue());
  return std::nullopt;
}

Error TraceMetadata::addUnique(StringRef Node, uint32_t Id, MDNode *Entry) {
  NamedMDNode *NMD = M.getOrInsertNamedMetadata(Node);
  for (unsigned I = 0, E = NMD->getNumOperands(); I != E; ++I) {
    MDNode *Old = NMD->getOperand(I);
    if (entryId(Old) != Id)
      continue;
    if (Old == Entry)
      return Error::success(); // idempotent re-add
    return createStringError(inconvertibleErrorCode(),
                             "!%s: id %u is already recorded (entry %u) with "
                             "other content",
                             Node.str().c_str(), Id, I);
  }
  NMD->addOperand(Entry);
  return Error::success();
}

Error TraceMetadata::addFunction(uint32_t Fid, Function &F) {
  LLVMContext &Ctx = M.getContext();
  return addUnique(FuncsNode, Fid,
                   MDTuple::get(Ctx, {mdU32(Ctx, Fid), ValueAsMetadata::get(&F)}));
}

Error TraceMetadata::addIrq(uint32_t Irq, Function &F, uint32_t Vector,
                            StringRef VectorName) {
  LLVMContext &Ctx = M.getContext();
  return addUnique(IrqsNode, Irq,
                   MDTuple::get(Ctx, {mdU32(Ctx, Irq), ValueAsMetadata::get(&F),
                                      mdU32(Ctx, Vector),
                                      mdStr(Ctx, VectorName)}));
}

Error TraceMetadata::addSite(uint32_t Site, StringRef Kind, Function &F,
                             const DebugLoc &DL) {
  LLVMContext &Ctx = M.getContext();
  std::string File;
  unsigned Line = 0, Col = 0;
  if (DL) {
    File = DL->getFilename().str();
    Line = DL.getLine();
    Col = DL.getCol();
  }
  return addUnique(SitesNode, Site,
                   MDTuple::get(Ctx, {mdU32(Ctx, Site), mdStr(Ctx, Kind),
                                      ValueAsMetadata::get(&F),
                                      mdStr(Ctx, File), mdU32(Ctx, Line),
                                      mdU32(Ctx, Col)}));
}

Error TraceMetadata::addAnchor(uint32_t Id, Function &F,
                               ArrayRef<GlobalVariable *> Globals,
                               ArrayRef<AllocaInst *> Locals,
                               ArrayRef<bool> StatusLocals) {
  LLVMContext &Ctx = M.getContext();
  SmallVector<Metadata *, 8> Ops = {mdU32(Ctx, Id), ValueAsMetadata::get(&F)};
  for (GlobalVariable *GV : Globals)
    Ops.push_back(varNode(Ctx, globalRef(*GV)));
  for (size_t K = 0; K < Locals.size(); ++K) {
    TraceVarRef V = localRef(*Locals[K]);
    V.Status = K < StatusLocals.size() && StatusLocals[K];
    Ops.push_back(varNode(Ctx, V));
  }
  return addUnique(AnchorsNode, Id, MDTuple::get(Ctx, Ops));
}

Error TraceMetadata::addInvariant(uint32_t Id, Function &F,
                                  ArrayRef<GlobalVariable *> Inputs) {
  LLVMContext &Ctx = M.getContext();
  SmallVector<Metadata *, 8> Ops = {mdU32(Ctx, Id), ValueAsMetadata::get(&F)};
  for (GlobalVariable *GV : Inputs)
    Ops.push_back(varNode(Ctx, globalRef(*GV)));
  return addUnique(InvariantsNode, Id, MDTuple::get(Ctx, Ops));
}

Error TraceMetadata::addEffect(uint32_t Site, StringRef Callee,
                               uint32_t ReturnSize,
                               ArrayRef<GlobalVariable *> Writes,
                               std::optional<std::vector<uint32_t>> Short,
                               uint32_t HandlerPart) {
  LLVMContext &Ctx = M.getContext();
  SmallVector<Metadata *, 8> Ops = {mdU32(Ctx, Site), mdStr(Ctx, Callee),
                                    mdU32(Ctx, ReturnSize)};
  for (GlobalVariable *GV : Writes)
    Ops.push_back(varNode(Ctx, globalRef(*GV)));
  // The short form, as a last `!{!"short", i32 H, i32 I...}` operand: the length H of the
  // handler part that the writes start with, then the short form's globals as indices into
  // the writes (a variable's tuple starts with its kind, "global", so the two cannot be
  // confused).
  if (Short) {
    SmallVector<Metadata *, 16> S = {mdStr(Ctx, "short"), mdU32(Ctx, HandlerPart)};
    for (uint32_t I : *Short)
      S.push_back(mdU32(Ctx, I));
    Ops.push_back(MDTuple::get(Ctx, S));
  }
  return addUnique(EffectsNode, Site, MDTuple::get(Ctx, Ops));
}

Error TraceMetadata::addTask(uint32_t Id, Function &F) {
  LLVMContext &Ctx = M.getContext();
  return addUnique(TasksNode, Id,
                   MDTuple::get(Ctx, {mdU32(Ctx, Id), ValueAsMetadata::get(&F)}));
}

Error TraceMetadata::addInvariantRecvs(uint32_t Id, ArrayRef<uint32_t> Sites) {
  LLVMContext &Ctx = M.getContext();
  SmallVector<Metadata *, 4> Ops = {mdU32(Ctx, Id)};
  for (uint32_t S : Sites)
    Ops.push_back(mdU32(Ctx, S));
  return addUnique(InvariantRecvsNode, Id, MDTuple::get(Ctx, Ops));
}

// --- readers ---------------------------------------------------------------

namespace {
/// Field extraction with errors naming the node, entry and operand.
struct EntryReader {
  StringRef Node;
  unsigned Index;
  const MDNode *N;

  Error err(const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(),
                             "!" + Node + " entry " + Twine(Index) + ": " + Msg);
  }
  Error needOps(unsigned Min, bool Exact) const {
    unsigned Have = N->getNumOperands();
    if (Have < Min || (Exact && Have != Min))
      return err("expected " + Twine(Exact ? "" : "at least ") + Twine(Min) +
                 " operands, found " + Twine(Have));
    return Error::success();
  }
  Expected<uint32_t> u32(unsigned Op, StringRef What) const {
    auto *C = mdconst::dyn_extract_or_null<ConstantInt>(N->getOperand(Op));
    if (!C || C->getBitWidth() > 32)
      return err("operand " + Twine(Op) + " (" + What +
                 ") is not an i32 constant");
    return static_cast<uint32_t>(C->getZExtValue());
  }
  Expected<std::string> str(unsigned Op, StringRef What) const {
    auto *S = dyn_cast_or_null<MDString>(N->getOperand(Op).get());
    if (!S)
      return err("operand " + Twine(Op) + " (" + What + ") is not a string");
    return S->getString().str();
  }
  Expected<Function *> func(unsigned Op, StringRef What) const {
    auto *F = mdconst::dyn_extract_or_null<Function>(N->getOperand(Op));
    if (!F)
      return err("operand " + Twine(Op) + " (" + What +
                 ") is not a function (deleted?)");
    return F;
  }
};
} // namespace

static Expected<TraceVarRef> readVar(const EntryReader &R, unsigned Op,
                                     bool AllowLocal) {
  auto *VN = dyn_cast_or_null<MDNode>(R.N->getOperand(Op).get());
  if (!VN || VN->getNumOperands() != 4)
    return R.err("variable operand " + Twine(Op) +
                 " is not a 4-element tuple");
  EntryReader VR{R.Node, R.Index, VN};
  auto Kind = VR.str(0, "variable kind");
  if (!Kind)
    return Kind.takeError();
  TraceVarRef V;
  if (*Kind == "global") {
    auto *GV = mdconst::dyn_extract_or_null<GlobalVariable>(VN->getOperand(1));
    if (!GV)
      return R.err("variable operand " + Twine(Op) +
                   " does not reference a global variable");
    V.Global = GV;
    V.Name = GV->getName().str();
  } else if ((*Kind == "local" || *Kind == "status") && AllowLocal) {
    auto Name = VR.str(1, "local name");
    if (!Name)
      return Name.takeError();
    V.Name = *Name;
    V.Status = *Kind == "status";
  } else {
    return R.err("variable operand " + Twine(Op) + " has kind '" + *Kind +
                 "', expected 'global'" +
                 (AllowLocal ? ", 'local' or 'status'" : ""));
  }
  auto Size = VR.u32(2, "size");
  if (!Size)
    return Size.takeError();
  auto CType = VR.str(3, "C type");
  if (!CType)
    return CType.takeError();
  V.Size = *Size;
  V.CType = *CType;
  return V;
}

/// Runs Fn on every entry of a named node, checking ids are unique.
template <typename T, typename FnT>
static Expected<std::vector<T>> readNode(const Module &M, StringRef Node,
                                         FnT Fn) {
  std::vector<T> Out;
  const NamedMDNode *NMD = M.getNamedMetadata(Node);
  if (!NMD)
    return Out;
  DenseMap<uint32_t, unsigned> Seen;
  for (unsigned I = 0, E = NMD->getNumOperands(); I != E; ++I) {
    EntryReader R{Node, I, NMD->getOperand(I)};
    if (R.N->getNumOperands() == 0)
      return R.err("empty tuple");
    auto Id = R.u32(0, "id");
    if (!Id)
      return Id.takeError();
    auto Ins = Seen.try_emplace(*Id, I);
    if (!Ins.second)
      return R.err("duplicate id " + Twine(*Id) + " (also entry " +
                   Twine(Ins.first->second) + ")");
    Expected<T> V = Fn(R, *Id);
    if (!V)
      return V.takeError();
    Out.push_back(std::move(*V));
  }
  return Out;
}

Expected<std::optional<TraceModuleInfo>> TraceMetadata::moduleInfo() const {
  const NamedMDNode *NMD = M.getNamedMetadata(ModuleNode);
  if (!NMD)
    return std::nullopt;
  if (NMD->getNumOperands() != 1)
    return createStringError(inconvertibleErrorCode(),
                             "!wsn.module: expected exactly one entry, found %u",
                             NMD->getNumOperands());
  EntryReader R{ModuleNode, 0, NMD->getOperand(0)};
  if (Error E = R.needOps(5, true))
    return std::move(E);
  TraceModuleInfo Info;
  auto V = R.u32(0, "format version");
  auto T = R.str(1, "target");
  auto H = R.u32(2, "module hash");
  auto B = R.u32(3, "buffer size");
  auto S = R.u32(4, "segment size");
  if (!V)
    return V.takeError();
  if (!T)
    return T.takeError();
  if (!H)
    return H.takeError();
  if (!B)
    return B.takeError();
  if (!S)
    return S.takeError();
  if (*V != TraceFormatVersion)
    return R.err("format version " + Twine(*V) + " is not supported (expected " +
                 Twine(TraceFormatVersion) + ")");
  if (*T != "avr" && *T != "msp430" && *T != "host")
    return R.err("target '" + *T + "' is not avr, msp430 or host");
  Info.FormatVersion = *V;
  Info.Target = *T;
  Info.Hash = *H;
  Info.BufSize = *B;
  Info.SegSize = *S;
  return Info;
}

Expected<std::vector<TraceFuncMD>> TraceMetadata::functions() const {
  return readNode<TraceFuncMD>(
      M, FuncsNode, [](const EntryReader &R, uint32_t Id) -> Expected<TraceFuncMD> {
        if (Error E = R.needOps(2, true))
          return std::move(E);
        auto F = R.func(1, "function");
        if (!F)
          return F.takeError();
        return TraceFuncMD{Id, *F};
      });
}

Expected<std::vector<TraceIrqMD>> TraceMetadata::irqs() const {
  return readNode<TraceIrqMD>(
      M, IrqsNode, [](const EntryReader &R, uint32_t Id) -> Expected<TraceIrqMD> {
        if (Error E = R.needOps(4, true))
          return std::move(E);
        auto F = R.func(1, "handler");
        if (!F)
          return F.takeError();
        auto Vec = R.u32(2, "vector");
        if (!Vec)
          return Vec.takeError();
        auto Name = R.str(3, "vector name");
        if (!Name)
          return Name.takeError();
        return TraceIrqMD{Id, *F, *Vec, *Name};
      });
}

Expected<std::vector<TraceSiteMD>> TraceMetadata::sites() const {
  return readNode<TraceSiteMD>(
      M, SitesNode, [](const EntryReader &R, uint32_t Id) -> Expected<TraceSiteMD> {
        if (Error E = R.needOps(6, true))
          return std::move(E);
        auto Kind = R.str(1, "kind");
        if (!Kind)
          return Kind.takeError();
        static const char *Kinds[] = {"region", "input", "input.bytes",
                                      "send",   "recv",  "skip"};
        if (!is_contained(Kinds, StringRef(*Kind)))
          return R.err("unknown site kind '" + *Kind + "'");
        auto F = R.func(2, "function");
        if (!F)
          return F.takeError();
        auto File = R.str(3, "file");
        if (!File)
          return File.takeError();
        auto Line = R.u32(4, "line");
        if (!Line)
          return Line.takeError();
        auto Col = R.u32(5, "column");
        if (!Col)
          return Col.takeError();
        return TraceSiteMD{Id, *Kind, *F, *File, *Line, *Col};
      });
}

Expected<std::vector<TraceAnchorMD>> TraceMetadata::anchors() const {
  return readNode<TraceAnchorMD>(
      M, AnchorsNode,
      [](const EntryReader &R, uint32_t Id) -> Expected<TraceAnchorMD> {
        if (Error E = R.needOps(2, false))
          return std::move(E);
        auto F = R.func(1, "function");
        if (!F)
          return F.takeError();
        TraceAnchorMD A{Id, *F, {}};
        bool SawLocal = false;
        for (unsigned Op = 2; Op < R.N->getNumOperands(); ++Op) {
          auto V = readVar(R, Op, /*AllowLocal=*/true);
          if (!V)
            return V.takeError();
          if (V->isGlobal() && SawLocal)
            return R.err("global '" + V->Name +
                         "' listed after a local (globals come first)");
          SawLocal |= !V->isGlobal();
          A.Vars.push_back(std::move(*V));
        }
        return A;
      });
}

Expected<std::vector<TraceInvariantMD>> TraceMetadata::invariants() const {
  return readNode<TraceInvariantMD>(
      M, InvariantsNode,
      [](const EntryReader &R, uint32_t Id) -> Expected<TraceInvariantMD> {
        if (Error E = R.needOps(2, false))
          return std::move(E);
        auto F = R.func(1, "invariant function");
        if (!F)
          return F.takeError();
        TraceInvariantMD Inv{Id, *F, {}};
        for (unsigned Op = 2; Op < R.N->getNumOperands(); ++Op) {
          auto V = readVar(R, Op, /*AllowLocal=*/false);
          if (!V)
            return V.takeError();
          Inv.Inputs.push_back(std::move(*V));
        }
        return Inv;
      });
}

Expected<std::vector<TraceEffectMD>> TraceMetadata::effects() const {
  return readNode<TraceEffectMD>(
      M, EffectsNode,
      [](const EntryReader &R, uint32_t Id) -> Expected<TraceEffectMD> {
        if (Error E = R.needOps(3, false))
          return std::move(E);
        auto Callee = R.str(1, "callee");
        if (!Callee)
          return Callee.takeError();
        auto RetSize = R.u32(2, "return size");
        if (!RetSize)
          return RetSize.takeError();
        TraceEffectMD Eff{Id, *Callee, *RetSize, {}, std::nullopt};
        unsigned End = R.N->getNumOperands();
        if (End > 3)
          if (auto *Last = dyn_cast_or_null<MDNode>(R.N->getOperand(End - 1).get());
              Last && Last->getNumOperands() >= 1 && isa<MDString>(Last->getOperand(0)) &&
              cast<MDString>(Last->getOperand(0))->getString() == "short") {
            EntryReader SR{R.Node, R.Index, Last};
            auto H = SR.u32(1, "handler part length");
            if (!H)
              return H.takeError();
            if (*H > End - 4)
              return R.err("handler part of " + Twine(*H) + " globals, but the effect lists " +
                           Twine(End - 4));
            Eff.HandlerPart = *H;
            std::vector<uint32_t> Short;
            for (unsigned Op = 2; Op < Last->getNumOperands(); ++Op) {
              auto I = SR.u32(Op, "short-form index");
              if (!I)
                return I.takeError();
              if (*I >= End - 4 || (!Short.empty() && *I <= Short.back()))
                return R.err("short-form index " + Twine(*I) + " is not increasing below the " +
                             Twine(End - 4) + " globals the effect lists");
              Short.push_back(*I);
            }
            Eff.Short = std::move(Short);
            --End;
          }
        for (unsigned Op = 3; Op < End; ++Op) {
          auto V = readVar(R, Op, /*AllowLocal=*/false);
          if (!V)
            return V.takeError();
          Eff.Writes.push_back(std::move(*V));
        }
        return Eff;
      });
}

Expected<std::vector<TraceTaskMD>> TraceMetadata::tasks() const {
  return readNode<TraceTaskMD>(
      M, TasksNode, [](const EntryReader &R, uint32_t Id) -> Expected<TraceTaskMD> {
        if (Error E = R.needOps(2, true))
          return std::move(E);
        auto F = R.func(1, "task function");
        if (!F)
          return F.takeError();
        return TraceTaskMD{Id, *F};
      });
}

Expected<std::vector<TraceInvariantRecvsMD>> TraceMetadata::invariantRecvs() const {
  return readNode<TraceInvariantRecvsMD>(
      M, InvariantRecvsNode,
      [](const EntryReader &R, uint32_t Id) -> Expected<TraceInvariantRecvsMD> {
        TraceInvariantRecvsMD E{Id, {}};
        for (unsigned Op = 1; Op < R.N->getNumOperands(); ++Op) {
          auto S = R.u32(Op, "receive site");
          if (!S)
            return S.takeError();
          E.Sites.push_back(*S);
        }
        return E;
      });
}

std::optional<uint32_t> TraceMetadata::fidOf(const Function &F) const {
  const NamedMDNode *NMD = M.getNamedMetadata(FuncsNode);
  if (!NMD)
    return std::nullopt;
  for (const MDNode *N : NMD->operands())
    if (N->getNumOperands() == 2 &&
        mdconst::dyn_extract_or_null<Function>(N->getOperand(1)) == &F)
      return entryId(N);
  return std::nullopt;
}

bool isInstrumented(const Module &M) {
  return M.getNamedMetadata(TraceMetadata::ModuleNode) != nullptr;
}

bool hasTraceOps(const Module &M) {
  for (const Function &F : M)
    if (F.getName().starts_with(TraceOpPrefix) && !F.use_empty())
      return true;
  return false;
}

//===----------------------------------------------------------------------===//
// Id allocation
//===----------------------------------------------------------------------===//

static IdAllocator::Space spaceOf(TraceOpKind K) {
  switch (K) {
  case TraceOpKind::FuncEntry:
  case TraceOpKind::FuncExit:
    return IdAllocator::Fid;
  case TraceOpKind::IrqEntry:
  case TraceOpKind::IrqExit:
    return IdAllocator::Irq;
  case TraceOpKind::Sched:
    return IdAllocator::Task;
  case TraceOpKind::Anchor:
    return IdAllocator::Anchor;
  case TraceOpKind::Check:
    return IdAllocator::Invariant;
  default:
    return IdAllocator::Site;
  }
}

IdAllocator::IdAllocator(Module &M) : M(M) {
  auto Scan = [&](StringRef Node, Space S) {
    if (const NamedMDNode *NMD = M.getNamedMetadata(Node))
      for (const MDNode *N : NMD->operands())
        if (auto Id = entryId(N))
          Last[S] = std::max(Last[S], *Id);
  };
  Scan(TraceMetadata::FuncsNode, Fid);
  Scan(TraceMetadata::IrqsNode, Irq);
  Scan(TraceMetadata::SitesNode, Site);
  Scan(TraceMetadata::EffectsNode, Site);
  Scan(TraceMetadata::AnchorsNode, Anchor);
  Scan(TraceMetadata::InvariantsNode, Invariant);
  Scan(TraceMetadata::TasksNode, Task);
  for (Function &F : M) {
    if (!F.getName().starts_with(TraceOpPrefix))
      continue;
    for (User *U : F.users())
      if (auto *Op = dyn_cast<TraceOp>(U))
        if (Op->id() != InvalidTraceId)
          Last[spaceOf(Op->kind())] =
              std::max(Last[spaceOf(Op->kind())], Op->id());
  }
}

Expected<uint32_t> IdAllocator::getOrAssignFid(Function &F) {
  TraceMetadata MD(M);
  if (auto Fid = MD.fidOf(F))
    return *Fid;
  uint32_t Fid = next(IdAllocator::Fid);
  if (Error E = MD.addFunction(Fid, F))
    return std::move(E);
  return Fid;
}

//===----------------------------------------------------------------------===//
// Builder
//===----------------------------------------------------------------------===//

Error TraceOpBuilder::checkReservedNames(const Module &M) {
  for (const Function &F : M) {
    StringRef Name = F.getName();
    if (!Name.starts_with(TraceOpPrefix))
      continue;
    FunctionType *Want = expectedTraceOpType(M.getContext(), Name);
    if (!Want)
      return createStringError(inconvertibleErrorCode(),
                               "function '%s' uses the reserved prefix 'wsn.' "
                               "but is not a trace op",
                               Name.str().c_str());
    if (!F.isDeclaration())
      return createStringError(inconvertibleErrorCode(),
                               "'%s' is a reserved trace-op name and must not "
                               "be defined by the program",
                               Name.str().c_str());
    if (F.getFunctionType() != Want) {
      std::string Have, Exp;
      raw_string_ostream(Have) << *F.getFunctionType();
      raw_string_ostream(Exp) << *Want;
      return createStringError(inconvertibleErrorCode(),
                               "'%s' is declared with type '%s', the trace-op "
                               "type is '%s'",
                               Name.str().c_str(), Have.c_str(), Exp.c_str());
    }
  }
  // Globals (variables, aliases) may not take a reserved name either.
  for (const GlobalValue &GV : M.global_values())
    if (!isa<Function>(GV) && GV.getName().starts_with(TraceOpPrefix))
      return createStringError(inconvertibleErrorCode(),
                               "global '%s' uses the reserved prefix 'wsn.'",
                               GV.getName().str().c_str());
  return Error::success();
}

Expected<std::unique_ptr<TraceOpBuilder>> TraceOpBuilder::create(Module &M) {
  if (Error E = checkReservedNames(M))
    return std::move(E);
  return std::unique_ptr<TraceOpBuilder>(new TraceOpBuilder(M));
}

void TraceOpBuilder::setInsertPointAfter(Instruction *I) {
  B.SetInsertPoint(I->getParent(), std::next(I->getIterator()));
  B.SetCurrentDebugLocation(I->getDebugLoc());
}

FunctionCallee TraceOpBuilder::declaration(TraceOpKind K, unsigned Width) {
  std::string Name = traceOpName(K, Width);
  FunctionType *FT = opType(M.getContext(), K, Width);
  FunctionCallee FC = M.getOrInsertFunction(Name, FT);
  if (auto *F = dyn_cast<Function>(FC.getCallee()))
    F->addFnAttr(Attribute::NoUnwind);
  return FC;
}

static DebugLoc nearbyDebugLoc(Instruction *I) {
  if (Instruction *N = I->getNextNode())
    if (N->getDebugLoc())
      return N->getDebugLoc();
  for (Instruction *P = I->getPrevNode(); P; P = P->getPrevNode())
    if (P->getDebugLoc())
      return P->getDebugLoc();
  if (DISubprogram *SP = I->getFunction()->getSubprogram())
    return DILocation::get(I->getContext(), SP->getLine(), 0, SP);
  return DebugLoc();
}

CallInst *TraceOpBuilder::emit(TraceOpKind K, unsigned Width,
                               ArrayRef<Value *> Args) {
  assert(B.GetInsertBlock() && "TraceOpBuilder needs an insertion point");
  CallInst *CI = B.CreateCall(declaration(K, Width), Args);
  if (!CI->getDebugLoc())
    CI->setDebugLoc(nearbyDebugLoc(CI));
  if (auto Kind = siteKindOf(K))
    noteSite(CI, K, cast<ConstantInt>(Args[0])->getZExtValue());
  return CI;
}

void TraceOpBuilder::noteSite(CallInst *CI, TraceOpKind K, uint32_t Site) {
  // Recorded once per site, by the first op created for it; a conflict (the
  // same site in another function) is left for the verifier to report.
  TraceMetadata MD(M);
  if (NamedMDNode *NMD = M.getNamedMetadata(TraceMetadata::SitesNode))
    for (const MDNode *N : NMD->operands())
      if (entryId(N) == Site)
        return;
  consumeError(MD.addSite(Site, *siteKindOf(K), *CI->getFunction(),
                          CI->getDebugLoc()));
}

FuncEntryOp *TraceOpBuilder::createFuncEntry(uint32_t Fid) {
  CallInst *CI = emit(TraceOpKind::FuncEntry, 0, {i32(Fid)});
  TraceMetadata MD(M);
  if (!MD.fidOf(*CI->getFunction()))
    consumeError(MD.addFunction(Fid, *CI->getFunction()));
  return cast<FuncEntryOp>(CI);
}
FuncExitOp *TraceOpBuilder::createFuncExit(uint32_t Fid) {
  return cast<FuncExitOp>(emit(TraceOpKind::FuncExit, 0, {i32(Fid)}));
}
IrqEntryOp *TraceOpBuilder::createIrqEntry(uint32_t Irq) {
  return cast<IrqEntryOp>(emit(TraceOpKind::IrqEntry, 0, {i32(Irq)}));
}
IrqExitOp *TraceOpBuilder::createIrqExit(uint32_t Irq) {
  return cast<IrqExitOp>(emit(TraceOpKind::IrqExit, 0, {i32(Irq)}));
}
RegionBeginOp *TraceOpBuilder::createRegionBegin(uint32_t Site) {
  return cast<RegionBeginOp>(emit(TraceOpKind::RegionBegin, 0, {i32(Site)}));
}
RegionEndOp *TraceOpBuilder::createRegionEnd(uint32_t Site, uint32_t N) {
  return cast<RegionEndOp>(
      emit(TraceOpKind::RegionEnd, 0, {i32(Site), i32(N)}));
}
SchedOp *TraceOpBuilder::createSched(uint32_t Task) {
  return cast<SchedOp>(emit(TraceOpKind::Sched, 0, {i32(Task)}));
}
AnchorOp *TraceOpBuilder::createAnchor(uint32_t Anchor,
                                       ArrayRef<Value *> Locals) {
  SmallVector<Value *, 8> Args = {i32(Anchor)};
  Args.append(Locals.begin(), Locals.end());
  return cast<AnchorOp>(emit(TraceOpKind::Anchor, 0, Args));
}
Expected<InputOp *> TraceOpBuilder::createInput(uint32_t Site, Value *V,
                                                uint64_t Mask) {
  auto *IT = dyn_cast<IntegerType>(V->getType());
  if (!IT || !isValueWidth(IT->getBitWidth())) {
    std::string TS;
    raw_string_ostream(TS) << *V->getType();
    return createStringError(inconvertibleErrorCode(),
                             "input site %u: value of type '%s' cannot be an "
                             "input (i1, i8, i16, i32 or i64 only)",
                             Site, TS.c_str());
  }
  unsigned W = IT->getBitWidth();
  APInt MaskV = Mask ? APInt(64, Mask).zextOrTrunc(W)
                     : APInt::getAllOnes(W);
  return cast<InputOp>(emit(TraceOpKind::Input, W,
                            {i32(Site), V, ConstantInt::get(IT, MaskV)}));
}
InputBytesOp *TraceOpBuilder::createInputBytes(uint32_t Site, Value *Buf,
                                               Value *Len) {
  return cast<InputBytesOp>(
      emit(TraceOpKind::InputBytes, 0, {i32(Site), Buf, Len}));
}
SendOp *TraceOpBuilder::createSend(uint32_t Site, Value *Dest, Value *Seq) {
  return cast<SendOp>(emit(TraceOpKind::Send, 0, {i32(Site), Dest, Seq}));
}
RecvOp *TraceOpBuilder::createRecv(uint32_t Site, Value *Sender, Value *Seq) {
  return cast<RecvOp>(emit(TraceOpKind::Recv, 0, {i32(Site), Sender, Seq}));
}
MsgPayloadOp *TraceOpBuilder::createMsgPayload(uint32_t Site, Value *Buf, Value *Len) {
  return cast<MsgPayloadOp>(emit(TraceOpKind::MsgPayload, 0, {i32(Site), Buf, Len}));
}
SkipBeginOp *TraceOpBuilder::createSkipBegin(uint32_t Site) {
  return cast<SkipBeginOp>(emit(TraceOpKind::SkipBegin, 0, {i32(Site)}));
}
SkipEndOp *TraceOpBuilder::createSkipEnd(uint32_t Site) {
  return cast<SkipEndOp>(emit(TraceOpKind::SkipEnd, 0, {i32(Site)}));
}
Expected<EffectOp *> TraceOpBuilder::createEffect(uint32_t Site, Value *Ret) {
  if (!Ret)
    return cast<EffectOp>(emit(TraceOpKind::Effect, 0, {i32(Site)}));
  auto *IT = dyn_cast<IntegerType>(Ret->getType());
  if (!IT || !isValueWidth(IT->getBitWidth())) {
    std::string TS;
    raw_string_ostream(TS) << *Ret->getType();
    return createStringError(inconvertibleErrorCode(),
                             "effect site %u: return value of type '%s' cannot "
                             "be recorded (i1, i8, i16, i32 or i64 only)",
                             Site, TS.c_str());
  }
  return cast<EffectOp>(
      emit(TraceOpKind::Effect, IT->getBitWidth(), {i32(Site), Ret}));
}
CheckOp *TraceOpBuilder::createCheck(uint32_t Inv, Value *Ok) {
  return cast<CheckOp>(emit(TraceOpKind::Check, 0, {i32(Inv), Ok}));
}

Expected<EffectOp *> TraceOpBuilder::wrapUninstrumentedCall(CallBase &Call,
                                                            uint32_t Site) {
  if (!isa<CallInst>(Call))
    return createStringError(inconvertibleErrorCode(),
                             "skip site %u: only plain calls can be skipped "
                             "(found %s in '%s')",
                             Site, Call.getOpcodeName(),
                             Call.getFunction()->getName().str().c_str());
  Value *Ret = Call.getType()->isVoidTy() ? nullptr : &Call;
  if (Ret && !isa<IntegerType>(Ret->getType()) && Call.use_empty())
    Ret = nullptr; // an unused non-integer result needs no recording
  B.SetInsertPoint(&Call);
  B.SetCurrentDebugLocation(Call.getDebugLoc());
  createSkipBegin(Site);
  setInsertPointAfter(&Call);
  SkipEndOp *End = createSkipEnd(Site);
  setInsertPointAfter(End);
  B.SetCurrentDebugLocation(Call.getDebugLoc());
  Expected<EffectOp *> Eff = createEffect(Site, Ret);
  if (!Eff)
    return Eff.takeError();
  if (Ret)
    Call.replaceUsesWithIf(*Eff, [&](Use &U) { return U.getUser() != *Eff; });
  return *Eff;
}

} // namespace wsn
