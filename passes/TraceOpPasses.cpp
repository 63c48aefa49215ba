//===- TraceOpPasses.cpp - wsn-verify and wsn-write-map -------------------===//
//
// The verifier enforces the placement and id rules of spec/trace-ops.md. They
// are what make the record and replay lowerings agree: e.g. LOG 1 records at
// every entry and return (thesis 4.1) are what replay uses to count function
// instances and reset #gv_reference (thesis 4.2, processLOG type 1), and an
// atomic region must contain nothing that could itself take interrupts or
// write records (thesis 4.1, LOG 2 atomicity).
//
//===----------------------------------------------------------------------===//

#include "PassRegistry.h"
#include "TraceMap.h"
#include "TraceOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;

static cl::opt<std::string>
    WSNMapFile("wsn-map-file",
               cl::desc("Output path of the trace map written by "
                        "wsn-write-map ('-' for stdout)"),
               cl::value_desc("path"), cl::init(""));

namespace wsn {
namespace {

StringRef idLabel(TraceOpKind K) {
  switch (K) {
  case TraceOpKind::FuncEntry:
  case TraceOpKind::FuncExit:
    return "fid";
  case TraceOpKind::IrqEntry:
  case TraceOpKind::IrqExit:
    return "irq";
  case TraceOpKind::Sched:
    return "task";
  case TraceOpKind::Anchor:
    return "anchor";
  case TraceOpKind::Check:
    return "inv";
  default:
    return "site";
  }
}

const Instruction *prevReal(const Instruction *I) {
  return I->getPrevNonDebugInstruction();
}
const Instruction *nextReal(const Instruction *I) {
  return I->getNextNonDebugInstruction();
}

bool isPlainCall(const Instruction *I) {
  return I && isa<CallBase>(I) && !isa<DbgInfoIntrinsic>(I) &&
         !isa<TraceOp>(I);
}

std::string calleeName(const CallBase &CB) {
  if (const Function *F = CB.getCalledFunction())
    return F->getName().str();
  return "";
}

class Verifier {
public:
  explicit Verifier(Module &M) : M(M), Ctx(M.getContext()) {}
  std::vector<std::string> run();

private:
  // Reporting.
  void fail(const Function *F, const Instruction *I, const Twine &Msg);
  void failOp(const TraceOp &Op, const Twine &Msg);
  std::string opText(const TraceOp &Op) const;

  void checkDeclarations();
  void readMetadata();
  void checkFunction(Function &F);
  void checkOp(TraceOp &Op);
  void checkRegions(BasicBlock &BB);
  void checkSites();
  template <typename MapT>
  void checkOwner(const TraceOp &Op, const MapT &MD, StringRef Node);

  Module &M;
  LLVMContext &Ctx;
  std::vector<std::string> Errors;
  bool HasOps = false;

  // Metadata, by id.
  std::map<uint32_t, TraceFuncMD> Funcs;
  std::map<uint32_t, TraceIrqMD> Irqs;
  std::map<uint32_t, TraceSiteMD> Sites;
  std::map<uint32_t, TraceAnchorMD> Anchors;
  std::map<uint32_t, TraceInvariantMD> Invs;
  std::map<uint32_t, TraceEffectMD> Effects;
  std::map<uint32_t, TraceTaskMD> Tasks;
  bool MetadataOK = true;

  // Cross-function state.
  DenseMap<uint32_t, const Function *> EntryFid, EntryIrq, AnchorOwner;
  MapVector<uint32_t, SmallVector<const TraceOp *, 3>> SiteUses;
};

void Verifier::fail(const Function *F, const Instruction *I, const Twine &Msg) {
  std::string S;
  raw_string_ostream OS(S);
  if (I) {
    if (const DebugLoc &DL = I->getDebugLoc())
      OS << DL->getFilename() << ":" << DL.getLine() << ":" << DL.getCol()
         << ": ";
  }
  if (F)
    OS << "in function '" << F->getName() << "': ";
  OS << Msg;
  Errors.push_back(std::move(S));
}

std::string Verifier::opText(const TraceOp &Op) const {
  std::string S = Op.getCalledFunction()->getName().str();
  if (Op.id() != InvalidTraceId)
    S += " (" + idLabel(Op.kind()).str() + " " + std::to_string(Op.id()) + ")";
  return S;
}

void Verifier::failOp(const TraceOp &Op, const Twine &Msg) {
  fail(Op.getFunction(), &Op, opText(Op) + ": " + Msg);
}

void Verifier::checkDeclarations() {
  for (Function &F : M) {
    StringRef Name = F.getName();
    if (!Name.starts_with(TraceOpPrefix))
      continue;
    FunctionType *Want = expectedTraceOpType(Ctx, Name);
    if (!Want) {
      fail(nullptr, nullptr,
           "'" + Name + "' uses the reserved prefix 'wsn.' but is not a "
                        "trace op");
      continue;
    }
    if (!F.isDeclaration()) {
      fail(nullptr, nullptr,
           "'" + Name + "' is a reserved trace-op name and must not be "
                        "defined (it is only declared)");
      continue;
    }
    if (F.getFunctionType() != Want) {
      std::string Have, Exp;
      raw_string_ostream(Have) << *F.getFunctionType();
      raw_string_ostream(Exp) << *Want;
      fail(nullptr, nullptr,
           "'" + Name + "' is declared with type '" + Have +
               "', the trace-op type is '" + Exp + "'");
      continue;
    }
    for (const User *U : F.users()) {
      const auto *CI = dyn_cast<CallInst>(U);
      if (CI && CI->getCalledOperand() == &F &&
          CI->getFunctionType() == Want) {
        HasOps = true;
        continue;
      }
      const auto *I = dyn_cast<Instruction>(U);
      fail(I ? I->getFunction() : nullptr, I,
           "'" + Name + "' is used other than as a direct call of its "
                        "declared type");
    }
  }
  for (const GlobalValue &GV : M.global_values())
    if (!isa<Function>(GV) && GV.getName().starts_with(TraceOpPrefix))
      fail(nullptr, nullptr,
           "global '" + GV.getName() + "' uses the reserved prefix 'wsn.'");
}

template <typename T>
static void intoMap(Expected<std::vector<T>> V, std::map<uint32_t, T> &Out,
                    std::vector<std::string> &Errors, bool &OK) {
  if (!V) {
    Errors.push_back(toString(V.takeError()));
    OK = false;
    return;
  }
  for (T &E : *V) {
    uint32_t Key;
    if constexpr (std::is_same_v<T, TraceEffectMD>)
      Key = E.Site;
    else
      Key = E.Id;
    Out.emplace(Key, std::move(E));
  }
}

void Verifier::readMetadata() {
  TraceMetadata MD(M);
  auto Info = MD.moduleInfo();
  if (!Info) {
    Errors.push_back(toString(Info.takeError()));
    MetadataOK = false;
  } else if (!*Info && HasOps) {
    fail(nullptr, nullptr,
         "the module has trace ops but no !wsn.module record");
  } else if (*Info && (*Info)->SegSize &&
             ((*Info)->BufSize % (*Info)->SegSize != 0 ||
              (*Info)->BufSize < 2 * (*Info)->SegSize)) {
    fail(nullptr, nullptr,
         "!wsn.module: buffer size " + Twine((*Info)->BufSize) +
             " is not a multiple (at least 2) of segment size " +
             Twine((*Info)->SegSize));
  }
  intoMap(MD.functions(), Funcs, Errors, MetadataOK);
  intoMap(MD.irqs(), Irqs, Errors, MetadataOK);
  intoMap(MD.sites(), Sites, Errors, MetadataOK);
  intoMap(MD.anchors(), Anchors, Errors, MetadataOK);
  intoMap(MD.invariants(), Invs, Errors, MetadataOK);
  intoMap(MD.effects(), Effects, Errors, MetadataOK);
  intoMap(MD.tasks(), Tasks, Errors, MetadataOK);
}

/// The op's id must be listed in node `Node` (map MD) and, for entries that
/// name a function, belong to the op's function.
template <typename MapT>
void Verifier::checkOwner(const TraceOp &Op, const MapT &MD, StringRef Node) {
  if (!MetadataOK)
    return; // already reported; avoid a cascade
  auto It = MD.find(Op.id());
  if (It == MD.end()) {
    failOp(Op, idLabel(Op.kind()) + " " + Twine(Op.id()) +
                   " is missing from !" + Node);
    return;
  }
  const Function *Owner = It->second.F;
  if (Owner != Op.getFunction())
    failOp(Op, "!" + Node + " gives " + idLabel(Op.kind()) + " " +
                   Twine(Op.id()) + " to function '" + Owner->getName() +
                   "'");
}

void Verifier::checkOp(TraceOp &Op) {
  Function *F = Op.getFunction();
  TraceOpKind K = Op.kind();
  if (!isa<ConstantInt>(Op.idOperand())) {
    failOp(Op, "the " + idLabel(K) + " operand is not a constant");
    return;
  }
  uint32_t Id = Op.id();
  if (auto SK = siteKindOf(K)) {
    SiteUses[Id].push_back(&Op);
    if (MetadataOK && K != TraceOpKind::Effect) {
      auto It = Sites.find(Id);
      if (It == Sites.end())
        failOp(Op, "site " + Twine(Id) + " is missing from !wsn.sites");
      else if (It->second.Kind != *SK)
        failOp(Op, "!wsn.sites gives site " + Twine(Id) + " kind '" +
                       It->second.Kind + "', the op writes kind '" + *SK +
                       "'");
      else if (It->second.F != F)
        failOp(Op, "!wsn.sites gives site " + Twine(Id) + " to function '" +
                       It->second.F->getName() + "'");
    }
  }

  switch (K) {
  case TraceOpKind::FuncEntry:
  case TraceOpKind::IrqEntry: {
    auto &Owners = K == TraceOpKind::FuncEntry ? EntryFid : EntryIrq;
    auto Ins = Owners.try_emplace(Id, F);
    if (!Ins.second && Ins.first->second != F)
      failOp(Op, idLabel(K) + " " + Twine(Id) +
                     " is already entered in function '" +
                     Ins.first->second->getName() + "'");
    if (K == TraceOpKind::FuncEntry)
      checkOwner(Op, Funcs, "wsn.funcs");
    else
      checkOwner(Op, Irqs, "wsn.irqs");
    break;
  }
  case TraceOpKind::FuncExit:
  case TraceOpKind::IrqExit: {
    const Instruction *N = nextReal(&Op);
    if (!N || !isa<ReturnInst>(N))
      failOp(Op, "must be immediately followed by a ret");
    break;
  }
  case TraceOpKind::RegionEnd: {
    auto *RE = cast<RegionEndOp>(&Op);
    auto *C = dyn_cast<ConstantInt>(RE->countOperand());
    if (!C)
      failOp(Op, "the count operand is not a constant");
    else if (C->isZero())
      failOp(Op, "the count must be at least 1");
    break;
  }
  case TraceOpKind::Sched:
    if (MetadataOK && !Tasks.count(Id))
      failOp(Op, "task " + Twine(Id) + " is missing from !wsn.tasks");
    break;
  case TraceOpKind::Anchor: {
    auto *A = cast<AnchorOp>(&Op);
    auto Ins = AnchorOwner.try_emplace(Id, F);
    if (!Ins.second)
      failOp(Op, "anchor " + Twine(Id) + " is used by more than one op");
    unsigned I = 0;
    for (const Use &U : A->locals()) {
      auto *AI = dyn_cast<AllocaInst>(U.get());
      if (!AI || AI->getFunction() != F)
        failOp(Op, "variadic operand " + Twine(I + 1) +
                       " is not an alloca of this function");
      ++I;
    }
    checkOwner(Op, Anchors, "wsn.anchors");
    if (MetadataOK) {
      auto It = Anchors.find(Id);
      if (It != Anchors.end()) {
        unsigned NLocals = 0;
        for (const TraceVarRef &V : It->second.Vars)
          NLocals += !V.isGlobal();
        if (NLocals != A->numLocals())
          failOp(Op, "!wsn.anchors lists " + Twine(NLocals) +
                         " locals, the op passes " + Twine(A->numLocals()));
      }
    }
    break;
  }
  case TraceOpKind::Input: {
    auto *In = cast<InputOp>(&Op);
    const Instruction *P = prevReal(&Op);
    const Value *V = In->value();
    if (!P || V != P || !(isa<LoadInst>(P) || isPlainCall(P)))
      failOp(Op, "the value operand must be the result of the load or call "
                 "immediately before the op");
    else if (!V->hasOneUse())
      failOp(Op, "the loaded value has uses that bypass the op (all uses "
                 "must go through its result)");
    if (!In->maskValue())
      failOp(Op, "the mask operand is not a constant");
    else if (*In->maskValue() == 0)
      failOp(Op, "the mask is zero (nothing would be recorded)");
    break;
  }
  case TraceOpKind::SkipBegin: {
    const Instruction *Call = nextReal(&Op);
    if (!isPlainCall(Call)) {
      failOp(Op, "must be immediately followed by the call it skips");
      break;
    }
    const auto *End = dyn_cast_or_null<SkipEndOp>(nextReal(Call));
    if (!End || End->id() != Id)
      failOp(Op, "the skipped call must be immediately followed by "
                 "wsn.skip.end with site " + Twine(Id));
    break;
  }
  case TraceOpKind::SkipEnd: {
    const Instruction *Call = prevReal(&Op);
    const auto *Begin =
        Call ? dyn_cast_or_null<SkipBeginOp>(prevReal(Call)) : nullptr;
    if (!isPlainCall(Call) || !Begin || Begin->id() != Id)
      failOp(Op, "must immediately follow a call preceded by wsn.skip.begin "
                 "with site " + Twine(Id));
    break;
  }
  case TraceOpKind::Effect: {
    auto *E = cast<EffectOp>(&Op);
    const auto *End = dyn_cast_or_null<SkipEndOp>(prevReal(&Op));
    const Instruction *Call = End ? prevReal(End) : nullptr;
    if (!End || End->id() != Id) {
      failOp(Op, "must immediately follow wsn.skip.end with site " + Twine(Id));
    } else if (Call && isPlainCall(Call)) {
      if (!E->isVoid() && E->returnValue() != Call)
        failOp(Op, "the ret operand is not the skipped call's result");
      auto It = Effects.find(Id);
      if (MetadataOK && It == Effects.end()) {
        failOp(Op, "site " + Twine(Id) + " is missing from !wsn.effects");
      } else if (MetadataOK) {
        const TraceEffectMD &MDE = It->second;
        uint32_t Want = E->isVoid() ? 0 : (E->bitWidth() + 7) / 8;
        if (MDE.ReturnSize != Want)
          failOp(Op, "!wsn.effects gives return size " +
                         Twine(MDE.ReturnSize) + ", the op records " +
                         Twine(Want) + " bytes");
        std::string Callee = calleeName(*cast<CallBase>(Call));
        if (!Callee.empty() && MDE.Callee != Callee)
          failOp(Op, "!wsn.effects names callee '" + MDE.Callee +
                         "', the skipped call is to '" + Callee + "'");
      }
    }
    break;
  }
  case TraceOpKind::Check: {
    auto *C = cast<CheckOp>(&Op);
    const auto *Call = dyn_cast_or_null<CallBase>(prevReal(&Op));
    if (!Call || !isPlainCall(Call) || !Call->getCalledFunction()) {
      failOp(Op, "must immediately follow a direct call to the invariant "
                 "function");
      break;
    }
    if (C->ok() != Call)
      failOp(Op, "the ok operand is not the result of the invariant call");
    if (!MetadataOK)
      break;
    auto It = Invs.find(Id);
    if (It == Invs.end())
      failOp(Op, "inv " + Twine(Id) + " is missing from !wsn.invariants");
    else if (It->second.F != Call->getCalledFunction())
      failOp(Op, "follows a call to '" + Call->getCalledFunction()->getName() +
                     "', but inv " + Twine(Id) + " is '" +
                     It->second.F->getName() + "'");
    break;
  }
  case TraceOpKind::MsgPayload: {
    // The payload belongs to a send or recv site.
    if (MetadataOK) {
      auto It = Sites.find(Id);
      if (It == Sites.end() || (It->second.Kind != "send" && It->second.Kind != "recv"))
        failOp(Op, "site " + Twine(Id) + " is not a send or recv site in !wsn.sites");
    }
    break;
  }
  case TraceOpKind::RegionBegin:
  case TraceOpKind::InputBytes:
  case TraceOpKind::Send:
  case TraceOpKind::Recv:
    break;
  }
}

/// Regions: begin/end paired in one block, not nested, no calls inside other
/// than input ops and intrinsics (thesis 4.1: the reference and the count update form one
/// atomic operation).
void Verifier::checkRegions(BasicBlock &BB) {
  const RegionBeginOp *Open = nullptr;
  for (Instruction &I : BB) {
    if (auto *B = dyn_cast<RegionBeginOp>(&I)) {
      if (Open)
        failOp(*B, "opens a region nested in the region of site " +
                       Twine(Open->id()));
      else
        Open = B;
      continue;
    }
    if (auto *E = dyn_cast<RegionEndOp>(&I)) {
      if (!Open)
        failOp(*E, "closes a region that was not opened in this block");
      else if (Open->id() != E->id())
        failOp(*E, "closes the region opened with site " + Twine(Open->id()));
      Open = nullptr;
      continue;
    }
    if (!Open)
      continue;
    if (auto *Op = dyn_cast<TraceOp>(&I)) {
      if (Op->kind() != TraceOpKind::Input &&
          Op->kind() != TraceOpKind::InputBytes)
        failOp(*Op, "is inside the region of site " + Twine(Open->id()));
      continue;
    }
    // Intrinsics (memcpy, lifetime markers, ...) neither take interrupts
    // nor write records; inline asm (sei!) and real calls may.
    if (isPlainCall(&I) && !isa<IntrinsicInst>(I)) {
      const auto &CB = cast<CallBase>(I);
      std::string Callee = calleeName(CB);
      failOp(*Open, "region contains a call" +
                        (CB.isInlineAsm()     ? std::string(" to inline asm")
                         : Callee.empty()     ? std::string(" (indirect)")
                                              : " to '" + Callee + "'"));
    } else if (I.isTerminator()) {
      break;
    }
  }
  if (Open)
    failOp(*Open, "region is not closed in its block");
}

void Verifier::checkFunction(Function &F) {
  SmallVector<TraceOp *, 16> Ops;
  for (Instruction &I : instructions(F))
    if (auto *Op = dyn_cast<TraceOp>(&I))
      Ops.push_back(Op);
  if (Ops.empty())
    return;
  if (isNoInstrumentFunction(F)) {
    for (TraceOp *Op : Ops)
      failOp(*Op, "trace ops are not allowed in runtime or "
                  "wsn_noinstrument functions");
    return;
  }
  for (TraceOp *Op : Ops)
    checkOp(*Op);

  // Entry placement and the exits of every ret (thesis 4.1, LOG 1/2).
  const TraceOp *Entry = nullptr;
  for (TraceOp *Op : Ops) {
    if (Op->kind() != TraceOpKind::FuncEntry &&
        Op->kind() != TraceOpKind::IrqEntry)
      continue;
    if (Entry) {
      failOp(*Op, "second entry op in the function (first: " +
                      opText(*Entry) + ")");
      continue;
    }
    Entry = Op;
  }
  if (Entry) {
    const Instruction *First = nullptr;
    for (const Instruction &I : F.getEntryBlock())
      if (!isa<AllocaInst>(I) && !isa<DbgInfoIntrinsic>(I)) {
        First = &I;
        break;
      }
    if (First != Entry)
      failOp(*Entry, "must be the first non-alloca instruction of the entry "
                     "block");
  }
  TraceOpKind ExitKind = Entry && Entry->kind() == TraceOpKind::IrqEntry
                             ? TraceOpKind::IrqExit
                             : TraceOpKind::FuncExit;
  for (TraceOp *Op : Ops) {
    if (Op->kind() != TraceOpKind::FuncExit &&
        Op->kind() != TraceOpKind::IrqExit)
      continue;
    if (!Entry)
      failOp(*Op, "exit op in a function without an entry op");
    else if (Op->kind() != ExitKind)
      failOp(*Op, "does not match the function's entry op " + opText(*Entry));
    else if (Op->id() != Entry->id() && Op->id() != InvalidTraceId)
      failOp(*Op, "differs from the function's entry op " + opText(*Entry));
  }
  if (Entry) {
    for (BasicBlock &BB : F) {
      auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator());
      if (!Ret)
        continue;
      const auto *Exit = dyn_cast_or_null<TraceOp>(prevReal(Ret));
      if (!Exit || Exit->kind() != ExitKind)
        fail(&F, Ret,
             "ret without " + traceOpName(ExitKind) + " in a function "
                 "instrumented by " + opText(*Entry));
    }
  }
  for (BasicBlock &BB : F)
    checkRegions(BB);
}

/// A site id belongs to one op, except region begin/end and the
/// skip.begin/skip.end/effect group.
void Verifier::checkSites() {
  for (auto &[Site, Uses] : SiteUses) {
    unsigned Count[16] = {};
    for (const TraceOp *Op : Uses)
      ++Count[static_cast<unsigned>(Op->kind())];
    auto N = [&](TraceOpKind K) { return Count[static_cast<unsigned>(K)]; };
    TraceOpKind K0 = Uses.front()->kind();
    bool OK;
    switch (K0) {
    case TraceOpKind::RegionBegin:
    case TraceOpKind::RegionEnd:
      OK = Uses.size() == 2 && N(TraceOpKind::RegionBegin) == 1 &&
           N(TraceOpKind::RegionEnd) == 1;
      break;
    case TraceOpKind::SkipBegin:
    case TraceOpKind::SkipEnd:
    case TraceOpKind::Effect:
      OK = N(TraceOpKind::SkipBegin) == 1 && N(TraceOpKind::SkipEnd) == 1 &&
           N(TraceOpKind::Effect) <= 1 &&
           Uses.size() == 2 + N(TraceOpKind::Effect);
      break;
    default:
      OK = Uses.size() == 1;
    }
    if (OK)
      continue;
    std::string List;
    for (const TraceOp *Op : Uses)
      List += (List.empty() ? "" : ", ") +
              Op->getCalledFunction()->getName().str() + " in '" +
              Op->getFunction()->getName().str() + "'";
    Twine Rule =
        (K0 == TraceOpKind::RegionBegin || K0 == TraceOpKind::RegionEnd)
            ? "a region site needs exactly one wsn.region.begin and one "
              "wsn.region.end"
        : (K0 == TraceOpKind::SkipBegin || K0 == TraceOpKind::SkipEnd ||
           K0 == TraceOpKind::Effect)
            ? "a skip site needs exactly one wsn.skip.begin, one "
              "wsn.skip.end and at most one effect op"
            : "a site id belongs to a single op";
    failOp(*Uses.back(), "site " + Twine(Site) + ": " + Rule + " (found " +
                             List + ")");
  }
}

std::vector<std::string> Verifier::run() {
  checkDeclarations();
  bool HasMD = false;
  for (const NamedMDNode &N : M.named_metadata())
    HasMD |= N.getName().starts_with("wsn.");
  if (!HasOps && !HasMD)
    return Errors;
  readMetadata();
  for (Function &F : M)
    if (!F.isDeclaration())
      checkFunction(F);
  checkSites();
  return Errors;
}

} // namespace

std::vector<std::string> collectTraceOpErrors(Module &M) {
  return Verifier(M).run();
}

Error verifyTraceOps(Module &M) {
  std::vector<std::string> Errs = collectTraceOpErrors(M);
  if (Errs.empty())
    return Error::success();
  std::string All;
  for (const std::string &E : Errs)
    All += (All.empty() ? "" : "\n") + E;
  return createStringError(inconvertibleErrorCode(), All);
}

PreservedAnalyses VerifyTraceOpsPass::run(Module &M, ModuleAnalysisManager &) {
  std::vector<std::string> Errs = collectTraceOpErrors(M);
  if (Errs.empty())
    return PreservedAnalyses::all();
  // One diagnostic carrying every problem, one per line: opt's default
  // handler exits after the first error diagnostic.
  std::string All;
  for (const std::string &E : Errs)
    All += (All.empty() ? "wsn-verify: " : "\nerror: wsn-verify: ") + E;
  M.getContext().emitError(All);
  return PreservedAnalyses::all();
}

PreservedAnalyses WriteTraceMapPass::run(Module &M, ModuleAnalysisManager &) {
  std::string Out = !Path.empty() ? Path : WSNMapFile.getValue();
  LLVMContext &Ctx = M.getContext();
  if (Out.empty()) {
    Ctx.emitError("wsn-write-map: no output file (use -wsn-map-file=PATH)");
    return PreservedAnalyses::all();
  }
  Expected<TraceMap> Map = TraceMap::fromModule(M);
  if (!Map) {
    std::string Msg = "wsn-write-map: " + toString(Map.takeError());
    Ctx.emitError(Msg);
    return PreservedAnalyses::all();
  }
  if (Out == "-") {
    outs() << Map->toJSON();
    outs().flush();
  } else if (Error E = Map->writeFile(Out)) {
    std::string Msg = "wsn-write-map: " + toString(std::move(E));
    Ctx.emitError(Msg);
  }
  return PreservedAnalyses::all();
}

} // namespace wsn

void wsn::registerTraceOpPasses(llvm::PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "wsn-verify") {
          MPM.addPass(VerifyTraceOpsPass());
          return true;
        }
        if (Name == "wsn-write-map") {
          MPM.addPass(WriteTraceMapPass());
          return true;
        }
        return false;
      });
}
