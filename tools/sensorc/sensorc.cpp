//===- sensorc.cpp - The SensorC compiler (thesis chapter 3) --------------===//
//
//   sensorc check FILE.sg                 validate a SensorC_G/_L program
//   sensorc print FILE.sg                 print it back in canonical form
//   sensorc decompose SPEC.sg [--nodes N] [--app-header H] [--optimum] -o DIR
//   sensorc routes TOPO --protocol P SRC DST
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "Decompose.h"
#include "Parser.h"
#include "Routing.h"
#include "Topology.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace wsn;
using namespace wsn::sensorc;

static int usage() {
  errs() << "usage:\n"
            "  sensorc check FILE\n"
            "  sensorc print FILE\n"
            "  sensorc decompose SPEC.sg [--nodes N] [--app-header HEADER] "
            "[--optimum] -o DIR\n"
            "  sensorc routes TOPOLOGY --protocol AODV|SHORTEST_PATH SRC "
            "DST\n";
  return 2;
}

static int fail(Error E) {
  errs() << toString(std::move(E)) << "\n";
  return 1;
}

static int fail(const Twine &Msg) {
  errs() << "sensorc: error: " << Msg << "\n";
  return 1;
}

/// A wrong command line: exit 2 (spec/sensorc.md section 8), not 1 (a bad spec).
static int usageError(const Twine &Msg) {
  fail(Msg);
  return 2;
}

static json::Array itemsJson(const std::set<ItemRef> &S) {
  json::Array A;
  for (auto &I : S)
    A.push_back(json::Object{{"item", I.Key}, {"node", I.Node}});
  return A;
}

static Error writeFile(StringRef Path, StringRef Text) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  if (EC)
    return createStringError(EC, "%s: error: cannot write: %s",
                             Path.str().c_str(), EC.message().c_str());
  OS << Text;
  return Error::success();
}

static int decomposeCmd(ArrayRef<StringRef> Args) {
  std::string Spec, OutDir, AppHeader = "app.h";
  DecomposeOptions Opts;
  bool Optimum = false;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    auto Value = [&](StringRef Flag) -> std::optional<StringRef> {
      if (I + 1 >= Args.size()) {
        usageError(Flag + " needs a value");
        return std::nullopt;
      }
      return Args[++I];
    };
    if (A == "-o") {
      auto V = Value(A);
      if (!V)
        return 2;
      OutDir = V->str();
    } else if (A == "--nodes") {
      auto V = Value(A);
      if (!V)
        return 2;
      unsigned N;
      if (V->getAsInteger(10, N) || N == 0 || N > 65536)
        return usageError("--nodes needs a node count between 1 and 65536, got '" +
                    *V + "'");
      Opts.NodeCount = N;
    } else if (A == "--app-header") {
      auto V = Value(A);
      if (!V)
        return 2;
      AppHeader = V->str();
    } else if (A == "--optimum") {
      Optimum = true;
    } else if (A.starts_with("-")) {
      return usageError("unknown option '" + A + "'");
    } else if (Spec.empty()) {
      Spec = A.str();
    } else {
      return usageError("more than one input file");
    }
  }
  if (Spec.empty() || OutDir.empty())
    return usage();
  auto P = parseFile(Spec);
  if (!P)
    return fail(P.takeError());
  Opts.BaseDir = sys::path::parent_path(Spec).str();
  auto D = decompose(*P, Opts);
  if (!D)
    return fail(D.takeError());
  for (auto &W : (*D)->Warnings)
    errs() << W << "\n";
  if (std::error_code EC = sys::fs::create_directories(OutDir))
    return fail("cannot create '" + OutDir + "': " + EC.message());

  CodeGenOptions CG;
  CG.AppHeader = AppHeader;
  CG.SpecName = sys::path::filename(Spec).str();
  CodeGenerator Gen(**D, CG);
  json::Array NodesJson;
  for (auto &[N, NR] : (*D)->PerNode) {
    bool HasWork = !NR.Local_.Stmts.empty() || !NR.Served.empty();
    if (HasWork) {
      SmallString<256> Base(OutDir);
      sys::path::append(Base, "node_" + std::to_string(N));
      if (Error E = writeFile((Base + ".sl").str(), printProgram(NR.Local_)))
        return fail(std::move(E));
      auto C = Gen.node(N);
      if (!C)
        return fail(C.takeError());
      if (Error E = writeFile((Base + ".c").str(), *C))
        return fail(std::move(E));
    }
    NodesJson.push_back(json::Object{
        {"node", N},
        {"clauses", (int64_t)NR.Clauses.size()},
        {"checks", (int64_t)NR.Local_.Stmts.size()},
        {"local_variables", itemsJson(NR.Local)},
        {"remote_variables", itemsJson(NR.Remote)},
        {"served_variables", itemsJson(NR.Served)},
        {"cost", (int64_t)NR.Remote.size()},
        {"files", HasWork}});
  }
  json::Object Summary{{"spec", Spec},
                       {"nodes", std::move(NodesJson)},
                       {"clauses", (int64_t)(*D)->Clauses.size()},
                       {"instances", (int64_t)(*D)->Instances.size()},
                       {"greedy_cost", (int64_t)(*D)->TotalCost}};
  json::Array ItemsJson; // the ids used in request/reply messages
  std::vector<std::string> ByIdKeys(0);
  for (auto &[Key, Id] : itemIds(**D)) {
    if (ByIdKeys.size() <= Id)
      ByIdKeys.resize(Id + 1);
    ByIdKeys[Id] = Key;
  }
  for (auto &K : ByIdKeys)
    ItemsJson.push_back(K);
  Summary["items"] = std::move(ItemsJson);
  if ((*D)->Routing)
    Summary["routing"] = routingProtocolName(*(*D)->Routing).str();
  if (Optimum) {
    AssignmentProblem AP = (*D)->problem();
    if (AP.ClauseItems.size() > 24 || AP.Nodes.size() > 8) {
      Summary["optimum"] = "skipped: more than 24 clauses or 8 nodes";
    } else if (auto Best = exhaustiveAssign(AP)) {
      Summary["optimum_cost"] = (int64_t)assignmentCost(AP, *Best);
    } else {
      Summary["optimum"] = "skipped: search budget exceeded";
    }
  }
  SmallString<256> SumPath(OutDir);
  sys::path::append(SumPath, "summary.json");
  std::string Text;
  raw_string_ostream OS(Text);
  OS << formatv("{0:2}", json::Value(std::move(Summary))) << "\n";
  if (Error E = writeFile(SumPath, Text))
    return fail(std::move(E));
  outs() << "sensorc: " << (*D)->Clauses.size() << " clauses over "
         << (*D)->PerNode.size() << " nodes, greedy cost "
         << (*D)->TotalCost << " remote variable(s); wrote " << OutDir
         << "\n";
  return 0;
}

static int routesCmd(ArrayRef<StringRef> Args) {
  std::string Topo, Proto = "AODV";
  std::vector<unsigned> Ends;
  for (size_t I = 0; I < Args.size(); ++I) {
    if (Args[I] == "--protocol" && I + 1 < Args.size()) {
      Proto = Args[++I].str();
    } else if (Topo.empty()) {
      Topo = Args[I].str();
    } else {
      unsigned V;
      if (Args[I].getAsInteger(10, V))
        return usageError("expected a node id, got '" + Args[I] + "'");
      Ends.push_back(V);
    }
  }
  if (Topo.empty() || Ends.size() != 2)
    return usage();
  auto T = topology::readTopologyFile(Topo);
  if (!T)
    return fail(T.takeError());
  auto P = lookupRoutingProtocol(Proto);
  if (!P)
    return usageError("unknown routing protocol '" + Proto + "'");
  RoutingPool Pool(*T, *P);
  auto R = Pool.route(Ends[0], Ends[1]);
  if (!R) {
    outs() << "no route\n";
    return 1;
  }
  std::vector<std::string> S;
  for (unsigned N : *R)
    S.push_back(std::to_string(N));
  outs() << join(S, " -> ") << "\n";
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  StringRef Cmd = argv[1];
  std::vector<StringRef> Args(argv + 2, argv + argc);
  if (Cmd == "check" || Cmd == "print") {
    if (Args.size() != 1)
      return usage();
    auto P = parseFile(Args[0]);
    if (!P)
      return fail(P.takeError());
    if (Cmd == "print") {
      outs() << printProgram(*P);
      return 0;
    }
    if (!P->IsLocal) {
      // Also validate what only decomposition sees: TEMP definitions, the
      // topology file and the routing protocol name.
      DecomposeOptions Opts;
      Opts.BaseDir = sys::path::parent_path(Args[0]).str();
      Opts.NodeCount = 1; // [ALL] needs a size; any will do for checking
      auto D = decompose(*P, Opts);
      if (!D)
        return fail(D.takeError());
    }
    outs() << Args[0] << ": ok ("
           << (P->IsLocal ? "SensorC_L for node " + std::to_string(P->LocalNode)
                          : std::string("SensorC_G"))
           << ")\n";
    return 0;
  }
  if (Cmd == "decompose")
    return decomposeCmd(Args);
  if (Cmd == "routes")
    return routesCmd(Args);
  return usage();
}
