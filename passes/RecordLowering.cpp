//===- RecordLowering.cpp - wsn-lower<record>: trace ops to the runtime ---===//
//
// spec/instrumentation.md, "Record lowering". The inline sequences are the
// short ones of the trace runtime's port layer (trace-runtime/src/port.h):
//   AVR     in rX, 0x3f ; cli            ...   out 0x3f, rX
//   MSP430  mov r2, rX ; dint ; nop      ...   nop ; bis rX & 8, r2 ; nop
// (dint takes effect one instruction later, hence the nop.) Between them the
// #gv_reference update is a plain load/add/store of @__wsn_gv_reference that
// the backends fold (MSP430: one `add #n, &__wsn_gv_reference`). The asm
// statements clobber memory, so no access moves into or out of a region.
//
//===----------------------------------------------------------------------===//
#include "RecordLowering.h"
#include "InterruptState.h"
#include "MoteMemoryModel.h"

#include "TraceOps.h"
#include "VariableLayout.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"

#include <map>
#include <optional>
#include <set>

using namespace llvm;

// Table-driven records (spec/instrumentation.md section 10): an effect, a check or a
// checkpoint of globals becomes one runtime call with a constant table instead of a chain of
// put / crc calls; SKIP_END merges into the effect call that follows it; inputs of at most 16
// bits use the 16-bit entry. Off: the call chains (for size comparisons).
static cl::opt<bool> WsnRecordTables(
    "wsn-record-tables", cl::init(true),
    cl::desc("wsn-lower<record>: one call with a constant table per effect, check and "
             "checkpoint (false: per-variable call chains)"));

// AVR region ends call the runtime's __wsn_rt_countN (N <= 8) instead of an inline
// #gv_reference update (spec/instrumentation.md section 10): RadioCountToLeds level 1
// -750 bytes; __wsn_rt_count1, the usual case, costs 5 cycles more than the inline update.
static cl::opt<bool> WsnCountHelper(
    "wsn-count-helper", cl::init(true),
    cl::desc("wsn-lower<record>: on AVR, region ends call __wsn_rt_countN (false: inline "
             "load/add/store of __wsn_gv_reference)"));

// MSP430 input sites that read a constant address call the runtime's __wsn_rt_in{8,16}_at
// with the site, address and mask as inline data after the call (spec/instrumentation.md
// section 10): the helper reads the register and records it. RadioCountToLedsWithSenderID
// (TelosB) level 1: 186 such sites.
static cl::opt<bool> WsnInputHelper(
    "wsn-input-helper", cl::init(true),
    cl::desc("wsn-lower<record>: on MSP430, an input read of a constant address goes through "
             "__wsn_rt_in8_at / __wsn_rt_in16_at (false: inline read and __wsn_rt_input8/16)"));

// Skipped calls on the motes (a skip span around one direct call whose effect fits a table)
// go through the runtime's __wsn_rt_skip_call with the site, effect table and callee as
// words after the call (spec/instrumentation.md section 10).
static cl::opt<bool> WsnSkipCall(
    "wsn-skip-call", cl::init(true),
    cl::desc("wsn-lower<record>: on AVR and MSP430, a skipped call goes through __wsn_rt_skip_call "
             "(false: __wsn_rt_skip_begin before it and __wsn_rt_skip_effect_t after it)"));

// MSP430 region ends (outside the program's own atomic sections) call the runtime's
// __wsn_rt_endN (N <= 8): the count update and the interrupt restore in one 4-byte call
// instead of 12 inline bytes (spec/instrumentation.md section 10).
static cl::opt<bool> WsnRegionEndHelper(
    "wsn-region-end-helper", cl::init(true),
    cl::desc("wsn-lower<record>: on MSP430, a region end calls __wsn_rt_endN (false: inline "
             "count update and `nop; bis rX, r2; nop`)"));

// Effect tables that end with the same variables share that tail through a link
// (spec/trace-format.md section 4). Off by default: on fidelity's sense-send at -O0 the
// changed timing of the effect writes exposed a replay mismatch (5 of 8 seeds; an
// uninstrumented timer handler's write of SenseC$clock after the last effect record) that
// is not understood yet.
static cl::opt<bool> WsnShareTails(
    "wsn-share-tails", cl::init(true),
    cl::desc("wsn-lower<record>: effect tables that end with the same variables link to one "
             "shared tail table"));

// The program's variables in module order in one section per kind, so that the tables list
// variables that follow each other in RAM as one (address, size) pair (spec/instrumentation.md
// section 10, "Adjacent variables"). Off: one pair per variable, wherever the linker puts it.
static cl::opt<bool> WsnAdjacentVars(
    "wsn-adjacent-vars", cl::init(true),
    cl::desc("wsn-lower<record>: on AVR and MSP430, place the program's variables in module "
             "order and merge the table pairs of adjacent ones"));

namespace wsn {

RecordTarget recordTargetOf(const Module &M) {
  Triple T(M.getTargetTriple());
  if (T.getArch() == Triple::avr)
    return RecordTarget::AVR;
  if (T.getArch() == Triple::msp430)
    return RecordTarget::MSP430;
  return RecordTarget::Host;
}

namespace {

Error makeError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg.str());
}

class RecordLowerer {
public:
  RecordLowerer(Module &M, RecordTarget T)
      : M(M), T(T), Ctx(M.getContext()), I8(Type::getInt8Ty(Ctx)),
        I16(Type::getInt16Ty(Ctx)), I32(Type::getInt32Ty(Ctx)),
        VoidTy(Type::getVoidTy(Ctx)), PtrTy(PointerType::get(Ctx, 0)) {}
  Expected<RecordLoweringStats> run();

private:
  FunctionCallee rt(StringRef Name, Type *Ret, ArrayRef<Type *> Params);
  Value *i16(uint64_t V) { return ConstantInt::get(I16, V); }
  GlobalVariable *counter();
  /// Interrupt state save + disable; nullptr on the host.
  Value *irqSave(IRBuilder<> &B);
  void irqRestore(IRBuilder<> &B, Value *State);
  void addToCounter(IRBuilder<> &B, uint32_t N);
  uint32_t sizeOf(Type *Ty) const {
    return M.getDataLayout().getTypeAllocSize(Ty);
  }
  GlobalVariable *retSlot();
  using VarList = std::vector<std::pair<Value *, uint32_t>>;
  Function *makeHelper(StringRef Name, Type *Ret, Function &Like);
  void emitPuts(IRBuilder<> &B, const VarList &L, Function &User);
  Value *emitCrc(IRBuilder<> &B, const VarList &L, Function &User);
  /// The address (as the runtime's uintptr_t) of a constant table: \p Head, then the
  /// number of (address, size) pairs and the pairs of \p L (variables over 255 bytes take
  /// several). On AVR it goes to program memory.
  Constant *makeTable(ArrayRef<Constant *> Head, const VarList &L, Constant *Link = nullptr);
  /// An (address as uintptr_t, size) pair of a table; size 0 is a link.
  using TablePair = std::pair<Constant *, uint8_t>;
  /// The pairs of \p L: adjacent variables merged into one run, a run over 255 bytes split.
  SmallVector<TablePair, 16> tablePairs(const VarList &L);
  /// makeTable's table of \p Pairs: a table of more than 255 pairs links its 255th to a
  /// headless table of the rest (spec/trace-format.md section 4).
  Constant *pairTable(ArrayRef<Constant *> Head, ArrayRef<TablePair> Pairs);
  /// Effect variable lists end in what interrupt handlers may write, the same at every
  /// interruptible site (spec/instrumentation.md section 7): every suffix (of at least 3
  /// variables) that two lists share becomes a table of its own, (n, pairs), and a table
  /// that ends with one holds a link to it instead (a pair of size 0).
  void planEffectTails();
  /// The table of \p Head and \p L, with L's longest shared tail (shorter than L if
  /// \p Proper) linked instead of listed, recursively.
  Constant *linkedTable(ArrayRef<Constant *> Head, const VarList &L, bool Proper);
  std::set<VarList> Tails;
  /// The handler part of the effects with a short form: the module's __wsn_effect_handlers.
  std::optional<VarList> HandlerList;
  /// Where the program's variables lie relative to each other (AVR and MSP430 with
  /// -wsn-adjacent-vars): makeTable merges the pairs of adjacent ones.
  std::optional<VariableLayout> Layout;
  /// Where the recorded image finds a variable: the global itself, or for a latch
  /// register's stand-in symbol ("__wsn_io_0x3b", declared by the instrumentation for
  /// checkpoints and effects) the register's constant address, so that the recorded image
  /// needs no definition of the symbol.
  Constant *varAddr(GlobalVariable *G) const;
  /// What a check's CRC covers: the invariant's inputs in map order, each split into its
  /// runs of non-padding bytes in the mote layout (C leaves padding unspecified: a struct
  /// copy carries whatever bytes the source held there; spec/replay.md section 4).
  VarList checkInputs(const TraceInvariantMD &MD) const;
  bool effectFitsTable(const TraceEffectMD &MD) const {
    return WsnRecordTables && MD.ReturnSize <= 4;
  }

  Error lower(TraceOp &Op);
  /// MSP430: an input whose value is a volatile read of a constant address right before the
  /// op, through the runtime's register-reading helper; false when the site has another shape.
  bool lowerInputAtHelper(InputOp &Op);
  Error lowerAnchor(AnchorOp &Op);
  Error lowerEffect(EffectOp &Op);
  Constant *effectTable(const TraceEffectMD &MD);
  static bool splitShortForm(const TraceEffectMD &MD, const VarList &L, VarList &Own,
                             VarList &Rest);
  /// AVR, MSP430: a skip span around one direct call, merged with its effect, through the
  /// runtime's __wsn_rt_skip_call; false when the span has another shape.
  bool lowerSkipCall(TraceOp &Begin);
  Error lowerCheck(CheckOp &Op);

  Module &M;
  RecordTarget T;
  LLVMContext &Ctx;
  Type *I8, *I16, *I32, *VoidTy;
  PointerType *PtrTy;
  DenseMap<uint32_t, TraceAnchorMD> Anchors;
  DenseMap<uint32_t, TraceEffectMD> Effects;
  DenseMap<uint32_t, TraceInvariantMD> Invariants;
  /// Region begin -> the saved interrupt state, for the matching end.
  DenseMap<std::pair<Function *, uint32_t>, Value *> OpenRegions;
  RecordLoweringStats Stats;
  /// Lists of (global, size) written by several records / checksummed by
  /// several checks: emitted once as an internal helper (code size).
  std::map<VarList, unsigned> PutUses, CrcUses;
  std::map<VarList, Function *> PutHelpers, CrcHelpers;
  /// The tables made so far, by content (shared by every record with the same layout).
  DenseMap<Constant *, GlobalVariable *> Tables;
  /// Handlers using irq_enter/irq_leave: the interrupted count returned by the entry
  /// call, passed back at every exit.
  DenseMap<const Function *, Value *> HandlerCounts;
  SmallPtrSet<const Function *, 4> CompactHandlers;
  /// Region begins reached only with interrupts disabled (see interruptsOffRegions).
  SmallPtrSet<const TraceOp *, 16> InsideAtomic;
  /// SKIP_END ops written by the effect call right after them, and those effects.
  SmallPtrSet<const TraceOp *, 8> MergedSkipEnds, EffectsAfterSkip;
  /// Effects written by __wsn_rt_skip_call (lowerSkipCall).
  SmallPtrSet<const TraceOp *, 8> EffectsInSkipCall;
};

FunctionCallee RecordLowerer::rt(StringRef Name, Type *Ret,
                                 ArrayRef<Type *> Params) {
  FunctionType *FT = FunctionType::get(Ret, Params, false);
  FunctionCallee FC = M.getOrInsertFunction(Name, FT);
  // The runtime is C: small unsigned parameters and results are
  // zero-extended by the caller / callee (what clang emits for uint8_t and
  // uint16_t on every target).
  if (auto *F = dyn_cast<Function>(FC.getCallee())) {
    F->addFnAttr(Attribute::NoUnwind);
    for (unsigned I = 0; I < Params.size(); ++I)
      if (Params[I]->isIntegerTy(8) || Params[I]->isIntegerTy(16))
        F->addParamAttr(I, Attribute::ZExt);
    if (Ret->isIntegerTy(8) || Ret->isIntegerTy(16))
      F->addRetAttr(Attribute::ZExt);
  }
  return FC;
}

GlobalVariable *RecordLowerer::counter() {
  if (GlobalVariable *GV = M.getGlobalVariable("__wsn_gv_reference"))
    return GV;
  return new GlobalVariable(M, I16, false, GlobalValue::ExternalLinkage,
                            nullptr, "__wsn_gv_reference");
}

Value *RecordLowerer::irqSave(IRBuilder<> &B) {
  switch (T) {
  case RecordTarget::AVR: {
    // SREG is I/O address 0x3f; the I flag is bit 7.
    auto *IA = InlineAsm::get(FunctionType::get(I8, false),
                              "in $0, 0x3f\n\tcli", "=r,~{memory}",
                              /*hasSideEffects=*/true);
    return B.CreateCall(IA, {}, "wsn.sreg");
  }
  case RecordTarget::MSP430: {
    // GIE is bit 3 of SR (r2); dint acts after the next instruction.
    auto *IA = InlineAsm::get(FunctionType::get(I16, false),
                              "mov r2, $0\n\tdint\n\tnop", "=r,~{memory}",
                              true);
    return B.CreateCall(IA, {}, "wsn.sr");
  }
  case RecordTarget::Host:
    return nullptr;
  }
  return nullptr;
}

void RecordLowerer::irqRestore(IRBuilder<> &B, Value *State) {
  if (!State)
    return;
  if (T == RecordTarget::AVR) {
    auto *IA = InlineAsm::get(FunctionType::get(VoidTy, {I8}, false),
                              "out 0x3f, $0", "r,~{memory},~{sreg}", true);
    B.CreateCall(IA, {State});
  } else {
    // Set GIE again only if it was set (as the runtime's port.h does): `bis`
    // leaves the flags alone. Writing the whole saved SR back (`mov rX, r2`)
    // also restored the flags of the save point, and the MSP430 backend does
    // not keep a flag result alive across the asm: a compare inside the region
    // whose Z the code read after it saw the old Z (a held invariant recorded
    // as violated and vice versa; progfuzz --mcu msp430f1611, program 9).
    Value *Gie = B.CreateAnd(State, i16(0x0008), "wsn.gie");
    auto *IA = InlineAsm::get(FunctionType::get(VoidTy, {I16}, false),
                              "nop\n\tbis $0, r2\n\tnop", "r,~{memory},~{r2}",
                              true);
    B.CreateCall(IA, {Gie});
  }
}

void RecordLowerer::addToCounter(IRBuilder<> &B, uint32_t N) {
  GlobalVariable *C = counter();
  if (T == RecordTarget::AVR && WsnCountHelper && N >= 1 && N <= 8) {
    // The runtime's register-preserving helper (trace.c): a 4-byte call instead of an
    // 18-byte load/add/store; it changes SREG only, and interrupts are off here.
    (void)C; // the helper names __wsn_gv_reference itself; keep the declaration for replay
    auto *IA = InlineAsm::get(FunctionType::get(VoidTy, false),
                              ("call __wsn_rt_count" + Twine(N)).str(),
                              "~{memory},~{sreg}", /*hasSideEffects=*/true);
    B.CreateCall(IA, {});
    return;
  }
  Value *V = B.CreateLoad(I16, C, "wsn.gvref");
  B.CreateStore(B.CreateAdd(V, i16(N)), C);
}

/// One module-wide scratch slot for effect return values: it is written
/// after __wsn_rt_effect_begin disabled interrupts, so no other effect can
/// use it at the same time, and a stack slot would cost a frame (on AVR a
/// frame pointer setup) in every function with a skipped call.
GlobalVariable *RecordLowerer::retSlot() {
  const char *Name = "__wsn_effect_ret";
  if (GlobalVariable *GV = M.getGlobalVariable(Name, true))
    return GV;
  auto *Ty = ArrayType::get(I8, 8);
  return new GlobalVariable(M, Ty, false, GlobalValue::InternalLinkage,
                            ConstantAggregateZero::get(Ty), Name);
}

Function *RecordLowerer::makeHelper(StringRef Name, Type *Ret, Function &Like) {
  Function *F = Function::Create(FunctionType::get(Ret, false),
                                 GlobalValue::InternalLinkage,
                                 M.getDataLayout().getProgramAddressSpace(),
                                 Name, &M);
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::NoInline);
  F->addFnAttr(Attribute::MinSize);
  F->addFnAttr(Attribute::OptimizeForSize);
  for (StringRef A : {"target-cpu", "target-features"})
    if (Like.hasFnAttribute(A))
      F->addFnAttr(Like.getFnAttribute(A));
  if (Ret->isIntegerTy(16))
    F->addRetAttr(Attribute::ZExt);
  return F;
}

void RecordLowerer::emitPuts(IRBuilder<> &B, const VarList &L, Function &User) {
  FunctionCallee Put = rt("__wsn_rt_put", VoidTy, {PtrTy, I16});
  if (L.size() >= 2 && PutUses[L] >= 2) {
    Function *&H = PutHelpers[L];
    if (!H) {
      H = makeHelper("__wsn_puts", VoidTy, User);
      IRBuilder<> HB(BasicBlock::Create(Ctx, "", H));
      for (auto &[P, Size] : L)
        HB.CreateCall(Put, {P, i16(Size)});
      HB.CreateRetVoid();
    }
    B.CreateCall(H, {});
    return;
  }
  for (auto &[P, Size] : L)
    B.CreateCall(Put, {P, i16(Size)});
}

Value *RecordLowerer::emitCrc(IRBuilder<> &B, const VarList &L, Function &User) {
  FunctionCallee Crc = rt("__wsn_crc16", I16, {I16, PtrTy, I16});
  auto Chain = [&](IRBuilder<> &CB) {
    Value *C = i16(0xFFFF);
    for (auto &[P, Size] : L)
      C = CB.CreateCall(Crc, {C, P, i16(Size)});
    return C;
  };
  if (L.size() >= 2 && CrcUses[L] >= 2) {
    Function *&H = CrcHelpers[L];
    if (!H) {
      H = makeHelper("__wsn_crc", I16, User);
      IRBuilder<> HB(BasicBlock::Create(Ctx, "", H));
      HB.CreateRet(Chain(HB));
    }
    return B.CreateCall(H, {});
  }
  return Chain(B);
}

Constant *RecordLowerer::varAddr(GlobalVariable *G) const {
  if (G->isDeclaration())
    if (std::optional<uint32_t> Addr = parseLatchSymbolName(G->getName()))
      return ConstantExpr::getIntToPtr(
          ConstantInt::get(M.getDataLayout().getIntPtrType(Ctx, 0), *Addr), G->getType());
  return G;
}

RecordLowerer::VarList RecordLowerer::checkInputs(const TraceInvariantMD &MD) const {
  const DataLayout &DL = M.getDataLayout();
  IntegerType *IntPtr = DL.getIntPtrType(Ctx, 0);
  VarList L;
  for (const TraceVarRef &V : MD.Inputs) {
    Constant *Addr = varAddr(V.Global);
    for (auto [Off, Len] : nonPaddingRuns(DL, V.Global->getValueType(), V.Size)) {
      Constant *At = Addr;
      if (Off)
        At = ConstantExpr::getGetElementPtr(I8, Addr, ConstantInt::get(IntPtr, Off));
      L.push_back({At, Len});
    }
  }
  return L;
}

Constant *RecordLowerer::makeTable(ArrayRef<Constant *> Head, const VarList &L,
                                   Constant *Link) {
  SmallVector<TablePair, 16> Pairs = tablePairs(L);
  // A pair of size 0 continues with the (n, pairs) table at its address.
  if (Link)
    Pairs.push_back({Link, 0});
  return pairTable(Head, Pairs);
}

SmallVector<RecordLowerer::TablePair, 16> RecordLowerer::tablePairs(const VarList &L) {
  const DataLayout &DL = M.getDataLayout();
  IntegerType *IntPtr = DL.getIntPtrType(Ctx, 0);
  // Variables that follow each other in RAM are one run (the record's bytes are the same).
  VarList Runs;
  for (size_t I = 0; I < L.size(); ++I) {
    auto &[P, Size] = L[I];
    if (Layout && I && Layout->follows(cast<Constant>(L[I - 1].first), L[I - 1].second,
                                       cast<Constant>(P)))
      Runs.back().second += Size;
    else
      Runs.push_back({P, Size});
  }
  SmallVector<TablePair, 16> Pairs;
  for (auto &[P, Size] : Runs) {
    auto *C = cast<Constant>(P);
    for (uint32_t Off = 0; Off < Size; Off += 255) {
      Constant *Addr = C;
      if (Off)
        Addr = ConstantExpr::getGetElementPtr(I8, C, ConstantInt::get(IntPtr, Off));
      Pairs.push_back({ConstantExpr::getPtrToInt(Addr, IntPtr),
                       uint8_t(std::min<uint32_t>(255, Size - Off))});
    }
  }
  return Pairs;
}

Constant *RecordLowerer::pairTable(ArrayRef<Constant *> Head, ArrayRef<TablePair> Pairs) {
  const DataLayout &DL = M.getDataLayout();
  IntegerType *IntPtr = DL.getIntPtrType(Ctx, 0);
  // The count n is a byte: past 255 pairs, the 255th is a link to a table of the rest.
  SmallVector<TablePair, 16> Own(Pairs.take_front(255));
  if (Pairs.size() > 255) {
    Own.pop_back();
    Own.push_back({pairTable({}, Pairs.drop_front(254)), 0});
  }
  SmallVector<Constant *, 16> Fields(Head.begin(), Head.end());
  Fields.push_back(ConstantInt::get(I8, Own.size()));
  for (auto &[Addr, Size] : Own) {
    Fields.push_back(Addr);
    Fields.push_back(ConstantInt::get(I8, Size));
  }
  Constant *Init = ConstantStruct::getAnon(Ctx, Fields, /*Packed=*/true);
  // Records with the same layout share one table (effects carry no site id for that).
  if (GlobalVariable *Old = Tables.lookup(Init))
    return ConstantExpr::getPtrToInt(Old, IntPtr);
  unsigned AS = T == RecordTarget::AVR ? DL.getProgramAddressSpace() : 0;
  auto *GV = new GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                                GlobalValue::PrivateLinkage, Init, "__wsn_tbl", nullptr,
                                GlobalValue::NotThreadLocal, AS);
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  // A linked table (no head): on AVR its address in the linking table is a word address
  // (the backend writes pm()), so it must be 2-byte aligned.
  GV->setAlignment(Align(Head.empty() && T == RecordTarget::AVR ? 2 : 1));
  Tables[Init] = GV;
  ++Stats.Tables;
  Stats.TableBytes += DL.getTypeAllocSize(Init->getType());
  for (auto &[Addr, Size] : Own)
    ++(Size ? Stats.Pairs : Stats.Links);
  return ConstantExpr::getPtrToInt(GV, IntPtr);
}

/// LOG 4: the first anchor reached in a segment writes the checkpoint (the
/// runtime keeps the armed flag); writing it also resets #gv_reference, so
/// that replay, which starts at a checkpoint, knows the count there.
Error RecordLowerer::lowerAnchor(AnchorOp &Op) {
  auto It = Anchors.find(Op.anchor());
  if (It == Anchors.end())
    return makeError(formatv("anchor {0} in function '{1}' is missing from "
                             "!wsn.anchors",
                             Op.anchor(), Op.getFunction()->getName()));
  const TraceAnchorMD &MD = It->second;
  uint32_t Len = 0;
  for (const TraceVarRef &V : MD.Vars)
    Len += V.Size;
  IRBuilder<> B(&Op);
  if (WsnRecordTables && Op.locals().empty() &&
      llvm::all_of(MD.Vars, [](const TraceVarRef &V) { return V.isGlobal(); })) {
    // One call: the runtime tests the armed flag, writes the globals and resets the count.
    VarList L;
    for (const TraceVarRef &V : MD.Vars)
      L.push_back({varAddr(V.Global), V.Size});
    Constant *Tbl = makeTable({ConstantInt::get(I16, Op.anchor()), ConstantInt::get(I16, Len)}, L);
    B.CreateCall(rt("__wsn_rt_checkpoint_t", VoidTy, {Tbl->getType()}), {Tbl});
    return Error::success();
  }
  Value *Armed = B.CreateCall(rt("__wsn_rt_anchor_armed", I8, {}), {});
  Value *Cond = B.CreateICmpNE(Armed, ConstantInt::get(I8, 0));
  Instruction *Then = SplitBlockAndInsertIfThen(Cond, &Op, false);
  B.SetInsertPoint(Then);
  B.CreateCall(rt("__wsn_rt_checkpoint_begin", VoidTy, {I16, I16}),
               {i16(Op.anchor()), i16(Len)});
  FunctionCallee Put = rt("__wsn_rt_put", VoidTy, {PtrTy, I16});
  // Runs of globals go through one table each (__wsn_rt_put_t), the locals one put each.
  VarList Run;
  auto FlushRun = [&] {
    if (Run.size() >= 2 && WsnRecordTables) {
      uint32_t Bytes = 0;
      for (auto &[P, Size] : Run)
        Bytes += Size;
      Constant *Tbl = makeTable({ConstantInt::get(I16, Bytes)}, Run);
      B.CreateCall(rt("__wsn_rt_put_t", VoidTy, {Tbl->getType()}), {Tbl});
    } else {
      for (auto &[P, Size] : Run)
        B.CreateCall(Put, {P, i16(Size)});
    }
    Run.clear();
  };
  auto Locals = Op.locals().begin();
  for (const TraceVarRef &V : MD.Vars) {
    Value *P;
    if (V.isGlobal()) {
      Run.push_back({varAddr(V.Global), V.Size});
      continue;
    } else {
      FlushRun();
      if (Locals == Op.locals().end())
        return makeError(formatv("anchor {0}: !wsn.anchors lists more locals "
                                 "than the op passes",
                                 Op.anchor()));
      P = Locals->get();
      ++Locals;
    }
    B.CreateCall(Put, {P, i16(V.Size)});
  }
  FlushRun();
  B.CreateStore(i16(0), counter());
  // A checkpoint the runtime tried to pack into the rest of a segment, where it did not fit,
  // is given up (the pieces' variables are gone by then): record_end returns 1 and the whole
  // record is written again, its plain reservation at the next segment (spec/trace-format.md
  // section 3.2).
  Value *Again = B.CreateCall(rt("__wsn_rt_record_end", I8, {}), {});
  BasicBlock *Write = Then->getParent();
  Instruction *Br = Write->getTerminator();
  BranchInst::Create(Write, Br->getSuccessor(0),
                     B.CreateICmpNE(Again, ConstantInt::get(I8, 0)), Br);
  Br->eraseFromParent();
  return Error::success();
}

/// The short form of an effect whose handler part is the module's handler table: the
/// callee's writes no handler writes (`Rest`, the whole record's first globals), then the
/// handler part's globals the callee writes (`Own`). False for any other shape (never made
/// by the instrumentation), which gets a whole-only table.
bool RecordLowerer::splitShortForm(const TraceEffectMD &MD, const VarList &L, VarList &Own,
                                   VarList &Rest) {
  if (!MD.Short || MD.HandlerPart > L.size())
    return false;
  size_t First = L.size() - MD.HandlerPart; // the handler part's first global
  Rest.assign(L.begin(), L.begin() + First);
  size_t Next = 0;
  for (uint32_t I : *MD.Short) {
    if (I >= First)
      Own.push_back(L[I]);
    else if (I != Next++)
      return false;
  }
  return Next == First;
}

/// The constant table of an effect record that fits one (effectFitsTable), as the
/// runtime's uintptr_t: one table per record layout, shared by the sites that have it.
Constant *RecordLowerer::effectTable(const TraceEffectMD &MD) {
  uint32_t Len = MD.ReturnSize;
  for (const TraceVarRef &V : MD.Writes)
    Len += V.Size;
  VarList L;
  for (const TraceVarRef &V : MD.Writes)
    L.push_back({varAddr(V.Global), V.Size});
  VarList Own, Rest;
  if (splitShortForm(MD, L, Own, Rest)) {
    VarList Handlers(L.end() - MD.HandlerPart, L.end());
    if (!HandlerList) {
      // The handler part is the same list for every effect (spec/instrumentation.md section
      // 7): one module table, `u16 bytes, u8 n, pairs`, that the runtime finds by its name.
      uint32_t Bytes = 0;
      for (auto &[P, Size] : Handlers)
        Bytes += Size;
      HandlerList = Handlers;
      Constant *HT = makeTable({ConstantInt::get(I16, Bytes)}, Handlers);
      auto *GV = cast<GlobalVariable>(cast<ConstantExpr>(HT)->getOperand(0));
      GlobalAlias::create(GV->getValueType(), GV->getAddressSpace(),
                          GlobalValue::ExternalLinkage, "__wsn_effect_handlers", GV, &M);
    }
    uint32_t ShortLen = MD.ReturnSize;
    for (auto &[P, Size] : Own)
      ShortLen += Size;
    if (Handlers == *HandlerList && Rest.empty()) {
      // Short effects (spec/trace-format.md section 4): the table is the short form's and
      // ret-bytes | 0x80 flags it; the whole form is the module's handler table.
      return linkedTable(
          {ConstantInt::get(I16, ShortLen), ConstantInt::get(I8, MD.ReturnSize | 0x80)}, Own,
          /*Proper=*/false);
    }
    // When the callee also writes globals no handler writes (Rest), they come first in both
    // forms, and | 0x40 says that the head adds their bytes and the number m of their pairs:
    // the whole form is the short form's first m pairs, then the handler table. So each
    // variable is listed once; Own may still end with a shared tail, after the m pairs.
    SmallVector<TablePair, 16> Pairs = tablePairs(Rest);
    size_t M = Pairs.size();
    uint32_t RestBytes = 0;
    for (auto &[P, Size] : Rest)
      RestBytes += Size;
    const VarList *Best = nullptr;
    for (const VarList &T : Tails)
      if (T.size() <= Own.size() && (!Best || T.size() > Best->size()) &&
          std::equal(T.begin(), T.end(), Own.end() - T.size()))
        Best = &T;
    append_range(Pairs,
                 tablePairs(VarList(Own.begin(), Own.end() - (Best ? Best->size() : 0))));
    if (Best)
      Pairs.push_back({linkedTable({}, *Best, /*Proper=*/true), 0});
    if (Handlers == *HandlerList && M < 255 && Pairs.size() <= 255)
      return pairTable({ConstantInt::get(I16, ShortLen + RestBytes),
                        ConstantInt::get(I8, MD.ReturnSize | 0xC0),
                        ConstantInt::get(I16, RestBytes), ConstantInt::get(I8, M)},
                       Pairs);
  }
  // No short form, or (never seen) a handler part other than the module's: the whole
  // record always.
  return linkedTable({ConstantInt::get(I16, Len), ConstantInt::get(I8, MD.ReturnSize)}, L,
                     /*Proper=*/false);
}

/// Multi-level (thesis 4.4.1): the skipped callee's return value and the
/// final values of the globals it may write, in one EFFECT record.
Error RecordLowerer::lowerEffect(EffectOp &Op) {
  if (EffectsInSkipCall.count(&Op)) { // written by __wsn_rt_skip_call
    if (Value *Ret = Op.returnValue())
      Op.replaceAllUsesWith(Ret);
    return Error::success();
  }
  auto It = Effects.find(Op.site());
  if (It == Effects.end())
    return makeError(formatv("effect site {0} in function '{1}' is missing "
                             "from !wsn.effects",
                             Op.site(), Op.getFunction()->getName()));
  const TraceEffectMD &MD = It->second;
  uint32_t Len = MD.ReturnSize;
  for (const TraceVarRef &V : MD.Writes)
    Len += V.Size;
  IRBuilder<> B(&Op);
  if (effectFitsTable(MD)) {
    // One call: [SKIP_END,] EFFECT with the return value (<= 4 bytes) as an argument.
    Constant *Tbl = effectTable(MD);
    Value *Ret = Op.returnValue();
    // Return values of up to 2 bytes in a 16-bit argument, up to 4 in a 32-bit one.
    Type *RetTy = MD.ReturnSize <= 2 ? I16 : I32;
    Value *RV = ConstantInt::get(RetTy, 0);
    if (Ret) {
      if (Ret->getType()->isPointerTy())
        Ret = B.CreatePtrToInt(Ret, M.getDataLayout().getIntPtrType(Ctx, 0));
      RV = B.CreateZExtOrTrunc(Ret, RetTy);
      Op.replaceAllUsesWith(Op.returnValue());
    }
    // The table has no site id (call sites with the same layout share it): the site is an
    // argument, and a merged SKIP_END is a second entry point.
    bool Skip = EffectsAfterSkip.count(&Op);
    StringRef Entry = MD.ReturnSize <= 2
                          ? (Skip ? "__wsn_rt_skip_effect_t" : "__wsn_rt_effect_t")
                          : (Skip ? "__wsn_rt_skip_effect32_t" : "__wsn_rt_effect32_t");
    B.CreateCall(rt(Entry, VoidTy, {I16, Tbl->getType(), RetTy}), {i16(Op.site()), Tbl, RV});
    return Error::success();
  }
  B.CreateCall(rt("__wsn_rt_effect_begin", VoidTy, {I16, I16}),
               {i16(Op.site()), i16(Len)});
  FunctionCallee Put = rt("__wsn_rt_put", VoidTy, {PtrTy, I16});
  if (Value *Ret = Op.returnValue()) {
    GlobalVariable *Slot = retSlot();
    B.CreateStore(Ret, Slot);
    B.CreateCall(Put, {Slot, i16(MD.ReturnSize)});
    Op.replaceAllUsesWith(Ret);
  }
  VarList L;
  for (const TraceVarRef &V : MD.Writes)
    L.push_back({varAddr(V.Global), V.Size});
  emitPuts(B, L, *Op.getFunction());
  B.CreateCall(rt("__wsn_rt_record_end", I8, {}), {}); // 0 after an effect
  return Error::success();
}

void RecordLowerer::planEffectTails() {
  const size_t MinTail = 3; // a link costs one pair
  std::vector<VarList> Lists;
  for (auto &[Site, MD] : Effects) {
    if (!effectFitsTable(MD))
      continue;
    VarList L;
    for (const TraceVarRef &V : MD.Writes)
      L.push_back({varAddr(V.Global), V.Size});
    // An effect with a short form lists the handler part's globals its callee writes (the
    // handler part is the module's table; the callee's other writes come first in the
    // short form's table, effectTable).
    VarList Own, Rest;
    if (splitShortForm(MD, L, Own, Rest)) {
      Lists.push_back(std::move(Own));
      continue;
    }
    Lists.push_back(std::move(L));
  }
  llvm::sort(Lists);
  Lists.erase(std::unique(Lists.begin(), Lists.end()), Lists.end());
  // Every suffix that two different lists have in common (the longest for each pair).
  for (size_t I = 0; I < Lists.size(); ++I)
    for (size_t J = I + 1; J < Lists.size(); ++J) {
      const VarList &A = Lists[I], &B = Lists[J];
      size_t K = 0;
      while (K < A.size() && K < B.size() && A[A.size() - 1 - K] == B[B.size() - 1 - K])
        ++K;
      if (K >= MinTail)
        Tails.insert(VarList(A.end() - K, A.end()));
    }
}

Constant *RecordLowerer::linkedTable(ArrayRef<Constant *> Head, const VarList &L,
                                     bool Proper) {
  // The longest shared tail that L ends with (shorter than L when L is a tail itself).
  const VarList *Best = nullptr;
  for (const VarList &T : Tails)
    if ((T.size() < L.size() || (!Proper && T.size() == L.size())) &&
        (!Best || T.size() > Best->size()) &&
        std::equal(T.begin(), T.end(), L.end() - T.size()))
      Best = &T;
  if (!Best)
    return makeTable(Head, L);
  Constant *Link = linkedTable({}, *Best, /*Proper=*/true);
  return makeTable(Head, VarList(L.begin(), L.end() - Best->size()), Link);
}

/// Invariant check: the CRC-16 of the invariant's inputs and the CHECK /
/// VIOLATION record, with interrupts off, counted as one reference (the CRC
/// reads interrupt-shared globals; spec/instrumentation.md, "Checks").
Error RecordLowerer::lowerCheck(CheckOp &Op) {
  auto It = Invariants.find(Op.inv());
  if (It == Invariants.end())
    return makeError(formatv("inv {0} in function '{1}' is missing from "
                             "!wsn.invariants",
                             Op.inv(), Op.getFunction()->getName()));
  IRBuilder<> B(&Op);
  VarList L = checkInputs(It->second);
  // A table holds at most 255 (address, size) pairs (one per 255 bytes of a run); inputs
  // split into more runs than that take the call chain.
  uint32_t Pairs = 0;
  for (auto &[P, Size] : L)
    Pairs += (Size + 254) / 255;
  if (WsnRecordTables && Pairs <= 255) {
    // One call: CRC over the table, the record and the count update, interrupts off.
    Constant *Tbl = makeTable({ConstantInt::get(I16, Op.inv())}, L);
    B.CreateCall(rt("__wsn_rt_check_t", VoidTy, {Tbl->getType(), I8}),
                 {Tbl, B.CreateZExt(Op.ok(), I8)});
    return Error::success();
  }
  Value *State = irqSave(B);
  Value *C = emitCrc(B, L, *Op.getFunction());
  Value *Ok = B.CreateZExt(Op.ok(), I8);
  B.CreateCall(rt("__wsn_rt_check", VoidTy, {I16, I8, I16}),
               {i16(Op.inv()), Ok, C});
  addToCounter(B, 1);
  irqRestore(B, State);
  return Error::success();
}

Error RecordLowerer::lower(TraceOp &Op) {
  IRBuilder<> B(&Op);
  auto Id = [&] { return i16(Op.id()); };
  auto Simple = [&](StringRef Name) {
    B.CreateCall(rt(Name, VoidTy, {I16}), {Id()});
  };
  switch (Op.kind()) {
  case TraceOpKind::FuncEntry:
    Simple("__wsn_rt_entry");
    break;
  case TraceOpKind::FuncExit:
    Simple("__wsn_rt_exit");
    break;
  case TraceOpKind::IrqEntry:
    if (CompactHandlers.count(Op.getFunction()))
      HandlerCounts[Op.getFunction()] =
          B.CreateCall(rt("__wsn_rt_irq_enter", I16, {I16}), {Id()}, "wsn.irqcount");
    else
      Simple("__wsn_rt_irq_entry");
    break;
  case TraceOpKind::IrqExit:
    if (CompactHandlers.count(Op.getFunction()))
      B.CreateCall(rt("__wsn_rt_irq_leave", VoidTy, {I16, I16}),
                   {Id(), HandlerCounts.lookup(Op.getFunction())});
    else
      Simple("__wsn_rt_irq_exit");
    break;
  case TraceOpKind::Sched:
    Simple("__wsn_rt_sched");
    break;
  case TraceOpKind::SkipBegin:
    if (T != RecordTarget::Host && WsnSkipCall && lowerSkipCall(Op))
      break;
    Simple("__wsn_rt_skip_begin");
    break;
  case TraceOpKind::SkipEnd:
    if (!MergedSkipEnds.count(&Op))
      Simple("__wsn_rt_skip_end");
    break;
  case TraceOpKind::RegionBegin: {
    // Inside an atomic section interrupts are already off: only the count update remains.
    Value *S = InsideAtomic.count(&Op) ? nullptr : irqSave(B);
    OpenRegions[{Op.getFunction(), Op.id()}] = S;
    break;
  }
  case TraceOpKind::RegionEnd: {
    auto *RE = cast<RegionEndOp>(&Op);
    auto It = OpenRegions.find({Op.getFunction(), Op.id()});
    if (It == OpenRegions.end())
      return makeError(formatv("wsn.region.end site {0} in function '{1}' "
                               "has no wsn.region.begin before it",
                               Op.id(), Op.getFunction()->getName()));
    if (RE->count() == 0)
      return makeError(formatv("wsn.region.end site {0} in function '{1}': "
                               "the count is not a positive constant",
                               Op.id(), Op.getFunction()->getName()));
    if (T == RecordTarget::MSP430 && WsnRegionEndHelper && It->second && RE->count() <= 8) {
      // One call of the runtime's __wsn_rt_endN: the count update and the GIE restore of
      // the saved SR in r15 (4 bytes instead of 12). The helper changes the flags: the
      // clobber must be spelled `sr`, LLVM's MSP430 name (`~{r2}` is accepted and ignored,
      // and a compare before the call was read after it: lit msp430-region-flags).
      Value *State = It->second;
      auto *IA = InlineAsm::get(FunctionType::get(I16, {I16}, false),
                                ("call #__wsn_rt_end" + Twine(RE->count())).str(),
                                "={r15},0,~{sr},~{memory}", /*hasSideEffects=*/true);
      (void)counter(); // the helper names __wsn_gv_reference; keep the declaration for replay
      B.CreateCall(IA, {State});
    } else {
      addToCounter(B, RE->count());
      irqRestore(B, It->second);
    }
    OpenRegions.erase(It);
    break;
  }
  case TraceOpKind::Anchor:
    return lowerAnchor(cast<AnchorOp>(Op));
  case TraceOpKind::Input: {
    auto *In = cast<InputOp>(&Op);
    if (T == RecordTarget::MSP430 && WsnRecordTables && WsnInputHelper &&
        lowerInputAtHelper(*In))
      break;
    Value *V = In->value();
    Value *Masked = B.CreateAnd(V, In->mask());
    std::optional<uint64_t> MaskV = In->maskValue();
    unsigned Bits = V->getType()->getIntegerBitWidth();
    if (WsnRecordTables && Op.id() < 256 && (Bits <= 8 || (MaskV && *MaskV <= 0xFF))) {
      // Site and value in one byte each: the cheapest call (two 8-bit registers).
      B.CreateCall(rt("__wsn_rt_input8", VoidTy, {I8, I8}),
                   {ConstantInt::get(I8, Op.id()), B.CreateZExtOrTrunc(Masked, I8)});
    } else if (WsnRecordTables && (Bits <= 16 || (MaskV && *MaskV <= 0xFFFF))) {
      // The same INPUT record through the 16-bit entry (the varint is the same bytes).
      B.CreateCall(rt("__wsn_rt_input16", VoidTy, {I16, I16}),
                   {Id(), B.CreateZExtOrTrunc(Masked, I16)});
    } else {
      Value *W = B.CreateZExtOrTrunc(Masked, I32);
      B.CreateCall(rt("__wsn_rt_input", VoidTy, {I16, I32}), {Id(), W});
    }
    Op.replaceAllUsesWith(V);
    break;
  }
  case TraceOpKind::InputBytes: {
    auto *In = cast<InputBytesOp>(&Op);
    B.CreateCall(rt("__wsn_rt_input_bytes", VoidTy, {I16, PtrTy, I16}),
                 {Id(), In->buffer(), B.CreateZExtOrTrunc(In->length(), I16)});
    break;
  }
  case TraceOpKind::Send:
  case TraceOpKind::Recv: {
    Value *A = Op.getArgOperand(1), *C = Op.getArgOperand(2);
    bool Send = Op.kind() == TraceOpKind::Send;
    B.CreateCall(rt(Send ? "__wsn_rt_send" : "__wsn_rt_recv", VoidTy,
                    {I16, I16, I16}),
                 {Id(), B.CreateZExtOrTrunc(A, I16),
                  B.CreateZExtOrTrunc(C, I16)});
    break;
  }
  case TraceOpKind::MsgPayload:
    break; // replay only: the payload is not recorded (its bytes are inputs already)
  case TraceOpKind::Effect:
    return lowerEffect(cast<EffectOp>(Op));
  case TraceOpKind::Check:
    return lowerCheck(cast<CheckOp>(Op));
  }
  return Error::success();
}

bool RecordLowerer::lowerSkipCall(TraceOp &Begin) {
  auto *Call = dyn_cast_or_null<CallInst>(Begin.getNextNonDebugInstruction());
  if (!Call || isa<TraceOp>(Call) || Call->isInlineAsm() || Call->isMustTailCall() ||
      Call->hasOperandBundles())
    return false;
  Function *Callee = Call->getCalledFunction();
  if (!Callee || Callee->isIntrinsic() || Callee->isVarArg() || Call->arg_size() > 4 ||
      Call->getFunctionType() != Callee->getFunctionType())
    return false;
  auto *End = dyn_cast_or_null<TraceOp>(Call->getNextNonDebugInstruction());
  if (!End || !MergedSkipEnds.count(End) || End->id() != Begin.id())
    return false;
  auto *E = dyn_cast_or_null<EffectOp>(End->getNextNonDebugInstruction());
  if (!E || !EffectsAfterSkip.count(E) || E->site() != Begin.id() || Begin.id() > 0xFFFF)
    return false;
  auto It = Effects.find(E->site());
  if (It == Effects.end() || It->second.ReturnSize > 2)
    return false;
  // Each argument and the return value in one 16-bit register (MSP430 r12-r15 / r12; AVR
  // the pairs from r25:r24 down / r25:r24), as the calling conventions pass them; anything
  // else keeps the inline lowering.
  auto OneReg = [&](Type *Ty) {
    return Ty->isPointerTy() || (Ty->isIntegerTy() && Ty->getIntegerBitWidth() >= 8 &&
                                 Ty->getIntegerBitWidth() <= 16);
  };
  Type *RetTy = Call->getType();
  if (!RetTy->isVoidTy() && !OneReg(RetTy))
    return false;
  for (unsigned I = 0; I < Call->arg_size(); ++I)
    if (!OneReg(Call->getArgOperand(I)->getType()) || Call->paramHasAttr(I, Attribute::ByVal) ||
        Call->paramHasAttr(I, Attribute::StructRet) || Call->paramHasAttr(I, Attribute::InReg))
      return false;
  Constant *Tbl = effectTable(It->second);
  auto *TblCE = dyn_cast<ConstantExpr>(Tbl);
  auto *TblGV = TblCE ? dyn_cast<GlobalVariable>(TblCE->getOperand(0)) : nullptr;
  if (!TblGV)
    return false;

  IRBuilder<> B(Call);
  SmallVector<Value *, 6> Args;
  // The argument registers in order (AVR: one pair each, r25:r24 first, named `r25r24`:
  // `{r24}` with an i16 is the byte register alone, and the high byte went unset); the
  // helper may change all of them, so each is an output too.
  bool Avr = T == RecordTarget::AVR;
  std::string Cons =
      Avr ? "={r25r24},={r23r22},={r21r20},={r19r18}" : "={r12},={r13},={r14},={r15}";
  for (unsigned I = 0; I < Call->arg_size(); ++I) {
    Value *A = Call->getArgOperand(I);
    if (A->getType()->isPointerTy())
      A = B.CreatePtrToInt(A, I16);
    else if (Call->paramHasAttr(I, Attribute::SExt))
      A = B.CreateSExt(A, I16);
    else
      A = B.CreateZExtOrTrunc(A, I16);
    Args.push_back(A);
    Cons += "," + std::to_string(I); // in the register of output I: the helper may change it
  }
  unsigned TblOp = 4 + Args.size();
  Args.push_back(TblGV);
  Args.push_back(Callee);
  Cons += Avr ? ",i,i,~{r26},~{r27},~{r30},~{r31},~{r0},~{sreg},~{memory}"
              : ",i,i,~{r11},~{sr},~{memory}";
  std::string Asm = formatv("call {0}__wsn_rt_skip_call\n\t.word {1}, ${{{2}:c}, ${{{3}:c}",
                            Avr ? "" : "#", Begin.id(), TblOp, TblOp + 1)
                        .str();
  SmallVector<Type *, 6> ArgTys;
  for (Value *A : Args)
    ArgTys.push_back(A->getType());
  auto *Regs = StructType::get(Ctx, {I16, I16, I16, I16});
  auto *IA = InlineAsm::get(FunctionType::get(Regs, ArgTys, false), Asm, Cons,
                            /*hasSideEffects=*/true);
  CallInst *Trampoline = B.CreateCall(IA, Args);
  Trampoline->setDebugLoc(Call->getDebugLoc());
  if (!RetTy->isVoidTy()) {
    Value *R = B.CreateExtractValue(Trampoline, 0);
    R = RetTy->isPointerTy() ? B.CreateIntToPtr(R, RetTy) : B.CreateZExtOrTrunc(R, RetTy);
    Call->replaceAllUsesWith(R);
  }
  Call->eraseFromParent();
  EffectsInSkipCall.insert(E);
  return true;
}

bool RecordLowerer::lowerInputAtHelper(InputOp &Op) {
  auto *L = dyn_cast<LoadInst>(Op.value());
  if (!L || !L->isVolatile() || L->getNextNonDebugInstruction() != &Op || !L->hasOneUse())
    return false;
  unsigned Bits = L->getType()->isIntegerTy() ? L->getType()->getIntegerBitWidth() : 0;
  std::optional<uint64_t> Mask = Op.maskValue();
  auto *CE = dyn_cast<ConstantExpr>(L->getPointerOperand());
  if ((Bits != 8 && Bits != 16) || !Mask || Op.id() > 0xFFFF || !CE ||
      CE->getOpcode() != Instruction::IntToPtr)
    return false;
  auto *Addr = dyn_cast<ConstantInt>(CE->getOperand(0));
  if (!Addr || Addr->getZExtValue() > 0xFFFF || (Bits == 16 && (Addr->getZExtValue() & 1)))
    return false;
  // The helper reads the register where the load was (the op follows it directly), records
  // the masked value and returns the unmasked one in r12.
  uint64_t A = Addr->getZExtValue(), Used = *Mask & ((1u << Bits) - 1);
  // A byte register (the MSP430's 8-bit peripherals sit below 0x100) packs address and
  // mask into one word; a word register takes a word for each.
  if (Bits == 8 && A >= 0x100)
    return false;
  std::string Asm =
      Bits == 8
          ? formatv("call #__wsn_rt_in8_at\n\t.word {0}, {1}", Op.id(), A | Used << 8).str()
          : formatv("call #__wsn_rt_in16_at\n\t.word {0}, {1}, {2}", Op.id(), A, Used).str();
  // The helper saves every other register it uses, so only r12 and the flags change.
  auto *IA = InlineAsm::get(FunctionType::get(I16, false), Asm, "={r12},~{sr},~{memory}",
                            /*hasSideEffects=*/true);
  IRBuilder<> B(L);
  CallInst *Read = B.CreateCall(IA, {}, "wsn.in");
  Value *Raw = B.CreateTrunc(Read, L->getType());
  Op.replaceAllUsesWith(Raw);
  L->replaceAllUsesWith(Raw);
  L->eraseFromParent();
  return true;
}

template <typename MDT, typename KeyFn>
Error readInto(Expected<std::vector<MDT>> V, DenseMap<uint32_t, MDT> &Out,
               KeyFn Key) {
  if (!V)
    return V.takeError();
  for (MDT &E : *V)
    Out.insert({Key(E), std::move(E)});
  return Error::success();
}

/// The region begins of F reached only with interrupts disabled, by the
/// interrupt-state analysis (spec/instrumentation.md section 7.1; every
/// function may be entered with interrupts on).
static void interruptsOffRegions(Function &F, RecordTarget T, InterruptState &IS,
                                 SmallPtrSetImpl<const TraceOp *> &Out) {
  if (F.isDeclaration() || T == RecordTarget::Host)
    return;
  for (Instruction &I : instructions(F))
    if (auto *Op = dyn_cast<TraceOp>(&I))
      if (Op->kind() == TraceOpKind::RegionBegin && IS.offBefore(I))
        Out.insert(Op);
}

Expected<RecordLoweringStats> RecordLowerer::run() {
  TraceMetadata MD(M);
  if (Error E = readInto(MD.anchors(), Anchors,
                         [](const TraceAnchorMD &A) { return A.Id; }))
    return std::move(E);
  if (Error E = readInto(MD.effects(), Effects,
                         [](const TraceEffectMD &A) { return A.Site; }))
    return std::move(E);
  if (Error E = readInto(MD.invariants(), Invariants,
                         [](const TraceInvariantMD &A) { return A.Id; }))
    return std::move(E);

  std::vector<TraceOp *> Ops;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *Op = dyn_cast<TraceOp>(&I))
        Ops.push_back(Op);
  InterruptState IS(M, [](const Function &) { return false; });
  for (Function &F : M)
    interruptsOffRegions(F, T, IS, InsideAtomic);
  if (WsnRecordTables && WsnAdjacentVars && T != RecordTarget::Host) {
    SmallPtrSet<const GlobalVariable *, 32> Listed;
    for (auto &[Id, A] : Anchors)
      for (const TraceVarRef &V : A.Vars)
        if (V.Global)
          Listed.insert(V.Global);
    for (auto &[Site, E] : Effects)
      for (const TraceVarRef &V : E.Writes)
        Listed.insert(V.Global);
    for (auto &[Id, I] : Invariants)
      for (const TraceVarRef &V : I.Inputs)
        Listed.insert(V.Global);
    Layout.emplace(M, Listed);
  }
  if (WsnRecordTables) {
    // A handler keeps the interrupted count in its frame when its one IRQ entry op is in
    // the entry block (so it dominates every exit op).
    DenseMap<const Function *, unsigned> Entries;
    for (TraceOp *Op : Ops)
      if (Op->kind() == TraceOpKind::IrqEntry)
        ++Entries[Op->getFunction()];
    for (TraceOp *Op : Ops)
      if (Op->kind() == TraceOpKind::IrqEntry && Entries[Op->getFunction()] == 1 &&
          Op->getParent()->isEntryBlock())
        CompactHandlers.insert(Op->getFunction());
    for (TraceOp *Op : Ops) {
      if (Op->kind() != TraceOpKind::SkipEnd)
        continue;
      const Instruction *Next = Op->getNextNonDebugInstruction();
      auto *E = dyn_cast_or_null<EffectOp>(Next);
      if (!E || E->site() != Op->id())
        continue;
      auto It = Effects.find(E->site());
      if (It == Effects.end() || !effectFitsTable(It->second))
        continue;
      MergedSkipEnds.insert(Op);
      EffectsAfterSkip.insert(E);
    }
  }
  if (WsnRecordTables && WsnShareTails)
    planEffectTails();
  for (TraceOp *Op : Ops) {
    if (auto *E = dyn_cast<EffectOp>(Op)) {
      auto It = Effects.find(E->site());
      if (It == Effects.end())
        continue;
      VarList L;
      for (const TraceVarRef &V : It->second.Writes)
        L.push_back({varAddr(V.Global), V.Size});
      ++PutUses[L];
    } else if (auto *C = dyn_cast<CheckOp>(Op)) {
      auto It = Invariants.find(C->inv());
      if (It == Invariants.end())
        continue;
      ++CrcUses[checkInputs(It->second)];
    }
  }
  // Block order: a region's begin is lowered before its end.
  for (TraceOp *Op : Ops) {
    if (Error E = lower(*Op))
      return std::move(E);
    ++Stats.Lowered;
  }
  // A payload op's operands (the buffer's address, the length's load) served
  // only replay: they go with it, so the firmware's code does not change.
  SmallVector<WeakTrackingVH, 8> PayloadOperands;
  for (TraceOp *Op : Ops)
    if (Op->kind() == TraceOpKind::MsgPayload)
      for (Value *V : {Op->getArgOperand(1), Op->getArgOperand(2)})
        if (isa<Instruction>(V))
          PayloadOperands.push_back(V);
  for (TraceOp *Op : Ops)
    Op->eraseFromParent();
  for (WeakTrackingVH &V : PayloadOperands)
    if (auto *I = dyn_cast_or_null<Instruction>(V))
      RecursivelyDeleteTriviallyDeadInstructions(I);
  // Drop the now unused reserved declarations.
  SmallVector<Function *, 16> Dead;
  for (Function &F : M)
    if (isTraceOpDeclaration(F) && F.use_empty())
      Dead.push_back(&F);
  for (Function *F : Dead)
    F->eraseFromParent();
  if (!OpenRegions.empty())
    return makeError("wsn.region.begin without a matching wsn.region.end");
  return Stats;
}

} // namespace

Expected<RecordLoweringStats> lowerForRecord(Module &M, RecordTarget T) {
  return RecordLowerer(M, T).run();
}

Expected<RecordLoweringStats> lowerForRecord(Module &M) {
  return lowerForRecord(M, recordTargetOf(M));
}

PreservedAnalyses RecordLoweringPass::run(Module &M,
                                          ModuleAnalysisManager &) {
  Expected<RecordLoweringStats> S =
      HasTarget ? lowerForRecord(M, T) : lowerForRecord(M);
  if (!S) {
    M.getContext().emitError("wsn-lower<record>: " + toString(S.takeError()));
    return PreservedAnalyses::none();
  }
  return S->Lowered ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace wsn
