//===- TraceOps.h - the wsn trace-op dialect: typed ops, builder, metadata ===//
//
// The trace ops are calls to reserved external declarations named `wsn.<op>`
// (spec/trace-ops.md). This header gives them a typed C++ face in the spirit of
// llvm::IntrinsicInst: `isa<InputOp>(I)`, `cast<RegionEndOp>(I)->count()`.
//
// It also provides
//  - TraceOpBuilder: creates each op with the exact declaration type, carrying
//    a DebugLoc, and records the op's site/function in the module metadata;
//  - TraceMetadata: reader/writer of the named metadata (`!wsn.module`,
//    `!wsn.funcs`, ...) from which the trace map is produced;
//  - IdAllocator: stable, idempotent id allocation;
//  - isInstrumented(): whether a module already went through instrumentation.
//
// The op set implements the record types of the thesis (Wang 2013, section 4.1,
// LOG types 1-5), the message records of section 5.1 (LOG 6), and the
// multi-level tracing of section 4.4 (skip/effect around uninstrumented calls).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_TRACEOPS_H
#define WSN_PASSES_TRACEOPS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/iterator_range.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class AllocaInst;
class DIType;
class Function;
class GlobalVariable;
class Module;
} // namespace llvm

namespace wsn {

/// Every op family of the dialect. Input and Effect cover all their widths.
enum class TraceOpKind {
  FuncEntry,
  FuncExit,
  IrqEntry,
  IrqExit,
  RegionBegin,
  RegionEnd,
  Sched,
  Anchor,
  Input,
  InputBytes,
  Send,
  Recv,
  SkipBegin,
  SkipEnd,
  Effect,
  Check,
  MsgPayload
};

/// Version of the metadata layout and of the trace map written from it.
constexpr unsigned TraceFormatVersion = 1;
/// Value returned by TraceOp::id() when the id operand is not a constant (the
/// verifier rejects such ops).
constexpr uint32_t InvalidTraceId = ~0u;
/// Prefix of every reserved declaration.
constexpr llvm::StringLiteral TraceOpPrefix = "wsn.";
/// Name of the global holding the module hash (read by the runtime).
constexpr llvm::StringLiteral ModuleHashGlobalName = "__wsn_module_hash";

/// Name of the function attribute (or `annotate` string) that excludes a
/// function from instrumentation.
constexpr llvm::StringLiteral NoInstrumentAttr = "wsn_noinstrument";

/// Spelling of a kind, e.g. "func.entry" (without the `wsn.` prefix; Input and
/// Effect give the family name "input" / "effect").
llvm::StringRef traceOpKindName(TraceOpKind K);

/// Parses a reserved declaration name (`wsn.input.i16`...). Returns the kind and
/// stores the value width (0 for none / `effect.void`) in *Width.
std::optional<TraceOpKind> parseTraceOpName(llvm::StringRef Name,
                                            unsigned *Width = nullptr);

/// Widths accepted by the value-carrying families (wsn.input.iN, wsn.effect.iN).
/// i1 is included for calls returning `_Bool`; pointers are never inputs.
llvm::ArrayRef<unsigned> traceValueWidths();

/// The declaration name of a kind; Width selects the iN variant of Input and
/// Effect (0 means `wsn.effect.void`).
std::string traceOpName(TraceOpKind K, unsigned Width = 0);

/// The exact function type the spec gives a declaration name; nullptr when the
/// name is not a known op.
llvm::FunctionType *expectedTraceOpType(llvm::LLVMContext &Ctx,
                                        llvm::StringRef Name);

/// True if F names a known trace op declaration (name and declaration-ness;
/// the type is left to the verifier).
bool isTraceOpDeclaration(const llvm::Function &F);

/// True when functions named/marked like this must contain no op: `__wsn_*`
/// runtime functions and `wsn_noinstrument` functions (attribute or annotate).
bool isNoInstrumentFunction(const llvm::Function &F);

//===----------------------------------------------------------------------===//
// Typed op wrappers.
//===----------------------------------------------------------------------===//

/// A call to a reserved `wsn.` declaration. Operand 0 is always the id.
class TraceOp : public llvm::CallInst {
public:
  TraceOpKind kind() const;
  /// Width of the value for Input / Effect ops (0 for effect.void).
  unsigned valueWidth() const;
  llvm::Value *idOperand() const { return getArgOperand(0); }
  /// The id, or InvalidTraceId if the operand is not a constant.
  uint32_t id() const;

  static bool classof(const llvm::CallInst *I);
  static bool classof(const llvm::Value *V) {
    return llvm::isa<llvm::CallInst>(V) &&
           classof(llvm::cast<llvm::CallInst>(V));
  }
};

namespace detail {
template <TraceOpKind K> class TraceOpOfKind : public TraceOp {
public:
  static bool classof(const llvm::CallInst *I) {
    return TraceOp::classof(I) &&
           static_cast<const TraceOp *>(I)->kind() == K;
  }
  static bool classof(const llvm::Value *V) {
    return llvm::isa<llvm::CallInst>(V) &&
           classof(llvm::cast<llvm::CallInst>(V));
  }
};
} // namespace detail

/// LOG 1 (thesis 4.1): wsn.func.entry(i32 fid)
class FuncEntryOp : public detail::TraceOpOfKind<TraceOpKind::FuncEntry> {
public:
  uint32_t fid() const { return id(); }
};
/// LOG 1: wsn.func.exit(i32 fid)
class FuncExitOp : public detail::TraceOpOfKind<TraceOpKind::FuncExit> {
public:
  uint32_t fid() const { return id(); }
};
/// LOG 2: wsn.irq.entry(i32 irq)
class IrqEntryOp : public detail::TraceOpOfKind<TraceOpKind::IrqEntry> {
public:
  uint32_t irq() const { return id(); }
};
/// wsn.irq.exit(i32 irq)
class IrqExitOp : public detail::TraceOpOfKind<TraceOpKind::IrqExit> {
public:
  uint32_t irq() const { return id(); }
};
/// LOG 2: wsn.region.begin(i32 site)
class RegionBeginOp : public detail::TraceOpOfKind<TraceOpKind::RegionBegin> {
public:
  uint32_t site() const { return id(); }
};
/// LOG 2: wsn.region.end(i32 site, i32 n)
class RegionEndOp : public detail::TraceOpOfKind<TraceOpKind::RegionEnd> {
public:
  uint32_t site() const { return id(); }
  llvm::Value *countOperand() const { return getArgOperand(1); }
  /// n, or 0 if not a constant.
  uint32_t count() const;
};
/// LOG 3: wsn.sched(i32 task)
class SchedOp : public detail::TraceOpOfKind<TraceOpKind::Sched> {
public:
  uint32_t task() const { return id(); }
};
/// LOG 4: wsn.anchor(i32 anchor, ptr...)
class AnchorOp : public detail::TraceOpOfKind<TraceOpKind::Anchor> {
public:
  uint32_t anchor() const { return id(); }
  /// The live locals (allocas) checkpointed after the anchor's globals.
  llvm::iterator_range<const llvm::Use *> locals() const {
    return llvm::make_range(arg_begin() + 1, arg_end());
  }
  unsigned numLocals() const { return arg_size() - 1; }
};
/// LOG 5: iN wsn.input.iN(i32 site, iN value, iN mask)
class InputOp : public detail::TraceOpOfKind<TraceOpKind::Input> {
public:
  uint32_t site() const { return id(); }
  llvm::Value *value() const { return getArgOperand(1); }
  llvm::Value *mask() const { return getArgOperand(2); }
  /// The constant mask, if it is one.
  std::optional<uint64_t> maskValue() const;
  unsigned bitWidth() const { return valueWidth(); }
};
/// LOG 5: wsn.input.bytes(i32 site, ptr buf, i32 len)
class InputBytesOp : public detail::TraceOpOfKind<TraceOpKind::InputBytes> {
public:
  uint32_t site() const { return id(); }
  llvm::Value *buffer() const { return getArgOperand(1); }
  llvm::Value *length() const { return getArgOperand(2); }
};
/// LOG 6 (thesis 5.1): wsn.send(i32 site, i32 dest, i32 seq)
class SendOp : public detail::TraceOpOfKind<TraceOpKind::Send> {
public:
  uint32_t site() const { return id(); }
  llvm::Value *dest() const { return getArgOperand(1); }
  llvm::Value *seq() const { return getArgOperand(2); }
};
/// LOG 6: wsn.recv(i32 site, i32 sender, i32 seq)
class RecvOp : public detail::TraceOpOfKind<TraceOpKind::Recv> {
public:
  uint32_t site() const { return id(); }
  llvm::Value *sender() const { return getArgOperand(1); }
  llvm::Value *seq() const { return getArgOperand(2); }
};
/// LOG 6, replay only: wsn.msg.payload(i32 site, ptr buf, i32 len): the
/// payload bytes of the message the site's next send/recv op records (a
/// receive's right before it, a send's where the send starts). Record
/// lowering drops it (no record); replay copies the bytes into the event, and
/// `wsn-replay net` compares the sender's with the receiver's.
class MsgPayloadOp : public detail::TraceOpOfKind<TraceOpKind::MsgPayload> {
public:
  uint32_t site() const { return id(); }
  llvm::Value *buffer() const { return getArgOperand(1); }
  llvm::Value *length() const { return getArgOperand(2); }
};
/// Multi-level tracing (thesis 4.4): wsn.skip.begin(i32 site)
class SkipBeginOp : public detail::TraceOpOfKind<TraceOpKind::SkipBegin> {
public:
  uint32_t site() const { return id(); }
};
/// wsn.skip.end(i32 site)
class SkipEndOp : public detail::TraceOpOfKind<TraceOpKind::SkipEnd> {
public:
  uint32_t site() const { return id(); }
};
/// wsn.effect.void(i32 site) / iN wsn.effect.iN(i32 site, iN ret)
class EffectOp : public detail::TraceOpOfKind<TraceOpKind::Effect> {
public:
  uint32_t site() const { return id(); }
  bool isVoid() const { return valueWidth() == 0; }
  /// The skipped call's return value; nullptr for effect.void.
  llvm::Value *returnValue() const {
    return isVoid() ? nullptr : getArgOperand(1);
  }
  unsigned bitWidth() const { return valueWidth(); }
};
/// Invariant check: wsn.check(i32 inv, i1 ok)
class CheckOp : public detail::TraceOpOfKind<TraceOpKind::Check> {
public:
  uint32_t inv() const { return id(); }
  llvm::Value *ok() const { return getArgOperand(1); }
};

//===----------------------------------------------------------------------===//
// Metadata (spec/trace-ops.md, section "Metadata").
//===----------------------------------------------------------------------===//

/// Module record: `!wsn.module`.
struct TraceModuleInfo {
  unsigned FormatVersion = TraceFormatVersion;
  std::string Target; ///< "avr", "msp430" or "host"
  uint32_t Hash = 0;
  uint32_t BufSize = 0;
  uint32_t SegSize = 0;
};

/// "avr", "msp430" or "host" from the module's triple.
std::string traceTargetOf(const llvm::Module &M);

/// A variable recorded by an anchor / read by an invariant / written by an
/// uninstrumented callee.
struct TraceVarRef {
  llvm::GlobalVariable *Global = nullptr; ///< set for globals
  std::string Name;                       ///< local's name (alloca / debug var)
  uint32_t Size = 0;                      ///< bytes, target DataLayout
  std::string CType;                      ///< C type from debug info, or ""
  /// A local holding a copy of the status register (SREG / SR): replay
  /// models only its interrupt-enable bit (kind "status", spec/replay.md).
  bool Status = false;
  bool isGlobal() const { return Global != nullptr; }
};

struct TraceFuncMD {
  uint32_t Id;
  llvm::Function *F;
};
struct TraceIrqMD {
  uint32_t Id;
  llvm::Function *F;
  uint32_t Vector;
  std::string VectorName;
};
struct TraceSiteMD {
  uint32_t Id;
  std::string Kind; ///< "region", "input", "input.bytes", "send", "recv", "skip"
  llvm::Function *F;
  std::string File;
  unsigned Line = 0, Col = 0;
};
struct TraceAnchorMD {
  uint32_t Id;
  llvm::Function *F;
  std::vector<TraceVarRef> Vars; ///< globals first, then locals in op order
};
struct TraceInvariantMD {
  uint32_t Id;
  llvm::Function *F;
  std::vector<TraceVarRef> Inputs; ///< globals, CRC order
};
struct TraceEffectMD {
  uint32_t Site;
  std::string Callee; ///< "" for an indirect call
  uint32_t ReturnSize;
  std::vector<TraceVarRef> Writes; ///< globals, order of the whole record
  /// The short form (spec/trace-format.md section 2.1, "Short effects"): when no interrupt
  /// handler ran inside the skipped call, the record holds the return value and only the
  /// globals Writes[I] for I in Short (increasing: the callee's own writes; the others are
  /// what only handlers may write). Unset: the record always holds every global.
  std::optional<std::vector<uint32_t>> Short;
  /// With a short form: Writes' first HandlerPart globals are what interrupt handlers may
  /// write, the same list in every effect of the module (its one handler table).
  uint32_t HandlerPart = 0;
};
struct TraceTaskMD {
  uint32_t Id;
  llvm::Function *F;
};
/// R_OP of a checked invariant: the RECV sites whose received data is in its
/// value slice (empty: no message reaches it).
struct TraceInvariantRecvsMD {
  uint32_t Id; ///< the invariant's id
  std::vector<uint32_t> Sites;
};

/// Site kind an op family writes (nullopt for ops without a site).
std::optional<llvm::StringRef> siteKindOf(TraceOpKind K);

/// Reader/writer of the `!wsn.*` named metadata. Writers append an entry or
/// fail (llvm::Error) on a duplicate id with different content; re-adding the
/// same entry is a no-op (idempotence). Readers validate the shape of every
/// entry and name the node and entry on error.
class TraceMetadata {
public:
  explicit TraceMetadata(llvm::Module &M) : M(M) {}

  // Writers.
  void setModuleInfo(const TraceModuleInfo &Info);
  llvm::Error addFunction(uint32_t Fid, llvm::Function &F);
  llvm::Error addIrq(uint32_t Irq, llvm::Function &F, uint32_t Vector,
                     llvm::StringRef VectorName);
  llvm::Error addSite(uint32_t Site, llvm::StringRef Kind, llvm::Function &F,
                      const llvm::DebugLoc &DL);
  /// Globals are listed first, then Locals in the order the anchor op takes
  /// them. Sizes and C types come from the DataLayout and debug info.
  llvm::Error addAnchor(uint32_t Id, llvm::Function &F,
                        llvm::ArrayRef<llvm::GlobalVariable *> Globals,
                        llvm::ArrayRef<llvm::AllocaInst *> Locals,
                        llvm::ArrayRef<bool> StatusLocals = {});
  llvm::Error addInvariant(uint32_t Id, llvm::Function &F,
                           llvm::ArrayRef<llvm::GlobalVariable *> Inputs);
  /// Callee may be "" (indirect call); ReturnSize is 0 for void.
  llvm::Error addEffect(uint32_t Site, llvm::StringRef Callee,
                        uint32_t ReturnSize,
                        llvm::ArrayRef<llvm::GlobalVariable *> Writes,
                        std::optional<std::vector<uint32_t>> Short = std::nullopt,
                        uint32_t HandlerPart = 0);
  llvm::Error addTask(uint32_t Id, llvm::Function &F);
  llvm::Error addInvariantRecvs(uint32_t Id, llvm::ArrayRef<uint32_t> Sites);

  // Readers (each validates every entry of its node).
  llvm::Expected<std::optional<TraceModuleInfo>> moduleInfo() const;
  llvm::Expected<std::vector<TraceFuncMD>> functions() const;
  llvm::Expected<std::vector<TraceIrqMD>> irqs() const;
  llvm::Expected<std::vector<TraceSiteMD>> sites() const;
  llvm::Expected<std::vector<TraceAnchorMD>> anchors() const;
  llvm::Expected<std::vector<TraceInvariantMD>> invariants() const;
  llvm::Expected<std::vector<TraceEffectMD>> effects() const;
  llvm::Expected<std::vector<TraceTaskMD>> tasks() const;
  llvm::Expected<std::vector<TraceInvariantRecvsMD>> invariantRecvs() const;

  /// The fid of F in `!wsn.funcs`, if any.
  std::optional<uint32_t> fidOf(const llvm::Function &F) const;

  /// Target size of a global (DataLayout alloc size) and its C type name.
  static TraceVarRef globalRef(llvm::GlobalVariable &GV);
  static TraceVarRef localRef(llvm::AllocaInst &AI);

  // Named metadata node names.
  static constexpr llvm::StringLiteral ModuleNode = "wsn.module";
  static constexpr llvm::StringLiteral FuncsNode = "wsn.funcs";
  static constexpr llvm::StringLiteral IrqsNode = "wsn.irqs";
  static constexpr llvm::StringLiteral SitesNode = "wsn.sites";
  static constexpr llvm::StringLiteral AnchorsNode = "wsn.anchors";
  static constexpr llvm::StringLiteral InvariantsNode = "wsn.invariants";
  static constexpr llvm::StringLiteral EffectsNode = "wsn.effects";
  static constexpr llvm::StringLiteral TasksNode = "wsn.tasks";
  static constexpr llvm::StringLiteral InvariantRecvsNode = "wsn.invariant_recvs";

private:
  llvm::Error addUnique(llvm::StringRef Node, uint32_t Id, llvm::MDNode *Entry);
  llvm::Module &M;
};

/// C spelling of a debug-info type ("uint16_t", "struct msg *", "char[8]").
std::string cTypeName(const llvm::DIType *T);

/// True once instrumentation has finished on M (it writes `!wsn.module`).
bool isInstrumented(const llvm::Module &M);

/// True if M uses any trace op.
bool hasTraceOps(const llvm::Module &M);

/// Stable, idempotent id allocation. Each id space starts at 1; the
/// allocator continues after the largest id already present in the metadata
/// and in the ops of the module, so a module is never given a clashing id.
/// getOrAssignFid returns the fid already recorded for a function.
class IdAllocator {
public:
  enum Space { Fid, Irq, Site, Anchor, Invariant, Task, NumSpaces };
  /// Scans M's metadata and ops for the ids in use.
  explicit IdAllocator(llvm::Module &M);
  uint32_t next(Space S) { return ++Last[S]; }
  /// The fid of F from `!wsn.funcs`, or a new one that is recorded there.
  llvm::Expected<uint32_t> getOrAssignFid(llvm::Function &F);

private:
  llvm::Module &M;
  uint32_t Last[NumSpaces] = {};
};

//===----------------------------------------------------------------------===//
// Builder.
//===----------------------------------------------------------------------===//

/// Creates trace ops. Construction checks the module's reserved names once:
/// a user definition of a `wsn.` name, or a declaration with another type,
/// is an error naming it. Each op carries the builder's current DebugLoc, or
/// else the insertion point's (or the nearest preceding one in the block), or
/// else the function's DISubprogram line.
/// Ops with a site also record (site, kind, function, file:line:col) in
/// `!wsn.sites` (once per site); createFuncEntry records (fid, function) in
/// `!wsn.funcs`. Other ids are recorded with TraceMetadata.
class TraceOpBuilder {
public:
  static llvm::Expected<std::unique_ptr<TraceOpBuilder>>
  create(llvm::Module &M);
  /// Checks the reserved names of M (the check create() does).
  static llvm::Error checkReservedNames(const llvm::Module &M);

  llvm::IRBuilder<> &irb() { return B; }
  void setInsertPoint(llvm::Instruction *I) { B.SetInsertPoint(I); }
  void setInsertPoint(llvm::BasicBlock *BB) { B.SetInsertPoint(BB); }
  void setInsertPointAfter(llvm::Instruction *I);
  void setDebugLoc(const llvm::DebugLoc &DL) { B.SetCurrentDebugLocation(DL); }

  /// Declares (once) and returns the op's declaration.
  llvm::FunctionCallee declaration(TraceOpKind K, unsigned Width = 0);

  FuncEntryOp *createFuncEntry(uint32_t Fid);
  FuncExitOp *createFuncExit(uint32_t Fid);
  IrqEntryOp *createIrqEntry(uint32_t Irq);
  IrqExitOp *createIrqExit(uint32_t Irq);
  RegionBeginOp *createRegionBegin(uint32_t Site);
  RegionEndOp *createRegionEnd(uint32_t Site, uint32_t N);
  SchedOp *createSched(uint32_t Task);
  AnchorOp *createAnchor(uint32_t Anchor, llvm::ArrayRef<llvm::Value *> Locals);
  /// Value must be an integer of a width in traceValueWidths(). Mask 0 means
  /// all bits. The caller redirects Value's other uses to the result.
  llvm::Expected<InputOp *> createInput(uint32_t Site, llvm::Value *Value,
                                        uint64_t Mask = 0);
  InputBytesOp *createInputBytes(uint32_t Site, llvm::Value *Buf,
                                 llvm::Value *Len);
  SendOp *createSend(uint32_t Site, llvm::Value *Dest, llvm::Value *Seq);
  RecvOp *createRecv(uint32_t Site, llvm::Value *Sender, llvm::Value *Seq);
  MsgPayloadOp *createMsgPayload(uint32_t Site, llvm::Value *Buf, llvm::Value *Len);
  SkipBeginOp *createSkipBegin(uint32_t Site);
  SkipEndOp *createSkipEnd(uint32_t Site);
  /// Ret nullptr gives effect.void.
  llvm::Expected<EffectOp *> createEffect(uint32_t Site, llvm::Value *Ret);
  CheckOp *createCheck(uint32_t Inv, llvm::Value *Ok);

  /// Convenience: wraps Call (a call to an uninstrumented callee) in
  /// skip.begin / skip.end / effect for Site, redirecting the uses of a
  /// non-void result to the effect op. Returns the effect op.
  llvm::Expected<EffectOp *> wrapUninstrumentedCall(llvm::CallBase &Call,
                                                    uint32_t Site);

private:
  explicit TraceOpBuilder(llvm::Module &M) : M(M), B(M.getContext()) {}
  llvm::CallInst *emit(TraceOpKind K, unsigned Width,
                       llvm::ArrayRef<llvm::Value *> Args);
  llvm::ConstantInt *i32(uint32_t V) { return B.getInt32(V); }
  void noteSite(llvm::CallInst *CI, TraceOpKind K, uint32_t Site);

  llvm::Module &M;
  llvm::IRBuilder<> B;
};

//===----------------------------------------------------------------------===//
// Verifier and passes (TraceOpPasses.cpp).
//===----------------------------------------------------------------------===//

/// Checks the trace ops and metadata of M against spec/trace-ops.md
/// ("Verifier rules"). Returns one message per problem, each naming the
/// function, the op and its id; empty when M is well formed (and for modules
/// without trace ops or `!wsn.*` metadata).
std::vector<std::string> collectTraceOpErrors(llvm::Module &M);
/// The same as an llvm::Error joining all messages.
llvm::Error verifyTraceOps(llvm::Module &M);

/// `-passes=wsn-verify`: reports every problem as an error diagnostic.
struct VerifyTraceOpsPass : llvm::PassInfoMixin<VerifyTraceOpsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// `-passes=wsn-write-map -wsn-map-file=PATH` ("-" is stdout): writes the
/// trace map of M. An explicit path given to the constructor wins over the
/// command-line option.
struct WriteTraceMapPass : llvm::PassInfoMixin<WriteTraceMapPass> {
  explicit WriteTraceMapPass(std::string Path = "") : Path(std::move(Path)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
  std::string Path;
};

} // namespace wsn

#endif
