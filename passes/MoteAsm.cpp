//===- MoteAsm.cpp - the inline asm statements wsn-trace understands ------===//
//
// See MoteAsm.h. The statements are matched after normalising the text
// (lower case, single spaces, ';' as a statement separator).
//
//===----------------------------------------------------------------------===//
#include "MoteAsm.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"

#include <optional>

using namespace llvm;

namespace wsn {

static std::string normaliseAsm(StringRef S) {
  std::string R;
  for (char C : S.lower()) {
    if (C == '\t')
      C = ' ';
    if (C == ' ' && (R.empty() || R.back() == ' ' || R.back() == ',' || R.back() == '\n'))
      continue;
    if (C == ',' && !R.empty() && R.back() == ' ')
      R.pop_back();
    if ((C == '\n' || C == ';') && !R.empty() && R.back() == ' ')
      R.pop_back();
    R += (C == ';') ? '\n' : C;
  }
  return R;
}

bool isStatusAddress(const Value *Ptr, MoteArch Arch) {
  if (Arch != MoteArch::AVR)
    return false;
  if (auto *CE = dyn_cast<ConstantExpr>(Ptr->stripPointerCasts()))
    if (CE->getOpcode() == Instruction::IntToPtr)
      if (auto *CI = dyn_cast<ConstantInt>(CE->getOperand(0)))
        return CI->getZExtValue() == AvrSregAddr;
  return false;
}

bool isStatusRead(const Value *V, MoteArch Arch) {
  if (auto *LI = dyn_cast<LoadInst>(V))
    return isStatusAddress(LI->getPointerOperand(), Arch);
  auto *CB = dyn_cast<CallBase>(V);
  std::vector<AsmStmt> St;
  return CB && CB->isInlineAsm() && parseMoteAsm(*CB, Arch, St, nullptr) &&
         llvm::any_of(St, [](const AsmStmt &S) { return S.Op == AsmOp::ReadStatus; });
}

bool asmMaySleep(const CallBase &CB, MoteArch Arch) {
  std::vector<AsmStmt> St;
  if (!CB.isInlineAsm() || !parseMoteAsm(CB, Arch, St, nullptr))
    return false;
  bool Msp = Arch == MoteArch::MSP430;
  return llvm::any_of(St, [Msp](const AsmStmt &S) {
    switch (S.Op) {
    case AsmOp::Sleep:
      return true;
    case AsmOp::WriteStatus:
      return Msp; // MSP430 `mov x, r2`: the value decides (AVR SREG has no sleep bit)
    case AsmOp::OrStatus:
      return S.Operand >= 0 || (S.Imm & 0xF0) != 0;
    default:
      return false;
    }
  });
}

std::vector<int> asmOperandArgs(const CallBase &CB) {
  std::vector<int> OperandArg;
  unsigned NextArg = 0;
  for (const InlineAsm::ConstraintInfo &CI :
       cast<InlineAsm>(CB.getCalledOperand())->ParseConstraints()) {
    if (CI.Type == InlineAsm::isClobber)
      continue;
    OperandArg.push_back(CI.Type == InlineAsm::isOutput && !CI.isIndirect
                             ? -1
                             : int(NextArg++));
  }
  return OperandArg;
}

bool parseMoteAsm(const CallBase &CB, MoteArch Arch, std::vector<AsmStmt> &Out,
                  std::string *Unsupported) {
  auto *IA = cast<InlineAsm>(CB.getCalledOperand());
  std::vector<int> OperandArg = asmOperandArgs(CB);
  auto OperandIndex = [&](StringRef Tok) -> int {
    if (Tok.consume_front("${"))
      Tok = Tok.take_until([](char C) { return C == '}' || C == ':'; });
    else if (!Tok.consume_front("$") && !Tok.consume_front("%"))
      return -1;
    unsigned K;
    if (Tok.getAsInteger(10, K) || K >= OperandArg.size())
      return -1;
    return int(K);
  };
  auto Number = [&](StringRef Tok) -> std::optional<uint64_t> {
    Tok.consume_front("#");
    if (Tok == "__sreg__")
      return 0x3f;
    int K = OperandIndex(Tok);
    if (K >= 0) {
      if (OperandArg[K] < 0)
        return std::nullopt;
      if (auto *C = dyn_cast<ConstantInt>(CB.getArgOperand(OperandArg[K])))
        return C->getZExtValue();
      return std::nullopt;
    }
    uint64_t V;
    if (!Tok.getAsInteger(0, V))
      return V;
    return std::nullopt;
  };
  auto IsSR = [](StringRef Tok) { return Tok == "r2" || Tok == "sr"; };
  // The input operand bound to the Z register (constraint "z"), or -1.
  int ZOperand = -1;
  {
    unsigned K = 0;
    for (const InlineAsm::ConstraintInfo &CI : IA->ParseConstraints()) {
      if (CI.Type == InlineAsm::isClobber)
        continue;
      if (CI.Type == InlineAsm::isInput && !CI.isIndirect && CI.Codes.size() == 1 &&
          CI.Codes[0] == "z" && OperandArg[K] >= 0)
        ZOperand = int(K);
      ++K;
    }
  }
  // An output operand, possibly with a byte modifier (%A0 .. %D0 -> ${0:a} .. ${0:d}):
  // {operand, byte}, or {-1, 0}.
  auto OutputByte = [&](StringRef Tok) -> std::pair<int, unsigned> {
    unsigned Byte = 0;
    if (Tok.starts_with("${") && Tok.ends_with("}")) {
      StringRef In = Tok.drop_front(2).drop_back();
      auto [Num, Mod] = In.split(':');
      if (Mod.size() == 1 && Mod[0] >= 'a' && Mod[0] <= 'd')
        Byte = unsigned(Mod[0] - 'a');
      else if (!Mod.empty())
        return {-1, 0};
      Tok = Num;
    } else if (!Tok.consume_front("$") && !Tok.consume_front("%")) {
      return {-1, 0};
    }
    unsigned K;
    if (Tok.getAsInteger(10, K) || K >= OperandArg.size() || OperandArg[K] >= 0)
      return {-1, 0};
    return {int(K), Byte};
  };

  std::string Text = normaliseAsm(IA->getAsmString());
  SmallVector<StringRef, 4> Stmts;
  StringRef(Text).split(Stmts, '\n', -1, false);
  for (StringRef St : Stmts) {
    St = St.trim();
    if (St.empty())
      continue;
    auto [Mn, Rest] = St.split(' ');
    SmallVector<StringRef, 2> Ops;
    if (!Rest.empty())
      Rest.split(Ops, ',');
    for (StringRef &O : Ops)
      O = O.trim();
    bool AVR = Arch == MoteArch::AVR;
    if (Mn == "nop" && Ops.empty()) {
      Out.push_back({AsmOp::Nothing});
      continue;
    }
    if (AVR && Ops.empty()) {
      if (Mn == "sei") { Out.push_back({AsmOp::IrqEnable}); continue; }
      if (Mn == "cli") { Out.push_back({AsmOp::IrqDisable}); continue; }
      if (Mn == "sleep") { Out.push_back({AsmOp::Sleep}); continue; }
      if (Mn == "wdr") { Out.push_back({AsmOp::Nothing}); continue; }
    }
    if (AVR && Mn == "lpm" && Ops.size() == 2 && (Ops[1] == "z" || Ops[1] == "z+") &&
        ZOperand >= 0) {
      auto [Dst, Byte] = OutputByte(Ops[0]);
      if (Dst >= 0) {
        AsmStmt S{AsmOp::LoadProgram, Dst, Byte};
        S.Addr = ZOperand;
        S.PostInc = Ops[1] == "z+";
        Out.push_back(S);
        continue;
      }
    }
    if (AVR && Mn == "in" && Ops.size() == 2) {
      int Dst = OperandIndex(Ops[0]);
      auto Port = Number(Ops[1]);
      if (Dst >= 0 && OperandArg[Dst] < 0 && Port && *Port == 0x3f) {
        Out.push_back({AsmOp::ReadStatus, Dst});
        continue;
      }
    }
    if (AVR && Mn == "out" && Ops.size() == 2) {
      int Src = OperandIndex(Ops[1]);
      auto Port = Number(Ops[0]);
      if (Src >= 0 && OperandArg[Src] >= 0 && Port && *Port == 0x3f) {
        Out.push_back({AsmOp::WriteStatus, Src});
        continue;
      }
    }
    if (!AVR) {
      StringRef Base = Mn.split('.').first;
      if (Ops.empty() && Mn == "dint") { Out.push_back({AsmOp::IrqDisable}); continue; }
      if (Ops.empty() && Mn == "eint") { Out.push_back({AsmOp::IrqEnable}); continue; }
      if ((Base == "bis" || Base == "bic") && Ops.size() == 2 && IsSR(Ops[1])) {
        AsmOp K = Base == "bis" ? AsmOp::OrStatus : AsmOp::AndNotStatus;
        int Src = OperandIndex(Ops[0]);
        if (auto Imm = Number(Ops[0])) {
          Out.push_back({K, -1, *Imm});
          continue;
        }
        if (Src >= 0 && OperandArg[Src] >= 0) {
          Out.push_back({K, Src});
          continue;
        }
      }
      if (Base == "mov" && Ops.size() == 2) {
        int Dst = OperandIndex(Ops[1]), Src = OperandIndex(Ops[0]);
        if (IsSR(Ops[0]) && Dst >= 0 && OperandArg[Dst] < 0) {
          Out.push_back({AsmOp::ReadStatus, Dst});
          continue;
        }
        if (IsSR(Ops[1]) && Src >= 0 && OperandArg[Src] >= 0) {
          Out.push_back({AsmOp::WriteStatus, Src});
          continue;
        }
      }
    }
    if (Unsupported)
      *Unsupported = St.str();
    return false;
  }
  return true;
}

} // namespace wsn
