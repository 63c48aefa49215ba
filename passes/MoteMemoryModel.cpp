//===- MoteMemoryModel.cpp - mote targets and firmware placement ----------===//
#include "MoteMemoryModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace wsn {

namespace {
struct KnownMCU {
  const char *Name;
  MoteArch Arch;
  uint32_t IOBegin, IOEnd, RamBegin, RamEnd, SREG;
};

// Data-space maps from the datasheets / msp430mcu memory.x files.
// AVR: 32 registers and 224 I/O registers below SRAM; SREG is I/O 0x3F,
// data address 0x5F. MSP430: SFRs and peripherals below 0x200.
const KnownMCU KnownMCUs[] = {
    {"atmega128", MoteArch::AVR, 0x0000, 0x0100, 0x0100, 0x1100, 0x5F},
    {"atmega1281", MoteArch::AVR, 0x0000, 0x0200, 0x0200, 0x2200, 0x5F},
    {"atmega328p", MoteArch::AVR, 0x0000, 0x0100, 0x0100, 0x0900, 0x5F},
    {"msp430f1611", MoteArch::MSP430, 0x0000, 0x0200, 0x1100, 0x3900, 0},
    {"msp430f2617", MoteArch::MSP430, 0x0000, 0x0200, 0x1100, 0x3100, 0},
};
} // namespace

std::string latchSymbolName(uint32_t Addr) {
  return "__wsn_io_0x" + utohexstr(Addr, /*LowerCase=*/true);
}

std::optional<uint32_t> parseLatchSymbolName(StringRef Name) {
  uint32_t A;
  if (!Name.consume_front("__wsn_io_0x") || Name.getAsInteger(16, A))
    return std::nullopt;
  return A;
}

uint32_t ioSpaceEndOfTarget(StringRef Target) {
  uint32_t End = 0;
  for (const KnownMCU &K : KnownMCUs)
    if (Target == (K.Arch == MoteArch::AVR ? "avr" : "msp430"))
      End = std::max(End, K.IOEnd);
  return End;
}

Expected<MoteTarget> lookupMoteTarget(StringRef MCU) {
  std::string Known;
  for (const KnownMCU &K : KnownMCUs) {
    if (MCU.equals_insensitive(K.Name)) {
      MoteTarget T;
      T.Arch = K.Arch;
      T.MCU = K.Name;
      T.IOBegin = K.IOBegin;
      T.IOEnd = K.IOEnd;
      T.RamBegin = K.RamBegin;
      T.RamEnd = K.RamEnd;
      T.StackTop = K.RamEnd;
      T.SREGAddr = K.SREG;
      T.CodePtrShift = K.Arch == MoteArch::AVR ? 1 : 0;
      T.ElfDataOffset = K.Arch == MoteArch::AVR ? 0x800000 : 0;
      if (T.MCU == "atmega128")
        // PORTA..G and DDRA..G (data addresses), MCUCR, TIMSK, EIMSK: the
        // hardware never changes them; a read returns the last write.
        T.Latches = {0x3B, 0x3A, 0x38, 0x37, 0x35, 0x34, 0x32, 0x31, 0x23,
                     0x22, 0x62, 0x61, 0x65, 0x64, 0x55, 0x57, 0x59};
      if (K.Arch == MoteArch::MSP430) {
        // Digital I/O (SLAU049 chapter 9, SLAU144 chapter 8): PxOUT, PxDIR,
        // PxSEL of P1-P6, and P1IES/P1IE/P2IES/P2IE hold what the program
        // wrote; the hardware never changes them (PxIN and PxIFG are not
        // latches). Addresses from the msp430mcu headers msp430x16x.h and
        // msp430x26x.h, the same for both parts.
        T.Latches = {0x21, 0x22, 0x26, 0x24, 0x25,  // P1OUT DIR SEL IES IE
                     0x29, 0x2A, 0x2E, 0x2C, 0x2D,  // P2OUT DIR SEL IES IE
                     0x19, 0x1A, 0x1B,              // P3OUT DIR SEL
                     0x1D, 0x1E, 0x1F,              // P4OUT DIR SEL
                     0x31, 0x32, 0x33,              // P5OUT DIR SEL
                     0x35, 0x36, 0x37};             // P6OUT DIR SEL
        if (T.MCU == "msp430f2617")
          // The F2xx ports' pull-up/down enables PxREN (P1-P8), and P7/P8
          // OUT, DIR, SEL.
          T.Latches.insert(T.Latches.end(), {0x27, 0x2F, 0x10, 0x11, 0x12, 0x13,
                                             0x14, 0x15, 0x3A, 0x3B, 0x3C, 0x3D,
                                             0x3E, 0x3F});
      }
      return T;
    }
    Known += Known.empty() ? "" : ", ";
    Known += K.Name;
  }
  return createStringError(inconvertibleErrorCode(),
                           "unknown mote MCU '%s' (known: %s)",
                           MCU.str().c_str(), Known.c_str());
}

Expected<MoteTarget> moteTargetForModule(const Module &M, StringRef MCUOverride) {
  Triple TT(M.getTargetTriple());
  if (TT.getArch() != Triple::avr && TT.getArch() != Triple::msp430)
    return createStringError(inconvertibleErrorCode(),
                             "module '%s' has target triple '%s': replay "
                             "lowering expects an avr or msp430 mote module",
                             M.getModuleIdentifier().c_str(),
                             M.getTargetTriple().c_str());
  if (!MCUOverride.empty())
    return lookupMoteTarget(MCUOverride);
  if (TT.getArch() == Triple::avr) {
    for (const Function &F : M) {
      Attribute A = F.getFnAttribute("target-cpu");
      if (A.isValid() && !A.getValueAsString().empty())
        return lookupMoteTarget(A.getValueAsString());
    }
    return lookupMoteTarget("atmega128");
  }
  return lookupMoteTarget("msp430f1611");
}

Expected<MoteImage> readMoteImage(StringRef Path) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             Path + ": " + Msg);
  };
  auto BufOrErr = MemoryBuffer::getFile(Path);
  if (!BufOrErr)
    return Fail("cannot read firmware ELF: " + BufOrErr.getError().message());
  auto ObjOrErr = object::ObjectFile::createObjectFile(**BufOrErr);
  if (!ObjOrErr)
    return Fail("not an object file: " + toString(ObjOrErr.takeError()));
  auto *Elf = dyn_cast<object::ELF32LEObjectFile>(ObjOrErr->get());
  if (!Elf)
    return Fail("expected a 32-bit little-endian ELF (avr or msp430)");
  MoteImage Img;
  Img.Path = Path.str();
  uint16_t Machine = Elf->getELFFile().getHeader().e_machine;
  uint64_t DataOffset = 0;
  if (Machine == ELF::EM_AVR) {
    Img.Arch = MoteArch::AVR;
    DataOffset = 0x800000;
  } else if (Machine == ELF::EM_MSP430) {
    Img.Arch = MoteArch::MSP430;
  } else {
    return Fail("ELF machine " + Twine(Machine) +
                " is neither EM_AVR (83) nor EM_MSP430 (105)");
  }

  // The flash image (AVR program memory, what lpm reads): every allocated section with
  // contents below the data space, at its address.
  if (Img.Arch == MoteArch::AVR) {
    for (const object::SectionRef &Sec : Elf->sections()) {
      uint64_t ES = object::ELFSectionRef(Sec).getFlags();
      uint32_t Type = object::ELFSectionRef(Sec).getType();
      uint64_t Addr = Sec.getAddress(), Size = Sec.getSize();
      if (!(ES & ELF::SHF_ALLOC) || Type != ELF::SHT_PROGBITS || Addr >= DataOffset ||
          Size == 0)
        continue;
      if (Addr + Size > 0x20000)
        return Fail("section at flash address 0x" + Twine::utohexstr(Addr) +
                    " runs past 128 KiB of program memory");
      Expected<StringRef> Contents = Sec.getContents();
      if (!Contents)
        return Fail("cannot read a flash section: " + toString(Contents.takeError()));
      if (Img.Flash.size() < Addr + Size)
        Img.Flash.resize(Addr + Size, 0xFF);
      std::copy(Contents->begin(), Contents->end(), Img.Flash.begin() + Addr);
    }
  }

  for (const object::ELFSymbolRef &Sym : Elf->symbols()) {
    Expected<StringRef> NameOrErr = Sym.getName();
    if (!NameOrErr)
      return Fail("bad symbol name: " + toString(NameOrErr.takeError()));
    StringRef Name = *NameOrErr;
    if (Name.empty())
      continue;
    uint8_t Type = Sym.getELFType();
    Expected<uint64_t> ValueOrErr = Sym.getValue();
    if (!ValueOrErr)
      return Fail("symbol '" + Name + "': " + toString(ValueOrErr.takeError()));
    uint64_t Value = *ValueOrErr;
    if (Img.Arch == MoteArch::AVR && Name == "__stack") {
      Img.StackTop = uint32_t(Value & 0xFFFF) + 1; // RAMEND + 1
      continue;
    }
    if (Img.Arch == MoteArch::MSP430 && (Name == "__stack" || Name == "_estack")) {
      Img.StackTop = uint32_t(Value & 0xFFFF);
      continue;
    }
    Expected<object::section_iterator> SecOrErr = Sym.getSection();
    if (!SecOrErr)
      return Fail("symbol '" + Name + "': " + toString(SecOrErr.takeError()));
    if (*SecOrErr == Elf->section_end()) {
      // Absolute or undefined. An MSP430 absolute symbol in the peripheral space is a
      // register's address (mspgcc's `__P1IFG`); others are linker values, not objects.
      if (Img.Arch == MoteArch::MSP430 && Value < 0x200 &&
          (Type == ELF::STT_NOTYPE || Type == ELF::STT_OBJECT)) {
        Expected<uint32_t> Flags = Sym.getFlags();
        if (!Flags)
          consumeError(Flags.takeError());
        else if ((*Flags & object::SymbolRef::SF_Absolute) &&
                 !(*Flags & object::SymbolRef::SF_Undefined))
          Img.Absolute[Name] = {Value, Sym.getSize(), false};
      }
      continue;
    }
    const object::SectionRef &Sec = **SecOrErr;
    if (Type == ELF::STT_FUNC) {
      Img.Code[Name] = {Value, Sym.getSize()};
      continue;
    }
    if (Type != ELF::STT_OBJECT)
      continue;
    uint64_t Addr = Value;
    bool InRam = true;
    if (Img.Arch == MoteArch::AVR) {
      if (Value < DataOffset) {
        // PROGMEM object in flash: not in the data space.
        Img.Progmem[Name] = {Value, Sym.getSize(), false};
        continue;
      }
      Addr = Value - DataOffset;
    } else if (Sec.isText()) {
      continue;
    } else {
      // MSP430: constants (.rodata) sit in flash in the same address space; they have an
      // address but take no RAM (issue 16: a flash constant counted as RAM left no room
      // for the replay stack).
      InRam = object::ELFSectionRef(Sec).getFlags() & ELF::SHF_WRITE;
    }
    if (Addr > 0xFFFF)
      continue; // EEPROM (0x810000) and beyond
    // A name can repeat (file-local statics of several translation units
    // linked together); the IR module then has them renamed, so the
    // ambiguous entry is dropped and the global falls back to an error.
    auto [It, Inserted] = Img.Data.try_emplace(Name, MoteSymbol{Addr, Sym.getSize(), InRam});
    if (!Inserted)
      It->second.Size = ~uint64_t(0); // marks ambiguity
    if (InRam)
      Img.DataEnd = std::max<uint32_t>(Img.DataEnd, uint32_t(Addr + Sym.getSize()));
  }
  for (auto It = Img.Data.begin(); It != Img.Data.end();) {
    auto Cur = It++;
    if (Cur->second.Size == ~uint64_t(0))
      Img.Data.erase(Cur);
  }
  return Img;
}

void collectPaddingOffsets(const DataLayout &DL, Type *Ty, uint64_t Off,
                           std::vector<uint32_t> &Out) {
  if (Out.size() > 4096)
    return;
  if (auto *ST = dyn_cast<StructType>(Ty)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    uint64_t End = 0; // end of the members so far
    for (unsigned I = 0, E = ST->getNumElements(); I != E; ++I) {
      uint64_t At = SL->getElementOffset(I);
      for (uint64_t B = End; B < At; ++B)
        Out.push_back(uint32_t(Off + B));
      collectPaddingOffsets(DL, ST->getElementType(I), Off + At, Out);
      End = At + DL.getTypeStoreSize(ST->getElementType(I));
    }
    for (uint64_t B = End; B < DL.getTypeAllocSize(ST); ++B)
      Out.push_back(uint32_t(Off + B));
  } else if (auto *AT = dyn_cast<ArrayType>(Ty)) {
    uint64_t Stride = DL.getTypeAllocSize(AT->getElementType());
    uint64_t Store = DL.getTypeStoreSize(AT->getElementType());
    if (!isa<StructType, ArrayType>(AT->getElementType()) && Stride == Store)
      return; // no holes in an array of scalars
    for (uint64_t I = 0, E = AT->getNumElements(); I != E; ++I) {
      collectPaddingOffsets(DL, AT->getElementType(), Off + I * Stride, Out);
      for (uint64_t B = Store; B < Stride && !isa<StructType>(AT->getElementType()); ++B)
        Out.push_back(uint32_t(Off + I * Stride + B));
    }
  }
}

std::vector<std::pair<uint32_t, uint32_t>> nonPaddingRuns(const DataLayout &DL, Type *Ty,
                                                          uint32_t Size) {
  std::vector<uint32_t> Pad;
  collectPaddingOffsets(DL, Ty, 0, Pad);
  std::vector<bool> Skip(Size, false);
  for (uint32_t Off : Pad)
    if (Off < Size)
      Skip[Off] = true;
  std::vector<std::pair<uint32_t, uint32_t>> Runs;
  for (uint32_t B = 0; B < Size; ++B) {
    if (Skip[B])
      continue;
    if (!Runs.empty() && Runs.back().first + Runs.back().second == B)
      ++Runs.back().second;
    else
      Runs.push_back({B, 1});
  }
  return Runs;
}

} // namespace wsn
