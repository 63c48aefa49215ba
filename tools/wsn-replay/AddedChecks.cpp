//===- AddedChecks.cpp - wsn-replay --check: checks added after the fact ---===//
#include "AddedChecks.h"
#include "ReplayReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace llvm;

#ifndef WSN_REPLAY_CLANG
#define WSN_REPLAY_CLANG "clang"
#endif

namespace wsn {
namespace {

Error fail(const Twine &Msg) { return createStringError(inconvertibleErrorCode(), Msg); }

bool isIdentifier(StringRef S) {
  if (S.empty() || isDigit(S[0]))
    return false;
  return all_of(S, [](char C) { return isAlnum(C) || C == '_' || C == '$'; });
}

/// Writes C declarations for debug-info types: struct, union and enum
/// definitions and typedefs go to Defs (each once, dependencies first).
class CDeclarations {
public:
  std::string Defs;
  std::set<std::string> Typedefs;

  /// "T Inner" in C declarator syntax.
  std::string declare(const DIType *T, std::string Inner) {
    if (!T)
      return join("void", Inner);
    if (auto *BT = dyn_cast<DIBasicType>(T))
      return join(basicName(BT), Inner);
    if (auto *DT = dyn_cast<DIDerivedType>(T)) {
      switch (DT->getTag()) {
      case dwarf::DW_TAG_typedef:
        defineTypedef(DT);
        return join(DT->getName().str(), Inner);
      case dwarf::DW_TAG_pointer_type:
        return declare(DT->getBaseType(), "*" + Inner);
      case dwarf::DW_TAG_member:
        return declare(DT->getBaseType(), Inner);
      default: // const, volatile, restrict, atomic: the value is what is read
        return declare(DT->getBaseType(), Inner);
      }
    }
    if (auto *ST = dyn_cast<DISubroutineType>(T)) {
      (void)ST;
      return "void (" + Inner + ")()";
    }
    auto *CT = dyn_cast<DICompositeType>(T);
    if (!CT)
      return join("unsigned char", Inner);
    switch (CT->getTag()) {
    case dwarf::DW_TAG_array_type: {
      std::string Dims;
      for (const DINode *N : CT->getElements())
        if (auto *SR = dyn_cast_or_null<DISubrange>(N)) {
          auto *Cnt = dyn_cast_if_present<ConstantInt *>(SR->getCount());
          Dims += "[" + (Cnt ? std::to_string(Cnt->getSExtValue()) : std::string()) + "]";
        }
      if (StringRef(Inner).starts_with("*"))
        Inner = "(" + Inner + ")";
      return declare(CT->getBaseType(), Inner + Dims);
    }
    case dwarf::DW_TAG_enumeration_type:
      defineEnumerators(CT);
      if (CT->getBaseType())
        return declare(CT->getBaseType(), Inner);
      return join(intOfSize(CT->getSizeInBits() / 8), Inner);
    case dwarf::DW_TAG_structure_type:
    case dwarf::DW_TAG_union_type:
    case dwarf::DW_TAG_class_type:
      return join(defineRecord(CT), Inner);
    default:
      return join("unsigned char", Inner);
    }
  }

private:
  std::map<const DICompositeType *, std::string> Tags;
  std::set<const DICompositeType *> Defined;
  std::set<std::string> Enumerators;
  unsigned Anon = 0;

  static std::string join(const std::string &Ty, const std::string &Inner) {
    return Inner.empty() ? Ty : Ty + " " + Inner;
  }
  static std::string intOfSize(uint64_t Bytes) {
    switch (Bytes) {
    case 1: return "unsigned char";
    case 2: return "__UINT16_TYPE__";
    case 4: return "__UINT32_TYPE__";
    default: return "__UINT64_TYPE__";
    }
  }
  static std::string basicName(const DIBasicType *BT) {
    StringRef N = BT->getName();
    if (!N.empty() && N != "__int128" && N != "unsigned __int128")
      return N.str();
    return intOfSize(BT->getSizeInBits() / 8);
  }
  void defineTypedef(const DIDerivedType *DT) {
    std::string Name = DT->getName().str();
    if (!isIdentifier(Name) || Typedefs.count(Name))
      return;
    Typedefs.insert(Name);
    std::string D = "typedef " + declare(DT->getBaseType(), Name) + ";\n";
    Defs += D;
  }
  void defineEnumerators(const DICompositeType *CT) {
    for (const DINode *N : CT->getElements())
      if (auto *E = dyn_cast_or_null<DIEnumerator>(N)) {
        std::string Name = E->getName().str();
        if (!isIdentifier(Name) || !Enumerators.insert(Name).second)
          continue;
        Defs += "enum { " + Name + " = " +
                (E->isUnsigned() ? std::to_string(E->getValue().getZExtValue())
                                 : std::to_string(E->getValue().getSExtValue())) +
                " };\n";
      }
  }
  /// "struct TAG" (defined before use, members first).
  std::string defineRecord(const DICompositeType *CT) {
    const char *Kw = CT->getTag() == dwarf::DW_TAG_union_type ? "union" : "struct";
    auto It = Tags.find(CT);
    if (It == Tags.end()) {
      std::string Tag = CT->getName().str();
      if (!isIdentifier(Tag) || usedTag(Tag))
        Tag = "__wsn_record" + std::to_string(Anon++);
      It = Tags.emplace(CT, Tag).first;
    }
    std::string Ref = std::string(Kw) + " " + It->second;
    if (Defined.count(CT) || CT->isForwardDecl())
      return Ref;
    Defined.insert(CT);
    std::string Body;
    for (const DINode *N : CT->getElements()) {
      auto *M = dyn_cast_or_null<DIDerivedType>(N);
      if (!M || M->getTag() != dwarf::DW_TAG_member)
        continue;
      std::string MName = M->getName().str();
      if (!isIdentifier(MName))
        MName = "__wsn_member" + std::to_string(Anon++);
      Body += "  " + declare(M->getBaseType(), MName);
      if (M->isBitField())
        Body += " : " + std::to_string(M->getSizeInBits());
      Body += ";\n";
    }
    Defs += Ref + " {\n" + Body + "};\n";
    return Ref;
  }
  bool usedTag(const std::string &Tag) const {
    return any_of(Tags, [&](const auto &KV) { return KV.second == Tag; });
  }
};

/// The C type strings of the trace map ("uint16_t", "uint8_t[8]") need the
/// fixed-width typedefs; these follow the target's own (clang's __UINTn_TYPE__).
const char *StdIntTypedefs[][2] = {
    {"uint8_t", "__UINT8_TYPE__"},   {"int8_t", "__INT8_TYPE__"},
    {"uint16_t", "__UINT16_TYPE__"}, {"int16_t", "__INT16_TYPE__"},
    {"uint32_t", "__UINT32_TYPE__"}, {"int32_t", "__INT32_TYPE__"},
    {"uint64_t", "__UINT64_TYPE__"}, {"int64_t", "__INT64_TYPE__"},
};

/// "uint16_t[32]" -> "uint16_t NAME[32]".
std::string declareByCType(StringRef CType, StringRef Name) {
  size_t Br = CType.find('[');
  if (Br == StringRef::npos)
    return (CType + (CType.ends_with("*") ? "" : " ") + Name).str();
  return (CType.substr(0, Br).rtrim() + " " + Name + CType.substr(Br)).str();
}

} // namespace

Expected<AddedCheck> parseCheckSpec(StringRef Spec) {
  auto [Name, Expr] = Spec.split(':');
  Name = Name.trim();
  Expr = Expr.trim();
  if (!Spec.contains(':') || !isIdentifier(Name) || Expr.empty())
    return fail("--check '" + Spec +
                "': expected 'NAME: EXPRESSION' (NAME a C identifier, EXPRESSION a C "
                "expression over the program's globals)");
  AddedCheck C;
  C.Name = Name.str();
  C.Expr = Expr.str();
  return C;
}

std::string globalDeclarations(const Module &M, const TraceMap &Map) {
  CDeclarations D;
  std::string Vars;
  std::set<std::string> Declared;
  for (const GlobalVariable &GV : M.globals()) {
    StringRef Name = GV.getName();
    if (!isIdentifier(Name) || Name.starts_with("__wsn") || Name.starts_with("llvm."))
      continue;
    SmallVector<DIGlobalVariableExpression *, 1> GVEs;
    GV.getDebugInfo(GVEs);
    if (GVEs.empty())
      continue;
    Vars += "extern " + D.declare(GVEs.front()->getVariable()->getType(), Name.str()) + ";\n";
    Declared.insert(Name.str());
  }
  // Globals without debug info: the trace map's C type.
  auto FromMap = [&](const std::vector<TraceMap::Var> &Vs) {
    for (const TraceMap::Var &V : Vs)
      if (V.IsGlobal && !V.CType.empty() && isIdentifier(V.Name) &&
          !StringRef(V.Name).starts_with("__wsn") && Declared.insert(V.Name).second)
        Vars += "extern " + declareByCType(V.CType, V.Name) + ";\n";
  };
  for (const TraceMap::Anchor &A : Map.Anchors)
    FromMap(A.Vars);
  for (const TraceMap::Invariant &I : Map.Invariants)
    FromMap(I.Inputs);
  std::string Out = "/* wsn-replay --check: the replayed program's globals */\n";
  for (auto &[Name, Ty] : StdIntTypedefs)
    if (!D.Typedefs.count(Name))
      Out += std::string("typedef ") + Ty + " " + Name + ";\n";
  return Out + D.Defs + Vars;
}

Error compileChecks(Module &M, const TraceMap &Map, uint32_t StartAnchor,
                    std::vector<AddedCheck> &Checks) {
  if (Checks.empty())
    return Error::success();
  // The C source: the declarations, then one function per check, each
  // expression under a #line naming the check (clang's diagnostics then say
  // "--check NAME:1:COL").
  std::string Src = globalDeclarations(M, Map);
  for (size_t I = 0; I < Checks.size(); ++I) {
    Checks[I].Function = "wsn_replay_check_" + std::to_string(I);
    Src += "unsigned char " + Checks[I].Function + "(void) {\n  return !!(\n#line 1 \"--check " +
           Checks[I].Name + "\"\n" + Checks[I].Expr + "\n);\n}\n";
  }
  SmallString<128> Dir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("wsn-replay-check", Dir))
    return fail("--check: cannot create a temporary directory: " + EC.message());
  auto Cleanup = make_scope_exit([&] { sys::fs::remove_directories(Dir); });
  auto Path = [&](StringRef F) {
    SmallString<128> P(Dir);
    sys::path::append(P, F);
    return std::string(P);
  };
  std::string CPath = Path("checks.c"), LLPath = Path("checks.ll"), ErrPath = Path("clang.err");
  {
    std::error_code EC;
    raw_fd_ostream OS(CPath, EC);
    if (EC)
      return fail(CPath + ": " + EC.message());
    OS << Src;
  }
  std::string Clang = WSN_REPLAY_CLANG;
  std::string Triple = M.getTargetTriple();
  SmallVector<StringRef, 16> Args = {Clang, "-x", "c", "-std=gnu11", "-ffreestanding",
                                     "-nostdinc", "-fno-builtin", "-O1", "-S", "-emit-llvm",
                                     "-Wno-everything", "-Werror=implicit-function-declaration"};
  if (!Triple.empty()) {
    Args.push_back("-target");
    Args.push_back(Triple);
  }
  Args.append({CPath, "-o", LLPath});
  std::optional<StringRef> Redirects[] = {std::nullopt, std::nullopt, StringRef(ErrPath)};
  std::string ExecErr;
  int RC = sys::ExecuteAndWait(Clang, Args, std::nullopt, Redirects, 60, 0, &ExecErr);
  if (RC != 0) {
    std::string Diag;
    if (auto Buf = MemoryBuffer::getFile(ErrPath))
      Diag = (*Buf)->getBuffer().rtrim().str();
    if (RC < 0)
      return fail("--check: cannot run " + Clang + ": " + ExecErr);
    // Keep the diagnostics about the expressions (the prelude compiled for
    // every other check as well).
    return fail("--check: clang rejected the expression:\n" + Diag);
  }
  SMDiagnostic Diag;
  std::unique_ptr<Module> CM = parseIRFile(LLPath, Diag, M.getContext());
  if (!CM)
    return fail("--check: cannot read clang's output: " + Diag.getMessage());
  if (!M.getDataLayoutStr().empty() && CM->getDataLayoutStr() != M.getDataLayoutStr())
    return fail("--check: clang's data layout for " + Triple + " (" + CM->getDataLayoutStr() +
                ") differs from the program's (" + M.getDataLayoutStr() + ")");

  // Which globals each check reads, and whether replay reconstructs them.
  std::set<std::string> Reconstructed;
  if (const TraceMap::Anchor *A = Map.anchor(StartAnchor))
    for (const TraceMap::Var &V : A->Vars)
      if (V.IsGlobal)
        Reconstructed.insert(V.Name);
  std::map<std::string, std::pair<unsigned, std::string>> Levels;
  if (const NamedMDNode *NMD = M.getNamedMetadata("wsn.global_levels"))
    for (const MDNode *N : NMD->operands()) {
      if (N->getNumOperands() != 3)
        continue;
      auto *Name = dyn_cast<MDString>(N->getOperand(0));
      auto *Lvl = mdconst::dyn_extract<ConstantInt>(N->getOperand(1));
      auto *Reader = dyn_cast<MDString>(N->getOperand(2));
      if (Name && Lvl && Reader)
        Levels[Name->getString().str()] = {unsigned(Lvl->getZExtValue()),
                                           Reader->getString().str()};
    }
  unsigned BuildLevel = 0; // the level this build was selected at (!wsn.pfdg)
  if (const NamedMDNode *NMD = M.getNamedMetadata("wsn.pfdg"))
    if (NMD->getNumOperands() && NMD->getOperand(0)->getNumOperands() == 1)
      if (auto *L = mdconst::dyn_extract_or_null<ConstantInt>(NMD->getOperand(0)->getOperand(0)))
        BuildLevel = unsigned(L->getZExtValue());
  for (AddedCheck &C : Checks) {
    Function *F = CM->getFunction(C.Function);
    if (!F || F->isDeclaration())
      return fail("--check " + C.Name + ": clang produced no function " + C.Function);
    std::set<const GlobalVariable *> Seen;
    std::vector<std::string> Missing;
    C.Reads.clear(); // a REPL rebuild compiles the same checks again
    for (Instruction &I : instructions(*F)) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        Function *Callee = CB->getCalledFunction();
        if (!Callee || !Callee->isIntrinsic())
          return fail("--check " + C.Name + ": '" + C.Expr +
                      "' calls a function; a check may only read globals (replay must "
                      "not execute anything the mote did not)");
      }
      for (Value *Op : I.operands())
        for (Value *V = Op->stripPointerCasts(); V; V = nullptr) {
          auto *GV = dyn_cast<GlobalVariable>(V);
          if (auto *CE = dyn_cast<ConstantExpr>(V))
            GV = dyn_cast<GlobalVariable>(CE->getOperand(0)->stripPointerCasts());
          if (!GV || !Seen.insert(GV).second)
            continue;
          C.Reads.push_back(GV->getName().str());
          GlobalVariable *Prog = M.getGlobalVariable(GV->getName(), /*AllowInternal=*/true);
          if (!Prog)
            return fail("--check " + C.Name + ": the replayed program has no global '" +
                        GV->getName() + "'");
          if (!Prog->isConstant() && !Reconstructed.count(GV->getName().str()))
            Missing.push_back(GV->getName().str());
        }
    }
    if (!Missing.empty()) {
      std::string Msg = "--check " + C.Name + ": '" + C.Expr +
                        "' reads state the trace does not reconstruct (not saved by the "
                        "start checkpoint, anchor " +
                        std::to_string(StartAnchor) + "):";
      unsigned Need = 0;
      for (const std::string &G : Missing) {
        auto It = Levels.find(G);
        if (It != Levels.end()) {
          // A function of level L is selected at every level >= L without
          // error paths; a build at level >= L that did not instrument it
          // was restricted by error paths (or another graph after inlining).
          unsigned L = It->second.first;
          unsigned Suggest = L > BuildLevel ? L : BuildLevel + 1;
          Msg += formatv("\n  {0}: read by {1} (level {2} in this build's PFDG), which this "
                         "build does not instrument; a build that does saves it: --level={3}, "
                         "or an error path through {1}",
                         G, It->second.second, L, Suggest)
                     .str();
          Need = std::max(Need, Suggest);
        } else {
          Msg += "\n  " + G +
                 ": no tracing level includes it (no function the program function "
                 "dependence graph reaches reads it; an invariant that reads it would)";
        }
      }
      if (Need)
        Msg += formatv("\nrebuild with wsn-cc --level={0} and record again", Need).str();
      return fail(Msg);
    }
  }

  // Move the check functions into the program: the declarations of globals
  // become the program's globals, intrinsics are redeclared in M.
  for (AddedCheck &C : Checks) {
    Function *F = CM->getFunction(C.Function);
    if (M.getFunction(C.Function))
      return fail("--check: the program already defines " + C.Function);
    Function *NF = Function::Create(F->getFunctionType(), GlobalValue::ExternalLinkage,
                                    C.Function, &M);
    NF->copyAttributesFrom(F);
    NF->splice(NF->end(), F);
    for (Instruction &I : instructions(*NF)) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        Function *Callee = CB->getCalledFunction();
        FunctionCallee Mine =
            M.getOrInsertFunction(Callee->getName(), Callee->getFunctionType(),
                                  Callee->getAttributes());
        CB->setCalledFunction(Mine);
      }
    }
  }
  for (GlobalVariable &GV : CM->globals()) {
    if (GV.use_empty())
      continue;
    GlobalVariable *Prog = M.getGlobalVariable(GV.getName(), /*AllowInternal=*/true);
    if (!Prog)
      return fail("--check: the replayed program has no global '" + GV.getName() + "'");
    GV.replaceAllUsesWith(Prog);
  }
  return Error::success();
}

/// The C type of a global for printing: the trace map's, else "".
static std::string mapCType(const TraceMap &Map, StringRef Name) {
  auto Find = [&](const std::vector<TraceMap::Var> &Vs) -> std::string {
    for (const TraceMap::Var &V : Vs)
      if (V.IsGlobal && V.Name == Name && !V.CType.empty())
        return V.CType;
    return "";
  };
  for (const TraceMap::Anchor &A : Map.Anchors)
    if (std::string T = Find(A.Vars); !T.empty())
      return T;
  for (const TraceMap::Invariant &I : Map.Invariants)
    if (std::string T = Find(I.Inputs); !T.empty())
      return T;
  return "";
}

static std::string readValue(ReplayRunner &R, const TraceMap &Map, StringRef Name,
                             std::string &CType) {
  CType = mapCType(Map, Name);
  const ReplayGlobal *G = R.info().global(Name);
  if (!G)
    return "?";
  return formatCValue(R.memory(), G->Addr, G->Size, CType);
}

std::string describeCheckFailure(ReplayRunner &R, const TraceMap &Map, const AddedCheck &C,
                                 size_t Event) {
  const ReplayEvent &E = R.events()[Event];
  std::string S = "check '" + C.Name + "' (" + C.Expr + ") FAILED after event " +
                  std::to_string(Event) + " [record " + std::to_string(E.Record) +
                  "]: " + describeEvent(Map, E);
  if (!C.Reads.empty())
    S += "\n  check inputs:";
  for (const std::string &G : C.Reads) {
    std::string CType;
    std::string V = readValue(R, Map, G, CType);
    S += "\n    " + (CType.empty() ? std::string("?") : CType) + " " + G + " = " + V;
  }
  return S;
}

json::Object checksJSON(ReplayRunner &R, const TraceMap &Map,
                        const std::vector<AddedCheck> &Checks, std::optional<size_t> Failed,
                        size_t Event, size_t Evaluations) {
  json::Array All;
  for (size_t K = 0; K < Checks.size(); ++K) {
    json::Object C{{"name", Checks[K].Name}, {"expr", Checks[K].Expr},
                   {"failed", Failed && *Failed == K}};
    if (Failed && *Failed == K) {
      C["event"] = int64_t(Event);
      C["record"] = int64_t(R.events()[Event].Record);
      json::Array Vars;
      for (const std::string &G : Checks[K].Reads) {
        std::string CType;
        std::string V = readValue(R, Map, G, CType);
        Vars.push_back(json::Object{{"name", G}, {"ctype", CType}, {"value", V}});
      }
      C["variables"] = std::move(Vars);
    }
    All.push_back(std::move(C));
  }
  return json::Object{{"checks", std::move(All)}, {"evaluations", int64_t(Evaluations)}};
}

Error resolveChecks(ReplayRunner &R, std::vector<AddedCheck> &Checks) {
  for (AddedCheck &C : Checks) {
    Expected<void *> Addr = R.lookupFunction(C.Function);
    if (!Addr)
      return Addr.takeError();
    C.Fn = reinterpret_cast<uint8_t (*)()>(*Addr);
  }
  return Error::success();
}

} // namespace wsn
