//===- Repl.cpp - wsn-replay -i: the interactive replay REPL ---------------===//
//
// Thesis section 4.2 replays the recorded execution so that the programmer can
// inspect it with desktop means and walk back from the violated invariant to
// the faulty statement. The REPL gives that walk over the replayed events:
// breakpoints on the entries of instrumented functions and handlers (with
// their instance counted from the replay start), stepping one event at a
// time, printing globals with their C types, and `why`, which names the last
// store to a global (source location, function, and the task / handler
// instance that was running), using the store watch of the replay lowering.
//
// Every movement re-runs the replay from the start checkpoint to the wanted
// event index: replay is deterministic, so the state at event N is always
// the same, and a run takes milliseconds.
//
//===----------------------------------------------------------------------===//
#include "Repl.h"
#include "ReplayReport.h"
#include "TraceOps.h"
#include "ValueOrigin.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace wsn {
namespace {

/// Values of at most this many array elements are printed in full.
constexpr unsigned MaxElements = 64;

std::string hex(uint64_t V, unsigned Digits) {
  std::string S = utohexstr(V, /*LowerCase=*/true);
  if (S.size() < Digits)
    S.insert(0, Digits - S.size(), '0');
  return "0x" + S;
}

uint64_t readLE(ArrayRef<uint8_t> Mem, uint64_t Addr, unsigned Size) {
  uint64_t V = 0;
  for (unsigned I = 0; I < Size && I < 8; ++I)
    if (Addr + I < Mem.size())
      V |= uint64_t(Mem[Addr + I]) << (8 * I);
  return V;
}

/// Strips typedefs and qualifiers.
const DIType *resolve(const DIType *T) {
  while (auto *DT = dyn_cast_or_null<DIDerivedType>(T)) {
    unsigned Tag = DT->getTag();
    if (Tag != dwarf::DW_TAG_typedef && Tag != dwarf::DW_TAG_const_type &&
        Tag != dwarf::DW_TAG_volatile_type && Tag != dwarf::DW_TAG_atomic_type &&
        Tag != dwarf::DW_TAG_restrict_type)
      break;
    T = DT->getBaseType();
  }
  return T;
}

/// The dimensions of a DI array type, outermost first (0 when unknown), and
/// its element type.
const DIType *arrayShape(const DICompositeType *CT, SmallVectorImpl<uint64_t> &Dims) {
  for (const DINode *N : CT->getElements())
    if (auto *SR = dyn_cast_or_null<DISubrange>(N)) {
      auto *Cnt = dyn_cast_if_present<ConstantInt *>(SR->getCount());
      Dims.push_back(Cnt ? Cnt->getZExtValue() : 0);
    }
  return CT->getBaseType();
}

const DICompositeType *asArray(const DIType *T) {
  auto *CT = dyn_cast_or_null<DICompositeType>(resolve(T));
  return CT && CT->getTag() == dwarf::DW_TAG_array_type ? CT : nullptr;
}

uint64_t sizeOf(const DIType *T) { return resolve(T) ? resolve(T)->getSizeInBits() / 8 : 0; }

std::string formatDI(ArrayRef<uint8_t> Mem, uint64_t Addr, const DIType *T,
                     unsigned Depth = 0);

/// An array of Dims (outermost first) of Elem at Addr: {e0, e1, ...}.
std::string formatArray(ArrayRef<uint8_t> Mem, uint64_t Addr, const DIType *Elem,
                        ArrayRef<uint64_t> Dims, unsigned Depth) {
  if (Dims.empty())
    return formatDI(Mem, Addr, Elem, Depth + 1);
  uint64_t Stride = sizeOf(Elem);
  for (uint64_t D : Dims.drop_front())
    Stride *= D;
  std::string S = "{";
  for (uint64_t I = 0; I < Dims[0]; ++I) {
    if (I == MaxElements) {
      S += ", ...";
      break;
    }
    S += (I ? ", " : "") + formatArray(Mem, Addr + I * Stride, Elem, Dims.drop_front(), Depth);
  }
  return S + "}";
}

/// A value of DI type T at Addr in the replayed data space, in C notation.
std::string formatDI(ArrayRef<uint8_t> Mem, uint64_t Addr, const DIType *T,
                     unsigned Depth) {
  T = resolve(T);
  if (!T)
    return "?";
  if (Depth > 8)
    return "...";
  uint64_t Size = T->getSizeInBits() / 8;
  if (Addr + Size > Mem.size())
    return "<outside the data space>";
  if (auto *BT = dyn_cast<DIBasicType>(T)) {
    uint64_t V = readLE(Mem, Addr, unsigned(Size));
    switch (BT->getEncoding()) {
    case dwarf::DW_ATE_boolean:
      return V ? "true" : "false";
    case dwarf::DW_ATE_float:
      if (Size == 4) {
        float F;
        uint32_t W = uint32_t(V);
        std::memcpy(&F, &W, 4);
        return std::to_string(F);
      }
      if (Size == 8) {
        double D;
        std::memcpy(&D, &V, 8);
        return std::to_string(D);
      }
      return hex(V, unsigned(2 * Size));
    case dwarf::DW_ATE_signed:
    case dwarf::DW_ATE_signed_char:
      if (Size && Size < 8 && ((V >> (8 * Size - 1)) & 1))
        return std::to_string(int64_t(V | (~uint64_t(0) << (8 * Size))));
      return std::to_string(int64_t(V));
    default:
      return std::to_string(V);
    }
  }
  if (auto *DT = dyn_cast<DIDerivedType>(T)) {
    if (DT->getTag() == dwarf::DW_TAG_pointer_type)
      return hex(readLE(Mem, Addr, unsigned(Size ? Size : 2)), 4);
    return formatDI(Mem, Addr, DT->getBaseType(), Depth + 1);
  }
  auto *CT = dyn_cast<DICompositeType>(T);
  if (!CT)
    return "?";
  switch (CT->getTag()) {
  case dwarf::DW_TAG_enumeration_type: {
    uint64_t V = readLE(Mem, Addr, unsigned(Size));
    for (const DINode *N : CT->getElements())
      if (auto *E = dyn_cast_or_null<DIEnumerator>(N))
        if (E->getValue().getZExtValue() == V)
          return E->getName().str() + " (" + std::to_string(V) + ")";
    return std::to_string(V);
  }
  case dwarf::DW_TAG_structure_type:
  case dwarf::DW_TAG_class_type: {
    std::string S = "{";
    bool First = true;
    for (const DINode *N : CT->getElements()) {
      auto *M = dyn_cast_or_null<DIDerivedType>(N);
      if (!M || M->getTag() != dwarf::DW_TAG_member)
        continue;
      S += First ? "" : ", ";
      First = false;
      S += "." + M->getName().str() + " = ";
      if (M->isBitField()) {
        uint64_t Bit = M->getOffsetInBits(), Bits = M->getSizeInBits();
        uint64_t W = readLE(Mem, Addr + Bit / 8, unsigned((Bit % 8 + Bits + 7) / 8));
        W >>= Bit % 8;
        if (Bits < 64)
          W &= (uint64_t(1) << Bits) - 1;
        S += std::to_string(W);
      } else {
        S += formatDI(Mem, Addr + M->getOffsetInBits() / 8, M->getBaseType(), Depth + 1);
      }
    }
    return S + "}";
  }
  case dwarf::DW_TAG_array_type: {
    SmallVector<uint64_t, 4> Dims;
    const DIType *Elem = arrayShape(CT, Dims);
    return formatArray(Mem, Addr, Elem, Dims, Depth);
  }
  default: { // unions and the rest: bytes
    std::string S = "{";
    for (uint64_t I = 0; I < Size; ++I)
      S += (I ? " " : "") + toHex(ArrayRef<uint8_t>(Mem[Addr + I]), /*LowerCase=*/true);
    return S + "}";
  }
  }
}

/// "uint16_t x" / "uint16_t x[32]" / "uint8_t *p": a declaration of Name
/// with the C type string of the trace map (arrays keep the suffix after the
/// name).
std::string declaration(StringRef CType, StringRef Name) {
  size_t Br = CType.find('[');
  if (Br == StringRef::npos)
    return (CType + (CType.ends_with("*") ? "" : " ") + Name).str();
  return (CType.substr(0, Br).rtrim() + " " + Name + CType.substr(Br)).str();
}

/// Without debug info: the trace map's C type string. Scalars and arrays of
/// scalars ("uint16_t[32]") are formatted; the rest as bytes.
std::string formatByCType(ArrayRef<uint8_t> Mem, uint32_t Addr, uint32_t Size,
                          StringRef CType) {
  return formatCValue(Mem, Addr, Size, CType);
}

/// What `print` and `why` name: a global, or an element / member of one
/// (`g`, `g[3]`, `g.f`, `g[1].f[2]`).
struct LValue {
  std::string Expr;
  const ReplayGlobal *Global = nullptr;
  uint32_t Addr = 0, Size = 0;
  /// With debug info: the type, or for a (sub)array the element and the
  /// remaining dimensions.
  const DIType *DI = nullptr;
  const DIType *Elem = nullptr;
  std::vector<uint64_t> Dims;
  std::string CType; ///< C type string
};

struct Breakpoint {
  unsigned No = 0;
  std::string Spec; ///< as typed
  std::string Func;
  uint32_t Instance = 0; ///< 0: every instance
  std::vector<uint32_t> Fids, Irqs;
  bool Deleted = false;
  int Cond = -1; ///< `if EXPR`: index into Repl::Checks (stop when true)
};

/// `watch G`: stop when the bytes of G change.
struct Watchpoint {
  unsigned No = 0;
  std::string Expr;
  uint32_t Addr = 0, Size = 0;
  bool Deleted = false;
};

/// Why a run was stopped by the REPL's own conditions.
struct Hit {
  enum Kind { Break, Watch, CheckFailed } K = Break;
  unsigned No = 0;         ///< breakpoint / watchpoint number, or check index
  std::string Old, New;    ///< watch: the value before and after the event
};

/// One level of the task / handler nesting at some event.
struct Frame {
  bool Irq = false;
  uint32_t Id = 0, Instance = 0;
};

class Repl {
public:
  Repl(ReplayRunner &R, const PreprocessedTrace &P, const TraceMap &Map, raw_ostream &OS,
       const ReplOptions &Opts)
      : R(&R), P(P), Map(Map), OS(OS), Opts(Opts), Checks(Opts.Checks) {}

  int run(std::istream &In);

private:
  /// The runner: main's, or one rebuilt with breakpoint conditions (Owned).
  ReplayRunner *R;
  std::unique_ptr<ReplayRunner> Owned;
  const PreprocessedTrace &P;
  const TraceMap &Map;
  raw_ostream &OS;
  const ReplOptions &Opts;

  // Debug info of the globals (from the replay IR), by IR name.
  LLVMContext DICtx;
  std::unique_ptr<Module> DIModule;
  std::map<std::string, const DIType *> GlobalTypes;
  /// Functions that are tasks: the map's task table, or (FIFO scheduling
  /// records no task ids) nesC's naming: `Module$task$runTask` without
  /// parameters (the scheduler's `...$TaskBasic$runTask(id)` takes the id).
  std::set<std::string> TaskFns;
  /// Source files named in debug info: as written in locations -> a path to
  /// read (joined with the compilation directory).
  std::map<std::string, std::string> SourcePaths;
  std::map<std::string, std::vector<std::string>> SourceCache;
  std::string sourceLine(StringRef Loc);

  std::vector<Breakpoint> Breaks;
  std::vector<Watchpoint> Watches;
  unsigned NextBreak = 1;
  /// Compiled expressions: the --check ones (stop when false) and breakpoint
  /// conditions (IsCondition; evaluated at their breakpoint only).
  std::vector<AddedCheck> Checks;
  std::vector<bool> IsCondition = std::vector<bool>(Checks.size(), false);
  /// The bytes of each watched global after the previous event.
  std::vector<std::vector<uint8_t>> WatchPrev;
  /// Whether the REPL's conditions stop at event E (index I); updates the
  /// watch snapshot.
  std::optional<Hit> stopHere(const ReplayEvent &E, size_t I);
  void snapshotWatches();
  void printHit(const Hit &H);
  /// Index of the current event (the replay stopped right after it); -1: the
  /// replay produced no event.
  long Cur = -1;
  bool Finished = false; ///< the last run ended (not at a breakpoint)
  ReplayOutcome Last;

  void loadDebugInfo();
  const std::vector<ReplayEvent> &events() { return R->events(); }

  /// Re-runs the replay from the start, stopping after the first event for
  /// which Stop(event, index) holds. Returns false on an engine error.
  bool runUntil(std::function<bool(const ReplayEvent &, size_t)> Stop);
  void printStop();
  std::string eventLine(size_t I);
  std::string frameName(const Frame &F);
  std::vector<Frame> stackAt(size_t NumEvents);
  std::string contextAt(size_t NumEvents);
  const ReplayGlobal *findGlobal(StringRef Name);
  /// Resolves an lvalue expression; on failure prints the error and returns
  /// nothing.
  std::optional<LValue> lvalue(StringRef Expr);
  std::string valueOf(const LValue &LV);
  std::string cTypeOf(const ReplayGlobal &G, const DIType **DI);

  bool matches(const Breakpoint &B, const ReplayEvent &E) const;
  void cmdBreak(StringRef Arg);
  void cmdWatch(StringRef Arg);
  void cmdChecks();
  void cmdReverseStep();
  void cmdReverseContinue();
  void cmdDelete(StringRef Arg);
  void cmdContinue();
  void cmdStep();
  void cmdGoto(StringRef Arg);
  void cmdPrint(StringRef Arg);
  void cmdEvents(StringRef Arg);
  void cmdWhere();
  void cmdWhy(StringRef Arg);
  void whyLocal(std::optional<LValue> &LV);
  void cmdInfo();
  void cmdHelp();
  void error(const Twine &Msg) { OS << "error: " << Msg << "\n"; }
};

void Repl::loadDebugInfo() {
  for (const TraceMap::Task &T : Map.Tasks)
    TaskFns.insert(T.Function);
  if (Opts.IRPath.empty())
    return;
  SMDiagnostic Diag;
  DIModule = parseIRFile(Opts.IRPath, Diag, DICtx);
  if (!DIModule)
    return; // the tool has read it already; C types then come from the map
  for (const Function &F : *DIModule)
    if (const DISubprogram *SP = F.getSubprogram())
      if (const DIFile *File = SP->getFile()) {
        SmallString<256> Full(File->getFilename());
        if (!sys::path::is_absolute(Full) && !File->getDirectory().empty()) {
          Full = File->getDirectory();
          sys::path::append(Full, File->getFilename());
        }
        SourcePaths.emplace(File->getFilename().str(), Full.str().str());
      }
  if (Map.Tasks.empty())
    for (const Function &F : *DIModule)
      if (!F.isDeclaration() && F.arg_empty() && F.getName().ends_with("$runTask"))
        TaskFns.insert(F.getName().str());
  for (const GlobalVariable &GV : DIModule->globals()) {
    SmallVector<DIGlobalVariableExpression *, 1> GVEs;
    GV.getDebugInfo(GVEs);
    if (!GVEs.empty())
      GlobalTypes[GV.getName().str()] = GVEs.front()->getVariable()->getType();
  }
}

/// "  89 | <text>" for a location "file:line:col ...", when the file is
/// readable; "" otherwise.
std::string Repl::sourceLine(StringRef Loc) {
  SmallVector<StringRef, 4> Parts;
  Loc.split(Parts, ':', 3);
  unsigned LineNo = 0;
  if (Parts.size() < 3 || Parts[1].getAsInteger(10, LineNo) || LineNo == 0)
    return "";
  std::string File = Parts[0].str();
  auto PIt = SourcePaths.find(File);
  std::string Path = PIt == SourcePaths.end() ? File : PIt->second;
  auto It = SourceCache.find(Path);
  if (It == SourceCache.end()) {
    std::vector<std::string> Lines;
    if (auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true)) {
      SmallVector<StringRef, 0> Ls;
      (*Buf)->getBuffer().split(Ls, '\n');
      for (StringRef L : Ls)
        Lines.push_back(L.rtrim("\r").str());
    }
    It = SourceCache.emplace(Path, std::move(Lines)).first;
  }
  if (LineNo > It->second.size())
    return "";
  return "    " + std::to_string(LineNo) + " | " + It->second[LineNo - 1];
}

bool Repl::runUntil(std::function<bool(const ReplayEvent &, size_t)> Stop) {
  R->setBreakAt(std::move(Stop));
  Expected<ReplayOutcome> Out = R->run();
  R->setBreakAt(nullptr);
  if (!Out) {
    error("replay failed: " + toString(Out.takeError()));
    Finished = true;
    return false;
  }
  Last = std::move(*Out);
  Cur = long(events().size()) - 1;
  Finished = Last.Reason != ReplayStop::Breakpoint;
  return true;
}

std::string Repl::eventLine(size_t I) {
  const ReplayEvent &E = events()[I];
  return "event " + std::to_string(I) + " [record " + std::to_string(E.Record) + "] " +
         std::string(2 * E.Depth, ' ') + describeEvent(Map, E);
}

/// How the replay ended, after a run that did not stop at a breakpoint.
void Repl::printStop() {
  switch (Last.Reason) {
  case ReplayStop::Stopped: {
    const TraceRecord *SR =
        Last.StopRecord < P.Records.size() ? &P.Records[Last.StopRecord] : nullptr;
    bool Viol = SR && SR->Kind == RecordKind::Violation;
    const TraceMap::Invariant *Inv = SR ? Map.invariant(SR->id()) : nullptr;
    OS << "replay stopped: reproduced " << (Viol ? "the VIOLATION" : "the check")
       << " of invariant " << (Inv ? Inv->Function : std::string("?")) << " at record "
       << Last.StopRecord << "\n";
    break;
  }
  case ReplayStop::EndOfTrace:
    OS << "replay stopped: end of the trace: " << Last.Message << "\n";
    break;
  case ReplayStop::Diverged:
    OS << "replay stopped: DIVERGED: " << Last.Message << "\n";
    break;
  case ReplayStop::Returned:
    OS << "replay stopped: " << Last.Message << "\n";
    break;
  default:
    OS << "replay stopped: error: " << Last.Message << "\n";
    break;
  }
  if (Cur >= 0)
    OS << "  last " << eventLine(size_t(Cur)) << "\n";
}

std::string Repl::frameName(const Frame &F) {
  std::string Inst = "#" + std::to_string(F.Instance);
  if (F.Irq) {
    const TraceMap::Irq *Q = Map.irq(F.Id);
    if (!Q)
      return "handler of irq " + std::to_string(F.Id) + Inst;
    return "handler " + Q->Function + Inst + " (irq " + std::to_string(F.Id) +
           (Q->VectorName.empty() ? "" : ", " + Q->VectorName) + ")";
  }
  const TraceMap::Function *Fn = Map.function(F.Id);
  std::string Name = Fn ? Fn->Name : "fid " + std::to_string(F.Id);
  bool Task = TaskFns.count(Name);
  return (Task ? "task " : "function ") + Name + Inst;
}

/// The nesting of instrumented functions and handlers after the first
/// NumEvents events, innermost last.
std::vector<Frame> Repl::stackAt(size_t NumEvents) {
  std::vector<Frame> S;
  const std::vector<ReplayEvent> &Ev = events();
  for (size_t I = 0; I < NumEvents && I < Ev.size(); ++I) {
    const ReplayEvent &E = Ev[I];
    switch (E.K) {
    case ReplayEvent::Entry:
    case ReplayEvent::IrqEntry:
      S.push_back({E.K == ReplayEvent::IrqEntry, E.Id, E.Instance});
      break;
    case ReplayEvent::Exit:
    case ReplayEvent::IrqExit: {
      bool Irq = E.K == ReplayEvent::IrqExit;
      // Pop to the matching frame (frames of the anchor's function, entered
      // before the checkpoint, have no entry event).
      for (size_t K = S.size(); K-- > 0;)
        if (S[K].Irq == Irq && S[K].Id == E.Id) {
          S.resize(K);
          break;
        }
      break;
    }
    default:
      break;
    }
  }
  return S;
}

std::string Repl::contextAt(size_t NumEvents) {
  std::vector<Frame> S = stackAt(NumEvents);
  const TraceMap::Anchor *A = Map.anchor(P.StartAnchor);
  std::string Base = (A ? A->Function : std::string("the anchor's function")) +
                     " (resumed at the start checkpoint)";
  if (S.empty())
    return Base;
  std::string Out = frameName(S.back());
  for (size_t K = S.size() - 1; K-- > 0;)
    Out += (S[K + 1].Irq ? ", interrupting " : ", called from ") + frameName(S[K]);
  Out += (S.front().Irq ? ", interrupting " : ", called from ") + Base;
  return Out;
}

const ReplayGlobal *Repl::findGlobal(StringRef Name) { return R->info().global(Name); }

/// The C type of a global: from debug info, else from the trace map, else "".
std::string Repl::cTypeOf(const ReplayGlobal &G, const DIType **DI) {
  *DI = nullptr;
  auto It = GlobalTypes.find(G.Name);
  if (It != GlobalTypes.end() && It->second) {
    *DI = It->second;
    return cTypeName(It->second);
  }
  auto FromVars = [&](const std::vector<TraceMap::Var> &Vars) -> std::string {
    for (const TraceMap::Var &V : Vars)
      if (V.IsGlobal && V.Name == G.Name && !V.CType.empty())
        return V.CType;
    return "";
  };
  for (const TraceMap::Invariant &I : Map.Invariants)
    if (std::string T = FromVars(I.Inputs); !T.empty())
      return T;
  for (const TraceMap::Anchor &A : Map.Anchors)
    if (std::string T = FromVars(A.Vars); !T.empty())
      return T;
  for (const TraceMap::Effect &E : Map.Effects)
    if (std::string T = FromVars(E.Writes); !T.empty())
      return T;
  return "";
}

std::optional<LValue> Repl::lvalue(StringRef Expr) {
  Expr = Expr.trim();
  if (Expr.empty()) {
    error("a global is needed (NAME, NAME[INDEX], NAME.MEMBER)");
    return std::nullopt;
  }
  size_t Cut = Expr.find_first_of("[.");
  StringRef Name = Expr.substr(0, Cut).rtrim();
  LValue LV;
  LV.Expr = Expr.str();
  LV.Global = findGlobal(Name);
  if (!LV.Global) {
    error("no global named '" + Name + "' in the replayed program");
    return std::nullopt;
  }
  LV.Addr = LV.Global->Addr;
  LV.Size = LV.Global->Size;
  LV.CType = cTypeOf(*LV.Global, &LV.DI);
  auto ExpandArray = [&] {
    if (const DICompositeType *AT = asArray(LV.DI)) {
      SmallVector<uint64_t, 4> D;
      LV.Elem = arrayShape(AT, D);
      LV.Dims.assign(D.begin(), D.end());
      LV.DI = nullptr;
    }
  };
  ExpandArray();
  StringRef Rest = Cut == StringRef::npos ? StringRef() : Expr.substr(Cut);
  while (!Rest.empty()) {
    if (Rest.consume_front("[")) {
      bool Closed = Rest.contains(']');
      auto [Num, After] = Rest.split(']');
      uint64_t I = 0;
      if (!Closed || Num.trim().getAsInteger(0, I)) {
        error("bad index '[" + Num + "' in '" + Expr + "'");
        return std::nullopt;
      }
      Rest = After;
      if (!LV.Dims.empty()) {
        if (LV.Dims[0] && I >= LV.Dims[0]) {
          error("index " + Twine(I) + " is out of bounds in '" + Expr + "' (" +
                Twine(LV.Dims[0]) + " elements)");
          return std::nullopt;
        }
        uint64_t Stride = sizeOf(LV.Elem);
        for (size_t K = 1; K < LV.Dims.size(); ++K)
          Stride *= LV.Dims[K];
        LV.Addr += uint32_t(I * Stride);
        LV.Size = uint32_t(Stride);
        LV.Dims.erase(LV.Dims.begin());
        if (LV.Dims.empty()) {
          LV.DI = LV.Elem;
          LV.Elem = nullptr;
          ExpandArray();
        }
        LV.CType = LV.Dims.empty() && LV.DI ? cTypeName(LV.DI) : "";
        if (!LV.Dims.empty()) {
          LV.CType = cTypeName(LV.Elem);
          for (uint64_t D : LV.Dims)
            LV.CType += "[" + std::to_string(D) + "]";
        }
        continue;
      }
      // No debug info: a one-dimensional array of the trace map's C type.
      StringRef CT = LV.CType;
      size_t Br = CT.find('[');
      unsigned N = 0;
      if (!LV.DI && Br != StringRef::npos && CT.count('[') == 1 &&
          !CT.substr(Br + 1).drop_back().getAsInteger(10, N) && N && LV.Size % N == 0) {
        if (I >= N) {
          error("index " + Twine(I) + " is out of bounds in '" + Expr + "' (" + Twine(N) +
                " elements)");
          return std::nullopt;
        }
        LV.Size /= N;
        LV.Addr += uint32_t(I) * LV.Size;
        LV.CType = CT.substr(0, Br).rtrim().str();
        continue;
      }
      error("'" + Expr + "': " + (LV.CType.empty() ? "the type is unknown" : LV.CType) +
            " is not an array");
      return std::nullopt;
    }
    if (Rest.consume_front(".")) {
      size_t E = Rest.find_first_of("[.");
      StringRef Member = Rest.substr(0, E);
      Rest = E == StringRef::npos ? StringRef() : Rest.substr(E);
      auto *CT = dyn_cast_or_null<DICompositeType>(resolve(LV.DI));
      if (!CT || (CT->getTag() != dwarf::DW_TAG_structure_type &&
                  CT->getTag() != dwarf::DW_TAG_union_type)) {
        error("'" + Expr + "': " + (LV.CType.empty() ? "the type is unknown" : LV.CType) +
              " has no members");
        return std::nullopt;
      }
      const DIDerivedType *Found = nullptr;
      for (const DINode *N : CT->getElements())
        if (auto *M = dyn_cast_or_null<DIDerivedType>(N))
          if (M->getTag() == dwarf::DW_TAG_member && M->getName() == Member)
            Found = M;
      if (!Found) {
        error("'" + Expr + "': " + cTypeName(CT) + " has no member '" + Member + "'");
        return std::nullopt;
      }
      if (Found->isBitField()) {
        error("'" + Expr + "': bit-fields cannot be selected (print the whole struct)");
        return std::nullopt;
      }
      LV.Addr += uint32_t(Found->getOffsetInBits() / 8);
      LV.DI = Found->getBaseType();
      LV.Size = uint32_t(sizeOf(LV.DI));
      LV.CType = cTypeName(LV.DI);
      ExpandArray();
      continue;
    }
    error("cannot read '" + Rest + "' in '" + Expr + "' (NAME, NAME[INDEX], NAME.MEMBER)");
    return std::nullopt;
  }
  return LV;
}

std::string Repl::valueOf(const LValue &LV) {
  if (!LV.Dims.empty())
    return formatArray(R->memory(), LV.Addr, LV.Elem, LV.Dims, 0);
  if (LV.DI)
    return formatDI(R->memory(), LV.Addr, LV.DI);
  return formatByCType(R->memory(), LV.Addr, LV.Size, LV.CType);
}

bool Repl::matches(const Breakpoint &B, const ReplayEvent &E) const {
  if (B.Deleted)
    return false;
  if (E.K == ReplayEvent::Entry)
    return is_contained(B.Fids, E.Id) && (!B.Instance || E.Instance == B.Instance);
  if (E.K == ReplayEvent::IrqEntry)
    return is_contained(B.Irqs, E.Id) && (!B.Instance || E.Instance == B.Instance);
  return false;
}

void Repl::cmdBreak(StringRef Arg) {
  if (Arg.empty())
    return error("break needs FUNC or FUNC#INSTANCE (an instrumented function or an "
                 "interrupt handler), optionally followed by 'if EXPR'");
  StringRef Cond;
  if (size_t If = Arg.find(" if "); If != StringRef::npos) {
    Cond = Arg.substr(If + 4).trim();
    Arg = Arg.substr(0, If).trim();
    if (Cond.empty())
      return error("'break " + Arg + " if' needs a C expression over the program's globals");
  }
  Breakpoint B;
  B.Spec = Arg.str();
  auto [Name, Inst] = Arg.split('#');
  B.Func = Name.str();
  if (Arg.contains('#') && (Inst.getAsInteger(10, B.Instance) || B.Instance == 0))
    return error("bad instance '" + Inst + "' in '" + Arg +
                 "': instances are counted from 1 at the replay start");
  for (const TraceMap::Function &F : Map.Functions)
    if (F.Name == Name)
      B.Fids.push_back(F.Id);
  for (const TraceMap::Irq &Q : Map.Irqs)
    if (Q.Function == Name || (!Q.VectorName.empty() && Q.VectorName == Name))
      B.Irqs.push_back(Q.Id);
  if (B.Fids.empty() && B.Irqs.empty())
    return error("no instrumented function or interrupt handler named '" + Name +
                 "' in the trace map (only their entries are replay events)");
  if (!Cond.empty()) {
    // The condition is compiled with clang into the program, which is then
    // lowered and JIT'd again (spec/replay.md section 7.4); the replay is
    // re-run to the current event.
    if (!Opts.Rebuild)
      return error("conditions need the replay IR (this session cannot recompile it)");
    std::vector<AddedCheck> All = Checks;
    AddedCheck C;
    C.Name = "break" + std::to_string(NextBreak);
    C.Expr = Cond.str();
    All.push_back(C);
    Expected<std::unique_ptr<ReplayRunner>> New = Opts.Rebuild(All);
    if (!New)
      return error(toString(New.takeError()));
    Owned = std::move(*New);
    R = Owned.get();
    Checks = std::move(All);
    IsCondition.push_back(true);
    B.Cond = int(Checks.size() - 1);
    long Back = Cur;
    if (!runUntil([&](const ReplayEvent &, size_t I) { return long(I) == Back; }))
      return;
  }
  B.No = NextBreak++;
  OS << "Breakpoint " << B.No << ": " << (B.Irqs.empty() ? "entry of " : "handler ")
     << B.Func;
  if (B.Instance)
    OS << ", instance " << B.Instance;
  if (B.Cond >= 0)
    OS << ", if " << Checks[size_t(B.Cond)].Expr;
  OS << "\n";
  Breaks.push_back(std::move(B));
}

void Repl::cmdWatch(StringRef Arg) {
  std::optional<LValue> LV = lvalue(Arg);
  if (!LV)
    return;
  Watchpoint W;
  W.No = NextBreak++;
  W.Expr = LV->Expr;
  W.Addr = LV->Addr;
  W.Size = LV->Size;
  OS << "Watchpoint " << W.No << ": " << W.Expr << " (" << W.Size << " byte(s) at "
     << hex(W.Addr, 4) << ")\n";
  Watches.push_back(std::move(W));
}

void Repl::snapshotWatches() {
  WatchPrev.resize(Watches.size());
  for (size_t K = 0; K < Watches.size(); ++K) {
    ArrayRef<uint8_t> M = R->memory().slice(Watches[K].Addr, Watches[K].Size);
    WatchPrev[K].assign(M.begin(), M.end());
  }
}

std::optional<Hit> Repl::stopHere(const ReplayEvent &E, size_t) {
  std::optional<Hit> Out;
  for (const Breakpoint &B : Breaks)
    if (!Out && matches(B, E) && (B.Cond < 0 || Checks[size_t(B.Cond)].Fn()))
      Out = Hit{Hit::Break, B.No, "", ""};
  for (size_t K = 0; K < Watches.size(); ++K) {
    const Watchpoint &W = Watches[K];
    ArrayRef<uint8_t> Now = R->memory().slice(W.Addr, W.Size);
    if (K < WatchPrev.size() && !W.Deleted && !Out && ArrayRef<uint8_t>(WatchPrev[K]) != Now) {
      std::optional<LValue> LV = lvalue(W.Expr);
      std::vector<uint8_t> Mem(R->memory().begin(), R->memory().end());
      std::copy(WatchPrev[K].begin(), WatchPrev[K].end(), Mem.begin() + W.Addr);
      std::string Old;
      if (LV) {
        // The old value in the same format: the previous bytes in a copy.
        if (!LV->Dims.empty())
          Old = formatArray(Mem, LV->Addr, LV->Elem, LV->Dims, 0);
        else if (LV->DI)
          Old = formatDI(Mem, LV->Addr, LV->DI);
        else
          Old = formatByCType(Mem, LV->Addr, LV->Size, LV->CType);
      }
      Out = Hit{Hit::Watch, W.No, Old, LV ? valueOf(*LV) : ""};
    }
  }
  snapshotWatches();
  for (size_t K = 0; K < Checks.size() && !Out; ++K)
    if (!IsCondition[K] && !Checks[K].Fn())
      Out = Hit{Hit::CheckFailed, unsigned(K), "", ""};
  return Out;
}

void Repl::printHit(const Hit &H) {
  switch (H.K) {
  case Hit::Break:
    OS << "Breakpoint " << H.No << ", " << eventLine(size_t(Cur)) << "\n";
    break;
  case Hit::Watch: {
    const Watchpoint *W = nullptr;
    for (const Watchpoint &X : Watches)
      if (X.No == H.No)
        W = &X;
    OS << "Watchpoint " << H.No << ", " << eventLine(size_t(Cur)) << "\n";
    OS << "  " << (W ? W->Expr : std::string("?")) << ": " << H.Old << " -> " << H.New
       << "\n";
    if (W)
      cmdWhy(W->Expr);
    break;
  }
  case Hit::CheckFailed:
    OS << "check '" << Checks[H.No].Name << "' (" << Checks[H.No].Expr << ") FAILED after "
       << eventLine(size_t(Cur)) << "\n";
    break;
  }
}

void Repl::cmdChecks() {
  if (Checks.empty()) {
    OS << "no added checks (wsn-replay --check 'NAME: EXPR', or break FUNC if EXPR)\n";
    return;
  }
  for (size_t K = 0; K < Checks.size(); ++K) {
    const AddedCheck &C = Checks[K];
    std::string From = "--check";
    for (const Breakpoint &B : Breaks)
      if (B.Cond == int(K))
        From = "condition of breakpoint " + std::to_string(B.No) +
               (B.Deleted ? " (deleted)" : "");
    OS << "check " << K + 1 << ": " << C.Name << ": " << C.Expr << "  [" << From
       << "; reads";
    for (const std::string &G : C.Reads)
      OS << " " << G;
    if (C.Reads.empty())
      OS << " no globals";
    OS << "]";
    if (!IsCondition[K])
      OS << (C.Fn() ? " holds" : " FAILS") << " at the current event";
    OS << "\n";
  }
}

void Repl::cmdReverseStep() {
  if (Cur <= 0) {
    OS << "at the first event; there is no earlier one\n";
    return;
  }
  long To = Cur - 1;
  if (!runUntil([&](const ReplayEvent &, size_t I) { return long(I) == To; }))
    return;
  OS << eventLine(size_t(Cur)) << "\n";
}

/// Replay runs forwards only: the run from the start checkpoint is scanned for
/// the last event before the current one where continue would have stopped,
/// and replay then stops there.
void Repl::cmdReverseContinue() {
  if (Cur <= 0) {
    OS << "at the first event; there is no earlier one\n";
    return;
  }
  long From = Cur;
  long Found = -1;
  std::optional<Hit> FoundHit;
  WatchPrev.clear();
  if (!runUntil([&](const ReplayEvent &E, size_t I) {
        if (I == 0) {
          snapshotWatches();
          return long(I) + 1 >= From;
        }
        if (std::optional<Hit> H = stopHere(E, I)) {
          Found = long(I);
          FoundHit = H;
        }
        return long(I) + 1 >= From;
      }))
    return;
  if (Found < 0) {
    cmdGoto("0");
    OS << "no breakpoint, watchpoint or check stops before; at the first event\n";
    return;
  }
  WatchPrev.clear();
  if (!runUntil([&](const ReplayEvent &, size_t I) { return long(I) == Found; }))
    return;
  printHit(*FoundHit);
}

void Repl::cmdDelete(StringRef Arg) {
  unsigned N = 0;
  if (Arg.trim().getAsInteger(10, N))
    return error("delete needs a breakpoint number, got '" + Arg + "'");
  for (Breakpoint &B : Breaks)
    if (B.No == N && !B.Deleted) {
      B.Deleted = true;
      OS << "Deleted breakpoint " << N << " (" << B.Spec << ")\n";
      return;
    }
  for (Watchpoint &W : Watches)
    if (W.No == N && !W.Deleted) {
      W.Deleted = true;
      OS << "Deleted watchpoint " << N << " (" << W.Expr << ")\n";
      return;
    }
  error("no breakpoint or watchpoint number " + Twine(N));
}

void Repl::cmdContinue() {
  if (Finished) {
    OS << "the replay has ended; nothing to continue (events, where, print and why "
          "still work)\n";
    return;
  }
  long From = Cur;
  std::optional<Hit> Got;
  WatchPrev.clear();
  if (!runUntil([&](const ReplayEvent &E, size_t I) {
        if (long(I) < From)
          return false;
        if (long(I) == From) {
          snapshotWatches(); // the values at the current event
          return false;
        }
        Got = stopHere(E, I);
        return Got.has_value();
      }))
    return;
  if (Finished)
    return printStop();
  printHit(*Got);
}

void Repl::cmdStep() {
  if (Finished) {
    OS << "the replay has ended; there is no next event\n";
    return;
  }
  long From = Cur;
  if (!runUntil([&](const ReplayEvent &, size_t I) { return long(I) > From; }))
    return;
  if (Finished)
    return printStop();
  OS << eventLine(size_t(Cur)) << "\n";
}

/// Replay is deterministic: any event, earlier or later, is reached by
/// running again from the start checkpoint.
void Repl::cmdGoto(StringRef Arg) {
  uint64_t N = 0;
  if (Arg.getAsInteger(10, N))
    return error("goto needs an event index, got '" + Arg + "'");
  if (!runUntil([&](const ReplayEvent &, size_t I) { return I == N; }))
    return;
  if (Finished) {
    OS << "the replay ends before event " << N << "\n";
    return printStop();
  }
  OS << "at " << eventLine(size_t(Cur)) << "\n";
}

void Repl::cmdPrint(StringRef Arg) {
  std::optional<LValue> LV = lvalue(Arg);
  if (!LV)
    return;
  OS << declaration(LV->CType.empty() ? "?" : LV->CType, LV->Expr) << " = " << valueOf(*LV)
     << "\n";
}

void Repl::cmdEvents(StringRef Arg) {
  unsigned N = 10;
  if (!Arg.empty() && (Arg.getAsInteger(10, N) || N == 0))
    return error("events takes a positive count, got '" + Arg + "'");
  if (Cur < 0) {
    OS << "no events yet\n";
    return;
  }
  size_t End = size_t(Cur) + 1;
  size_t Begin = End > N ? End - N : 0;
  for (size_t I = Begin; I < End; ++I)
    OS << (long(I) == Cur ? "=> " : "   ") << eventLine(I) << "\n";
}

void Repl::cmdWhere() {
  if (Cur < 0) {
    OS << "at the start checkpoint, no event yet\n";
    return;
  }
  OS << (Finished ? "replay ended at " : "at ") << eventLine(size_t(Cur)) << "\n";
  std::vector<Frame> S = stackAt(size_t(Cur) + 1);
  unsigned K = 0;
  for (size_t I = S.size(); I-- > 0;)
    OS << "  #" << K++ << " " << frameName(S[I]) << "\n";
  const TraceMap::Anchor *A = Map.anchor(P.StartAnchor);
  OS << "  #" << K << " " << (A ? A->Function : std::string("?"))
     << " (resumed at the checkpoint of anchor " << P.StartAnchor << ", record " << P.Start
     << ")\n";
}

void Repl::cmdWhy(StringRef Arg) {
  std::optional<LValue> LV = lvalue(Arg);
  if (!LV)
    return;
  whyLocal(LV);
  // wsn-replay net -i: the writes behind the value, across messages.
  if (Opts.Origin) {
    OriginWalkOptions O = *Opts.Origin;
    O.SourceLine = [this](StringRef Loc) { return sourceLine(Loc); };
    printValueOrigin(OS, OriginView{Opts.Node, R, &P, &Map}, LV->Addr, LV->Size, O);
  }
}

void Repl::whyLocal(std::optional<LValue> &LV) {
  const ReplayGlobal *G = LV->Global;
  uint32_t Begin = LV->Addr, End = LV->Addr + LV->Size;
  // Candidates, ordered by when they happened. A program store made after
  // event k-1 has key 2k; the engine's writes happen inside the callback that
  // then adds event j (the start checkpoint's restore, a skipped call's
  // effect): key 2j+1.
  const StoreWatch &W = R->machine().Watch;
  // Program stores among themselves are ordered by their sequence number.
  uint64_t BestKey = 0;
  const StoreWriter *Best = nullptr;
  unsigned Covered = 0;
  for (uint32_t A = Begin; A < End; ++A)
    if (const StoreWriter *SW = W.lastWriter(A))
      if (!Best || SW->Seq > Best->Seq)
        Best = SW, BestKey = 2 * uint64_t(SW->EventsBefore);
  if (Best)
    for (uint32_t A = Begin; A < End; ++A)
      if (const StoreWriter *SW = W.lastWriter(A))
        if (SW->Seq == Best->Seq)
          ++Covered;
  // Engine writes (not seen by the store watch).
  long EngineEvent = -1;
  std::string EngineWhat;
  const std::vector<ReplayEvent> &Ev = events();
  auto Writes = [&](const std::vector<TraceMap::Var> &Vars) {
    return llvm::any_of(Vars, [&](const TraceMap::Var &V) {
      return V.IsGlobal && V.Name == G->Name;
    });
  };
  for (size_t I = 0; I < Ev.size() && long(I) <= Cur; ++I) {
    const ReplayEvent &E = Ev[I];
    if (E.K == ReplayEvent::Checkpoint && I == 0) {
      const TraceMap::Anchor *A = Map.anchor(E.Id);
      if (A && Writes(A->Vars))
        EngineEvent = long(I), EngineWhat = "restored from the start checkpoint";
    } else if (E.K == ReplayEvent::Effect) {
      const TraceMap::Effect *Ef = Map.effect(E.Id);
      if (Ef && Writes(Ef->Writes)) {
        EngineEvent = long(I);
        EngineWhat = "written by the skipped call to " +
                     (Ef->Callee.empty() ? std::string("<indirect>") : Ef->Callee) +
                     " (its recorded effect)";
      }
    }
  }
  bool EngineLast = EngineEvent >= 0 && (!Best || 2 * uint64_t(EngineEvent) + 1 > BestKey);
  OS << LV->Expr << " = " << valueOf(*LV) << "\n";
  if (!Best && EngineEvent < 0) {
    OS << "  not written since the replay started (record " << P.Start
       << "); it is not in the start checkpoint, so it holds the program's initial value\n";
    return;
  }
  if (EngineLast) {
    OS << "  last written at " << eventLine(size_t(EngineEvent)) << ": " << EngineWhat
       << "\n";
    OS << "  while running: " << contextAt(size_t(EngineEvent) + 1) << "\n";
    return;
  }
  size_t Before = Best->EventsBefore;
  OS << "  last written at " << Best->Loc << "\n";
  if (std::string Src = sourceLine(Best->Loc); !Src.empty())
    OS << Src << "\n";
  if (Before == 0)
    OS << "  before the first event\n";
  else
    OS << "  after " << eventLine(Before - 1) << "\n";
  OS << "  while running: " << contextAt(Before) << "\n";
  if (Covered < LV->Size)
    OS << "  (that store wrote " << Covered << " of its " << LV->Size
       << " bytes; other bytes were written earlier)\n";
}

void Repl::cmdInfo() {
  const TraceCoverage &C = P.Coverage;
  OS << "trace: " << P.TraceName << ": " << C.TotalRecords << " records (" << C.TotalBytes
     << " bytes) retained in " << C.SegmentsRetained << " of " << C.NumSegments
     << " segments" << (C.Wrapped ? ", the ring wrapped" : "") << "\n";
  const TraceMap::Anchor *A = Map.anchor(P.StartAnchor);
  OS << "span: records " << P.Start << ".." << C.StopRecord << " replayed ("
     << C.ReplayRecords << " records, " << C.ReplayBytes << " bytes), " << C.DroppedRecords
     << " before the start checkpoint not replayed\n";
  OS << "start: record " << P.Start << ", checkpoint of anchor " << P.StartAnchor
     << (A ? " in " + A->Function : std::string()) << "\n";
  OS << "stop: " << stopKindName(C.Stop) << " at record " << C.StopRecord << "\n";
  OS << "checks: " << P.Header.Checks << " in the recorded run, "
     << R->machine().Checks << " replayed up to the current event\n";
  if (Cur >= 0)
    OS << "current: " << eventLine(size_t(Cur)) << (Finished ? " (replay ended)" : "")
       << "\n";
  for (const Breakpoint &B : Breaks)
    if (!B.Deleted)
      OS << "breakpoint " << B.No << ": " << B.Spec
         << (B.Cond >= 0 ? " if " + Checks[size_t(B.Cond)].Expr : std::string()) << "\n";
  for (const Watchpoint &W : Watches)
    if (!W.Deleted)
      OS << "watchpoint " << W.No << ": " << W.Expr << "\n";
}

void Repl::cmdHelp() {
  OS << "commands:\n"
        "  break FUNC[#N] [if EXPR]\n"
        "                   stop at the entry of an instrumented function or handler\n"
        "                   (its N-th instance since the replay start; when the C\n"
        "                   expression over globals holds)\n"
        "  watch GLOBAL     stop after the event at which GLOBAL changes (with its writer)\n"
        "  delete N         delete breakpoint or watchpoint N\n"
        "  continue         run to the next breakpoint, watchpoint, failed check or the\n"
        "                   stop point\n"
        "  step-event       run to the next replay event\n"
        "  reverse-step-event, reverse-continue\n"
        "                   the same backwards (replay re-runs from the start checkpoint)\n"
        "  checks           the added checks (--check, breakpoint conditions)\n"
        "  goto N           go to event N, earlier or later (restart: goto 0)\n"
        "  print GLOBAL     the value of a global, with its C type\n"
        "  events [N]       the last N events (default 10) with their record indices\n"
        "  where            the current event and the task/handler nesting\n"
        "  why GLOBAL       the last write to GLOBAL before the current event\n"
        "  info             the trace span, start, stop and checks\n"
        "  quit\n";
  if (Opts.Origin)
    OS << "wsn-replay net:\n"
          "  node [N]         list the replayed nodes / switch to node N\n"
          "  why GLOBAL       also walks the writes behind the value back across received\n"
          "                   messages to the senders' writes (node, line, instance)\n";
}

int Repl::run(std::istream &In) {
  loadDebugInfo();
  OS << "wsn-replay: interactive replay of " << P.TraceName << " (records " << P.Start
     << ".." << P.Coverage.StopRecord << ", stop: " << stopKindName(P.Coverage.Stop)
     << "); type help for the commands\n";
  // Start at the first event (the restore of the start checkpoint).
  if (!runUntil([](const ReplayEvent &, size_t I) { return I == 0; }))
    return 2;
  if (Finished)
    printStop();
  else
    OS << "at " << eventLine(size_t(Cur)) << "\n";
  std::string Line;
  while (true) {
    if (Opts.Interactive)
      OS << "(wsn) ";
    OS.flush();
    if (!std::getline(In, Line))
      break;
    StringRef L = StringRef(Line).trim();
    if (!Opts.Interactive)
      OS << "(wsn) " << L << "\n";
    if (L.empty() || L.starts_with("#"))
      continue;
    auto [Cmd, Rest] = L.split(' ');
    Rest = Rest.trim();
    if (Cmd == "quit" || Cmd == "q" || Cmd == "exit")
      break;
    if (Cmd == "break" || Cmd == "b")
      cmdBreak(Rest);
    else if (Cmd == "delete" || Cmd == "d")
      cmdDelete(Rest);
    else if (Cmd == "watch")
      cmdWatch(Rest);
    else if (Cmd == "checks")
      cmdChecks();
    else if (Cmd == "reverse-step-event" || Cmd == "rs")
      cmdReverseStep();
    else if (Cmd == "reverse-continue" || Cmd == "rc")
      cmdReverseContinue();
    else if (Cmd == "continue" || Cmd == "c")
      cmdContinue();
    else if (Cmd == "step-event" || Cmd == "step" || Cmd == "s")
      cmdStep();
    else if (Cmd == "goto")
      cmdGoto(Rest);
    else if (Cmd == "restart" || Cmd == "run")
      cmdGoto("0");
    else if (Cmd == "print" || Cmd == "p")
      cmdPrint(Rest);
    else if (Cmd == "events")
      cmdEvents(Rest);
    else if (Cmd == "where" || Cmd == "bt")
      cmdWhere();
    else if (Cmd == "why")
      cmdWhy(Rest);
    else if (Cmd == "info")
      cmdInfo();
    else if (Cmd == "help" || Cmd == "h")
      cmdHelp();
    else
      error("unknown command '" + Cmd + "' (type help for the commands)");
  }
  OS.flush();
  return 0;
}

} // namespace

int runRepl(ReplayRunner &R, const PreprocessedTrace &P, const TraceMap &Map,
            std::istream &In, raw_ostream &OS, const ReplOptions &Opts) {
  Repl X(R, P, Map, OS, Opts);
  return X.run(In);
}

int runRepl(ReplayRunner &R, const PreprocessedTrace &P, const TraceMap &Map,
            raw_ostream &OS, ReplOptions Opts) {
  Opts.Interactive = isatty(0);
  return runRepl(R, P, Map, std::cin, OS, Opts);
}

} // namespace wsn
