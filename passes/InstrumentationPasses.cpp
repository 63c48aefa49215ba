//===- InstrumentationPasses.cpp - wsn-trace, wsn-instrument, wsn-lower<record>
//
//   wsn-trace                PFDG analysis + instrumentation + record lowering
//                            (-wsn-keep-trace-ops: stop before the lowering,
//                            giving the replay module)
//   wsn-instrument           PFDG analysis + instrumentation only
//   wsn-lower<record>        record lowering (target from the triple), or
//   wsn-lower<record;avr|msp430|host>
//
// With `clang -fpass-plugin=WSNTrace.so` the same wsn-trace pipeline runs at
// the PipelineStart extension point, before the inliner, after a cleanup
// without inlining (-mllvm -wsn-trace-ep=last moves it to OptimizerLast,
// -mllvm -wsn-trace-ep=none disables it); every wsn option is given as
// -mllvm -wsn-....
//
//===----------------------------------------------------------------------===//
#include "Instrumentation.h"
#include "PassRegistry.h"
#include "Pfdg.h"
#include "PreInstrument.h"
#include "RecordLowering.h"
#include "TraceOps.h"
#include "VariableLayout.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

static cl::opt<bool> WsnKeepTraceOps(
    "wsn-keep-trace-ops", cl::init(false),
    cl::desc("wsn-trace: keep the trace ops (no record lowering); the output "
             "is the replay module"));
static cl::opt<bool> WsnStats(
    "wsn-stats", cl::init(false),
    cl::desc("wsn-trace: print what the instrumentation inserted to stderr"));
static cl::opt<bool> WsnQuiet(
    "wsn-quiet", cl::init(false),
    cl::desc("wsn-trace: do not print instrumentation warnings"));
static cl::opt<std::string> WsnTraceEP(
    "wsn-trace-ep", cl::init("start"),
    cl::desc("wsn-trace under clang -fpass-plugin: extension point to run at "
             "(start = PipelineStart, after a cleanup without inlining: the "
             "default; last = OptimizerLast; none)"));

// Variables ordered by the lists they are in (spec/instrumentation.md section 10): the
// instrumentation runs once on a copy of the module to learn the record tables' lists, the
// module's listed globals are moved into the order that makes those lists runs, and the
// instrumentation runs again. Changes the instrumented module (its global order): the replay
// module and the recorded image must be built with the same setting, as with every
// instrumentation option (the module hash covers the order).
static cl::opt<bool> WsnOrderVars(
    "wsn-order-vars", cl::init(true),
    cl::desc("wsn-trace: on AVR and MSP430, order the globals the record tables list by the "
             "lists they are in before instrumenting, so that adjacent variables merge"));

namespace wsn {

bool keepTraceOpsFromCommandLine() { return WsnKeepTraceOps; }

/// Instruments a copy of M and moves M's globals into the order of its tables' lists
/// (orderVariablesByLists). The copy's analyses are dropped with it.
static void orderVariables(Module &M, ModuleAnalysisManager &MAM) {
  Triple T(M.getTargetTriple());
  if (!WsnOrderVars || (T.getArch() != Triple::avr && T.getArch() != Triple::msp430))
    return;
  ValueToValueMapTy VMap;
  std::unique_ptr<Module> Copy = CloneModule(M, VMap);
  DenseMap<const GlobalVariable *, GlobalVariable *> Original;
  for (GlobalVariable &G : M.globals())
    if (auto *CG = dyn_cast_or_null<GlobalVariable>(VMap.lookup(&G)))
      Original[CG] = &G;
  bool Done = false;
  {
    PfdgOptions PO = pfdgOptionsFromCommandLine();
    PO.PrintStats = false; // the real run prints -wsn-pfdg-stats
    Expected<PfdgResult> R = computePfdg(*Copy, MAM, PO);
    if (R) {
      Expected<InstrumentStats> S =
          instrumentModule(*Copy, *R, instrumentOptionsFromCommandLine());
      if (S)
        Done = true;
      else
        consumeError(S.takeError()); // the real run reports it
    } else {
      consumeError(R.takeError());
    }
  }
  FunctionAnalysisManager &FAM =
      MAM.getResult<FunctionAnalysisManagerModuleProxy>(*Copy).getManager();
  for (Function &F : *Copy)
    FAM.clear(F, F.getName());
  MAM.clear(*Copy, Copy->getName());
  if (!Done)
    return;
  VariableOrderStats St = orderVariablesByLists(M, *Copy, Original);
  if (WsnStats)
    errs() << "wsn-trace: order-vars placed=" << St.Placed << " lists=" << St.Lists
           << " runs=" << St.RunsBefore << "->" << St.RunsAfter << "\n";
  MAM.invalidate(M, PreservedAnalyses::none());
}

static bool runInstrumentation(Module &M, ModuleAnalysisManager &MAM) {
  if (isInstrumented(M)) {
    if (WsnStats)
      errs() << "wsn-trace: " << M.getName()
             << ": already instrumented, nothing added\n";
    return false;
  }
  orderVariables(M, MAM);
  const PfdgResult &R = MAM.getResult<PfdgAnalysis>(M);
  if (!R.Error.empty())
    return false; // the analysis reported it already
  Expected<InstrumentStats> S =
      instrumentModule(M, R, instrumentOptionsFromCommandLine());
  if (!S) {
    M.getContext().emitError("wsn-trace: " + toString(S.takeError()));
    return false;
  }
  if (!WsnQuiet)
    for (const std::string &W : S->Warnings)
      errs() << "wsn-trace: warning: " << W << "\n";
  if (WsnStats)
    errs() << "wsn-trace: functions=" << S->Functions
           << " handlers=" << S->Handlers << " regions=" << S->Regions
           << " counted=" << S->CountedRefs << " anchors=" << S->Anchors
           << " inputs=" << S->Inputs << " input-buffers=" << S->InputBuffers
           << " skips=" << S->Skips << " checks=" << S->Checks
           << " scheds=" << S->Scheds << " demoted=" << S->Demoted
           << " callers=" << S->Callers << " stack-writers=" << S->StackWriters
           << " sends=" << S->Sends << " recvs=" << S->Recvs
           << " boot-inputs=" << S->BootInputs << " input-calls=" << S->InputCalls
           << " dead-at-anchor=" << S->DeadAtAnchor << " computed=" << S->Computed
           << " entered-off=" << S->EnteredOff << " no-entry=" << S->NoEntry
           << "\n"
           << "wsn-trace: largest-record=" << S->LargestRecord << " ("
           << (S->LargestRecordWhat.empty() ? std::string("none") : S->LargestRecordWhat)
           << ")\n";
  return true;
}

PreservedAnalyses InstrumentPass::run(Module &M, ModuleAnalysisManager &MAM) {
  return runInstrumentation(M, MAM) ? PreservedAnalyses::none()
                                    : PreservedAnalyses::all();
}

/// The trace metadata names globals only through metadata, which keeps
/// nothing alive: when the optimiser runs after the instrumentation on a
/// module that keeps its trace ops (clang -fpass-plugin at PipelineStart with
/// -wsn-keep-trace-ops), those globals must survive it unchanged.
static void keepTraceMetadataGlobals(Module &M) {
  SmallVector<GlobalValue *, 16> Keep;
  SmallPtrSet<const MDNode *, 32> Seen;
  SmallVector<const MDNode *, 32> Work;
  for (NamedMDNode &NMD : M.named_metadata())
    if (NMD.getName().starts_with("wsn."))
      for (const MDNode *N : NMD.operands())
        if (Seen.insert(N).second)
          Work.push_back(N);
  while (!Work.empty()) {
    const MDNode *N = Work.pop_back_val();
    for (const MDOperand &Op : N->operands()) {
      if (auto *Sub = dyn_cast_or_null<MDNode>(Op.get())) {
        if (Seen.insert(Sub).second)
          Work.push_back(Sub);
      } else if (auto *VM = dyn_cast_or_null<ValueAsMetadata>(Op.get())) {
        if (auto *GV = dyn_cast<GlobalVariable>(VM->getValue()->stripPointerCasts()))
          Keep.push_back(GV);
      }
    }
  }
  if (!Keep.empty())
    appendToCompilerUsed(M, Keep);
}

PreservedAnalyses WsnTracePass::run(Module &M, ModuleAnalysisManager &MAM) {
  // At an extension point the pipeline may be someone else's (a replay or
  // codegen pipeline that loaded the plugin): never touch a module that has
  // already been through wsn-trace, lowered or not.
  if (FromEP && isInstrumented(M))
    return PreservedAnalyses::all();
  bool Changed = runInstrumentation(M, MAM);
  if (FromEP && Changed && (KeepOps || WsnKeepTraceOps))
    keepTraceMetadataGlobals(M);
  if (!KeepOps && !WsnKeepTraceOps && hasTraceOps(M)) {
    Expected<RecordLoweringStats> L = lowerForRecord(M);
    if (!L) {
      M.getContext().emitError("wsn-lower<record>: " + toString(L.takeError()));
      return PreservedAnalyses::none();
    }
    if (WsnStats)
      errs() << "wsn-lower: tables=" << L->Tables << " pairs=" << L->Pairs
             << " links=" << L->Links << " table-bytes=" << L->TableBytes << "\n";
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace wsn

void wsn::registerInstrumentationPasses(llvm::PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "wsn-trace") {
          MPM.addPass(WsnTracePass());
          return true;
        }
        if (Name == "wsn-instrument") {
          MPM.addPass(InstrumentPass());
          return true;
        }
        if (Name == "wsn-lower<record>") {
          MPM.addPass(RecordLoweringPass());
          return true;
        }
        if (Name == "wsn-lower<record;avr>") {
          MPM.addPass(RecordLoweringPass(RecordTarget::AVR));
          return true;
        }
        if (Name == "wsn-lower<record;msp430>") {
          MPM.addPass(RecordLoweringPass(RecordTarget::MSP430));
          return true;
        }
        if (Name == "wsn-lower<record;host>") {
          MPM.addPass(RecordLoweringPass(RecordTarget::Host));
          return true;
        }
        return false;
      });
  // clang -fpass-plugin: only extension-point callbacks run there.
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel Level) {
        if (WsnTraceEP != "start")
          return;
        // Before clang's inliner, so that the analysis sees nesC's tasks and
        // handlers as functions (spec/analysis.md section 10); wsn-cc's stage
        // 2b first, except at -O0.
        if (Level != OptimizationLevel::O0)
          addPreInstrumentationPipeline(MPM, Level);
        MPM.addPass(WsnTracePass(false, /*FromEP=*/true));
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        if (WsnTraceEP == "last")
          MPM.addPass(WsnTracePass(false, /*FromEP=*/true));
      });
}
