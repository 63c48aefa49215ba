//===- TraceMap.cpp - trace map: from metadata, to and from JSON ----------===//
#include "TraceMap.h"

#include "JsonNesting.h"
#include "ModuleHash.h"
#include "MoteMemoryModel.h"
#include "TraceOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <tuple>

using namespace llvm;

namespace wsn {

//===----------------------------------------------------------------------===//
// Equality, sizes, lookup
//===----------------------------------------------------------------------===//

bool TraceMap::Function::operator==(const Function &O) const {
  return std::tie(Id, Name, File, Line) == std::tie(O.Id, O.Name, O.File, O.Line);
}
bool TraceMap::Irq::operator==(const Irq &O) const {
  return std::tie(Id, Function, Vector, VectorName) ==
         std::tie(O.Id, O.Function, O.Vector, O.VectorName);
}
bool TraceMap::Site::operator==(const Site &O) const {
  return std::tie(Id, Kind, Function, File, Line, Col) ==
         std::tie(O.Id, O.Kind, O.Function, O.File, O.Line, O.Col);
}
bool TraceMap::Var::operator==(const Var &O) const {
  return std::tie(IsGlobal, IsStatus, Name, Size, CType) ==
         std::tie(O.IsGlobal, O.IsStatus, O.Name, O.Size, O.CType);
}
bool TraceMap::Anchor::operator==(const Anchor &O) const {
  return std::tie(Id, Function, Vars) == std::tie(O.Id, O.Function, O.Vars);
}
bool TraceMap::Invariant::operator==(const Invariant &O) const {
  return std::tie(Id, Function, Inputs, Recvs, File, Line) ==
         std::tie(O.Id, O.Function, O.Inputs, O.Recvs, O.File, O.Line);
}
bool TraceMap::Effect::operator==(const Effect &O) const {
  return std::tie(Site, Callee, ReturnSize, Writes, Short) ==
         std::tie(O.Site, O.Callee, O.ReturnSize, O.Writes, O.Short);
}
bool TraceMap::Task::operator==(const Task &O) const {
  return std::tie(Id, Function) == std::tie(O.Id, O.Function);
}
bool TraceMap::operator==(const TraceMap &O) const {
  return std::tie(FormatVersion, Target, ModuleHash, BufSize, SegSize,
                  Functions, Irqs, Sites, Anchors, Invariants, Effects,
                  Tasks) ==
         std::tie(O.FormatVersion, O.Target, O.ModuleHash, O.BufSize,
                  O.SegSize, O.Functions, O.Irqs, O.Sites, O.Anchors,
                  O.Invariants, O.Effects, O.Tasks);
}

static std::string describe(const TraceMap::Var &V) {
  std::string S = V.IsStatus ? "status" : V.IsGlobal ? "global" : "local";
  S += " '" + V.Name + "' (" + std::to_string(V.Size) + " bytes";
  if (!V.CType.empty())
    S += ", " + V.CType;
  return S + ")";
}

/// The first difference of two variable lists, "NAME[i]: ... where the program has ...".
static std::optional<std::string> varsDiffer(llvm::StringRef What,
                                             const std::vector<TraceMap::Var> &Mine,
                                             const std::vector<TraceMap::Var> &Theirs) {
  for (size_t I = 0; I < std::min(Mine.size(), Theirs.size()); ++I)
    if (!(Mine[I] == Theirs[I]))
      return (What + "[" + llvm::Twine(I) + "]: " + describe(Mine[I]) +
              " where the program has " + describe(Theirs[I]))
          .str();
  if (Mine.size() != Theirs.size())
    return (What + ": " + llvm::Twine(Mine.size()) + " entries where the program has " +
            llvm::Twine(Theirs.size()))
        .str();
  return std::nullopt;
}

static std::string label(const TraceMap::Function &E) { return "function " + std::to_string(E.Id) + " '" + E.Name + "'"; }
static std::string label(const TraceMap::Irq &E) { return "irq " + std::to_string(E.Id) + " '" + E.Function + "'"; }
static std::string label(const TraceMap::Site &E) { return "site " + std::to_string(E.Id) + " (" + E.Kind + " in '" + E.Function + "')"; }
static std::string label(const TraceMap::Anchor &E) { return "anchor " + std::to_string(E.Id) + " in '" + E.Function + "'"; }
static std::string label(const TraceMap::Invariant &E) { return "invariant " + std::to_string(E.Id) + " '" + E.Function + "'"; }
static std::string label(const TraceMap::Effect &E) { return "effect of site " + std::to_string(E.Site) + " (callee '" + E.Callee + "')"; }
static std::string label(const TraceMap::Task &E) { return "task " + std::to_string(E.Id) + " '" + E.Function + "'"; }

/// What differs inside two entries of the same kind whose operator== said "not equal".
static std::string inside(const TraceMap::Anchor &A, const TraceMap::Anchor &B) {
  if (auto D = varsDiffer("vars", A.Vars, B.Vars))
    return *D;
  return "";
}
static std::string inside(const TraceMap::Invariant &A, const TraceMap::Invariant &B) {
  if (auto D = varsDiffer("inputs", A.Inputs, B.Inputs))
    return *D;
  if (A.Recvs != B.Recvs)
    return "recvs differ";
  return "";
}
static std::string inside(const TraceMap::Effect &A, const TraceMap::Effect &B) {
  if (A.ReturnSize != B.ReturnSize)
    return "return_size " + std::to_string(A.ReturnSize) + " where the program has " +
           std::to_string(B.ReturnSize);
  if (auto D = varsDiffer("writes", A.Writes, B.Writes))
    return *D;
  if (A.Short != B.Short)
    return "short forms differ";
  return "";
}
template <typename T> static std::string inside(const T &, const T &) { return ""; }

template <typename T>
static std::optional<std::string> listDiffers(llvm::StringRef Key, const std::vector<T> &Mine,
                                              const std::vector<T> &Theirs) {
  for (size_t I = 0; I < std::min(Mine.size(), Theirs.size()); ++I) {
    if (Mine[I] == Theirs[I])
      continue;
    std::string S = (Key + "[" + llvm::Twine(I) + "] (" + label(Mine[I]) + ")").str();
    std::string In = inside(Mine[I], Theirs[I]);
    if (!In.empty())
      return S + " " + In;
    return S + " where the program has " + label(Theirs[I]);
  }
  if (Mine.size() != Theirs.size())
    return (Key + ": " + llvm::Twine(Mine.size()) + " entries where the program has " +
            llvm::Twine(Theirs.size()))
        .str();
  return std::nullopt;
}

std::optional<std::string> TraceMap::differenceFrom(const TraceMap &P) const {
  auto Num = [](llvm::StringRef Key, uint64_t Mine, uint64_t Theirs) {
    return (Key + " " + llvm::Twine(Mine) + " where the program has " + llvm::Twine(Theirs))
        .str();
  };
  if (Target != P.Target)
    return "target '" + Target + "' where the program has '" + P.Target + "'";
  if (ModuleHash != P.ModuleHash)
    return Num("module_hash", ModuleHash, P.ModuleHash);
  if (FormatVersion != P.FormatVersion)
    return Num("version", FormatVersion, P.FormatVersion);
  if (BufSize != P.BufSize)
    return Num("buf_size", BufSize, P.BufSize);
  if (SegSize != P.SegSize)
    return Num("seg_size", SegSize, P.SegSize);
  std::optional<std::string> D;
  if ((D = listDiffers("functions", Functions, P.Functions)) ||
      (D = listDiffers("irqs", Irqs, P.Irqs)) || (D = listDiffers("sites", Sites, P.Sites)) ||
      (D = listDiffers("anchors", Anchors, P.Anchors)) ||
      (D = listDiffers("invariants", Invariants, P.Invariants)) ||
      (D = listDiffers("effects", Effects, P.Effects)) || (D = listDiffers("tasks", Tasks, P.Tasks)))
    return D;
  return std::nullopt;
}

uint32_t TraceMap::Anchor::recordSize() const {
  uint32_t S = 0;
  for (const Var &V : Vars)
    S += V.Size;
  return S;
}
uint32_t TraceMap::Effect::recordSize() const {
  uint32_t S = ReturnSize;
  for (const Var &V : Writes)
    S += V.Size;
  return S;
}
uint32_t TraceMap::Effect::shortRecordSize() const {
  if (!Short)
    return recordSize();
  uint32_t S = ReturnSize;
  for (uint32_t I : *Short)
    if (I < Writes.size())
      S += Writes[I].Size;
  return S;
}
std::vector<TraceMap::Var> TraceMap::Effect::writesFor(size_t Size) const {
  if (!Short || Size != shortRecordSize() || Size == recordSize())
    return Writes;
  std::vector<Var> V;
  for (uint32_t I : *Short)
    if (I < Writes.size())
      V.push_back(Writes[I]);
  return V;
}

template <typename T> static uint32_t keyOf(const T &E) { return E.Id; }
static uint32_t keyOf(const TraceMap::Effect &E) { return E.Site; }

template <typename T> static const T *lookup(const std::vector<T> &V, uint32_t Id) {
  auto It = llvm::partition_point(V, [&](const T &E) { return keyOf(E) < Id; });
  return It != V.end() && keyOf(*It) == Id ? &*It : nullptr;
}

const TraceMap::Function *TraceMap::function(uint32_t Id) const {
  return lookup(Functions, Id);
}
const TraceMap::Irq *TraceMap::irq(uint32_t Id) const { return lookup(Irqs, Id); }
const TraceMap::Site *TraceMap::site(uint32_t Id) const {
  return lookup(Sites, Id);
}
const TraceMap::Anchor *TraceMap::anchor(uint32_t Id) const {
  return lookup(Anchors, Id);
}
const TraceMap::Invariant *TraceMap::invariant(uint32_t Id) const {
  return lookup(Invariants, Id);
}
const TraceMap::Effect *TraceMap::effect(uint32_t Site) const {
  return lookup(Effects, Site);
}
const TraceMap::Task *TraceMap::task(uint32_t Id) const {
  return lookup(Tasks, Id);
}

template <typename T> static void sortById(std::vector<T> &V) {
  llvm::stable_sort(V, [](const T &A, const T &B) { return keyOf(A) < keyOf(B); });
}

void TraceMap::sort() {
  sortById(Functions);
  sortById(Irqs);
  sortById(Sites);
  sortById(Anchors);
  sortById(Invariants);
  sortById(Effects);
  sortById(Tasks);
}

//===----------------------------------------------------------------------===//
// From the module
//===----------------------------------------------------------------------===//

static TraceMap::Var toVar(const TraceVarRef &R) {
  TraceMap::Var V;
  V.IsGlobal = R.isGlobal();
  V.IsStatus = R.Status;
  V.Name = R.Name;
  V.Size = R.Size;
  V.CType = R.CType;
  return V;
}

static std::vector<TraceMap::Var> toVars(const std::vector<TraceVarRef> &Rs) {
  std::vector<TraceMap::Var> Out;
  for (const TraceVarRef &R : Rs)
    Out.push_back(toVar(R));
  return Out;
}

Expected<TraceMap> TraceMap::fromModule(const Module &CM) {
  // The readers do not modify the module; TraceMetadata takes a non-const
  // reference because it also writes.
  TraceMetadata MD(const_cast<Module &>(CM));
  auto Wrap = [&](Error E) {
    return createStringError(inconvertibleErrorCode(),
                             "module '" + CM.getModuleIdentifier() +
                                 "': " + toString(std::move(E)));
  };
  TraceMap Map;
  auto Info = MD.moduleInfo();
  if (!Info)
    return Wrap(Info.takeError());
  if (!*Info)
    return Wrap(createStringError(inconvertibleErrorCode(),
                                  "no !wsn.module record (not instrumented)"));
  Map.FormatVersion = (*Info)->FormatVersion;
  Map.Target = (*Info)->Target;
  Map.ModuleHash = (*Info)->Hash;
  Map.BufSize = (*Info)->BufSize;
  Map.SegSize = (*Info)->SegSize;

  auto Funcs = MD.functions();
  if (!Funcs)
    return Wrap(Funcs.takeError());
  for (const TraceFuncMD &F : *Funcs) {
    TraceMap::Function E;
    E.Id = F.Id;
    E.Name = F.F->getName().str();
    if (const DISubprogram *SP = F.F->getSubprogram()) {
      E.File = SP->getFilename().str();
      E.Line = SP->getLine();
    }
    Map.Functions.push_back(std::move(E));
  }
  auto Irqs = MD.irqs();
  if (!Irqs)
    return Wrap(Irqs.takeError());
  for (const TraceIrqMD &I : *Irqs)
    Map.Irqs.push_back({I.Id, I.F->getName().str(), I.Vector, I.VectorName});
  auto Sites = MD.sites();
  if (!Sites)
    return Wrap(Sites.takeError());
  for (const TraceSiteMD &S : *Sites)
    Map.Sites.push_back(
        {S.Id, S.Kind, S.F->getName().str(), S.File, S.Line, S.Col});
  auto Anchors = MD.anchors();
  if (!Anchors)
    return Wrap(Anchors.takeError());
  for (const TraceAnchorMD &A : *Anchors)
    Map.Anchors.push_back({A.Id, A.F->getName().str(), toVars(A.Vars)});
  auto Invs = MD.invariants();
  if (!Invs)
    return Wrap(Invs.takeError());
  for (const TraceInvariantMD &I : *Invs) {
    Map.Invariants.push_back({I.Id, I.F->getName().str(), toVars(I.Inputs), std::nullopt});
    if (const DISubprogram *SP = I.F->getSubprogram()) {
      Map.Invariants.back().File = SP->getFilename().str();
      Map.Invariants.back().Line = SP->getLine();
    }
  }
  auto Rops = MD.invariantRecvs();
  if (!Rops)
    return Wrap(Rops.takeError());
  for (const TraceInvariantRecvsMD &R : *Rops)
    for (Invariant &I : Map.Invariants)
      if (I.Id == R.Id)
        I.Recvs = R.Sites;
  auto Effs = MD.effects();
  if (!Effs)
    return Wrap(Effs.takeError());
  for (const TraceEffectMD &E : *Effs)
    Map.Effects.push_back({E.Site, E.Callee, E.ReturnSize, toVars(E.Writes), E.Short});
  auto Tasks = MD.tasks();
  if (!Tasks)
    return Wrap(Tasks.takeError());
  for (const TraceTaskMD &T : *Tasks)
    Map.Tasks.push_back({T.Id, T.F->getName().str()});
  Map.sort();
  for (size_t I = 0; I < Map.Anchors.size(); ++I)
    Map.Anchors[I].Index = I;
  for (size_t I = 0; I < Map.Effects.size(); ++I)
    Map.Effects[I].Index = I;
  return Map;
}

//===----------------------------------------------------------------------===//
// JSON writer: one entry per line, keys in a fixed order.
//===----------------------------------------------------------------------===//

static void writeVars(json::OStream &J, StringRef Key,
                      const std::vector<TraceMap::Var> &Vars) {
  J.attributeArray(Key, [&] {
    for (const TraceMap::Var &V : Vars)
      J.object([&] {
        J.attribute("kind", V.IsGlobal ? "global" : V.IsStatus ? "status" : "local");
        J.attribute("name", V.Name);
        J.attribute("size", V.Size);
        J.attribute("ctype", V.CType);
      });
  });
}

template <typename T, typename Fn>
static void writeArray(raw_ostream &OS, StringRef Key, const std::vector<T> &V,
                       Fn Entry, bool Last) {
  OS << "  \"" << Key << "\": [";
  for (size_t I = 0; I < V.size(); ++I) {
    OS << (I ? ",\n    " : "\n    ");
    json::OStream J(OS);
    J.object([&] { Entry(J, V[I]); });
  }
  OS << (V.empty() ? "]" : "\n  ]") << (Last ? "\n" : ",\n");
}

/// The digest key's line: the map's second line (spec/trace-map.md, "Content digest").
static constexpr StringRef DigestLineStart = "  \"digest\": \"fnv1a64:";
static constexpr StringRef DigestLineEnd = "\",\n";
static constexpr size_t DigestHexDigits = 16;

std::string TraceMap::digestLine(StringRef Body) {
  std::string Hex = utohexstr(fnv1a64(Body), /*LowerCase=*/true);
  return (DigestLineStart + std::string(DigestHexDigits - Hex.size(), '0') + Hex +
          DigestLineEnd)
      .str();
}

std::string TraceMap::toJSON() const {
  // Everything after the digest line, which is computed from it.
  std::string Out;
  raw_string_ostream OS(Out);
  OS << "  \"format\": \"wsn-trace-map\",\n";
  OS << "  \"version\": " << FormatVersion << ",\n";
  OS << "  \"target\": ";
  json::OStream(OS).value(Target);
  OS << ",\n  \"module_hash\": " << ModuleHash << ",\n";
  OS << "  \"buf_size\": " << BufSize << ",\n";
  OS << "  \"seg_size\": " << SegSize << ",\n";
  writeArray(OS, "functions", Functions,
             [](json::OStream &J, const Function &F) {
               J.attribute("id", F.Id);
               J.attribute("name", F.Name);
               J.attribute("file", F.File);
               J.attribute("line", F.Line);
             }, false);
  writeArray(OS, "irqs", Irqs, [](json::OStream &J, const Irq &I) {
    J.attribute("id", I.Id);
    J.attribute("function", I.Function);
    J.attribute("vector", I.Vector);
    J.attribute("vector_name", I.VectorName);
  }, false);
  writeArray(OS, "sites", Sites, [](json::OStream &J, const Site &S) {
    J.attribute("id", S.Id);
    J.attribute("kind", S.Kind);
    J.attribute("function", S.Function);
    J.attribute("file", S.File);
    J.attribute("line", S.Line);
    J.attribute("col", S.Col);
  }, false);
  writeArray(OS, "anchors", Anchors, [](json::OStream &J, const Anchor &A) {
    J.attribute("id", A.Id);
    J.attribute("function", A.Function);
    writeVars(J, "vars", A.Vars);
  }, false);
  writeArray(OS, "invariants", Invariants,
             [](json::OStream &J, const Invariant &I) {
               J.attribute("id", I.Id);
               J.attribute("function", I.Function);
               if (!I.File.empty()) {
                 J.attribute("file", I.File);
                 J.attribute("line", I.Line);
               }
               writeVars(J, "inputs", I.Inputs);
               if (I.Recvs) {
                 J.attributeBegin("recvs");
                 J.arrayBegin();
                 for (uint32_t S : *I.Recvs)
                   J.value(S);
                 J.arrayEnd();
                 J.attributeEnd();
               }
             }, false);
  writeArray(OS, "effects", Effects, [](json::OStream &J, const Effect &E) {
    J.attribute("site", E.Site);
    J.attribute("callee", E.Callee);
    J.attribute("return_size", E.ReturnSize);
    if (E.Short)
      J.attributeArray("short", [&] {
        for (uint32_t I : *E.Short)
          J.value(I);
      });
    writeVars(J, "writes", E.Writes);
  }, false);
  writeArray(OS, "tasks", Tasks, [](json::OStream &J, const Task &T) {
    J.attribute("id", T.Id);
    J.attribute("function", T.Function);
  }, true);
  OS << "}\n";
  OS.flush();
  return "{\n" + digestLine(Out) + Out;
}

//===----------------------------------------------------------------------===//
// JSON reader
//===----------------------------------------------------------------------===//

namespace {
/// Reads fields of one JSON object; errors carry "FILE: where: what".
struct ObjReader {
  StringRef File;
  std::string Where;
  const json::Object *O;

  Error err(const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(),
                             File + ": " + Where + ": " + Msg);
  }
  Expected<const json::Value *> get(StringRef K) const {
    const json::Value *V = O->get(K);
    if (!V)
      return err("missing key '" + K + "'");
    return V;
  }
  Expected<uint32_t> u32(StringRef K) const {
    auto V = get(K);
    if (!V)
      return V.takeError();
    std::optional<int64_t> I = (*V)->getAsInteger();
    if (!I || *I < 0 || *I > 0xFFFFFFFFll)
      return err("key '" + K + "' is not an unsigned 32-bit integer");
    return static_cast<uint32_t>(*I);
  }
  Expected<std::string> str(StringRef K) const {
    auto V = get(K);
    if (!V)
      return V.takeError();
    std::optional<StringRef> S = (*V)->getAsString();
    if (!S)
      return err("key '" + K + "' is not a string");
    return S->str();
  }
  Expected<const json::Array *> arr(StringRef K) const {
    auto V = get(K);
    if (!V)
      return V.takeError();
    const json::Array *A = (*V)->getAsArray();
    if (!A)
      return err("key '" + K + "' is not an array");
    return A;
  }
};
} // namespace

/// Calls Fn(ObjReader) for each element of Top[Key], which must be an array
/// of objects.
template <typename Fn>
static Error forEachEntry(const ObjReader &Top, StringRef Key, Fn Entry) {
  auto A = Top.arr(Key);
  if (!A)
    return A.takeError();
  for (size_t I = 0; I < (*A)->size(); ++I) {
    std::string Where = (Key + "[" + Twine(I) + "]").str();
    if (!Top.Where.empty() && Top.Where != "top level")
      Where = Top.Where + "." + Where;
    const json::Object *O = (**A)[I].getAsObject();
    if (!O)
      return createStringError(inconvertibleErrorCode(),
                               Top.File + ": " + Where + ": not an object");
    if (Error E = Entry(ObjReader{Top.File, Where, O}))
      return E;
  }
  return Error::success();
}

#define WSN_TRY(Var, Expr)                                                     \
  auto Var##OrErr = (Expr);                                                    \
  if (!Var##OrErr)                                                             \
    return Var##OrErr.takeError();                                             \
  auto Var = std::move(*Var##OrErr);

static Error readVars(const ObjReader &R, StringRef Key,
                      std::vector<TraceMap::Var> &Out, bool AllowLocal) {
  return forEachEntry(R, Key, [&](const ObjReader &V) -> Error {
    WSN_TRY(Kind, V.str("kind"));
    TraceMap::Var Var;
    if (Kind == "global")
      Var.IsGlobal = true;
    else if ((Kind == "local" || Kind == "status") && AllowLocal) {
      Var.IsGlobal = false;
      Var.IsStatus = Kind == "status";
    } else
      return V.err("kind '" + Kind + "' is not " +
                   (AllowLocal ? "'global', 'local' or 'status'" : "'global'"));
    WSN_TRY(Name, V.str("name"));
    WSN_TRY(Size, V.u32("size"));
    WSN_TRY(CType, V.str("ctype"));
    Var.Name = Name;
    Var.Size = Size;
    Var.CType = CType;
    Out.push_back(std::move(Var));
    return Error::success();
  });
}

// Run before Map.sort(): V is in file order, so the error names both entries by their JSON
// index (issue 21: a damaged map's error says where).
template <typename T>
static Error checkUniqueIds(StringRef File, StringRef Key,
                            const std::vector<T> &V) {
  DenseMap<uint32_t, size_t> First;
  for (size_t I = 0; I < V.size(); ++I) {
    auto [It, New] = First.try_emplace(keyOf(V[I]), I);
    if (!New)
      return createStringError(inconvertibleErrorCode(),
                               File + ": " + Key + "[" + Twine(I) +
                                   "]: duplicate id " + Twine(keyOf(V[I])) +
                                   " (also " + Key + "[" + Twine(It->second) + "])");
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Sanity bounds and the content digest (spec/trace-map.md, "Reading rules")
//===----------------------------------------------------------------------===//

/// Bytes of a 16-bit MCU's data space: no variable can be larger.
static constexpr uint64_t DataSpaceBytes = 0x10000;

static Error mapError(StringRef File, const Twine &Where, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), File + ": " + Where + ": " + Msg);
}

/// A variable's size against the data space, and a latch register's address
/// (`__wsn_io_0xNN`) against the I/O space of the map's target.
static Error checkVar(StringRef File, const TraceMap &M, const std::string &Where,
                      const TraceMap::Var &V) {
  if (V.Size > DataSpaceBytes)
    return mapError(File, Where + ".size",
                    Twine(V.Size) + " exceeds the " + Twine(DataSpaceBytes) +
                        "-byte data space of a 16-bit MCU");
  if (!StringRef(V.Name).starts_with("__wsn_io_"))
    return Error::success();
  std::optional<uint32_t> Addr = parseLatchSymbolName(V.Name);
  if (!Addr)
    return mapError(File, Where + ".name",
                    "'" + V.Name + "' is not a latch register symbol (__wsn_io_0x and a "
                    "hexadecimal address)");
  uint32_t IOEnd = ioSpaceEndOfTarget(M.Target);
  if (uint64_t(*Addr) + V.Size > IOEnd)
    return mapError(File, Where + ".name",
                    "'" + V.Name + "' (" + Twine(V.Size) + (V.Size == 1 ? " byte" : " bytes") +
                        " at 0x" +
                        utohexstr(*Addr, true) + ") is outside the I/O space of the " +
                        M.Target + " MCUs (" +
                        (IOEnd ? "below 0x" + utohexstr(IOEnd, true)
                               : std::string("a host program has no I/O registers")) +
                        ")");
  return Error::success();
}

/// The vars of a record (a checkpoint or an effect, after Prefix bytes of return value)
/// against the payload a segment can hold; names the var at which the sum passes it.
static Error checkRecordVars(StringRef File, const TraceMap &M, const std::string &Where,
                             StringRef Key, StringRef What, uint64_t Prefix,
                             const std::vector<TraceMap::Var> &Vars) {
  const uint64_t Max = M.SegSize - 8; // spec/trace-format.md section 2
  uint64_t Sum = Prefix;
  for (size_t I = 0; I < Vars.size(); ++I) {
    std::string VarWhere = Where + "." + Key.str() + "[" + std::to_string(I) + "]";
    if (Error E = checkVar(File, M, VarWhere, Vars[I]))
      return E;
    Sum += Vars[I].Size;
    if (Sum > Max)
      return mapError(File, VarWhere + ".size",
                      Twine(Vars[I].Size) + " makes the " + What + " record's payload " +
                          Twine(Sum) + " bytes, more than a " + Twine(M.SegSize) +
                          "-byte segment holds (" + Twine(Max) + ")");
  }
  return Error::success();
}

/// What no map written by wsn-cc can hold (the instrumentation enforces each bound at
/// compile time): errors name the JSON path of the value.
static Error checkBounds(StringRef File, const TraceMap &M) {
  // The ring geometry the instrumentation accepts (spec/trace-format.md section 1).
  if (M.SegSize < 16 || M.BufSize > 0x8000 || M.BufSize < 2ull * M.SegSize ||
      M.BufSize % M.SegSize)
    return mapError(File, "top level",
                    "buf_size " + Twine(M.BufSize) + " and seg_size " + Twine(M.SegSize) +
                        " are not a trace ring (at least two segments of at least 16 "
                        "bytes, at most 32768 bytes in all)");
  for (const TraceMap::Anchor &A : M.Anchors)
    if (Error E = checkRecordVars(File, M, "anchors[" + std::to_string(A.Index) + "]",
                                  "vars", "checkpoint", 0, A.Vars))
      return E;
  for (const TraceMap::Effect &Eff : M.Effects) {
    std::string Where = "effects[" + std::to_string(Eff.Index) + "]";
    if (uint64_t(Eff.ReturnSize) + 8 > M.SegSize)
      return mapError(File, Where + ".return_size",
                      Twine(Eff.ReturnSize) + " is more than a " + Twine(M.SegSize) +
                          "-byte segment holds (" + Twine(M.SegSize - 8) + ")");
    if (Error E = checkRecordVars(File, M, Where, "writes", "effect", Eff.ReturnSize,
                                  Eff.Writes))
      return E;
  }
  // Invariant inputs are not in the trace (a CHECK holds their CRC): only the data
  // space bounds them.
  for (size_t I = 0; I < M.Invariants.size(); ++I) {
    const TraceMap::Invariant &Inv = M.Invariants[I];
    uint64_t Sum = 0;
    for (size_t K = 0; K < Inv.Inputs.size(); ++K) {
      std::string Where =
          "invariants[" + std::to_string(I) + "].inputs[" + std::to_string(K) + "]";
      if (Error E = checkVar(File, M, Where, Inv.Inputs[K]))
        return E;
      Sum += Inv.Inputs[K].Size;
      if (Sum > DataSpaceBytes)
        return mapError(File, Where + ".size",
                        "the inputs take " + Twine(Sum) + " bytes, more than the " +
                            Twine(DataSpaceBytes) + "-byte data space of a 16-bit MCU");
    }
  }
  return Error::success();
}

/// The digest on the map's second line against the bytes after it (spec/trace-map.md,
/// "Content digest").
static Error checkDigest(StringRef File, StringRef Text, const json::Object &Top) {
  const json::Value *V = Top.get("digest");
  if (!V)
    return mapError(File, "top level",
                    "missing key 'digest': the map was written by an older wsn-cc, without "
                    "a content digest; rebuild the program with wsn-cc (its map and its "
                    "traces come from that one build)");
  std::optional<StringRef> D = V->getAsString();
  StringRef Hex = D ? *D : StringRef();
  if (!D || !Hex.consume_front("fnv1a64:") || Hex.size() != DigestHexDigits ||
      !all_of(Hex, [](char C) { return isDigit(C) || (C >= 'a' && C <= 'f'); }))
    return mapError(File, "line 2",
                    "key 'digest' is not \"fnv1a64:\" and 16 lowercase hexadecimal digits");
  std::string Line = (DigestLineStart + Hex + DigestLineEnd).str();
  if (!Text.consume_front("{\n") || !Text.consume_front(Line))
    return mapError(File, "line 2",
                    "key 'digest' is not the map's second line, as wsn-cc writes it: the "
                    "map was modified after wsn-cc wrote it; rebuild the program with "
                    "wsn-cc");
  std::string Want = TraceMap::digestLine(Text);
  if (Want != Line)
    return mapError(
        File, "line 2",
        "content digest does not match: the map was modified after wsn-cc wrote it (the "
        "digest is fnv1a64:" + Hex + ", the bytes after line 2 hash to fnv1a64:" +
            StringRef(Want).drop_front(DigestLineStart.size()).take_front(DigestHexDigits) +
            "); rebuild the program with wsn-cc");
  return Error::success();
}

Expected<TraceMap> TraceMap::parseJSON(StringRef Text, StringRef FileName,
                                       Digest Check) {
  if (Error E = checkJsonNesting(Text))
    return createStringError(inconvertibleErrorCode(),
                             FileName + ": invalid JSON: " + toString(std::move(E)));
  Expected<json::Value> Root = json::parse(Text);
  if (!Root)
    return createStringError(inconvertibleErrorCode(),
                             FileName + ": invalid JSON: " +
                                 toString(Root.takeError()));
  const json::Object *O = Root->getAsObject();
  if (!O)
    return createStringError(inconvertibleErrorCode(),
                             FileName + ": top level is not a JSON object");
  ObjReader Top{FileName, "top level", O};
  TraceMap Map;
  WSN_TRY(Format, Top.str("format"));
  if (Format != "wsn-trace-map")
    return Top.err("format is '" + Format + "', expected 'wsn-trace-map'");
  WSN_TRY(Version, Top.u32("version"));
  if (Version != TraceFormatVersion)
    return Top.err("version " + Twine(Version) + " is not supported (expected " +
                   Twine(TraceFormatVersion) + ")");
  Map.FormatVersion = Version;
  WSN_TRY(Target, Top.str("target"));
  if (Target != "avr" && Target != "msp430" && Target != "host")
    return Top.err("target '" + Target + "' is not avr, msp430 or host");
  Map.Target = Target;
  WSN_TRY(Hash, Top.u32("module_hash"));
  WSN_TRY(Buf, Top.u32("buf_size"));
  WSN_TRY(Seg, Top.u32("seg_size"));
  Map.ModuleHash = Hash;
  Map.BufSize = Buf;
  Map.SegSize = Seg;

  if (Error E = forEachEntry(Top, "functions", [&](const ObjReader &R) -> Error {
        TraceMap::Function F;
        WSN_TRY(Id, R.u32("id"));
        WSN_TRY(Name, R.str("name"));
        WSN_TRY(File, R.str("file"));
        WSN_TRY(Line, R.u32("line"));
        F.Id = Id;
        F.Name = Name;
        F.File = File;
        F.Line = Line;
        Map.Functions.push_back(std::move(F));
        return Error::success();
      }))
    return std::move(E);
  if (Error E = forEachEntry(Top, "irqs", [&](const ObjReader &R) -> Error {
        WSN_TRY(Id, R.u32("id"));
        WSN_TRY(Fn, R.str("function"));
        WSN_TRY(Vec, R.u32("vector"));
        WSN_TRY(VName, R.str("vector_name"));
        Map.Irqs.push_back({Id, Fn, Vec, VName});
        return Error::success();
      }))
    return std::move(E);
  if (Error E = forEachEntry(Top, "sites", [&](const ObjReader &R) -> Error {
        WSN_TRY(Id, R.u32("id"));
        WSN_TRY(Kind, R.str("kind"));
        static const char *Kinds[] = {"region", "input", "input.bytes",
                                      "send",   "recv",  "skip"};
        if (!is_contained(Kinds, StringRef(Kind)))
          return R.err("unknown site kind '" + Kind + "'");
        WSN_TRY(Fn, R.str("function"));
        WSN_TRY(File, R.str("file"));
        WSN_TRY(Line, R.u32("line"));
        WSN_TRY(Col, R.u32("col"));
        Map.Sites.push_back({Id, Kind, Fn, File, Line, Col});
        return Error::success();
      }))
    return std::move(E);
  if (Error E = forEachEntry(Top, "anchors", [&](const ObjReader &R) -> Error {
        TraceMap::Anchor A;
        WSN_TRY(Id, R.u32("id"));
        WSN_TRY(Fn, R.str("function"));
        A.Id = Id;
        A.Function = Fn;
        if (Error E = readVars(R, "vars", A.Vars, /*AllowLocal=*/true))
          return E;
        A.Index = Map.Anchors.size();
        Map.Anchors.push_back(std::move(A));
        return Error::success();
      }))
    return std::move(E);
  if (Error E =
          forEachEntry(Top, "invariants", [&](const ObjReader &R) -> Error {
            TraceMap::Invariant I;
            WSN_TRY(Id, R.u32("id"));
            WSN_TRY(Fn, R.str("function"));
            I.Id = Id;
            I.Function = Fn;
            if (R.O->get("file")) {
              WSN_TRY(File, R.str("file"));
              WSN_TRY(Line, R.u32("line"));
              I.File = File;
              I.Line = Line;
            }
            if (Error E = readVars(R, "inputs", I.Inputs, false))
              return E;
            if (R.O->get("recvs")) {
              WSN_TRY(A, R.arr("recvs"));
              I.Recvs.emplace();
              for (size_t K = 0; K < A->size(); ++K) {
                std::optional<int64_t> S = (*A)[K].getAsInteger();
                if (!S || *S < 0 || *S > 0xFFFFFFFFll)
                  return R.err("recvs[" + Twine(K) + "] is not a site id");
                I.Recvs->push_back(uint32_t(*S));
              }
            }
            Map.Invariants.push_back(std::move(I));
            return Error::success();
          }))
    return std::move(E);
  if (Error E = forEachEntry(Top, "effects", [&](const ObjReader &R) -> Error {
        TraceMap::Effect Eff;
        WSN_TRY(Site, R.u32("site"));
        WSN_TRY(Callee, R.str("callee"));
        WSN_TRY(RetSize, R.u32("return_size"));
        Eff.Site = Site;
        Eff.Callee = Callee;
        Eff.ReturnSize = RetSize;
        if (Error E = readVars(R, "writes", Eff.Writes, false))
          return E;
        if (R.O->get("short")) {
          // The short form's globals: indices into writes, increasing.
          WSN_TRY(A, R.arr("short"));
          Eff.Short.emplace();
          for (size_t K = 0; K < A->size(); ++K) {
            std::optional<int64_t> I = (*A)[K].getAsInteger();
            if (!I || *I < 0 || *I >= int64_t(Eff.Writes.size()) ||
                (!Eff.Short->empty() && *I <= int64_t(Eff.Short->back())))
              return R.err("short[" + Twine(K) + "] is not an index into the " +
                           Twine(Eff.Writes.size()) +
                           " writes above the one before it");
            Eff.Short->push_back(uint32_t(*I));
          }
        } else if (R.O->get("short_writes")) {
          // Maps written before the short form could skip globals: the first K.
          WSN_TRY(K, R.u32("short_writes"));
          if (K > Eff.Writes.size())
            return R.err("short_writes " + Twine(K) + " is more than the " +
                         Twine(Eff.Writes.size()) + " writes");
          Eff.Short.emplace();
          for (uint32_t I = 0; I < K; ++I)
            Eff.Short->push_back(I);
        }
        Eff.Index = Map.Effects.size();
        Map.Effects.push_back(std::move(Eff));
        return Error::success();
      }))
    return std::move(E);
  if (Error E = forEachEntry(Top, "tasks", [&](const ObjReader &R) -> Error {
        WSN_TRY(Id, R.u32("id"));
        WSN_TRY(Fn, R.str("function"));
        Map.Tasks.push_back({Id, Fn});
        return Error::success();
      }))
    return std::move(E);

  if (Error E = checkBounds(FileName, Map))
    return std::move(E);
  if (Error E = checkUniqueIds(FileName, "functions", Map.Functions))
    return std::move(E);
  if (Error E = checkUniqueIds(FileName, "irqs", Map.Irqs))
    return std::move(E);
  if (Error E = checkUniqueIds(FileName, "sites", Map.Sites))
    return std::move(E);
  if (Error E = checkUniqueIds(FileName, "anchors", Map.Anchors))
    return std::move(E);
  if (Error E = checkUniqueIds(FileName, "invariants", Map.Invariants))
    return std::move(E);
  if (Error E = checkUniqueIds(FileName, "effects", Map.Effects))
    return std::move(E);
  if (Error E = checkUniqueIds(FileName, "tasks", Map.Tasks))
    return std::move(E);
  if (Check == Digest::Require)
    if (Error E = checkDigest(FileName, Text, *O))
      return std::move(E);
  Map.sort();
  return Map;
}

#undef WSN_TRY

Expected<TraceMap> TraceMap::readFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return createStringError(Buf.getError(), "%s: cannot read: %s",
                             Path.str().c_str(),
                             Buf.getError().message().c_str());
  return parseJSON((*Buf)->getBuffer(), Path);
}

Error TraceMap::writeFile(StringRef Path) const {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
  if (EC)
    return createStringError(EC, "%s: cannot write: %s", Path.str().c_str(),
                             EC.message().c_str());
  OS << toJSON();
  OS.close();
  if (OS.has_error())
    return createStringError(OS.error(), "%s: write failed: %s",
                             Path.str().c_str(), OS.error().message().c_str());
  return Error::success();
}

} // namespace wsn
