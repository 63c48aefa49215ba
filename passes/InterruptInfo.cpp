//===- InterruptInfo.cpp - roles of functions: handlers, tasks, invariants ===//
#include "InterruptInfo.h"

#include "llvm/IR/CallingConv.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace wsn {

const char *handlerKindName(HandlerKind K) {
  switch (K) {
  case HandlerKind::None:
    return "none";
  case HandlerKind::AvrSignal:
    return "avr-signal";
  case HandlerKind::AvrInterrupt:
    return "avr-interrupt";
  case HandlerKind::Msp430:
    return "msp430";
  case HandlerKind::Annotated:
    return "annotated";
  }
  return "none";
}

AnnotationMap collectAnnotations(const Module &M) {
  AnnotationMap Out;
  const GlobalVariable *GA = M.getNamedGlobal("llvm.global.annotations");
  if (!GA || !GA->hasInitializer())
    return Out;
  const auto *Arr = dyn_cast<ConstantArray>(GA->getInitializer());
  if (!Arr)
    return Out;
  for (const Use &U : Arr->operands()) {
    const auto *S = dyn_cast<ConstantStruct>(U.get());
    if (!S || S->getNumOperands() < 2)
      continue;
    const auto *F = dyn_cast<Function>(S->getOperand(0)->stripPointerCasts());
    const auto *Str =
        dyn_cast<GlobalVariable>(S->getOperand(1)->stripPointerCasts());
    if (!F || !Str || !Str->hasInitializer())
      continue;
    const auto *Data = dyn_cast<ConstantDataSequential>(Str->getInitializer());
    if (!Data || !Data->isString())
      continue;
    StringRef Text = Data->getAsString();
    Text = Text.take_until([](char C) { return C == '\0'; });
    Out[F].push_back(Text.str());
  }
  return Out;
}

SmallVector<StringRef, 4> splitNescName(StringRef Name) {
  SmallVector<StringRef, 4> Parts;
  if (Name.contains('$')) {
    Name.split(Parts, '$', -1, /*KeepEmpty=*/false);
    return Parts;
  }
  // "__" separators; a leading "__" (reserved names) is not a separator.
  StringRef Rest = Name;
  size_t Lead = 0;
  while (Lead < Rest.size() && Rest[Lead] == '_')
    ++Lead;
  StringRef Prefix = Rest.take_front(Lead);
  Rest = Rest.drop_front(Lead);
  while (true) {
    size_t Pos = Rest.find("__");
    if (Pos == StringRef::npos || Pos == 0)
      break;
    Parts.push_back(Rest.take_front(Pos));
    Rest = Rest.drop_front(Pos + 2);
  }
  Parts.push_back(Rest);
  if (!Prefix.empty() && Parts.size() == 1)
    return {Name};
  return Parts;
}

FunctionRole classifyFunction(const Function &F,
                              const AnnotationMap &Annotations) {
  FunctionRole R;
  StringRef Name = F.getName();
  R.IsMain = Name == "main";
  R.IsNescAtomic =
      Name == "__nesc_atomic_start" || Name == "__nesc_atomic_end";

  switch (F.getCallingConv()) {
  case CallingConv::AVR_INTR:
    R.Handler = HandlerKind::AvrInterrupt;
    break;
  case CallingConv::AVR_SIGNAL:
    R.Handler = HandlerKind::AvrSignal;
    break;
  case CallingConv::MSP430_INTR:
    R.Handler = HandlerKind::Msp430;
    break;
  default:
    break;
  }
  if (R.Handler == HandlerKind::None) {
    if (F.hasFnAttribute("signal"))
      R.Handler = HandlerKind::AvrSignal;
    else if (F.hasFnAttribute("interrupt"))
      R.Handler = F.getParent() && StringRef(F.getParent()->getTargetTriple())
                                        .starts_with("msp430")
                      ? HandlerKind::Msp430
                      : HandlerKind::AvrInterrupt;
  }
  if (F.hasFnAttribute("interrupt")) {
    unsigned V;
    if (!F.getFnAttribute("interrupt").getValueAsString().getAsInteger(10, V))
      R.Vector = V;
  }
  StringRef Num = Name;
  if (Num.consume_front("__vector_")) {
    unsigned V;
    if (!Num.getAsInteger(10, V)) {
      R.Vector = V;
      if (R.Handler == HandlerKind::None && !F.isDeclaration())
        R.Handler = HandlerKind::AvrSignal; // avr-libc ISR() by name
    }
  }

  auto It = Annotations.find(&F);
  if (It != Annotations.end()) {
    for (const std::string &A : It->second) {
      StringRef S(A);
      if (S == "wsn.invariant") {
        R.IsInvariant = true;
      } else if (S == "wsn.input") {
        R.IsInputHandler = true;
      } else if (S == "wsn.task") {
        R.IsTask = true;
      } else if (S.consume_front("wsn.interrupt")) {
        if (R.Handler == HandlerKind::None)
          R.Handler = HandlerKind::Annotated;
        unsigned V;
        if (S.consume_front(":") && !S.getAsInteger(10, V) && R.Vector < 0)
          R.Vector = V;
      }
    }
  }
  if (!R.IsInvariant && !F.isDeclaration() && Name.starts_with("wsn_invariant_"))
    R.IsInvariant = true;
  if (R.IsInputHandler && R.Handler == HandlerKind::None)
    R.Handler = HandlerKind::Annotated;

  auto Parts = splitNescName(Name);
  if (Parts.size() >= 3 && Parts.back() == "runTask" && F.arg_empty() &&
      !F.isDeclaration())
    R.IsTask = true;
  return R;
}

} // namespace wsn
