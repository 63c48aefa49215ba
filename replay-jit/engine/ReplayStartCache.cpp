//===- ReplayStartCache.cpp - start a replay without parsing or lowering --===//
//
// See ReplayStartCache.h and spec/replay.md section 8.
//
//===----------------------------------------------------------------------===//
#include "ReplayStartCache.h"
#include "TraceMap.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <elf.h>
#include <link.h>

using namespace llvm;

namespace wsn {

namespace {
constexpr const char *Format = "wsn-replay-start";
constexpr int64_t Version = 3;

struct BuildIdSearch {
  std::string Hex;
};

int findBuildId(struct dl_phdr_info *Info, size_t, void *Data) {
  // The first object is the executable itself.
  auto *S = static_cast<BuildIdSearch *>(Data);
  for (unsigned I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &Ph = Info->dlpi_phdr[I];
    if (Ph.p_type != PT_NOTE)
      continue;
    const char *P = reinterpret_cast<const char *>(Info->dlpi_addr + Ph.p_vaddr);
    const char *End = P + Ph.p_memsz;
    while (P + sizeof(ElfW(Nhdr)) <= End) {
      const auto *N = reinterpret_cast<const ElfW(Nhdr) *>(P);
      const char *Name = P + sizeof(ElfW(Nhdr));
      const char *Desc = Name + alignTo(N->n_namesz, 4);
      const char *Next = Desc + alignTo(N->n_descsz, 4);
      if (Next > End)
        break;
      if (N->n_type == NT_GNU_BUILD_ID && N->n_namesz == 4 &&
          std::memcmp(Name, "GNU", 4) == 0 && N->n_descsz) {
        S->Hex = toHex(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Desc),
                                         N->n_descsz),
                       /*LowerCase=*/true);
        return 1;
      }
      P = Next;
    }
  }
  return 1; // only the executable
}

/// Feeds a length-prefixed field, so that no two different field lists hash
/// the same bytes.
void field(BLAKE3 &H, StringRef S) {
  uint64_t N = S.size();
  H.update(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&N), sizeof(N)));
  H.update(S);
}

json::Value targetJSON(const MoteTarget &T) {
  json::Array Latches;
  for (uint16_t L : T.Latches)
    Latches.push_back(int64_t(L));
  return json::Object{{"arch", T.Arch == MoteArch::AVR ? "avr" : "msp430"},
                      {"mcu", T.MCU},
                      {"io", json::Array{int64_t(T.IOBegin), int64_t(T.IOEnd)}},
                      {"ram", json::Array{int64_t(T.RamBegin), int64_t(T.RamEnd)}},
                      {"stack_top", int64_t(T.StackTop)},
                      {"code_ptr_shift", int64_t(T.CodePtrShift)},
                      {"sreg", int64_t(T.SREGAddr)},
                      {"elf_data_offset", int64_t(T.ElfDataOffset)},
                      {"latches", std::move(Latches)}};
}

/// Reads what store() wrote; any deviation is a miss (nullopt).
struct Reader {
  bool OK = true;
  int64_t num(const json::Object *O, StringRef K) {
    std::optional<int64_t> V = O ? O->getInteger(K) : std::nullopt;
    if (!V || *V < 0)
      OK = false;
    return V ? *V : 0;
  }
  std::string str(const json::Object *O, StringRef K) {
    std::optional<StringRef> V = O ? O->getString(K) : std::nullopt;
    if (!V)
      OK = false;
    return V ? V->str() : "";
  }
  const json::Array *arr(const json::Object *O, StringRef K) {
    const json::Array *A = O ? O->getArray(K) : nullptr;
    if (!A)
      OK = false;
    return A;
  }
  int64_t at(const json::Array *A, size_t I) {
    std::optional<int64_t> V = A && I < A->size() ? (*A)[I].getAsInteger() : std::nullopt;
    if (!V || *V < 0)
      OK = false;
    return V ? *V : 0;
  }
};
} // namespace

std::string selfBuildId() {
  static const std::string Id = [] {
    BuildIdSearch S;
    dl_iterate_phdr(findBuildId, &S);
    return S.Hex;
  }();
  return Id;
}

std::unique_ptr<ReplayStartCache> ReplayStartCache::open(StringRef IRPath,
                                                         const ReplayLoweringOptions &LO,
                                                         const ReplayRunOptions &RO) {
  if (RO.JitCacheDir.empty() || RO.DebuggerSupport || LO.WatchStores)
    return nullptr;
  std::string Build = selfBuildId();
  if (Build.empty())
    return nullptr; // no way to tell this lowering from another one
  auto IR = MemoryBuffer::getFile(IRPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!IR)
    return nullptr;
  std::unique_ptr<MemoryBuffer> Elf;
  if (!LO.ElfPath.empty()) {
    auto E = MemoryBuffer::getFile(LO.ElfPath, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
    if (!E)
      return nullptr;
    Elf = std::move(*E);
  }
  // Every input of lowerModuleForReplay and of what create() derives. A new
  // option of either must be added here.
  BLAKE3 H;
  field(H, Format);
  field(H, std::to_string(Version));
  field(H, Build);
  field(H, LLVM_VERSION_STRING);
  field(H, sys::getProcessTriple());
  field(H, sys::getHostCPUName());
  field(H, (*IR)->getBuffer());
  field(H, LO.ElfPath.empty() ? "no image" : "image");
  field(H, Elf ? Elf->getBuffer() : "");
  field(H, LO.MCU);
  field(H, LO.StopAt);
  field(H, LO.HostTriple);
  field(H, LO.HostDataLayout);
  std::string Flags;
  for (bool B : {LO.AllowUntracedIO, LO.RequireElfPlacement, LO.WatchStores, LO.InlineLog,
                 LO.FramePointers})
    Flags += B ? '1' : '0';
  field(H, Flags);
  field(H, RO.Entry);
  std::array<uint8_t, 32> Sum = H.final<32>();
  return std::unique_ptr<ReplayStartCache>(
      new ReplayStartCache(RO.JitCacheDir, toHex(Sum, /*LowerCase=*/true)));
}

std::string ReplayStartCache::path() const {
  // The object cache's pruner removes llvmcache-* files only: the records
  // share its bound.
  SmallString<256> P(Dir);
  sys::path::append(P, "llvmcache-start-" + Key + ".json");
  return std::string(P);
}

std::optional<ReplayStartCache::Hit>
ReplayStartCache::lookup(const ReplayRunOptions &RO) const {
  auto Buf = MemoryBuffer::getFile(path(), /*IsText=*/true);
  if (!Buf)
    return std::nullopt;
  // The first line is the BLAKE3 hash of the rest: a record damaged into
  // other valid JSON (a flipped digit of an address) is a miss, not a replay
  // on a wrong layout.
  auto [SumLine, Body] = (*Buf)->getBuffer().split('\n');
  std::array<uint8_t, 32> Sum = BLAKE3::hash<32>(arrayRefFromStringRef(Body));
  if (SumLine != toHex(Sum, /*LowerCase=*/true))
    return std::nullopt;
  Expected<json::Value> V = json::parse(Body);
  if (!V) {
    consumeError(V.takeError());
    return std::nullopt;
  }
  Reader Rd;
  const json::Object *O = V->getAsObject();
  if (Rd.str(O, "format") != Format || Rd.num(O, "version") != Version ||
      Rd.str(O, "key") != Key)
    return std::nullopt;
  Hit Out;
  Out.ModuleHash = uint32_t(Rd.num(O, "module_hash"));
  Out.MapJSON = Rd.str(O, "map");
  std::string ObjKey = Rd.str(O, "object");
  std::string DL = Rd.str(O, "data_layout");
  unsigned EntryBits = unsigned(Rd.num(O, "entry_bits"));
  std::map<std::string, unsigned> FnArgs;
  if (const json::Object *F = O ? O->getObject("functions") : nullptr)
    for (const auto &[Name, N] : *F) {
      std::optional<int64_t> K = N.getAsInteger();
      if (!K || *K < 0)
        return std::nullopt;
      FnArgs[Name.str()] = unsigned(*K);
    }
  else
    return std::nullopt;

  ReplayLoweringResult Info;
  const json::Object *I = O ? O->getObject("lowering") : nullptr;
  const json::Object *T = I ? I->getObject("target") : nullptr;
  MoteTarget &MT = Info.Target;
  std::string Arch = Rd.str(T, "arch");
  if (Arch != "avr" && Arch != "msp430")
    return std::nullopt;
  MT.Arch = Arch == "avr" ? MoteArch::AVR : MoteArch::MSP430;
  MT.MCU = Rd.str(T, "mcu");
  const json::Array *IO = Rd.arr(T, "io"), *Ram = Rd.arr(T, "ram");
  MT.IOBegin = uint32_t(Rd.at(IO, 0));
  MT.IOEnd = uint32_t(Rd.at(IO, 1));
  MT.RamBegin = uint32_t(Rd.at(Ram, 0));
  MT.RamEnd = uint32_t(Rd.at(Ram, 1));
  MT.StackTop = uint32_t(Rd.num(T, "stack_top"));
  MT.CodePtrShift = unsigned(Rd.num(T, "code_ptr_shift"));
  MT.SREGAddr = uint32_t(Rd.num(T, "sreg"));
  MT.ElfDataOffset = uint64_t(Rd.num(T, "elf_data_offset"));
  if (const json::Array *L = Rd.arr(T, "latches"))
    for (size_t K = 0; K < L->size(); ++K)
      MT.Latches.push_back(uint16_t(Rd.at(L, K)));
  if (const json::Array *G = Rd.arr(I, "globals"))
    for (const json::Value &GV : *G) {
      const json::Object *GO = GV.getAsObject();
      ReplayGlobal RG;
      RG.Name = Rd.str(GO, "name");
      RG.Addr = uint32_t(Rd.num(GO, "addr"));
      RG.Size = uint32_t(Rd.num(GO, "size"));
      RG.FromElf = Rd.num(GO, "elf") != 0;
      RG.Constant = Rd.num(GO, "constant") != 0;
      if (const json::Array *PO = Rd.arr(GO, "pointers"))
        for (size_t K = 0; K < PO->size(); ++K)
          RG.PointerOffsets.push_back(uint32_t(Rd.at(PO, K)));
      if (const json::Array *PD = Rd.arr(GO, "padding"))
        for (size_t K = 0; K < PD->size(); ++K)
          RG.PaddingOffsets.push_back(uint32_t(Rd.at(PD, K)));
      Info.Globals.push_back(std::move(RG));
    }
  if (const json::Array *FT = Rd.arr(I, "function_table"))
    for (const json::Value &FV : *FT) {
      const json::Object *FO = FV.getAsObject();
      Info.FunctionTable.push_back({Rd.str(FO, "name"), uint32_t(Rd.num(FO, "value"))});
    }
  Info.StackTop = uint32_t(Rd.num(I, "stack_top"));
  Info.StackLimit = uint32_t(Rd.num(I, "stack_limit"));
  if (const json::Array *W = Rd.arr(I, "warnings"))
    for (const json::Value &WV : *W) {
      std::optional<StringRef> S = WV.getAsString();
      if (!S)
        return std::nullopt;
      Info.Warnings.push_back(S->str());
    }
  if (!Rd.OK || ObjKey.empty() || DL.empty())
    return std::nullopt;

  std::unique_ptr<MemoryBuffer> Obj = readCachedObject(RO.JitCacheDir, ObjKey);
  if (!Obj)
    return std::nullopt; // pruned or damaged: the full path compiles it again
  auto R = ReplayRunner::createFromObject(std::move(Obj), DL, Info, std::move(FnArgs),
                                          EntryBits, RO);
  if (!R) {
    consumeError(R.takeError());
    return std::nullopt;
  }
  Out.Runner = std::move(*R);
  return Out;
}

void ReplayStartCache::store(const ReplayRunner &R, const TraceMap &ProgramMap) const {
  if (R.objectKey().empty() || R.dataLayout().empty() || !readCachedObject(Dir, R.objectKey()))
    return; // nothing to start from
  // The record keeps the map as text: it must read back as the same map.
  std::string MapText = ProgramMap.toJSON();
  Expected<TraceMap> Back = TraceMap::parseJSON(MapText, "start record");
  if (!Back) {
    consumeError(Back.takeError());
    return;
  }
  if (*Back != ProgramMap)
    return;
  const ReplayLoweringResult &Info = R.info();
  // JSON holds UTF-8 only: a name it would alter is not recorded.
  for (const auto &[Name, N] : R.functionArgs())
    if (!json::isUTF8(Name))
      return;
  for (const ReplayGlobal &G : Info.Globals)
    if (!json::isUTF8(G.Name))
      return;
  for (const auto &[Name, Value] : Info.FunctionTable)
    if (!json::isUTF8(Name))
      return;
  for (const std::string &W : Info.Warnings)
    if (!json::isUTF8(W))
      return;
  json::Array Globals, Table, Warnings;
  for (const ReplayGlobal &G : Info.Globals) {
    json::Array Ptrs;
    for (uint32_t P : G.PointerOffsets)
      Ptrs.push_back(int64_t(P));
    json::Array Pads;
    for (uint32_t P : G.PaddingOffsets)
      Pads.push_back(int64_t(P));
    Globals.push_back(json::Object{{"name", G.Name},
                                   {"addr", int64_t(G.Addr)},
                                   {"size", int64_t(G.Size)},
                                   {"elf", int64_t(G.FromElf)},
                                   {"constant", int64_t(G.Constant)},
                                   {"pointers", std::move(Ptrs)},
                                   {"padding", std::move(Pads)}});
  }
  for (const auto &[Name, Value] : Info.FunctionTable)
    Table.push_back(json::Object{{"name", Name}, {"value", int64_t(Value)}});
  for (const std::string &W : Info.Warnings)
    Warnings.push_back(W);
  json::Object Fns;
  for (const auto &[Name, N] : R.functionArgs())
    Fns[Name] = int64_t(N);
  json::Object Rec{{"format", Format},
                   {"version", Version},
                   {"key", Key},
                   {"object", R.objectKey()},
                   {"data_layout", R.dataLayout()},
                   {"module_hash", int64_t(ProgramMap.ModuleHash)},
                   {"entry_bits", int64_t(R.entryBits())},
                   {"functions", std::move(Fns)},
                   {"lowering", json::Object{{"target", targetJSON(Info.Target)},
                                             {"globals", std::move(Globals)},
                                             {"function_table", std::move(Table)},
                                             {"stack_top", int64_t(Info.StackTop)},
                                             {"stack_limit", int64_t(Info.StackLimit)},
                                             {"warnings", std::move(Warnings)}}},
                   {"map", MapText}};
  if (sys::fs::create_directories(Dir))
    return;
  std::string Body;
  raw_string_ostream(Body) << json::Value(std::move(Rec)) << "\n";
  std::string Sum = toHex(BLAKE3::hash<32>(arrayRefFromStringRef(Body)), /*LowerCase=*/true);
  writeCacheFile(path(), {Sum, "\n", Body});
}

} // namespace wsn
