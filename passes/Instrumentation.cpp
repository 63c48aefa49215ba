//===- Instrumentation.cpp - wsn-trace: insert the trace ops -------------===//
//
// Implements the recording rules of spec/instrumentation.md on top of the
// PFDG analysis. The work is split in two phases so that the analysis facts
// (points-to sets, demanded bits) are read before the IR changes:
//   1. plan: for every selected function, collect the counted references, the
//      nondeterministic loads and their masks, the calls to skip, the
//      invariant checks, the task calls and the anchor headers;
//   2. rewrite: demote the values live across anchor headers, then insert the
//      ops in an order that keeps the placement rules of spec/trace-ops.md
//      (anchors, inputs, checks, skips, regions, finally entry/exit).
//
//===----------------------------------------------------------------------===//
#include "Instrumentation.h"
#include "InputFunctions.h"
#include "InterruptState.h"
#include "MoteAsm.h"

#include "ModuleHash.h"
#include "MoteMemoryModel.h"
#include "Pfdg.h"
#include "RecordLowering.h"
#include "Slice.h"
#include "TraceMap.h"
#include "TraceOps.h"
#include "MessageSites.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/DemandedBits.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Local.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

using namespace llvm;

static cl::opt<unsigned> WsnBufSize(
    "wsn-buf-size", cl::init(1024),
    cl::desc("wsn-trace: trace ring size in bytes (WSN_TRACE_BUF_SIZE of the "
             "runtime)"));
static cl::opt<unsigned> WsnSegSize(
    "wsn-seg-size", cl::init(256),
    cl::desc("wsn-trace: trace segment size in bytes (WSN_TRACE_SEG_SIZE)"));
static cl::opt<unsigned> WsnMaxBatch(
    "wsn-max-batch", cl::init(8),
    cl::desc("wsn-trace: counted references sharing one atomic region "
             "(1 = one region per reference, as in the thesis)"));
static cl::opt<bool> WsnInstrumentCallers(
    "wsn-instrument-callers", cl::init(true),
    cl::desc("wsn-trace: also instrument the functions through which the "
             "program reaches a selected function (so that none runs inside "
             "a skip span)"));
static cl::opt<bool> WsnRecordSched(
    "wsn-record-sched", cl::init(false),
    cl::desc("wsn-trace: record LOG 3 (task choice) before every task call; "
             "needed only for non-FIFO schedulers"));

// spec/instrumentation.md section 7 "Short effects": the handler part of an effect record
// is written only when a handler ran inside the skipped call.
static cl::opt<bool> WsnShortEffects(
    "wsn-short-effects", cl::init(true),
    cl::desc("wsn-trace: an effect whose globals include what interrupt handlers may write "
             "gets a short form without them, recorded when no handler ran inside the "
             "skipped call (false: always the whole record)"));

// spec/instrumentation.md section 7.2: a call whose result replay can compute is not
// skipped (no SKIP or EFFECT record) and replay runs it.
static cl::opt<bool> WsnReplayComputes(
    "wsn-replay-computes", cl::init(true),
    cl::desc("wsn-trace: leave unrecorded the calls of uninstrumented functions that replay "
             "can run itself (interrupts off, no I/O, reads only checkpointed state); "
             "false: skip and record every such call"));

// spec/instrumentation.md section 7.1, "Functions entered with interrupts off".
static cl::opt<bool> WsnEnteredOff(
    "wsn-entered-off", cl::init(true),
    cl::desc("wsn-trace: a function called only where interrupts are certainly off is "
             "analysed as entered with them off (false: only handlers are)"));

// spec/instrumentation.md section 7.3: no ENTRY/EXIT for a function that runs wholly with
// interrupts off where its place is otherwise known.
static cl::opt<bool> WsnOffNoEntry(
    "wsn-off-no-entry", cl::init(true),
    cl::desc("wsn-trace: write no ENTRY/EXIT for a function entered with interrupts off "
             "that keeps them off, when no interrupt position depends on them (false: "
             "every instrumented function has its ENTRY/EXIT)"));

static cl::opt<bool> WsnUncountedNoEntry(
    "wsn-uncounted-no-entry", cl::init(true),
    cl::desc("wsn-trace: write no ENTRY/EXIT for a function without counted references, "
             "checks or anchors of its own (a task dispatcher, a wrapper), called only "
             "directly from instrumented functions (false: keep them)"));

static cl::opt<bool> WsnRecordLocalVolatile(
    "wsn-record-local-volatile", cl::init(false),
    cl::desc("wsn-trace: record volatile reads of a function's own stack "
             "slots as inputs (deterministic, and replay re-executes them: "
             "recording them only costs trace bytes and code)"));

namespace wsn {

/// Runtime objects (`__wsn_*`) are never recorded or checkpointed.
static bool isNoInstrumentName(StringRef Name) {
  return Name.starts_with("__wsn_");
}

InstrumentOptions instrumentOptionsFromCommandLine() {
  InstrumentOptions O;
  O.BufSize = WsnBufSize;
  O.SegSize = WsnSegSize;
  O.MaxBatch = WsnMaxBatch ? WsnMaxBatch : 1;
  O.RecordSched = WsnRecordSched;
  O.InstrumentCallers = WsnInstrumentCallers;
  return O;
}

namespace {

Error makeError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg.str());
}

/// "function 'f' (file.c:12)" for messages.
std::string where(const Instruction &I) {
  std::string S = "in function '" + I.getFunction()->getName().str() + "'";
  if (const DebugLoc &DL = I.getDebugLoc())
    S += formatv(" at {0}:{1}:{2}", DL->getFilename(), DL->getLine(),
                 DL->getColumn())
             .str();
  return S;
}

uint32_t sizeOf(const Module &M, const GlobalVariable *GV) {
  return M.getDataLayout().getTypeAllocSize(GV->getValueType());
}

/// A call that is not a program call: trace ops, intrinsics, inline asm,
/// runtime functions, nesC atomic primitives.
bool isTransparentCall(const CallBase &CB) {
  if (CB.isInlineAsm() || isa<TraceOp>(&CB))
    return true;
  const Function *F = CB.getCalledFunction();
  return F && ModuleModel::isTransparentCallee(F);
}

/// Intrinsics that may sit inside an atomic region: they become no code
/// (debug info, lifetime markers, assumptions) and neither take interrupts
/// nor write records.
bool isHarmlessIntrinsic(const Instruction &I) {
  const auto *II = dyn_cast<IntrinsicInst>(&I);
  if (!II)
    return false;
  if (isa<DbgInfoIntrinsic>(II) || II->isLifetimeStartOrEnd() ||
      II->isAssumeLikeIntrinsic())
    return true;
  return II->doesNotAccessMemory();
}

/// A constant offset from a static alloca (GEPs with constant indices and
/// casts down to the alloca).
bool isStackAddress(const Value *V) {
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    if (auto *AI = dyn_cast<AllocaInst>(V))
      return AI->isStaticAlloca();
    if (auto *GEP = dyn_cast<GetElementPtrInst>(V)) {
      if (!GEP->hasAllConstantIndices())
        return false;
      V = GEP->getPointerOperand();
    } else if (auto *C = dyn_cast<CastInst>(V)) {
      if (!C->getType()->isPointerTy() || !C->getOperand(0)->getType()->isPointerTy())
        return false;
      V = C->getOperand(0);
    } else {
      return false;
    }
  }
  return false;
}

/// A copy of the stack address computation V (isStackAddress) before At.
Value *rematerialize(Value *V, Instruction *At) {
  if (isa<AllocaInst>(V))
    return V;
  auto *I = cast<Instruction>(V);
  Instruction *C = I->clone();
  C->setOperand(0, rematerialize(I->getOperand(0), At));
  C->insertBefore(At);
  C->setName(I->getName() + ".remat");
  return C;
}

/// The blocks execution can reach from H, H included.
DenseSet<const BasicBlock *> reachableFrom(const BasicBlock &H) {
  DenseSet<const BasicBlock *> Seen{&H};
  SmallVector<const BasicBlock *, 16> Work{&H};
  while (!Work.empty())
    for (const BasicBlock *S : successors(Work.pop_back_val()))
      if (Seen.insert(S).second)
        Work.push_back(S);
  return Seen;
}

/// Whether the local AI is dead at the header H: every path from H to an
/// access of AI (through casts and GEPs) first passes a lifetime.start of AI.
/// Such a local (a struct-return temporary, WSN_CHECK's result) holds nothing
/// at H that execution after H could read, and the backend's stack colouring
/// may give its slot to another local whose lifetime does not overlap: a
/// checkpoint reading it there saw that other local's bytes (progfuzz
/// msp430f1611 program 15 at -O2: a check result's 0x01 in a struct
/// temporary's slot; replay, whose locals never share, held the struct's 0x41).
bool deadAtHeader(const AllocaInst &AI, const BasicBlock &H) {
  SmallPtrSet<const Instruction *, 8> Starts, Accesses;
  SmallVector<const Value *, 8> Ptrs{&AI};
  SmallPtrSet<const Value *, 8> SeenPtrs{&AI};
  while (!Ptrs.empty()) {
    const Value *P = Ptrs.pop_back_val();
    for (const User *U : P->users()) {
      const auto *I = dyn_cast<Instruction>(U);
      if (!I)
        return false;
      if (const auto *II = dyn_cast<IntrinsicInst>(I)) {
        if (II->getIntrinsicID() == Intrinsic::lifetime_start) {
          Starts.insert(I);
          continue;
        }
        if (II->getIntrinsicID() == Intrinsic::lifetime_end || isa<DbgInfoIntrinsic>(II))
          continue;
      }
      if (isa<GetElementPtrInst>(I) || isa<CastInst>(I)) {
        if (SeenPtrs.insert(I).second)
          Ptrs.push_back(I);
        continue;
      }
      Accesses.insert(I);
    }
  }
  if (Starts.empty())
    return false;
  // Walk forward from H's start; a path ends at a lifetime.start of AI.
  SmallPtrSet<const BasicBlock *, 16> Seen{&H};
  SmallVector<const BasicBlock *, 16> Work{&H};
  while (!Work.empty()) {
    const BasicBlock *BB = Work.pop_back_val();
    bool Started = false;
    for (const Instruction &I : *BB) {
      if (Starts.count(&I)) {
        Started = true;
        break;
      }
      if (Accesses.count(&I))
        return false;
    }
    if (Started)
      continue;
    for (const BasicBlock *S : successors(BB))
      if (Seen.insert(S).second)
        Work.push_back(S);
  }
  return true;
}

/// Handlers the hardware enters with interrupts disabled.
bool enteredWithInterruptsOff(const FunctionInfo &FI) {
  return FI.isInterrupt() && (FI.Role.Handler == HandlerKind::AvrSignal ||
                              FI.Role.Handler == HandlerKind::Msp430);
}

/// A function whose calls the instrumentation wraps in a skip span.
struct SkipPlan {
  CallBase *Call = nullptr;
  std::string Callee;
  std::vector<GlobalVariable *> Writes;
  /// The short form's globals (indices into Writes, increasing), if it has one.
  std::optional<std::vector<uint32_t>> Short;
  uint32_t HandlerPart = 0; ///< with Short: Writes' last globals, what handlers may write
};

struct FuncPlan {
  Function *F = nullptr;
  const FunctionInfo *FI = nullptr;
  bool Handler = false;
  bool CountRefs = true;
  DenseSet<Instruction *> Counted;
  std::vector<std::pair<Instruction *, uint64_t>> Inputs; ///< loads and input calls
  std::vector<SkipPlan> Skips;
  std::vector<CallBase *> Checks;
  std::vector<CallBase *> TaskCalls;
  std::vector<BasicBlock *> AnchorHeaders;
  std::vector<GlobalVariable *> InputHandlerWrites;
};

class Instrumenter {
public:
  Instrumenter(Module &M, const PfdgResult &R, const InstrumentOptions &O)
      : M(M), R(R), Opts(O), MM(M), Ids(M) {}
  Expected<InstrumentStats> run();

private:
  Error plan();
  Error planFunction(FuncPlan &P);
  void expandMemIntrinsics(FuncPlan &P);
  bool isCountedPointer(const Value *Ptr) const;
  std::optional<uint64_t> inputMask(Instruction &LI, DemandedBits &DB);
  bool isNondetLoad(const LoadInst &LI) const;
  std::vector<GlobalVariable *> effectWrites(const CallBase &CB,
                                             bool &Mixed, bool &Any,
                                             std::optional<std::vector<uint32_t>> &Short,
                                             uint32_t &HandlerPart);
  const DenseSet<unsigned> &handlerWrites();
  /// Whether every handler that may write a global replay reads is instrumented, so
  /// that its entry tells the runtime a handler ran inside a skipped call (short effects).
  bool handlersAllInstrumented();
  std::optional<DenseSet<unsigned>> HandlerWritesCache;
  std::optional<bool> HandlersAllInstrumentedCache;
  /// The globals replay reads (section 5): slice globals and what the code
  /// replay executes may read. Computed once Instr is final.
  const DenseSet<const GlobalVariable *> &replayReads();
  std::optional<DenseSet<const GlobalVariable *>> ReplayReadsCache;
  /// Whether replay executes the call (it is not skipped), and whether every
  /// target is instrumented (their reads are their own).
  bool replayRunsCall(const CallBase &CB, bool &AllInstrumented) const;
  /// Section 7.2: whether replay can run this call of uninstrumented code itself, so that
  /// it needs no skip span and no effect record.
  bool replayComputes(CallBase &CB);
  /// Section 7.1: the functions, other than handlers, entered with interrupts off.
  void findEnteredOff();
  bool quietEntryExit(const FuncPlan &P);
  bool mayTouchShared(const Function &F);
  bool addressTaken(const Function &F);
  DenseSet<const Function *> EnteredOff;
  /// Whether F (and all it calls) reads only what replay keeps exact and touches no I/O;
  /// memoised; recursion is refused.
  bool computableBody(const Function &F);
  DenseMap<const Function *, bool> ComputableFns;
  DenseSet<const CallBase *> ComputedCalls;
  std::optional<DenseSet<const GlobalVariable *>> ExactCache;

  Error rewrite(FuncPlan &P);
  Error insertAnchors(FuncPlan &P);
  void demoteLiveIns(Function &F, BasicBlock &H);
  Error insertInputs(FuncPlan &P);
  Error insertChecks(FuncPlan &P);
  Error insertSkips(FuncPlan &P);
  void insertSched(FuncPlan &P);
  void insertRegions(FuncPlan &P);
  Error insertEntryExit(FuncPlan &P);

  std::vector<GlobalVariable *> anchorGlobals();
  /// For every writable global some function with a level reads (by its own
  /// loads): the smallest such level and that function. Computed before the
  /// rewrite (the module model knows the original instructions only).
  struct GlobalLevel {
    unsigned Level = 0;
    const Function *Reader = nullptr;
  };
  DenseMap<const GlobalVariable *, GlobalLevel> readerLevels();
  void recordGlobalLevels(const DenseMap<const GlobalVariable *, GlobalLevel> &Levels);
  void recordPfdg();
  GlobalVariable *anchorStatusGlobal();
  /// Whether F or anything it calls may write a local of another function.
  bool writesOtherStacks(const Function *F);
  /// Adds to the instrumented set the callees of F (transitively) that may
  /// write another function's stack; new ones go to Work.
  void addStackWriters(const Function *F, SmallVectorImpl<const Function *> &Work);
  DenseMap<const Function *, bool> OtherStackWriters;
  /// Instruments every defined target of F's indirect calls that may also
  /// reach an instrumented function; new ones go to Work.
  void addMixedTargets(const Function *F, SmallVectorImpl<const Function *> &Work);
  bool holdsStatusCopy(AllocaInst &AI) const;

  Module &M;
  const PfdgResult &R;
  InstrumentOptions Opts;
  ModuleModel MM;
  IdAllocator Ids;
  std::unique_ptr<TraceOpBuilder> B;
  std::optional<MoteTarget> Target;
  std::unique_ptr<InterruptState> IState;
  InstrumentStats Stats;
  std::vector<FuncPlan> Plans;
  DenseSet<const GlobalVariable *> Shared;
  bool SharedAddressTaken = false;
  /// Functions that get instrumented (selected + callers of them).
  DenseSet<const Function *> Instr;
  /// Input functions (InputFunctions.h): never instrumented.
  DenseSet<const Function *> InputFns;
  std::map<const Function *, uint32_t> InvIds, TaskIds;
  std::optional<std::vector<GlobalVariable *>> AnchorGlobalsCache;

  // Latch registers (MoteTarget::Latches): reads are deterministic when no
  // handler writes the register; their values are checkpointed and, when a
  // skipped callee writes them, part of its effect.
  struct IOStores {
    std::set<uint32_t> Addrs;
    bool All = false; ///< unknown code: may write any register
  };
  /// What one function's own code writes (callees not included).
  struct LocalIO {
    IOStores Own;
    bool Unknown = false; ///< a store through a pointer of unknown origin
    SmallVector<const Function *, 4> Callees;
  };
  const IOStores &ioStores(const Function *F);
  const LocalIO &localIO(const Function *F);
  void noteStoreTarget(const Value *Ptr, uint64_t Bytes, LocalIO &L);
  bool ioAddressesEscape();
  bool isLatchRead(uint64_t Addr) const;
  void planLatches();
  std::map<const Function *, IOStores> IOStoresCache;
  std::map<const Function *, LocalIO> LocalIOCache;
  std::optional<bool> IOEscapes;
  IOStores HandlerIO;
  bool LatchesPlanned = false;
  std::map<uint32_t, GlobalVariable *> LatchGVs; ///< read by instrumented code
};

/// The constant address P points to (inttoptr of a constant), if any.
static std::optional<uint64_t> constantAddress(const Value *P) {
  P = P->stripPointerCasts();
  if (const auto *CE = dyn_cast<ConstantExpr>(P))
    if (CE->getOpcode() == Instruction::IntToPtr)
      if (const auto *CI = dyn_cast<ConstantInt>(CE->getOperand(0)))
        return CI->getZExtValue();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Phase 1: plan
//===----------------------------------------------------------------------===//

bool Instrumenter::isCountedPointer(const Value *Ptr) const {
  if (Shared.empty())
    return false;
  ObjSet O = MM.pointsTo(Ptr);
  if (O.Unknown && SharedAddressTaken)
    return true;
  for (unsigned Id : O.Objs)
    if (const GlobalVariable *GV = MM.objectGlobal(Id))
      if (Shared.count(GV))
        return true;
  return false;
}

/// The constant address a pointer denotes, constant offsets included
/// (`inttoptr` of a constant, possibly under constant GEPs), if any.
static std::optional<uint64_t> constantAddressWithOffset(const DataLayout &DL,
                                                         const Value *P) {
  APInt Off(DL.getIndexTypeSizeInBits(P->getType()), 0);
  const Value *Base =
      P->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
  if (auto A = constantAddress(Base))
    return *A + Off.getSExtValue();
  return std::nullopt;
}

/// Whether a pointer to a memory-mapped register can exist anywhere in the
/// module other than as the address of a load or store: an integer of unknown
/// value turned into a pointer, or a register address that is stored, passed,
/// selected or indexed (`volatile uint8_t *p = &PORTA`, a table of ports).
/// When none can, a store through a computed pointer cannot reach a register
/// (short of undefined out-of-bounds arithmetic from a RAM object).
bool Instrumenter::ioAddressesEscape() {
  if (IOEscapes)
    return *IOEscapes;
  const DataLayout &DL = M.getDataLayout();
  auto IsIO = [&](uint64_t A) { return !Target || Target->isIOAddress(A); };
  // Does V (an operand) contain an integer-to-pointer conversion that may
  // name a register? Direct: V is exactly such a pointer (the caller decides
  // whether its position is harmless).
  std::function<bool(const Value *, bool)> Names =
      [&](const Value *V, bool Direct) -> bool {
    if (const auto *ITP = dyn_cast<IntToPtrInst>(V)) {
      const auto *CI = dyn_cast<ConstantInt>(ITP->getOperand(0));
      return !CI || IsIO(CI->getZExtValue());
    }
    const auto *CE = dyn_cast<ConstantExpr>(V);
    if (!CE)
      return false;
    if (Direct)
      if (auto A = constantAddressWithOffset(DL, CE))
        return IsIO(*A);
    if (CE->getOpcode() == Instruction::IntToPtr) {
      const auto *CI = dyn_cast<ConstantInt>(CE->getOperand(0));
      return !CI || IsIO(CI->getZExtValue());
    }
    for (const Value *Op : CE->operands())
      if (Names(Op, false))
        return true;
    return false;
  };
  bool Escapes = false;
  for (const GlobalVariable &GV : M.globals())
    if (GV.hasInitializer() && !isa<ConstantData>(GV.getInitializer())) {
      SmallVector<const Constant *, 8> Work{GV.getInitializer()};
      while (!Escapes && !Work.empty()) {
        const Constant *C = Work.pop_back_val();
        if (isa<ConstantExpr>(C))
          Escapes = Names(C, false);
        else
          for (const Value *Op : C->operands())
            Work.push_back(cast<Constant>(Op));
      }
    }
  for (const Function &F : M) {
    for (const Instruction &I : instructions(F)) {
      if (Escapes)
        break;
      for (const Use &U : I.operands()) {
        if (!Names(U.get(), true))
          continue;
        // Harmless positions: the address of a load or store, the
        // destination of a memset/memcpy (ioStores reads those), and an
        // integer-to-pointer instruction whose own uses are checked as the
        // instruction's value (below).
        bool AddressUse =
            (isa<LoadInst>(I) && U.getOperandNo() == 0) ||
            (isa<StoreInst>(I) && U.getOperandNo() == 1) ||
            (isa<MemIntrinsic>(I) && U.getOperandNo() == 0);
        if (!AddressUse) {
          Escapes = true;
          break;
        }
      }
      if (const auto *ITP = dyn_cast<IntToPtrInst>(&I))
        if (!isa<ConstantInt>(ITP->getOperand(0)))
          Escapes = true;
    }
  }
  IOEscapes = Escapes;
  return Escapes;
}

/// Record a write of Bytes bytes through Ptr: a register address when it is a
/// constant one; nothing when it points into a RAM object (a global or a
/// stack slot); otherwise a store of unknown target.
void Instrumenter::noteStoreTarget(const Value *Ptr, uint64_t Bytes,
                                   LocalIO &L) {
  const DataLayout &DL = M.getDataLayout();
  if (auto A = constantAddressWithOffset(DL, Ptr)) {
    for (uint64_t I = 0; I < std::max<uint64_t>(Bytes, 1); ++I)
      L.Own.Addrs.insert(uint32_t(*A + I));
    return;
  }
  const Value *Obj = getUnderlyingObject(Ptr, /*MaxLookup=*/0);
  if (isa<GlobalVariable>(Obj) || isa<AllocaInst>(Obj))
    return;
  L.Unknown = true;
}

/// The registers one function's own instructions write, and its direct
/// callees (ioStores closes over them).
const Instrumenter::LocalIO &Instrumenter::localIO(const Function *F) {
  auto It = LocalIOCache.find(F);
  if (It != LocalIOCache.end())
    return It->second;
  LocalIO L;
  if (F->isDeclaration()) {
    L.Own.All = !F->isIntrinsic();
  } else {
    const DataLayout &DL = M.getDataLayout();
    for (const Instruction &I : instructions(*F)) {
      if (const auto *SI = dyn_cast<StoreInst>(&I)) {
        noteStoreTarget(SI->getPointerOperand(),
                        DL.getTypeStoreSize(SI->getValueOperand()->getType()),
                        L);
      } else if (const auto *MI = dyn_cast<MemIntrinsic>(&I)) {
        const auto *Len = dyn_cast<ConstantInt>(MI->getLength());
        if (Len && Len->getZExtValue() <= 0x10000)
          noteStoreTarget(MI->getRawDest(), Len->getZExtValue(), L);
        else if (constantAddressWithOffset(DL, MI->getRawDest()))
          L.Own.All = true; // a register block of unknown length
        else
          noteStoreTarget(MI->getRawDest(), 1, L);
      } else if (const auto *CB = dyn_cast<CallBase>(&I)) {
        if (CB->isInlineAsm()) {
          StringRef Asm =
              cast<InlineAsm>(CB->getCalledOperand())->getAsmString();
          if (Target && Target->Arch == MoteArch::MSP430) {
            // MSP430 asm writes a register with any two-operand instruction
            // (`mov.b #1, &0x31`); only the statements MoteAsm knows (GIE,
            // SR, nop) are known to write none.
            std::vector<AsmStmt> Stmts;
            if (!parseMoteAsm(*CB, MoteArch::MSP430, Stmts, nullptr))
              L.Own.All = true;
          } else if (Asm.contains("out") || Asm.contains("st")) {
            L.Own.All = true;
          }
          continue;
        }
        const Function *Callee = CB->getCalledFunction();
        if (!Callee) {
          L.Own.All = true;
          continue;
        }
        if (!Callee->isIntrinsic())
          L.Callees.push_back(Callee);
      }
    }
  }
  return LocalIOCache[F] = std::move(L);
}

/// LOG 5 (thesis 4.1): volatile loads, and loads from constant addresses in
/// the MCU's I/O range (`*(volatile uint8_t *)0x3B` as nesC and avr-libc
/// write registers). SREG is not an input: both sides model it.
/// The I/O registers F and everything it calls (directly; an indirect call or
/// unknown code means any register) may write: through constant addresses,
/// memset/memcpy, inline asm, and through computed pointers when a register
/// address can be a pointer value at all (ioAddressesEscape). The closure is
/// a walk over the reachable functions, so recursion needs no fixpoint.
const Instrumenter::IOStores &Instrumenter::ioStores(const Function *F) {
  auto It = IOStoresCache.find(F);
  if (It != IOStoresCache.end())
    return It->second;
  IOStores S;
  DenseSet<const Function *> Seen{F};
  SmallVector<const Function *, 16> Work{F};
  while (!Work.empty() && !S.All) {
    const LocalIO &L = localIO(Work.pop_back_val());
    S.All |= L.Own.All || (L.Unknown && ioAddressesEscape());
    S.Addrs.insert(L.Own.Addrs.begin(), L.Own.Addrs.end());
    for (const Function *C : L.Callees)
      if (Seen.insert(C).second)
        Work.push_back(C);
  }
  return IOStoresCache[F] = std::move(S);
}

/// Latch registers are byte registers: a wider read also covers the next
/// register, which the latch symbol (one byte) does not checkpoint.
static bool isByteLoad(const LoadInst &LI) {
  return LI.getModule()->getDataLayout().getTypeStoreSize(LI.getType()) == 1;
}

bool Instrumenter::isLatchRead(uint64_t Addr) const {
  return Target && Target->isLatch(Addr) && LatchesPlanned && !HandlerIO.All &&
         !HandlerIO.Addrs.count(uint32_t(Addr));
}

/// What the handlers write, then the latch registers instrumented code reads
/// (each gets a symbol that checkpoints and effects name).
void Instrumenter::planLatches() {
  if (!Target || Target->Latches.empty())
    return;
  for (const FunctionInfo &FI : R.Functions)
    if (FI.isInterrupt() && !FI.F->isDeclaration()) {
      const IOStores &S = ioStores(FI.F);
      HandlerIO.All |= S.All;
      HandlerIO.Addrs.insert(S.Addrs.begin(), S.Addrs.end());
    }
  LatchesPlanned = true;
  // Module order, so that two runs create the symbols in the same order (the
  // module hash depends on it).
  for (const Function &F : M) {
    if (!Instr.count(&F))
      continue;
    for (const Instruction &I : instructions(F))
      if (const auto *LI = dyn_cast<LoadInst>(&I))
        if (auto A = constantAddress(LI->getPointerOperand());
            A && isLatchRead(*A) && isByteLoad(*LI) &&
            !LatchGVs.count(uint32_t(*A))) {
          std::string Name = latchSymbolName(uint32_t(*A));
          GlobalVariable *GV = M.getNamedGlobal(Name);
          if (!GV)
            GV = new GlobalVariable(M, Type::getInt8Ty(M.getContext()), false,
                                    GlobalValue::ExternalLinkage, nullptr, Name);
          LatchGVs[uint32_t(*A)] = GV;
        }
  }
}

bool Instrumenter::isNondetLoad(const LoadInst &LI) const {
  const Value *P = LI.getPointerOperand()->stripPointerCasts();
  std::optional<uint64_t> Addr = constantAddress(P);
  if (Addr && Target && Target->SREGAddr && *Addr == Target->SREGAddr)
    return false;
  if (Addr && isLatchRead(*Addr) && isByteLoad(LI))
    return false;
  // A local slot (e.g. the volatile result of WSN_CHECK) only changes through
  // its own function: reading it is deterministic, and the replay lowering
  // executes it (issue 20: 183 of blink's 206 INPUT records were these).
  if (!WsnRecordLocalVolatile && isa<AllocaInst>(getUnderlyingObject(P)))
    return false;
  if (LI.isVolatile())
    return true;
  return Addr && Target && Target->isIOAddress(*Addr);
}

/// The bits of a nondeterministic value the program uses (TARDIS 3.4): the
/// union of what every use demands, from DemandedBits. A load nobody uses
/// still needs an op (replay must not read the register), so it records bit 0.
std::optional<uint64_t> Instrumenter::inputMask(Instruction &LI,
                                                DemandedBits &DB) {
  auto *IT = dyn_cast<IntegerType>(LI.getType());
  if (!IT || IT->getBitWidth() > 64)
    return std::nullopt;
  unsigned W = IT->getBitWidth();
  APInt Mask(W, 0);
  for (Use &U : LI.uses()) {
    auto *UI = dyn_cast<Instruction>(U.getUser());
    // DemandedBits refines integer arithmetic users (and, trunc, shifts...);
    // anything else (stores, calls, compares, phis) uses every bit.
    if (!UI || !UI->getType()->isIntegerTy() || isa<CallBase>(UI) ||
        isa<PHINode>(UI) || isa<CmpInst>(UI) || isa<SelectInst>(UI))
      return APInt::getAllOnes(W).getZExtValue();
    Mask |= DB.getDemandedBits(&U);
  }
  if (Mask.isZero())
    return 1;
  return Mask.getZExtValue();
}

std::vector<GlobalVariable *>
Instrumenter::effectWrites(const CallBase &CB, bool &Mixed, bool &Any,
                           std::optional<std::vector<uint32_t>> &Short,
                           uint32_t &HandlerPart) {
  Mixed = false;
  Any = false;
  Short.reset();
  HandlerPart = 0;
  GlobalSet S;
  ArrayRef<Function *> Targets = MM.targets(&CB);
  const Function *Direct = CB.getCalledFunction();
  SmallVector<const Function *, 4> Ts(Targets.begin(), Targets.end());
  if (Direct && Ts.empty())
    Ts.push_back(Direct);
  unsigned Selected = 0;
  for (const Function *T : Ts) {
    const FunctionInfo *TI = R.lookup(T);
    if (((TI && TI->Selected) || Instr.count(T)) && !InputFns.count(T))
      ++Selected;
  }
  if (Selected && Selected != Ts.size())
    Mixed = true;
  if (Selected == Ts.size() && !Ts.empty())
    return {};
  Any = true;
  if (Ts.empty())
    S.Unknown = true; // indirect call with unknown targets
  for (const Function *T : Ts) {
    if (T->isDeclaration()) {
      if (!T->onlyReadsMemory())
        S.Unknown = true;
      continue;
    }
    const GlobalSet &Mod = MM.transitiveMod(T);
    S.Unknown |= Mod.Unknown;
    S.Ids.insert(Mod.Ids.begin(), Mod.Ids.end());
  }
  // Interrupt handlers that run while the skipped callee runs are skipped
  // with it (spec/replay-log.md section 2.5), so the globals they write must
  // come from the effect record too, unless interrupts are certainly off at
  // the call and every possible callee keeps them off (section 7.1).
  bool Interruptible = Ts.empty() || !IState->offBefore(CB);
  for (const Function *T : Ts)
    Interruptible |= !IState->keepsOff(*T);
  // Only what replay reads (replayReads): a global replay never reads may
  // differ between the mote and replay without changing anything replay
  // computes or compares.
  const DenseSet<const GlobalVariable *> &Needed = replayReads();
  auto Recorded = [&](const GlobalVariable *GV) {
    return !GV->isConstant() && GV->getSection() != ".progmem.data" && // flash: the ELF
           !isNoInstrumentName(GV->getName()) && Needed.count(GV);
  };
  std::vector<GlobalVariable *> Out;
  for (const GlobalVariable *GV : MM.globals(S))
    if (Recorded(GV))
      Out.push_back(const_cast<GlobalVariable *>(GV));
  // Latch registers the callee writes: replay reads them from memory later.
  if (!LatchGVs.empty()) {
    IOStores W;
    for (const Function *T : Ts) {
      const IOStores &C = ioStores(T);
      W.All |= C.All;
      W.Addrs.insert(C.Addrs.begin(), C.Addrs.end());
    }
    if (Ts.empty())
      W.All = true;
    for (auto &[A, GV] : LatchGVs)
      if (W.All || W.Addrs.count(A))
        Out.push_back(GV);
  }
  // What handlers that run inside the call may write (section 7, "Short effects"): the
  // whole record is the callee's writes that no handler writes, then the handler part (all
  // that handlers may write, in module order: the same list in every effect, the module's one
  // table and the shared tail of every effect table), so a global both write is listed once.
  // With a short form (recorded when no handler ran inside the call; the runtime knows,
  // since such handlers are instrumented) the short form is the callee's writes: those
  // others, then the handler part's globals the callee writes, a subsequence of the whole.
  if (Interruptible) {
    std::vector<GlobalVariable *> Handler;
    GlobalSet H;
    for (unsigned Id : handlerWrites())
      H.Ids.insert(Id);
    for (const GlobalVariable *GV : MM.globals(H))
      if (Recorded(GV))
        Handler.push_back(const_cast<GlobalVariable *>(GV));
    DenseSet<const GlobalVariable *> Own(Out.begin(), Out.end());
    DenseSet<const GlobalVariable *> InHandler(Handler.begin(), Handler.end());
    std::vector<GlobalVariable *> Whole;
    for (GlobalVariable *GV : Out)
      if (!InHandler.count(GV))
        Whole.push_back(GV);
    size_t Others = Whole.size();
    Whole.insert(Whole.end(), Handler.begin(), Handler.end());
    bool AllOwn = llvm::all_of(Handler, [&](GlobalVariable *GV) { return Own.count(GV); });
    if (WsnShortEffects && !AllOwn && handlersAllInstrumented()) {
      HandlerPart = uint32_t(Handler.size());
      Short.emplace();
      for (size_t I = 0; I < Whole.size(); ++I)
        if (I < Others || Own.count(Whole[I]))
          Short->push_back(uint32_t(I));
    }
    return Whole;
  }
  return Out;
}

bool Instrumenter::handlersAllInstrumented() {
  if (HandlersAllInstrumentedCache)
    return *HandlersAllInstrumentedCache;
  const DenseSet<const GlobalVariable *> &Needed = replayReads();
  bool All = true;
  for (const FunctionInfo &FI : R.Functions) {
    if (!FI.isInterrupt() || FI.F->isDeclaration() || Instr.count(FI.F))
      continue;
    const GlobalSet &Mod = MM.transitiveMod(FI.F);
    bool Hits = Mod.Unknown && !Needed.empty();
    for (const GlobalVariable *GV : MM.globals(Mod))
      Hits |= Needed.count(GV) > 0;
    All &= !Hits;
  }
  HandlersAllInstrumentedCache = All;
  return All;
}

bool Instrumenter::replayRunsCall(const CallBase &CB, bool &AllInstrumented) const {
  AllInstrumented = false;
  if (CB.isInlineAsm() || isTransparentCall(CB) || ComputedCalls.count(&CB))
    return true;
  const Function *Direct = CB.getCalledFunction();
  if (Direct && MM.role(Direct).IsInvariant)
    return true;
  ArrayRef<Function *> Targets = MM.targets(&CB);
  SmallVector<const Function *, 4> Ts(Targets.begin(), Targets.end());
  if (Direct && Ts.empty())
    Ts.push_back(Direct);
  unsigned Selected = 0;
  for (const Function *T : Ts) {
    const FunctionInfo *TI = R.lookup(T);
    if (((TI && TI->Selected) || Instr.count(T)) && !InputFns.count(T))
      ++Selected;
  }
  if (!Ts.empty() && Selected == Ts.size()) {
    AllInstrumented = true;
    return true;
  }
  if (Selected)
    return true; // mixed indirect call: not skipped (planFunction)
  Type *RT = CB.getType();
  return !RT->isVoidTy() && !CB.use_empty() &&
         !(RT->isIntegerTy() && is_contained(traceValueWidths(), RT->getIntegerBitWidth()));
}

/// Whether F may be called other than by the direct calls the model sees: its address
/// escapes, or LLVM counts it as taken. An invariant is `used` (kept for replay, which may
/// evaluate it on its own), which LLVM counts as taken; on the mote only its checks call it.
bool Instrumenter::addressTaken(const Function &F) {
  return MM.isAddressTaken(&F) || (F.hasAddressTaken() && !MM.role(&F).IsInvariant);
}

/// Section 7.1, "Functions entered with interrupts off": a function called only directly,
/// from points where interrupts are certainly off (a nesC async event called from a signal
/// handler, a helper of an atomic section), is entered Off as handlers are. Grown to a
/// fixpoint from the handlers: each promotion can make more call sites Off. Address-taken
/// functions (an indirect call may come from anywhere), functions without a call site, main
/// and handlers keep the hardware's rule.
void Instrumenter::findEnteredOff() {
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (Function &F : M) {
      if (F.isDeclaration() || EnteredOff.count(&F) || addressTaken(F))
        continue;
      const FunctionInfo *FI = R.lookup(&F);
      if (FI && (FI->isInterrupt() || FI->Role.IsMain))
        continue;
      ArrayRef<CallBase *> Sites = MM.callSites(&F);
      if (Sites.empty())
        continue;
      bool AllOff = llvm::all_of(Sites, [&](const CallBase *CB) {
        return CB->getCalledFunction() == &F && IState->offBefore(*CB);
      });
      if (AllOff) {
        EnteredOff.insert(&F);
        ++Stats.EnteredOff;
        Grew = true;
      }
    }
  }
}

/// Section 7.2 (thesis 4.1, "no record for what replay can compute"): a call of an
/// uninstrumented function needs no skip span and no effect record when replay, running
/// the same code, computes the same writes and result. That holds when
///  - interrupts are certainly off at the call and every callee keeps them off (section
///    7.1), so no handler runs inside it and no IRQ record could fall there;
///  - the callee and everything it calls are defined, uninstrumented program code, called
///    directly: no input function, task, handler, invariant, message interface, external
///    function, inline asm (the nesC atomic primitives are modelled by replay, section 3)
///    or indirect call;
///  - it touches no I/O: no volatile access, and every access has a known target (a
///    global or a stack object; a register address is neither);
///  - every global it reads is one replay keeps exact: restored by every checkpoint
///    (anchorGlobals) or constant. Replay runs every write to those (instrumented code,
///    the effects of skipped calls, these calls), so the callee reads on replay what it
///    read on the mote. Stack objects are live frames of code replay runs.
/// Its writes need no record: replay makes them itself. References it makes to
/// interrupt-shared globals are not counted, on the mote as on replay (uninstrumented).
bool Instrumenter::replayComputes(CallBase &CB) {
  if (!WsnReplayComputes || CB.isInlineAsm() || CB.isMustTailCall())
    return false;
  const Function *F = CB.getCalledFunction();
  if (!F || F->isDeclaration() || !IState->offBefore(CB) || !IState->keepsOff(*F))
    return false;
  if (!ExactCache) {
    ExactCache.emplace();
    for (GlobalVariable *GV : anchorGlobals())
      ExactCache->insert(GV);
  }
  if (!computableBody(*F))
    return false;
  // Where an interrupt may arrive, the call must not touch interrupt-shared state: an IRQ
  // record names its place by the counted references since the context's last record, and
  // the call (uninstrumented, no record) counts none, so replay cannot tell "just before
  // the call" from "just after it". Both are the same place for the handlers only when the
  // call leaves what they share alone. (uart-cmd at -O0: popTask out of line in
  // runNextTask, a tick taken after it was replayed before it, and the task dispatched
  // differed.) In a function that never runs with interrupts enabled no IRQ falls anywhere.
  if (IState->mayRunEnabled(*CB.getFunction()) && mayTouchShared(*F))
    return false;
  ComputedCalls.insert(&CB);
  return true;
}

bool Instrumenter::computableBody(const Function &F) {
  // A function reached again while its own body is being looked at is recursive: refused,
  // and with it everything on the cycle (a result assumed for it would be cached for the
  // others before its body was known). keepsOff already refuses recursion (section 7.1
  // assumes it may enable interrupts); this keeps the memo sound on its own.
  auto [It, New] = ComputableFns.try_emplace(&F, false);
  if (!New)
    return It->second;
  auto Fail = [&] { return false; };
  const FunctionRole &Role = MM.role(&F);
  if (F.isDeclaration() || Instr.count(&F) || InputFns.count(&F) || Role.IsTask ||
      Role.IsInvariant || Role.isInterrupt() || hasMessageRole(F) || F.isVarArg())
    return Fail();
  auto KnownTarget = [&](const Value *Ptr, bool Read) {
    ObjSet O = MM.pointsTo(Ptr);
    if (O.Unknown || O.Objs.empty())
      return false;
    for (unsigned Id : O.Objs) {
      const Value *Obj = MM.object(Id);
      if (const auto *GV = dyn_cast<GlobalVariable>(Obj)) {
        if (GV->getSection() == ".progmem.data" || isNoInstrumentName(GV->getName()))
          return false; // flash (read by lpm), the runtime's own state
        if (Read && !GV->isConstant() && !ExactCache->count(GV))
          return false;
        continue;
      }
      if (!isa<AllocaInst>(Obj))
        return false;
    }
    return true;
  };
  // The status register (AVR SREG in the data space): replay's status model, as in
  // instrumented code (the nesC atomic primitives, once inlined, read and write it), read
  // the way the interrupt-state analysis of condition 1 reads it.
  auto IsStatus = [&](const Value *Ptr) { return Target && isStatusAddress(Ptr, Target->Arch); };
  // A volatile local (a delay loop's counter) is the function's own memory: deterministic,
  // as the instrumentation treats it in instrumented code (isNondetLoad).
  auto OnlyStack = [&](const Value *Ptr) {
    ObjSet O = MM.pointsTo(Ptr);
    return !O.Unknown && !O.Objs.empty() && llvm::all_of(O.Objs, [&](unsigned Id) {
      return isa<AllocaInst>(MM.object(Id));
    });
  };
  for (const Instruction &I : instructions(F)) {
    if (const auto *LI = dyn_cast<LoadInst>(&I)) {
      const Value *Ptr = LI->getPointerOperand();
      if (IsStatus(Ptr))
        continue;
      if ((LI->isVolatile() && !OnlyStack(Ptr)) || LI->isAtomic() || !KnownTarget(Ptr, true))
        return Fail();
    } else if (const auto *SI = dyn_cast<StoreInst>(&I)) {
      const Value *Ptr = SI->getPointerOperand();
      if (IsStatus(Ptr))
        continue;
      if ((SI->isVolatile() && !OnlyStack(Ptr)) || SI->isAtomic() || !KnownTarget(Ptr, false))
        return Fail();
    } else if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I) || isa<FenceInst>(I) ||
               isa<VAArgInst>(I)) {
      return Fail();
    } else if (const auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      if (MI->isVolatile() || !KnownTarget(MI->getDest(), false))
        return Fail();
      if (const auto *MT = dyn_cast<MemTransferInst>(MI);
          MT && !KnownTarget(MT->getSource(), true))
        return Fail();
    } else if (const auto *CB = dyn_cast<CallBase>(&I)) {
      if (isHarmlessIntrinsic(I))
        continue;
      if (CB->isInlineAsm()) {
        // Interrupt masking and status moves only (replay's status model); never
        // sleep or read program memory. An enable is allowed where keepsOff has proved
        // it never runs with the flag set (MSP430's atomic end: eint only when the
        // saved GIE was set).
        std::vector<AsmStmt> Stmts;
        if (!Target || !parseMoteAsm(*CB, Target->Arch, Stmts, nullptr))
          return Fail();
        for (const AsmStmt &St : Stmts)
          if (St.Op == AsmOp::Sleep || St.Op == AsmOp::LoadProgram)
            return Fail();
        continue;
      }
      const Function *C = CB->getCalledFunction();
      if (!C)
        return Fail();
      StringRef N = C->getName();
      if (N == "__nesc_atomic_start" || N == "__nesc_atomic_end")
        continue; // replay's status model (keepsOff: they restore, never enable)
      if (C->isIntrinsic() || ModuleModel::isTransparentCallee(C) || !computableBody(*C))
        return Fail();
    } else if (I.mayReadOrWriteMemory()) {
      return Fail();
    }
  }
  ComputableFns[&F] = true;
  return true;
}

/// What replay needs from the mote's memory: the slice globals, and every
/// global the code replay executes may read: the instrumented functions'
/// own loads (handlers included) and what the uninstrumented calls that are
/// not skipped may read. A global that replayed code only writes, or only
/// passes by address, is not needed: its value at a checkpoint cannot change
/// what replay computes. Checkpoints and effect records hold these only
/// (thesis 4.1: "live, sliced state"); before, they held every global an
/// instrumented function referenced, and every global a skipped callee may
/// write, which made real nesC applications' checkpoints hundreds of bytes.
const DenseSet<const GlobalVariable *> &Instrumenter::replayReads() {
  if (ReplayReadsCache)
    return *ReplayReadsCache;
  DenseSet<const GlobalVariable *> Want;
  for (auto &KV : R.SliceGlobals)
    Want.insert(KV.first);
  GlobalSet S;
  auto AddObjs = [&](const ObjSet &O) {
    S.Unknown |= O.Unknown;
    for (unsigned Id : O.Objs)
      if (MM.objectGlobal(Id))
        S.Ids.insert(Id);
  };
  for (const Function *F : Instr)
    for (const Instruction &I : instructions(*F)) {
      const auto *CB = dyn_cast<CallBase>(&I);
      if (CB && !isa<MemIntrinsic>(CB)) {
        bool AllInstrumented;
        if (!replayRunsCall(*CB, AllInstrumented) || AllInstrumented || CB->isInlineAsm() ||
            isTransparentCall(*CB))
          continue;
        ArrayRef<Function *> Ts = MM.targets(CB);
        const Function *Direct = CB->getCalledFunction();
        if (Ts.empty() && !Direct) {
          S.Unknown = true;
          continue;
        }
        SmallVector<const Function *, 4> All(Ts.begin(), Ts.end());
        if (All.empty())
          All.push_back(Direct);
        for (const Function *T : All) {
          if (Instr.count(T))
            continue;
          if (T->isDeclaration()) {
            ObjSet O;
            MM.reads(I, O);
            AddObjs(O);
            continue;
          }
          const GlobalSet &Ref = MM.transitiveRef(T);
          S.Unknown |= Ref.Unknown;
          S.Ids.insert(Ref.Ids.begin(), Ref.Ids.end());
        }
        continue;
      }
      ObjSet O;
      MM.reads(I, O);
      AddObjs(O);
    }
  // LOG 6: the message ops (inserted last, MessageSites.h) read their fields
  // in replay too, after a skipped send or before a skipped receive: what they
  // read must come from the effects like any other read.
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    std::optional<Expected<MessageInterface>> MI = messageInterfaceOf(F);
    if (!MI)
      continue;
    if (!*MI) {
      consumeError(MI->takeError()); // reported by insertMessageOps
      continue;
    }
    for (const MessageField *Fl : {&(*MI)->Peer, &(*MI)->Seq}) {
      if (Fl->K == MessageField::Global) {
        if (const GlobalVariable *GV = M.getNamedGlobal(Fl->GlobalName))
          Want.insert(GV);
      } else if (Fl->K == MessageField::ArgMemory) {
        for (const User *U : F.users())
          if (const auto *CB = dyn_cast<CallBase>(U);
              CB && CB->getCalledFunction() == &F && Fl->ArgNo < CB->arg_size())
            AddObjs(MM.pointsTo(CB->getArgOperand(Fl->ArgNo)));
      }
    }
  }
  for (const GlobalVariable *GV : MM.globals(S))
    Want.insert(GV);
  ReplayReadsCache = std::move(Want);
  return *ReplayReadsCache;
}

/// The globals an interrupt handler may write (transitively) that replay
/// needs (replayReads).
const DenseSet<unsigned> &Instrumenter::handlerWrites() {
  if (HandlerWritesCache)
    return *HandlerWritesCache;
  const DenseSet<const GlobalVariable *> &Want = replayReads();
  GlobalSet All;
  for (const FunctionInfo &FI : R.Functions)
    if (FI.isInterrupt() && !FI.F->isDeclaration()) {
      const GlobalSet &Mod = MM.transitiveMod(FI.F);
      All.Ids.insert(Mod.Ids.begin(), Mod.Ids.end());
      // A write through a pointer of unknown target may reach any
      // address-taken global (as for a skipped callee's own writes).
      All.Unknown |= Mod.Unknown;
    }
  DenseSet<unsigned> Out;
  for (const GlobalVariable *GV : MM.globals(All))
    if (Want.count(GV))
      Out.insert(MM.globalId(GV));
  HandlerWritesCache = std::move(Out);
  return *HandlerWritesCache;
}

/// Small memset/memcpy/memmove that touch interrupt-shared globals become
/// byte accesses, so that each one is counted inside a region (a call may not
/// be part of a region).
void Instrumenter::expandMemIntrinsics(FuncPlan &P) {
  SmallVector<MemIntrinsic *, 4> Work;
  for (Instruction &I : instructions(*P.F))
    if (auto *MI = dyn_cast<MemIntrinsic>(&I))
      Work.push_back(MI);
  for (MemIntrinsic *MI : Work) {
    bool DstShared = isCountedPointer(MI->getDest());
    auto *MT = dyn_cast<MemTransferInst>(MI);
    bool SrcShared = MT && isCountedPointer(MT->getSource());
    if (!DstShared && !SrcShared)
      continue;
    auto *Len = dyn_cast<ConstantInt>(MI->getLength());
    if (!Len || Len->getZExtValue() > Opts.MaxExpandBytes) {
      Stats.Warnings.push_back(
          "reference to an interrupt-shared global through " +
          MI->getCalledFunction()->getName().str() + " " + where(*MI) +
          " is too large to count atomically (length not a constant <= " +
          std::to_string(Opts.MaxExpandBytes) +
          "); an interrupt inside it may not replay exactly");
      continue;
    }
    uint64_t N = Len->getZExtValue();
    IRBuilder<> IB(MI);
    Type *I8 = IB.getInt8Ty();
    const DataLayout &DL = M.getDataLayout();
    auto At = [&](Value *Base, uint64_t K) -> Value * {
      if (K == 0)
        return Base;
      return IB.CreateGEP(I8, Base,
                          ConstantInt::get(DL.getIndexType(Base->getType()), K));
    };
    bool Vol = MI->isVolatile();
    if (auto *MS = dyn_cast<MemSetInst>(MI)) {
      for (uint64_t K = 0; K < N; ++K) {
        Value *Ptr = At(MS->getDest(), K);
        StoreInst *St = IB.CreateStore(MS->getValue(), Ptr, Vol);
        P.Counted.insert(St);
      }
    } else {
      SmallVector<Value *, 16> Bytes;
      for (uint64_t K = 0; K < N; ++K) {
        Value *Ptr = At(MT->getSource(), K);
        LoadInst *Ld = IB.CreateLoad(I8, Ptr, Vol);
        if (SrcShared)
          P.Counted.insert(Ld);
        Bytes.push_back(Ld);
      }
      for (uint64_t K = 0; K < N; ++K) {
        Value *Ptr = At(MT->getDest(), K);
        StoreInst *St = IB.CreateStore(Bytes[K], Ptr, Vol);
        if (DstShared)
          P.Counted.insert(St);
      }
    }
    MI->eraseFromParent();
  }
}

Error Instrumenter::planFunction(FuncPlan &P) {
  Function &F = *P.F;
  const FunctionInfo &FI = *P.FI;
  P.Handler = FI.isInterrupt();
  // Handlers entered with interrupts disabled (AVR signal, MSP430) cannot be
  // interrupted, so counting their references would only cost code; they do
  // count when they, or anything they call, may turn interrupts back on (AVR
  // `interrupt`, sei / eint, a status restore; section 7.1).
  if (P.Handler && enteredWithInterruptsOff(FI))
    P.CountRefs = IState->mayRunEnabled(F);
  // The same for a function only called with interrupts off (section 7.1): no interrupt
  // arrives while it runs unless it, or a callee, turns them on.
  if (!P.Handler && EnteredOff.count(&F))
    P.CountRefs = IState->mayRunEnabled(F);

  if (P.CountRefs)
    expandMemIntrinsics(P);

  if (FI.Selected) {
    for (const AnchorSite &A : R.Anchors)
      if (A.F == &F)
        P.AnchorHeaders.push_back(const_cast<BasicBlock *>(A.Header));
  } else {
    // An added caller: its anchor headers, found the way the analysis finds
    // them for selected functions.
    DominatorTree LDT(F);
    LoopInfo LI(LDT);
    collectAnchorHeaders(LI, P.AnchorHeaders);
  }
  // Boot code (spec/instrumentation.md, "Boot code"): replay always starts at
  // a checkpoint (thesis 4.2), so what main does before it can first reach an
  // anchor never replays, and the first anchor visit writes a checkpoint
  // (segment 0 is armed at reset). Its inputs, skipped calls and reference
  // counts would only cost trace bytes and cycles, and the cycles break
  // timing loops: TinyOS's clock calibration (MeasureClockC on the MicaZ:
  // 13,542 INPUT records at boot; Msp430ClockP's DCO calibration on the
  // TelosB settled on the lowest DCO setting). Checks stay: they count.
  DenseSet<const BasicBlock *> AfterAnchor;
  bool PruneBoot = FI.Role.IsMain && !P.AnchorHeaders.empty();
  if (PruneBoot)
    for (BasicBlock *H : P.AnchorHeaders)
      for (const BasicBlock *BB : reachableFrom(*H))
        AfterAnchor.insert(BB);

  DominatorTree DT(F);
  AssumptionCache AC(F);
  DemandedBits DB(F, AC, DT);
  for (Instruction &I : instructions(F)) {
    if (isa<TraceOp>(&I))
      return makeError("function '" + F.getName() +
                       "' already contains trace ops");
    if (PruneBoot && !AfterAnchor.count(I.getParent())) {
      auto *CB = dyn_cast<CallBase>(&I);
      const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
      if (Callee && MM.role(Callee).IsInvariant)
        P.Checks.push_back(CB);
      else if (isa<LoadInst>(I) && isNondetLoad(cast<LoadInst>(I)))
        ++Stats.BootInputs;
      continue;
    }
    if (P.CountRefs) {
      const Value *Ptr = nullptr;
      if (isa<LoadInst>(I) || isa<StoreInst>(I))
        Ptr = getLoadStorePointerOperand(&I);
      else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
        Ptr = RMW->getPointerOperand();
      else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
        Ptr = CX->getPointerOperand();
      if (Ptr && isCountedPointer(Ptr))
        P.Counted.insert(&I);
    }
    if (auto *LI = dyn_cast<LoadInst>(&I)) {
      if (!isNondetLoad(*LI))
        continue;
      std::optional<uint64_t> Mask = inputMask(*LI, DB);
      if (!Mask) {
        Stats.Warnings.push_back("nondeterministic load of a non-integer "
                                 "value " + where(I) +
                                 " is not recorded (replay cannot reproduce "
                                 "it)");
        continue;
      }
      P.Inputs.push_back({LI, *Mask});
      continue;
    }
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB || isTransparentCall(*CB))
      continue;
    const Function *Callee = CB->getCalledFunction();
    if (Callee && MM.role(Callee).IsInvariant) {
      P.Checks.push_back(CB);
      continue;
    }
    if (Callee && InputFns.count(Callee) && !CB->isMustTailCall()) {
      // A void one (an outlined polling loop) writes nothing replay sees:
      // no record, and replay does not run it (spec/instrumentation.md
      // section 6, "Polling loops").
      if (CB->getType()->isVoidTy()) {
        CB->setMetadata(InputCallMD, MDNode::get(CB->getContext(), {}));
        ++Stats.InputCalls;
        continue;
      }
      // One INPUT record for the result (spec/instrumentation.md section 6).
      if (std::optional<uint64_t> Mask = inputMask(*CB, DB)) {
        P.Inputs.push_back({CB, *Mask});
        ++Stats.InputCalls;
        continue;
      }
    }
    if (Opts.RecordSched && Callee && MM.role(Callee).IsTask)
      P.TaskCalls.push_back(CB);
    bool Mixed, Any;
    std::optional<std::vector<uint32_t>> Short;
    uint32_t HandlerPart;
    std::vector<GlobalVariable *> Writes = effectWrites(*CB, Mixed, Any, Short, HandlerPart);
    if (Mixed) {
      Stats.Warnings.push_back(
          "indirect call " + where(I) +
          " may reach both instrumented and uninstrumented functions; it is "
          "not skipped, so replay executes whichever target it reaches");
      continue;
    }
    if (!Any)
      continue;
    if (replayComputes(*CB)) {
      ++Stats.Computed;
      continue;
    }
    Type *RT = CB->getType();
    if (!RT->isVoidTy() && !CB->use_empty() &&
        !(RT->isIntegerTy() &&
          is_contained(traceValueWidths(), RT->getIntegerBitWidth()))) {
      Stats.Warnings.push_back(
          "call " + where(I) + " to uninstrumented '" +
          (Callee ? Callee->getName().str() : std::string("<indirect>")) +
          "' returns a value that cannot be recorded; it is not skipped");
      continue;
    }
    SkipPlan S;
    S.Call = CB;
    S.Callee = Callee ? Callee->getName().str() : "";
    S.Writes = std::move(Writes);
    S.Short = std::move(Short);
    S.HandlerPart = HandlerPart;
    P.Skips.push_back(std::move(S));
  }

  // LOG 5 for annotated input handlers: the globals they write are recorded
  // when they return (thesis 4.1: handlers that take external input are
  // marked, and the variables they export are saved to the trace).
  if (P.Handler && FI.Role.IsInputHandler) {
    SetVector<GlobalVariable *> W;
    for (Instruction &I : instructions(F)) {
      if (!isa<StoreInst>(I) && !isa<AtomicRMWInst>(I) &&
          !isa<MemIntrinsic>(I))
        continue;
      ObjSet O;
      MM.writes(I, O);
      for (unsigned Id : O.Objs)
        if (const GlobalVariable *GV = MM.objectGlobal(Id))
          W.insert(const_cast<GlobalVariable *>(GV));
    }
    P.InputHandlerWrites.assign(W.begin(), W.end());
  }
  return Error::success();
}

Error Instrumenter::plan() {
  IState = std::make_unique<InterruptState>(M, [this](const Function &F) {
    const FunctionInfo *FI = R.lookup(&F);
    return (FI && enteredWithInterruptsOff(*FI)) || EnteredOff.count(&F);
  });
  if (WsnEnteredOff)
    findEnteredOff();
  for (const GlobalVariable *GV : R.InterruptShared) {
    Shared.insert(GV);
    unsigned Id = MM.globalId(GV);
    if (Id < MM.numObjects() && MM.objectAddressTaken(Id))
      SharedAddressTaken = true;
  }
  // The instrumented set: the selected functions, plus (unless
  // -wsn-instrument-callers=false) every function through which the program
  // reaches one of them. Otherwise an instrumented function would run inside
  // the skip span of its uninstrumented caller (e.g. a level-1 task called
  // from the scheduler loop), where replay cannot reach it, and the
  // scheduler loop would carry no anchor.
  // Input functions (InputFunctions.h): their calls are recorded as one
  // input each, so they are never instrumented, even when selected.
  {
    AnnotationMap Annotations = collectAnnotations(M);
    for (const Function &F : M)
      if (isInputFunction(F, MM.role(&F), Target ? &*Target : nullptr,
                          Annotations))
        InputFns.insert(&F);
  }
  SmallVector<const Function *, 16> Work;
  for (const FunctionInfo &FI : R.Functions)
    if (FI.Selected && !FI.F->isDeclaration() &&
        !isNoInstrumentFunction(*FI.F) && !InputFns.count(FI.F)) {
      Instr.insert(FI.F);
      Work.push_back(FI.F);
    }
  // Grown to a fixpoint:
  //  - a callee that may write another function's stack (through a pointer
  //    argument, e.g. filling the caller's local array) cannot be skipped:
  //    an effect record holds globals only (section 7). It is instrumented,
  //    so replay runs it;
  //  - every defined target of an indirect call that may also reach an
  //    instrumented function is instrumented: otherwise the call is neither
  //    skipped nor counted, and replay could not place an interrupt that
  //    arrives around the uninstrumented target;
  //  - the callers, as above.
  for (size_t Before = 0; Before != Instr.size();) {
    Before = Instr.size();
    for (const FunctionInfo &FI : R.Functions)
      if (Instr.count(FI.F)) {
        addStackWriters(FI.F, Work);
        addMixedTargets(FI.F, Work);
      }
    if (Opts.InstrumentCallers)
      while (!Work.empty()) {
        const Function *F = Work.pop_back_val();
        for (CallBase *CB : MM.callSites(F)) {
          const Function *Caller = CB->getFunction();
          if (Caller->isDeclaration() || isNoInstrumentFunction(*Caller) ||
              !Instr.insert(Caller).second)
            continue;
          ++Stats.Callers;
          Work.push_back(Caller);
        }
      }
    Work.clear();
  }
  planLatches();
  // An interrupt handler left uninstrumented is invisible to replay: it never
  // runs there. When it writes a global the replayed code reads (a timer tick
  // counter read by an instrumented task), a tick between two records changes
  // what the mote computes but not what replay computes, and replay reports
  // "reproduced" with different state (fidelity -O0 sense-send: SenseC$clock
  // one tick behind, exposed once records took longer). Such a handler is
  // instrumented, so its IRQ record places it; its own uninstrumented callees
  // are skipped with their effects as usual. To a fixpoint: the handler's own
  // reads join what replay reads.
  for (bool Grew = true; Grew;) {
    Grew = false;
    const DenseSet<const GlobalVariable *> &Reads = replayReads();
    SmallVector<const Function *, 4> Add;
    for (const FunctionInfo &FI : R.Functions) {
      if (!FI.Role.isInterrupt() || FI.F->isDeclaration() || Instr.count(FI.F) ||
          isNoInstrumentFunction(*FI.F))
        continue;
      const GlobalSet &Mod = MM.transitiveMod(FI.F);
      bool Hits = Mod.Unknown && !Reads.empty();
      for (const GlobalVariable *GV : MM.globals(Mod))
        Hits |= Reads.count(GV) > 0;
      if (Hits)
        Add.push_back(FI.F);
    }
    for (const Function *F : Add) {
      Instr.insert(F);
      ++Stats.Callers;
      Grew = true;
    }
    if (Grew)
      ReplayReadsCache.reset();
  }
  replayReads(); // before any function changes
  for (const FunctionInfo &FI : R.Functions) {
    if (!Instr.count(FI.F))
      continue;
    FuncPlan P;
    P.F = const_cast<Function *>(FI.F);
    P.FI = &FI;
    if (Error E = planFunction(P))
      return E;
    Plans.push_back(std::move(P));
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Phase 2: rewrite
//===----------------------------------------------------------------------===//

/// The globals a checkpoint saves: the slice globals and every writable
/// global the code replay executes may read (replayReads: replay re-executes
/// the instrumented functions from the anchor, so everything they read must
/// be restored), in module order. When that does not fit one segment, the slice globals
/// alone (with a warning).
std::vector<GlobalVariable *> Instrumenter::anchorGlobals() {
  if (AnchorGlobalsCache)
    return *AnchorGlobalsCache;
  DenseSet<const GlobalVariable *> Want = replayReads(), Slice;
  for (auto &KV : R.SliceGlobals)
    Slice.insert(KV.first);
  for (auto &[A, GV] : LatchGVs) {
    Want.insert(GV);
    Slice.insert(GV);
  }
  auto Collect = [&](const DenseSet<const GlobalVariable *> &Set) {
    std::vector<GlobalVariable *> Out;
    for (GlobalVariable &GV : M.globals())
      // Program-memory data (wsn-progmem's .progmem.data, e.g. TinyOS's const_uint8_t
      // tables, not `const` in IR) lives in flash: replay reads it from the ELF.
      if (Set.count(&GV) && !GV.isConstant() && GV.getSection() != ".progmem.data" &&
          (!isNoInstrumentName(GV.getName()) || parseLatchSymbolName(GV.getName())) &&
          !GV.getName().starts_with("llvm."))
        Out.push_back(&GV);
    return Out;
  };
  std::vector<GlobalVariable *> All = Collect(Want);
  uint64_t Size = 0;
  for (GlobalVariable *GV : All)
    Size += sizeOf(M, GV);
  if (Size + 8 > Opts.SegSize) {
    // The fallback is not exact for every run: a global replay reads but the
    // checkpoint leaves out starts replay with its ELF value, so a branch of an
    // instrumented function on it (radio-sense's alarm test of
    // RadioSenseC$sample at 150-byte segments) can take the other way, and
    // replay stops with "diverged" (exit 3). Say so, and what would fit.
    std::vector<GlobalVariable *> Sliced = Collect(Slice);
    uint64_t SliceSize = 0;
    for (GlobalVariable *GV : Sliced)
      SliceSize += sizeOf(M, GV);
    Stats.Warnings.push_back(
        formatv("the globals used by the instrumented functions take {0} bytes, "
                "more than a segment of {1} holds ({2}); checkpoints save the "
                "{3} bytes of slice globals only, and a replay that starts at one "
                "can diverge (exit 3) where instrumented code depends on the other "
                "{4} bytes; a segment of at least {5} bytes saves them all",
                Size, Opts.SegSize, Opts.SegSize > 8 ? Opts.SegSize - 8 : 0, SliceSize, Size - SliceSize, Size + 8)
            .str());
    All = std::move(Sliced);
  }
  AnchorGlobalsCache = All;
  return All;
}

/// True when the address of some local may end up where a pointer of unknown
/// target can come from: stored to memory, converted to an integer, returned,
/// given to an indirect call, an external function that may capture it, or
/// inline asm. Passing it to a defined function follows the formal argument
/// (the analysis tracks formals precisely, spec/analysis.md section 2). When no
/// local escapes this way, a write through an unknown pointer cannot reach a
/// stack frame. nesC code takes addresses of locals all the time (out
/// arguments of commands), and without this refinement every task that
/// writes through a message pointer became a stack writer.
DenseMap<const GlobalVariable *, Instrumenter::GlobalLevel> Instrumenter::readerLevels() {
  DenseMap<const GlobalVariable *, GlobalLevel> Out;
  for (const FunctionInfo &FI : R.Functions) {
    if (!FI.Level || !FI.F || FI.F->isDeclaration())
      continue;
    for (const Instruction &I : instructions(*FI.F)) {
      if (isa<CallBase>(I) && !isa<MemIntrinsic>(I))
        continue;
      ObjSet O;
      MM.reads(I, O);
      for (unsigned Id : O.Objs)
        if (const GlobalVariable *GV = MM.objectGlobal(Id)) {
          if (GV->isConstant())
            continue;
          auto [It, New] = Out.try_emplace(GV, GlobalLevel{*FI.Level, FI.F});
          if (!New && *FI.Level < It->second.Level)
            It->second = GlobalLevel{*FI.Level, FI.F};
        }
    }
  }
  return Out;
}

/// `!wsn.global_levels`: for each writable global a checkpoint does not save
/// but a function with a level reads, {name, level, reader}: the tracing
/// level whose selection instruments that reader, so that its checkpoints
/// would save the global (wsn-replay --check names it when it refuses an
/// expression over state the trace does not reconstruct; spec/replay.md).
void Instrumenter::recordGlobalLevels(
    const DenseMap<const GlobalVariable *, GlobalLevel> &Levels) {
  DenseSet<const GlobalVariable *> Saved;
  for (GlobalVariable *GV : anchorGlobals())
    Saved.insert(GV);
  std::vector<std::tuple<std::string, unsigned, std::string>> Rows;
  for (const GlobalVariable &GV : M.globals())
    if (auto It = Levels.find(&GV); It != Levels.end() && !Saved.count(&GV))
      Rows.emplace_back(GV.getName().str(), It->second.Level,
                        It->second.Reader->getName().str());
  if (Rows.empty())
    return;
  LLVMContext &Ctx = M.getContext();
  NamedMDNode *NMD = M.getOrInsertNamedMetadata("wsn.global_levels");
  for (auto &[Name, Level, Reader] : Rows)
    NMD->addOperand(MDTuple::get(
        Ctx, {MDString::get(Ctx, Name),
              ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(Ctx), Level)),
              MDString::get(Ctx, Reader)}));
}

/// The PFDG this build was selected from, for wsn-replay --emit-error-paths
/// (its paths must be walks of the PFDG, spec/analysis.md section 5):
/// `!wsn.pfdg = !{!{i32 level}, !{!"node", name, i32
/// level or -1}..., !{!"edge", i32 from, i32 to}...}` (nodes by index; call
/// and dependence edges alike, as error paths may use either).
void Instrumenter::recordPfdg() {
  const PfdgGraph &G = R.Graph;
  LLVMContext &Ctx = M.getContext();
  auto I32 = [&](int64_t V) {
    return ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(Ctx), V, true));
  };
  NamedMDNode *NMD = M.getOrInsertNamedMetadata("wsn.pfdg");
  NMD->addOperand(MDTuple::get(Ctx, {I32(R.Level)}));
  for (PfdgGraph::NodeId N = 0; N < G.size(); ++N) {
    std::optional<unsigned> L = G.level(N);
    NMD->addOperand(MDTuple::get(Ctx, {MDString::get(Ctx, "node"),
                                       MDString::get(Ctx, G.name(N)), I32(L ? *L : -1)}));
  }
  for (const auto *Edges : {&G.callEdges(), &G.dependenceEdges()})
    for (auto [A, B] : *Edges)
      NMD->addOperand(MDTuple::get(Ctx, {MDString::get(Ctx, "edge"), I32(A), I32(B)}));
}

static bool anyLocalEscapesToMemory(const Module &M) {
  SmallVector<const Value *, 32> Work;
  SmallPtrSet<const Value *, 32> Seen;
  for (const Function &F : M)
    for (const Instruction &I : instructions(F))
      if (isa<AllocaInst>(I) && Seen.insert(&I).second)
        Work.push_back(&I);
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const Use &U : V->uses()) {
      const User *Usr = U.getUser();
      auto Follow = [&](const Value *Next) {
        if (Seen.insert(Next).second)
          Work.push_back(Next);
      };
      if (isa<LoadInst>(Usr) || isa<ICmpInst>(Usr))
        continue;
      if (const auto *SI = dyn_cast<StoreInst>(Usr)) {
        if (SI->getValueOperand() == V)
          return true;
        continue;
      }
      if (isa<GetElementPtrInst>(Usr) || isa<BitCastInst>(Usr) ||
          isa<AddrSpaceCastInst>(Usr) || isa<PHINode>(Usr) || isa<SelectInst>(Usr)) {
        Follow(Usr);
        continue;
      }
      if (const auto *CB = dyn_cast<CallBase>(Usr)) {
        if (isa<MemIntrinsic>(CB) || (isa<IntrinsicInst>(CB) && !CB->isArgOperand(&U)))
          continue;
        if (const auto *II = dyn_cast<IntrinsicInst>(CB))
          if (II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II))
            continue;
        if (CB->isInlineAsm() || !CB->isArgOperand(&U))
          return true;
        const Function *Callee = CB->getCalledFunction();
        unsigned ArgNo = CB->getArgOperandNo(&U);
        if (!Callee || Callee->isIntrinsic())
          return true;
        if (Callee->isDeclaration()) {
          if (CB->doesNotCapture(ArgNo))
            continue;
          return true;
        }
        if (ArgNo >= Callee->arg_size())
          return true; // variadic part
        Follow(Callee->getArg(ArgNo));
        continue;
      }
      return true; // ptrtoint, ret, insertvalue, atomics, ...
    }
  }
  return false;
}

bool Instrumenter::writesOtherStacks(const Function *F) {
  if (OtherStackWriters.empty()) {
    // Own writes first, then through callees to a fixpoint (recursion).
    bool AnyAddrTakenLocal =
        llvm::any_of(MM.addressTakenObjects(),
                     [&](unsigned Id) { return isa<AllocaInst>(MM.object(Id)); }) &&
        anyLocalEscapesToMemory(M);
    for (const Function *G : MM.definedFunctions()) {
      bool W = false;
      for (const Instruction &I : instructions(*G)) {
        if (isa<CallBase>(I) && !isa<MemIntrinsic>(I))
          continue; // callees below
        ObjSet O;
        MM.writes(I, O);
        W |= O.Unknown && AnyAddrTakenLocal;
        for (unsigned Id : O.Objs)
          if (auto *AI = dyn_cast<AllocaInst>(MM.object(Id)))
            W |= AI->getFunction() != G;
        if (W)
          break;
      }
      OtherStackWriters[G] = W;
    }
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (const Function *G : MM.definedFunctions()) {
        bool &W = OtherStackWriters[G];
        if (W)
          continue;
        for (const Function *C : MM.callees(G))
          if (!C->isDeclaration() && !ModuleModel::isTransparentCallee(C) &&
              OtherStackWriters.lookup(C)) {
            W = Changed = true;
            break;
          }
      }
    }
  }
  return OtherStackWriters.lookup(F);
}

void Instrumenter::addMixedTargets(const Function *F,
                                   SmallVectorImpl<const Function *> &Work) {
  for (CallBase *CB : MM.callsIn(F)) {
    if (CB->getCalledFunction() || CB->isInlineAsm())
      continue;
    ArrayRef<Function *> Ts = MM.targets(CB);
    if (llvm::none_of(Ts, [&](const Function *T) { return Instr.count(T) > 0; }))
      continue;
    for (const Function *T : Ts) {
      if (T->isDeclaration() || ModuleModel::isTransparentCallee(T) ||
          isNoInstrumentFunction(*T) || !Instr.insert(T).second)
        continue;
      ++Stats.IndirectTargets;
      Work.push_back(T);
    }
  }
}

void Instrumenter::addStackWriters(const Function *F,
                                   SmallVectorImpl<const Function *> &Work) {
  SmallVector<const Function *, 8> Todo{F};
  while (!Todo.empty()) {
    const Function *G = Todo.pop_back_val();
    for (const Function *C : MM.callees(G)) {
      if (C->isDeclaration() || ModuleModel::isTransparentCallee(C) ||
          isNoInstrumentFunction(*C) || Instr.count(C) || !writesOtherStacks(C))
        continue;
      const FunctionInfo *CI = R.lookup(C);
      if (CI && CI->isInterrupt())
        continue;
      Instr.insert(C);
      ++Stats.StackWriters;
      Work.push_back(C);
      Todo.push_back(C);
    }
  }
}

/// The global each anchor stores the status register into before its
/// checkpoint (AVR SREG, MSP430 SR), or null on targets without one.
GlobalVariable *Instrumenter::anchorStatusGlobal() {
  Triple T(M.getTargetTriple());
  bool AVR = T.getArch() == Triple::avr;
  if (!AVR && T.getArch() != Triple::msp430)
    return nullptr;
  if (GlobalVariable *GV = M.getNamedGlobal(AnchorStatusGlobal))
    return GV;
  Type *Ty = AVR ? Type::getInt8Ty(M.getContext()) : Type::getInt16Ty(M.getContext());
  return new GlobalVariable(M, Ty, false, GlobalValue::InternalLinkage,
                            ConstantInt::get(Ty, 0), AnchorStatusGlobal);
}

/// Every value stored into AI is a copy of the status register (a nesC
/// atomic section's saved SREG/SR, demoted because it is live at an
/// anchor): replay compares only its interrupt-enable bit.
bool Instrumenter::holdsStatusCopy(AllocaInst &AI) const {
  Triple T(M.getTargetTriple());
  bool AVR = T.getArch() == Triple::avr;
  if (!AVR && T.getArch() != Triple::msp430)
    return false;
  // Slots being decided: a cycle of slots copying each other holds only
  // what enters it from outside.
  SmallPtrSet<const AllocaInst *, 8> Open;
  std::function<bool(const AllocaInst &)> SlotIsStatus;
  std::function<bool(const Value *, unsigned)> IsStatus =
      [&](const Value *V, unsigned Depth) -> bool {
    if (Depth > 6)
      return false;
    if (auto *C = dyn_cast<CastInst>(V))
      return IsStatus(C->getOperand(0), Depth + 1);
    if (auto *PN = dyn_cast<PHINode>(V))
      return llvm::all_of(PN->incoming_values(),
                          [&](const Value *In) { return IsStatus(In, Depth + 1); });
    if (auto *LI = dyn_cast<LoadInst>(V))
      if (auto *Slot = dyn_cast<AllocaInst>(LI->getPointerOperand()))
        return SlotIsStatus(*Slot); // a reload of a demoted value
    // nesC's atomic-section start returns the status register it saved (TinyOS keeps it
    // out of line: Blink's and Sense's scheduler loops hold its result across the anchor).
    if (auto *CB = dyn_cast<CallBase>(V))
      if (const Function *C = CB->getCalledFunction())
        if (C->getName() == "__nesc_atomic_start" && CB->getType()->isIntegerTy())
          return true;
    return isStatusRead(V, AVR ? MoteArch::AVR : MoteArch::MSP430);
  };
  SlotIsStatus = [&](const AllocaInst &Slot) -> bool {
    if (!Open.insert(&Slot).second)
      return true; // on the cycle: decided by the other stores
    bool Any = false;
    for (const User *U : Slot.users()) {
      auto *SI = dyn_cast<StoreInst>(U);
      if (!SI)
        continue;
      if (SI->getPointerOperand() != &Slot || !IsStatus(SI->getValueOperand(), 0))
        return false;
      Any = true;
    }
    return Any;
  };
  return SlotIsStatus(AI);
}

/// Thesis 4.2 restarts replay at an anchor from the recorded variable values.
/// Values held in registers across the anchor header cannot be restored, so
/// every value live at the header moves to a stack slot first: the header's
/// phis, and the instructions and arguments defined before it (their blocks
/// dominate it) that are used anywhere execution can reach from it. For an
/// infinite loop that is its body; for a dispatch loop inside one it is the
/// rest of the outer loop too. Then the header's live state is exactly the
/// globals plus the function's allocas.
void Instrumenter::demoteLiveIns(Function &F, BasicBlock &H) {
  BasicBlock &Entry = F.getEntryBlock();
  Instruction *AllocaPt = &*Entry.getFirstInsertionPt();
  SmallVector<PHINode *, 4> Phis;
  for (PHINode &PN : H.phis())
    Phis.push_back(&PN);
  for (PHINode *PN : Phis) {
    DemotePHIToStack(PN, AllocaPt->getIterator());
    ++Stats.Demoted;
  }
  DenseSet<const BasicBlock *> Reach = reachableFrom(H);
  DominatorTree DT(F);
  auto UsedAfter = [&](const Use &U) {
    auto *UI = dyn_cast<Instruction>(U.getUser());
    if (!UI)
      return false;
    if (auto *PN = dyn_cast<PHINode>(UI))
      return Reach.count(PN->getIncomingBlock(U)) > 0;
    return Reach.count(UI->getParent()) > 0;
  };
  SmallVector<Instruction *, 8> LiveIn;
  for (Instruction &I : instructions(F)) {
    if (I.getParent() == &H || !DT.dominates(I.getParent(), &H) ||
        isa<AllocaInst>(I) || I.getType()->isVoidTy() || isa<TraceOp>(&I))
      continue;
    if (llvm::any_of(I.uses(), UsedAfter))
      LiveIn.push_back(&I);
  }
  for (Instruction *I : LiveIn) {
    // An address inside a static alloca (a hoisted &local[k]) is computed
    // again where it is used: a slot would carry the mote's stack address
    // through the checkpoint, and replay's frames lie elsewhere.
    if (isStackAddress(I)) {
      SmallVector<Use *, 4> Uses;
      for (Use &U : I->uses())
        if (UsedAfter(U))
          Uses.push_back(&U);
      for (Use *U : Uses) {
        auto *UI = cast<Instruction>(U->getUser());
        Instruction *At = UI;
        if (auto *PN = dyn_cast<PHINode>(UI))
          At = PN->getIncomingBlock(*U)->getTerminator();
        U->set(rematerialize(I, At));
      }
      ++Stats.Rematerialized;
      continue;
    }
    DemoteRegToStack(*I, false, AllocaPt->getIterator());
    ++Stats.Demoted;
  }
  for (Argument &A : F.args()) {
    SmallVector<Use *, 4> Uses;
    for (Use &U : A.uses())
      if (UsedAfter(U))
        Uses.push_back(&U);
    if (Uses.empty())
      continue;
    IRBuilder<> IB(AllocaPt);
    AllocaInst *Slot = IB.CreateAlloca(A.getType(), nullptr, A.getName() + ".anchor");
    IRBuilder<> SB(&*Entry.getFirstNonPHIOrDbgOrAlloca());
    SB.CreateStore(&A, Slot);
    for (Use *U : Uses) {
      auto *UI = cast<Instruction>(U->getUser());
      Instruction *At = UI;
      if (auto *PN = dyn_cast<PHINode>(UI))
        At = PN->getIncomingBlock(*U)->getTerminator();
      U->set(new LoadInst(A.getType(), Slot, A.getName() + ".reload", At));
    }
    ++Stats.Demoted;
  }
}

Error Instrumenter::insertAnchors(FuncPlan &P) {
  if (P.AnchorHeaders.empty())
    return Error::success();
  Function &F = *P.F;
  for (BasicBlock *H : P.AnchorHeaders) {
    DominatorTree DT(F);
    LoopInfo LI(DT);
    Loop *L = LI.getLoopFor(H);
    if (!L || L->getHeader() != H)
      return makeError("anchor site in function '" + F.getName() +
                       "' is not a loop header");
    demoteLiveIns(F, *H);
  }
  std::vector<GlobalVariable *> Globals = anchorGlobals();
  // The status register at the anchor (spec/instrumentation.md section 5):
  // replay starts its status model (the interrupt-enable bit) from it.
  GlobalVariable *StatusGV = anchorStatusGlobal();
  if (StatusGV)
    Globals.push_back(StatusGV);
  for (BasicBlock *H : P.AnchorHeaders) {
    // Live locals: the function's allocas used where execution can reach
    // from the header, unless every such use follows a new lifetime.start.
    DenseSet<const BasicBlock *> Reach = reachableFrom(*H);
    std::vector<AllocaInst *> Locals;
    SmallVector<bool, 8> StatusLocals;
    for (Instruction &I : F.getEntryBlock()) {
      auto *AI = dyn_cast<AllocaInst>(&I);
      if (!AI || !AI->isStaticAlloca())
        continue;
      bool Used = false;
      for (User *U : AI->users())
        if (auto *UI = dyn_cast<Instruction>(U))
          Used |= Reach.count(UI->getParent()) > 0;
      if (Used && deadAtHeader(*AI, *H)) {
        ++Stats.DeadAtAnchor;
        continue;
      }
      if (Used) {
        Locals.push_back(AI);
        StatusLocals.push_back(holdsStatusCopy(*AI));
      }
    }
    uint64_t Size = 0;
    for (GlobalVariable *GV : Globals)
      Size += sizeOf(M, GV);
    for (AllocaInst *AI : Locals)
      Size += M.getDataLayout().getTypeAllocSize(AI->getAllocatedType());
    Stats.noteRecord(Size, ("checkpoint in " + F.getName()).str());
    if (Size + 8 > Opts.SegSize)
      return makeError(formatv("anchor in function '{0}': the checkpoint "
                               "takes {1} bytes, more than a trace segment "
                               "allows ({2} - 8); build with a larger "
                               "-wsn-seg-size / WSN_TRACE_SEG_SIZE",
                               F.getName(), Size, Opts.SegSize)
                           .str());
    uint32_t Id = Ids.next(IdAllocator::Anchor);
    Instruction *At = &*H->getFirstInsertionPt();
    if (StatusGV) {
      IRBuilder<> SB(At);
      Value *St;
      if (StatusGV->getValueType()->isIntegerTy(8))
        St = SB.CreateLoad(SB.getInt8Ty(),
                           ConstantExpr::getIntToPtr(SB.getInt16(AvrSregAddr),
                                                     SB.getPtrTy()),
                           /*isVolatile=*/true, "wsn.sreg");
      else
        St = SB.CreateCall(InlineAsm::get(FunctionType::get(SB.getInt16Ty(), false),
                                          "mov r2, $0", "=r,~{memory}",
                                          /*hasSideEffects=*/true),
                           {}, "wsn.sr");
      SB.CreateStore(St, StatusGV);
    }
    B->setDebugLoc(DebugLoc());
    B->setInsertPoint(At);
    std::vector<Value *> Ops(Locals.begin(), Locals.end());
    B->createAnchor(Id, Ops);
    if (Error E = TraceMetadata(M).addAnchor(Id, F, Globals, Locals, StatusLocals))
      return E;
    ++Stats.Anchors;
  }
  return Error::success();
}

Error Instrumenter::insertInputs(FuncPlan &P) {
  for (auto &[LI, Mask] : P.Inputs) {
    uint32_t Site = Ids.next(IdAllocator::Site);
    B->setDebugLoc(DebugLoc());
    B->setInsertPointAfter(LI);
    Expected<InputOp *> Op = B->createInput(Site, LI, Mask);
    if (!Op)
      return makeError(toString(Op.takeError()) + " " + where(*LI));
    InputOp *In = *Op;
    LI->replaceUsesWithIf(In, [&](Use &U) { return U.getUser() != In; });
    ++Stats.Inputs;
  }
  if (!P.InputHandlerWrites.empty()) {
    Type *I32 = Type::getInt32Ty(M.getContext());
    for (BasicBlock &BB : *P.F) {
      auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator());
      if (!Ret)
        continue;
      for (GlobalVariable *GV : P.InputHandlerWrites) {
        uint32_t Size = sizeOf(M, GV);
        Stats.noteRecord(Size, ("input buffer " + GV->getName() + " in " + P.F->getName()).str());
        if (Size + 8 > Opts.SegSize)
          return makeError(formatv("input handler '{0}': global '{1}' "
                                   "({2} bytes) does not fit a trace "
                                   "segment ({3} bytes)",
                                   P.F->getName(), GV->getName(), Size,
                                   Opts.SegSize)
                               .str());
        uint32_t Site = Ids.next(IdAllocator::Site);
        B->setDebugLoc(DebugLoc());
        B->setInsertPoint(Ret);
        B->createInputBytes(Site, GV, ConstantInt::get(I32, Size));
        ++Stats.InputBuffers;
      }
    }
  }
  return Error::success();
}

Error Instrumenter::insertChecks(FuncPlan &P) {
  for (CallBase *CB : P.Checks) {
    Function *Inv = CB->getCalledFunction();
    if (!CB->getType()->isIntegerTy(1))
      return makeError("invariant '" + Inv->getName() + "' called " +
                       where(*CB) + " does not return _Bool (i1)");
    auto It = InvIds.find(Inv);
    if (It == InvIds.end()) {
      uint32_t Id = Ids.next(IdAllocator::Invariant);
      std::vector<GlobalVariable *> Inputs;
      for (auto &KV : R.InvariantInputs)
        if (KV.first == Inv)
          for (const GlobalVariable *GV : KV.second)
            Inputs.push_back(const_cast<GlobalVariable *>(GV));
      if (Error E = TraceMetadata(M).addInvariant(Id, *Inv, Inputs))
        return E;
      It = InvIds.insert({Inv, Id}).first;
    }
    B->setDebugLoc(DebugLoc());
    B->setInsertPointAfter(CB);
    B->createCheck(It->second, CB);
    ++Stats.Checks;
  }
  return Error::success();
}

void Instrumenter::insertSched(FuncPlan &P) {
  for (CallBase *CB : P.TaskCalls) {
    Function *Task = CB->getCalledFunction();
    auto It = TaskIds.find(Task);
    if (It == TaskIds.end()) {
      uint32_t Id = Ids.next(IdAllocator::Task);
      consumeError(TraceMetadata(M).addTask(Id, *Task));
      It = TaskIds.insert({Task, Id}).first;
    }
    B->setDebugLoc(DebugLoc());
    B->setInsertPoint(CB);
    B->createSched(It->second);
    ++Stats.Scheds;
  }
}

Error Instrumenter::insertSkips(FuncPlan &P) {
  for (SkipPlan &S : P.Skips) {
    CallBase &CB = *S.Call;
    uint32_t Ret = 0;
    if (!CB.getType()->isVoidTy() &&
        (CB.getType()->isIntegerTy() || !CB.use_empty()))
      Ret = (CB.getType()->getIntegerBitWidth() + 7) / 8;
    uint64_t Size = Ret;
    for (GlobalVariable *GV : S.Writes)
      Size += sizeOf(M, GV);
    Stats.noteRecord(Size, "effect of the call " + where(CB) + " to '" +
                               (S.Callee.empty() ? std::string("<indirect>") : S.Callee) + "'");
    if (Size + 8 > Opts.SegSize)
      return makeError(formatv(
          "call {0} to uninstrumented '{1}': its effect record (return value "
          "and {2} globals it may write) takes {3} bytes, more than a trace "
          "segment allows ({4} - 8); instrument the callee (a higher "
          "-wsn-level) or build with a larger -wsn-seg-size",
          where(CB), S.Callee.empty() ? "<indirect>" : S.Callee,
          S.Writes.size(), Size, Opts.SegSize));
    uint32_t Site = Ids.next(IdAllocator::Site);
    B->setDebugLoc(DebugLoc());
    if (Size == 0 || CB.doesNotReturn()) {
      // Nothing to record (void, or an unused non-integer result, and no
      // global written), or the callee never returns: the span alone; an
      // empty or unreachable EFFECT would only cost code and trace bytes.
      B->setInsertPoint(&CB);
      B->setDebugLoc(CB.getDebugLoc());
      B->createSkipBegin(Site);
      B->setInsertPointAfter(&CB);
      B->createSkipEnd(Site);
      ++Stats.Skips;
      continue;
    }
    Expected<EffectOp *> E = B->wrapUninstrumentedCall(CB, Site);
    if (!E)
      return makeError(toString(E.takeError()) + " " + where(CB));
    uint32_t RetSize = (*E)->isVoid() ? 0 : ((*E)->bitWidth() + 7) / 8;
    if (Error Err = TraceMetadata(M).addEffect(Site, S.Callee, RetSize,
                                               S.Writes, S.Short, S.HandlerPart))
      return Err;
    ++Stats.Skips;
  }
  return Error::success();
}

/// LOG 2 (thesis 4.1): every counted reference and its #gv_reference update
/// form one atomic region. Consecutive counted references of one block share
/// a region and a single `+= n` (spec/instrumentation.md argues why replay
/// stays exact): a region is closed before anything that may not be inside
/// one (a call other than an input op, a trace op, the terminator) and after
/// MaxBatch references.
void Instrumenter::insertRegions(FuncPlan &P) {
  if (P.Counted.empty())
    return;
  for (BasicBlock &BB : *P.F) {
    SmallVector<Instruction *, 32> Insts;
    for (Instruction &I : BB)
      Insts.push_back(&I);
    Instruction *First = nullptr, *Last = nullptr;
    unsigned N = 0;
    auto Close = [&]() {
      if (!First)
        return;
      uint32_t Site = Ids.next(IdAllocator::Site);
      B->setDebugLoc(DebugLoc());
      B->setInsertPoint(First);
      B->createRegionBegin(Site);
      B->setDebugLoc(DebugLoc());
      B->setInsertPointAfter(Last);
      B->createRegionEnd(Site, N);
      ++Stats.Regions;
      Stats.CountedRefs += N;
      First = Last = nullptr;
      N = 0;
    };
    for (Instruction *I : Insts) {
      if (P.Counted.count(I)) {
        if (!First)
          First = I;
        Last = I;
        // A nondeterministic load's input op stays with it.
        if (auto *In = dyn_cast_or_null<InputOp>(I->getNextNode()))
          if (In->value() == I)
            Last = In;
        if (++N == Opts.MaxBatch)
          Close();
        continue;
      }
      if (auto *In = dyn_cast<InputOp>(I); In && First &&
                                          In->value() == In->getPrevNode())
        continue;
      if (isa<CallBase>(I) && !isHarmlessIntrinsic(*I))
        Close();
      else if (I->isTerminator() || isa<FenceInst>(I))
        Close();
    }
    Close();
  }
}

/// Whether F, or anything it calls, may touch an interrupt-shared global (section 3): some
/// target unknown, or a known one shared.
bool Instrumenter::mayTouchShared(const Function &F) {
  const GlobalSet &Ref = MM.transitiveRef(&F);
  return Ref.Unknown || llvm::any_of(MM.globals(Ref), [&](const GlobalVariable *GV) {
           return Shared.count(GV) != 0;
         });
}

/// Section 7.3: a function's ENTRY and EXIT records do two things. They check, in replay,
/// that the same function was entered and left, and they reset `#gv_reference`, so that an
/// IRQ record is placed by the records before it and the counted references since
/// (spec/replay-log.md section 2.2). Records are consumed in order and every access to an
/// interrupt-shared global in an instrumented function is counted, so between two records
/// the count only grows: the resets keep counts small (one-byte IRQ records) and bound
/// them, they are not what orders an interrupt against the program's shared accesses.
/// Where a function adds no count and no place an interrupt could be told apart by, its
/// pair is left out:
/// - (a) a function entered with interrupts off that keeps them off (section 7.1) holds
///   no interrupt; what its pair still separates is "before the call" from "after it" in
///   the caller, which matters only when the call touches state a handler shares and the
///   caller may run with interrupts on. So: no caller may run with interrupts on, or it
///   touches no interrupt-shared global, or it is an invariant called only by checks (each
///   check is a counted reference right after the call);
/// - (b) a function that may run with interrupts on but has no counted reference, check
///   or anchor of its own (nesC's task dispatcher, a wrapper): an interrupt taken in it
///   has the count the caller had at the call, or the one its last callee's EXIT left,
///   and no shared access lies between those places and the ones the count names.
/// Only functions the analysis did not select (callers instrumented to reach selected ones,
/// section 2) and invariants qualify: a selected function's events are what the user's
/// breakpoints and added checks stop at (the iterative workflow of thesis 4.4 selects the
/// functions on an error path to see them). Either way every call site is a direct call
/// from an instrumented function (a callback
/// of skipped code keeps its ENTRY, which the skip span's walk looks for), the function's
/// address is not taken, and it is not main, a handler or a task.
bool Instrumenter::quietEntryExit(const FuncPlan &P) {
  Function &F = *P.F;
  const FunctionRole &Role = MM.role(&F);
  // A function the analysis selected (thesis Algorithm 4: on an error path, the level the
  // user asked for) keeps its events: they are what the debugger's breakpoints, backtraces
  // and added checks stop at. Only the invariant (its CHECK is its event) and functions
  // instrumented for another reason (callers of selected functions, section 2) lose them.
  if (P.FI->Selected && !Role.IsInvariant)
    return false;
  if (P.Handler || !P.AnchorHeaders.empty() || Role.IsMain || Role.IsTask ||
      Role.isInterrupt() || addressTaken(F))
    return false;
  ArrayRef<CallBase *> Sites = MM.callSites(&F);
  if (Sites.empty())
    return false;
  auto PlanOf = [&](const Function *G) -> const FuncPlan * {
    for (const FuncPlan &Q : Plans)
      if (Q.F == G)
        return &Q;
    return nullptr;
  };
  for (const CallBase *CB : Sites)
    if (CB->getCalledFunction() != &F || !PlanOf(CB->getFunction()))
      return false;
  if (EnteredOff.count(&F) && !IState->mayRunEnabled(F)) {
    if (!WsnOffNoEntry)
      return false;
    if (llvm::none_of(Sites, [&](const CallBase *CB) {
          return IState->mayRunEnabled(*CB->getFunction());
        }))
      return true;
    // Every call of an invariant in an instrumented function is a check (planFunction).
    if (Role.IsInvariant && llvm::all_of(Sites, [&](const CallBase *CB) {
          return is_contained(PlanOf(CB->getFunction())->Checks, CB);
        }))
      return true;
    return !mayTouchShared(F);
  }
  return WsnUncountedNoEntry && !Role.IsInvariant && P.Counted.empty() && P.Checks.empty() &&
         P.InputHandlerWrites.empty();
}

Error Instrumenter::insertEntryExit(FuncPlan &P) {
  Function &F = *P.F;
  Instruction *First = nullptr;
  for (Instruction &I : F.getEntryBlock())
    if (!isa<AllocaInst>(I) && !isa<DbgInfoIntrinsic>(I)) {
      First = &I;
      break;
    }
  if (P.Handler) {
    uint32_t Irq = Ids.next(IdAllocator::Irq);
    int Vec = P.FI->vector();
    std::string VName = Vec >= 0 ? "vector_" + std::to_string(Vec) : "";
    if (Error E = TraceMetadata(M).addIrq(Irq, F, Vec >= 0 ? Vec : 0, VName))
      return E;
    B->setDebugLoc(DebugLoc());
    B->setInsertPoint(First);
    B->createIrqEntry(Irq);
    for (BasicBlock &BB : F)
      if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator())) {
        B->setDebugLoc(DebugLoc());
        B->setInsertPoint(Ret);
        B->createIrqExit(Irq);
      }
    ++Stats.Handlers;
    return Error::success();
  }
  if (quietEntryExit(P)) {
    ++Stats.NoEntry;
    return Error::success();
  }
  Expected<uint32_t> Fid = Ids.getOrAssignFid(F);
  if (!Fid)
    return Fid.takeError();
  B->setDebugLoc(DebugLoc());
  B->setInsertPoint(First);
  B->createFuncEntry(*Fid);
  for (BasicBlock &BB : F)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator())) {
      B->setDebugLoc(DebugLoc());
      B->setInsertPoint(Ret);
      B->createFuncExit(*Fid);
    }
  ++Stats.Functions;
  return Error::success();
}

Error Instrumenter::rewrite(FuncPlan &P) {
  // Order matters: anchors and the ops that pin themselves to an
  // instruction first, regions on the final instruction stream, entry/exit
  // last so that they stay the first / last ops of the function.
  if (Error E = insertAnchors(P))
    return E;
  if (Error E = insertInputs(P))
    return E;
  if (Error E = insertChecks(P))
    return E;
  insertSched(P);
  if (Error E = insertSkips(P))
    return E;
  insertRegions(P);
  return insertEntryExit(P);
}

Expected<InstrumentStats> Instrumenter::run() {
  if (Opts.SegSize < 16 || Opts.BufSize < 2 * Opts.SegSize ||
      Opts.BufSize % Opts.SegSize || Opts.BufSize > 0x8000)
    return makeError(formatv("bad trace sizes: -wsn-buf-size={0} must be a "
                             "multiple of -wsn-seg-size={1}, at least two "
                             "segments of at least 16 bytes, at most 32768",
                             Opts.BufSize, Opts.SegSize));
  std::string T = traceTargetOf(M);
  if (T != "host") {
    Expected<MoteTarget> MT = moteTargetForModule(M, "");
    if (MT)
      Target = *MT;
    else
      Stats.Warnings.push_back("no I/O range known for this module (" +
                               toString(MT.takeError()) +
                               "); only volatile loads are inputs");
  }
  auto BOr = TraceOpBuilder::create(M);
  if (!BOr)
    return BOr.takeError();
  B = std::move(*BOr);
  DenseMap<const GlobalVariable *, GlobalLevel> Levels = readerLevels();
  if (Error E = plan())
    return std::move(E);
  for (FuncPlan &P : Plans)
    if (Error E = rewrite(P))
      return std::move(E);
  recordGlobalLevels(Levels);
  recordPfdg();
  // LOG 6 last: the message ops sit inside the entry/exit ops (MessageSites.h).
  Expected<MessageOpStats> Msgs = insertMessageOps(M, *B, Ids);
  if (!Msgs)
    return Msgs.takeError();
  Stats.Sends = Msgs->Sends;
  Stats.Recvs = Msgs->Recvs;
  // R_OP per checked invariant (spec/trace-map.md `recvs`): the receive
  // sites whose received data is in its value slice (PfdgResult).
  std::map<uint32_t, const Function *> InvById;
  for (auto &[Inv, Id] : InvIds)
    InvById[Id] = Inv;
  if (!Msgs->RecvSites.empty())
    for (auto &[Id, Inv] : InvById) {
      std::vector<uint32_t> Sites;
      auto It = R.InvariantRecvs.find(Inv);
      if (It != R.InvariantRecvs.end())
        for (auto &[Site, F] : Msgs->RecvSites)
          if (is_contained(It->second, F))
            Sites.push_back(Site);
      if (Error E = TraceMetadata(M).addInvariantRecvs(Id, Sites))
        return std::move(E);
    }
  for (std::string &W : Msgs->Warnings)
    Stats.Warnings.push_back(std::move(W));

  TraceModuleInfo Info;
  Info.Target = T;
  Info.BufSize = Opts.BufSize;
  Info.SegSize = Opts.SegSize;
  TraceMetadata(M).setModuleInfo(Info);
  if (Expected<uint32_t> H = computeModuleHash(M); !H)
    return H.takeError();
  return Stats;
}

} // namespace

Expected<InstrumentStats> instrumentModule(Module &M, const PfdgResult &R,
                                           const InstrumentOptions &Opts) {
  if (isInstrumented(M)) {
    InstrumentStats S;
    S.AlreadyInstrumented = true;
    return S;
  }
  if (hasTraceOps(M))
    return makeError("module contains trace ops but no !wsn.module record: "
                     "it was instrumented by something else, or the record "
                     "was stripped");
  if (!R.Error.empty())
    return makeError("PFDG analysis failed: " + R.Error);
  return Instrumenter(M, R, Opts).run();
}

} // namespace wsn
