//===- SimFirmware.cpp - what wsn-sim needs to know about a firmware ELF --===//
#include "SimFirmware.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace llvm::object;

namespace wsn {
namespace sim {

const char *const NodeIdSymbolNames[4] = {"TOS_NODE_ID", "ActiveMessageAddressC$addr",
                                          "ActiveMessageAddressC__addr", "__wsn_node_id"};

static Error fwError(StringRef Path, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "'" + Path + "': " + Msg);
}

Expected<uint32_t> codeAddress(StringRef Path, StringRef Name) {
  uint64_t Num;
  if (Name.starts_with_insensitive("0x") && !Name.getAsInteger(0, Num)) {
    if (Num & 1)
      return fwError(Path, "--count-pc " + Name + ": an instruction address is even");
    return static_cast<uint32_t>(Num);
  }
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return fwError(Path, "cannot open firmware: " + Buf.getError().message());
  auto Obj = ObjectFile::createObjectFile((*Buf)->getMemBufferRef());
  if (!Obj)
    return fwError(Path, "invalid ELF: " + toString(Obj.takeError()));
  for (const SymbolRef &Sym : (*Obj)->symbols()) {
    Expected<StringRef> N = Sym.getName();
    if (!N) {
      consumeError(N.takeError());
      continue;
    }
    if (*N != Name)
      continue;
    Expected<uint64_t> A = Sym.getAddress();
    if (!A) {
      consumeError(A.takeError());
      continue;
    }
    Expected<SymbolRef::Type> Ty = Sym.getType();
    bool IsData = Ty ? *Ty == SymbolRef::ST_Data : (consumeError(Ty.takeError()), false);
    if (*A >= AvrDataOffset || IsData)
      return fwError(Path, "--count-pc " + Name + " is a data symbol, not code");
    return static_cast<uint32_t>(*A);
  }
  return fwError(Path, "--count-pc: no symbol '" + Name + "' in the firmware");
}

Expected<FirmwareInfo> inspectFirmware(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return fwError(Path, "cannot open firmware: " + Buf.getError().message());
  StringRef Bytes = (*Buf)->getBuffer();
  if (Bytes.size() < 4 || !Bytes.starts_with("\x7f"
                                             "ELF"))
    return fwError(Path, "not an ELF file (bad magic at offset 0)");
  auto Obj = ObjectFile::createObjectFile((*Buf)->getMemBufferRef());
  if (!Obj)
    return fwError(Path, "invalid ELF: " + toString(Obj.takeError()));
  auto *Elf = dyn_cast<ELF32LEObjectFile>(Obj->get());
  if (!Elf)
    return fwError(Path, "not a 32-bit little-endian ELF (AVR and MSP430 firmware is ELF32 LSB)");
  uint16_t Machine = Elf->getELFFile().getHeader().e_machine;
  if (Machine != ELF::EM_AVR && Machine != ELF::EM_MSP430)
    return fwError(Path, "ELF machine is " + Twine(Machine) + ", not AVR (" +
                             Twine(unsigned(ELF::EM_AVR)) + ") or MSP430 (" +
                             Twine(unsigned(ELF::EM_MSP430)) + ")");
  const bool Msp = Machine == ELF::EM_MSP430;
  if (Elf->getELFFile().getHeader().e_type != ELF::ET_EXEC)
    return fwError(Path, "not a linked executable (ELF type " +
                             Twine(Elf->getELFFile().getHeader().e_type) + "); link it with " +
                             (Msp ? "wsn-cc --target=msp430" : "avr-gcc -mmcu=..."));
  // Data-space addresses: AVR symbols carry the 0x800000 offset, MSP430 ones do not.
  const uint64_t DataOffset = Msp ? 0 : AvrDataOffset;
  // (MSP430: below the end of the largest RAM of the parts, 0x3900 on the F1611; the node
  // checks its own part.)
  auto InData = [&](uint64_t A) { return Msp ? A < 0x3900 : A >= AvrDataOffset; };

  FirmwareInfo FI;
  FI.Path = Path.str();
  FI.Machine = Machine;
  // .data's address and size: initialised variables live there.
  uint64_t DataAddr = 0, DataSize = 0;
  for (const SectionRef &Sec : Elf->sections()) {
    Expected<StringRef> SN = Sec.getName();
    if (SN && *SN == ".data") {
      DataAddr = Sec.getAddress();
      DataSize = Sec.getSize();
    } else if (SN && *SN == ".vectors" && Msp) {
      FI.Msp430VectorBase = uint32_t(Sec.getAddress());
    } else if (!SN) {
      consumeError(SN.takeError());
    }
  }
  if (Msp) {
    auto Phdrs = Elf->getELFFile().program_headers();
    if (!Phdrs)
      return fwError(Path, "invalid program headers: " + toString(Phdrs.takeError()));
    FI.Msp430Part = "msp430f1611";
    for (const auto &Ph : *Phdrs)
      if (Ph.p_type == ELF::PT_LOAD && Ph.p_filesz &&
          ((Ph.p_paddr < 0x4000 && Ph.p_paddr + Ph.p_filesz > 0x3100) ||
           Ph.p_paddr + Ph.p_filesz > 0x10000))
        FI.Msp430Part = "msp430f2617";
    // The 32-slot table of the F2617 starts at 0xFFC0 (the F1611's 16 slots at 0xFFE0).
    if (FI.Msp430VectorBase == 0xFFC0)
      FI.Msp430Part = "msp430f2617";
  }
  if (Msp && DataSize) {
    // The startup code copies .data from its load address (LMA) in flash: the PT_LOAD
    // segment holding its VMA says where that is.
    auto Phdrs = Elf->getELFFile().program_headers();
    if (!Phdrs)
      return fwError(Path, "invalid program headers: " + toString(Phdrs.takeError()));
    bool Found = false;
    for (const auto &Ph : *Phdrs)
      if (Ph.p_type == ELF::PT_LOAD && DataAddr >= Ph.p_vaddr &&
          DataAddr + DataSize <= Ph.p_vaddr + Ph.p_filesz) {
        FI.DataLoadAddr = static_cast<uint32_t>(Ph.p_paddr + (DataAddr - Ph.p_vaddr));
        Found = true;
        break;
      }
    if (!Found)
      return fwError(Path, ".data (0x" + utohexstr(DataAddr) + ", " + Twine(DataSize) +
                               " bytes) lies in no loadable segment");
  }
  bool HaveTrace = false, HaveCheck = false, HaveViol = false;
  for (const ELFSymbolRef &Sym : Elf->symbols()) {
    Expected<StringRef> Name = Sym.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    Expected<uint64_t> Addr = Sym.getAddress();
    if (!Addr) {
      consumeError(Addr.takeError());
      continue;
    }
    if (*Name == "__wsn_trace") {
      if (!InData(*Addr))
        return fwError(Path, "__wsn_trace at 0x" + utohexstr(*Addr) +
                                 " is not in the data space" +
                                 (Msp ? "" : " (expected 0x800000 + address)"));
      FI.TraceAddr = static_cast<uint32_t>(*Addr - DataOffset);
      FI.TraceSize = static_cast<uint32_t>(Sym.getSize());
      HaveTrace = true;
    } else if (*Name == "__wsn_check_hook") {
      FI.CheckHook = static_cast<uint32_t>(*Addr);
      HaveCheck = true;
    } else if (*Name == "__wsn_violation_hook") {
      FI.ViolationHook = static_cast<uint32_t>(*Addr);
      HaveViol = true;
    } else if (*Name == "__trampolines_start" && !Msp && *Addr < AvrDataOffset) {
      FI.VectorsEnd = static_cast<uint32_t>(*Addr);
    }
    if (*Name == "__wsn_rt_skip_depth" && InData(*Addr))
      FI.SkipDepthAddr = static_cast<uint32_t>(*Addr - DataOffset);
    if (*Name == (Msp ? "__wsn_noinit_end" : "_end") && InData(*Addr))
      FI.RamEnd = static_cast<uint32_t>(*Addr - DataOffset);
    if (*Name == "__wsn_node_id" && InData(*Addr))
      FI.NodeIdAddr = static_cast<uint32_t>(*Addr - DataOffset);
    for (const char *IdName : NodeIdSymbolNames) {
      if (*Name != IdName)
        continue;
      if (!InData(*Addr))
        return fwError(Path, *Name + " at 0x" + utohexstr(*Addr) +
                                 " is not in the data space" +
                                 (Msp ? "" : " (expected 0x800000 + address)"));
      IdSymbol S;
      S.Name = Name->str();
      S.Addr = static_cast<uint32_t>(*Addr - DataOffset);
      S.Size = Sym.getSize() >= 2 || Sym.getSize() == 0 ? 2 : 1;
      Expected<section_iterator> Sec = Sym.getSection();
      StringRef SecName;
      if (Sec && *Sec != Elf->section_end()) {
        if (Expected<StringRef> SN = (*Sec)->getName())
          SecName = *SN;
        else
          consumeError(SN.takeError());
      } else if (!Sec) {
        consumeError(Sec.takeError());
      }
      if (SecName == ".data" && *Addr >= DataAddr && *Addr + S.Size <= DataAddr + DataSize) {
        S.Where = IdSymbol::Data;
        S.DataOffset = static_cast<uint32_t>(*Addr - DataAddr);
      } else if (SecName == ".bss" || SecName.starts_with(".bss.")) {
        S.Where = IdSymbol::Bss;
      } else {
        S.Where = IdSymbol::NoInit; // .noinit and anything the startup leaves alone
      }
      FI.IdSymbols.push_back(std::move(S));
    }
  }
  if (HaveTrace && !HaveCheck && !HaveViol)
    return fwError(Path, "firmware checks no invariant (it has the trace ring __wsn_trace but "
                         "no __wsn_check_hook / __wsn_violation_hook: every WSN_CHECK was "
                         "removed, e.g. folded away as always true; wsn-cc warns about this)");
  if (!HaveTrace && !HaveCheck && !HaveViol)
    return FI; // any firmware: no trace, no hooks (spec/wsn-sim.md, section 2)
  if (!HaveTrace || !HaveCheck || !HaveViol) {
    std::string Missing;
    for (auto [Have, N] : {std::pair{HaveTrace, "__wsn_trace"},
                           std::pair{HaveCheck, "__wsn_check_hook"},
                           std::pair{HaveViol, "__wsn_violation_hook"}})
      if (!Have)
        Missing += (Missing.empty() ? "" : ", ") + std::string(N);
    return fwError(Path, "firmware has an incomplete trace runtime (missing symbol(s) " +
                             Missing + "); build it with wsn-cc or link trace-runtime/src/*.c");
  }
  if (FI.TraceSize < 32)
    return fwError(Path, "__wsn_trace is " + Twine(FI.TraceSize) +
                             " bytes, smaller than the 32-byte trace header");
  FI.HasRuntime = true;
  return FI;
}

} // namespace sim
} // namespace wsn
