//===- Slice.h - module model and interprocedural backward slice ----------===//
//
// ModuleModel: the facts every analysis needs about a closed mote program
//  - a conservative call graph: direct calls, and for an indirect call every
//    address-taken function of the same arity and return kind;
//  - memory objects (globals and allocas) and a points-to relation:
//    underlying objects of a pointer (through GEPs, casts, phis, selects),
//    formal pointer arguments bound to what their call sites pass (fixpoint),
//    and "unknown" for anything else (pointers loaded from memory, returned by
//    calls, ...). Unknown means every address-taken object, refined by LLVM
//    alias analysis when the slice reads through such a pointer;
//  - the instructions that may write each object, and per-function mod/ref.
//
// computeSlice: thesis 4.1, the backward slice from the invariants. See
// spec/analysis.md for the dependence rules.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_SLICE_H
#define WSN_PASSES_SLICE_H

#include "InterruptInfo.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class AAResults;
class Argument;
class BasicBlock;
class CallBase;
class Function;
class GlobalVariable;
class Instruction;
class Module;
class Value;
class raw_ostream;
} // namespace llvm

namespace wsn {

/// A set of memory objects; Unknown stands for every address-taken object.
struct ObjSet {
  bool Unknown = false;
  llvm::SmallVector<unsigned, 2> Objs;
  void add(unsigned O) {
    if (!llvm::is_contained(Objs, O))
      Objs.push_back(O);
  }
  /// Returns true if something was added.
  bool merge(const ObjSet &O);
  bool empty() const { return !Unknown && Objs.empty(); }
};

/// A set of global variables (ids of ModuleModel objects); Unknown stands for
/// every address-taken global.
struct GlobalSet {
  bool Unknown = false;
  llvm::DenseSet<unsigned> Ids;
};

class ModuleModel {
public:
  using AAGetter = llvm::function_ref<llvm::AAResults *(llvm::Function &)>;
  explicit ModuleModel(llvm::Module &M);

  llvm::Module &module() const { return M; }
  const FunctionRole &role(const llvm::Function *F) const;
  const AnnotationMap &annotations() const { return Annots; }

  // Call graph.
  llvm::ArrayRef<llvm::Function *> targets(const llvm::CallBase *CB) const;
  llvm::ArrayRef<llvm::Function *> callees(const llvm::Function *F) const;
  llvm::ArrayRef<llvm::CallBase *> callSites(const llvm::Function *F) const;
  llvm::ArrayRef<llvm::CallBase *> callsIn(const llvm::Function *F) const;
  bool isAddressTaken(const llvm::Function *F) const {
    return AddrTakenFns.count(F);
  }
  /// Trace ops, intrinsics, nesC atomic primitives, runtime functions: calls
  /// to these are not program calls.
  static bool isTransparentCallee(const llvm::Function *F);

  // Memory objects.
  unsigned numObjects() const { return Objects.size(); }
  const llvm::Value *object(unsigned Id) const { return Objects[Id]; }
  const llvm::GlobalVariable *objectGlobal(unsigned Id) const;
  bool objectAddressTaken(unsigned Id) const { return ObjAddrTaken[Id]; }
  llvm::ArrayRef<unsigned> addressTakenObjects() const { return AddrTakenObjs; }
  ObjSet pointsTo(const llvm::Value *Ptr) const;
  /// Objects an instruction may read / write.
  void reads(const llvm::Instruction &I, ObjSet &Out) const;
  void writes(const llvm::Instruction &I, ObjSet &Out) const;
  llvm::ArrayRef<llvm::Instruction *> writers(unsigned Obj) const {
    return Writers[Obj];
  }
  llvm::ArrayRef<llvm::Instruction *> unknownWriters() const {
    return UnknownWriters;
  }

  /// Globals a function's own instructions read or write, and the globals
  /// it or anything it calls may write / reference.
  const GlobalSet &directModRef(const llvm::Function *F);
  const GlobalSet &transitiveMod(const llvm::Function *F);
  const GlobalSet &transitiveRef(const llvm::Function *F);
  /// Expands a GlobalSet to globals, in module order.
  std::vector<const llvm::GlobalVariable *> globals(const GlobalSet &S) const;
  bool intersects(const GlobalSet &A, const GlobalSet &B) const;
  unsigned globalId(const llvm::GlobalVariable *G) const;

  llvm::ArrayRef<llvm::Function *> definedFunctions() const { return Defined; }
  llvm::ArrayRef<llvm::Function *> invariants() const { return Invariants; }

private:
  llvm::Module &M;
  AnnotationMap Annots;
  llvm::DenseMap<const llvm::Function *, FunctionRole> Roles;
  std::vector<llvm::Function *> Defined, Invariants;
  llvm::DenseSet<const llvm::Function *> AddrTakenFns;
  llvm::DenseMap<const llvm::CallBase *, llvm::SmallVector<llvm::Function *, 2>>
      Targets;
  llvm::DenseMap<const llvm::Function *, std::vector<llvm::Function *>> Callees;
  llvm::DenseMap<const llvm::Function *, std::vector<llvm::CallBase *>>
      CallSitesOf, CallsIn;

  std::vector<const llvm::Value *> Objects;
  llvm::DenseMap<const llvm::Value *, unsigned> ObjectIds;
  std::vector<bool> ObjAddrTaken;
  std::vector<unsigned> AddrTakenObjs;
  llvm::DenseMap<const llvm::Argument *, ObjSet> ArgPts;
  std::vector<std::vector<llvm::Instruction *>> Writers;
  std::vector<llvm::Instruction *> UnknownWriters;

  llvm::DenseMap<const llvm::Function *, GlobalSet> DirectMR;
  llvm::DenseMap<unsigned, GlobalSet> SccMod, SccRef;
  /// Transitive mod / ref sets per call-graph component, as bit sets over
  /// the global ids (see transitive()).
  struct SccBits {
    std::vector<bool> Done, Unknown;
    std::vector<llvm::BitVector> Sets;
  };
  SccBits ModBits, RefBits;
  unsigned NumGlobalIds = 0;
  std::vector<unsigned> FnScc;
  std::vector<std::vector<unsigned>> SccMembersList;
  llvm::DenseMap<const llvm::Function *, unsigned> FnIndex;
  std::vector<std::vector<unsigned>> FnSuccs;

  void buildCallGraph();
  void buildObjects();
  void solveArgumentPointsTo();
  void buildWriters();
  void addPointsTo(const llvm::Value *Ptr, ObjSet &Out) const;
  /// What a call to an external (body-less, non-intrinsic) function may access: the objects
  /// its pointer arguments point to, and Unknown unless it only touches argument memory.
  /// Nothing when \p NoAccess (the call is known not to make the access asked about).
  void addExternalCallAccess(const llvm::CallBase &CB, bool NoAccess, ObjSet &Out) const;
  const GlobalSet &transitive(unsigned Scc, bool Mod);
  void toGlobals(const ObjSet &S, GlobalSet &Out) const;
};

/// Kinds of dependence that pull something into the slice.
enum class DepKind {
  Criterion, ///< the value an invariant-checking function returns
  Data,      ///< register (SSA) data dependence inside a function
  Control,   ///< control dependence (post-dominance) inside a function
  Memory,    ///< a read of an object depends on a write that may reach it
  Argument,  ///< a formal argument depends on the actual at a call site
  Return,    ///< a call's value depends on the callee's return
  Call,      ///< a function runs only if a call site of it runs
  Main,      ///< main is always traced
};
const char *depKindName(DepKind K);

struct SliceReason {
  DepKind Kind = DepKind::Criterion;
  /// The instruction that entered the slice (for a function: the first one of
  /// it; for a global: the read that made it relevant).
  const llvm::Value *What = nullptr;
  /// The instruction (or argument) that needed it, if any.
  const llvm::Value *Needed = nullptr;
  /// One line, e.g. "memory: store in @f3 may write @g, read by load in @inv".
  std::string describe() const;
};

/// One cross-function link of a dependence chain: something in F1 depends on
/// something in F2.
struct CrossDep {
  const llvm::Function *F1, *F2;
  DepKind Kind;
};

struct SliceResult {
  llvm::DenseSet<const llvm::Value *> Values;
  llvm::MapVector<const llvm::Function *, SliceReason> Functions;
  llvm::MapVector<const llvm::GlobalVariable *, SliceReason> Globals;
  std::vector<CrossDep> Deps;
};

/// Describes a value for reasons: "store in @f", "argument %x of @f".
std::string describeValue(const llvm::Value *V);

/// The backward slice from the return values of the invariant-checking
/// functions (only \p Only's when given). GetAA may return null (no alias
/// refinement). \p ValuesOnly follows only what values are computed from
/// (data, memory, arguments, returns), not control dependences: what reaches
/// the invariant's variables, not what decides whether they change (used for
/// R_OP, spec/analysis.md section 11).
SliceResult computeSlice(ModuleModel &MM, ModuleModel::AAGetter GetAA,
                         const llvm::Function *Only = nullptr, bool ValuesOnly = false);

} // namespace wsn

#endif
