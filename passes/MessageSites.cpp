//===- MessageSites.cpp - wsn-trace: where messages are sent and received -===//
#include "MessageSites.h"

#include "InterruptInfo.h"
#include "TraceOps.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace wsn {

namespace {

Error makeError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg.str());
}

/// F = argN | argN[OFF:SIZE] | @GLOBAL
Expected<MessageField> parseField(StringRef Text) {
  MessageField F;
  StringRef S = Text.trim();
  if (S.consume_front("@")) {
    if (S.empty())
      return makeError("empty global name in '" + Text + "'");
    F.K = MessageField::Global;
    F.GlobalName = S.str();
    return F;
  }
  if (!S.consume_front("arg"))
    return makeError("field '" + Text + "' is not argN, argN[OFF:SIZE] or @GLOBAL");
  StringRef Num = S.take_while([](char C) { return isDigit(C); });
  S = S.drop_front(Num.size());
  if (Num.empty() || Num.getAsInteger(10, F.ArgNo))
    return makeError("field '" + Text + "': missing argument number");
  if (S.empty())
    return F;
  StringRef Off, Size;
  if (!S.consume_front("[") || !S.consume_back("]"))
    return makeError("field '" + Text + "': expected [OFF:SIZE] after the argument");
  std::tie(Off, Size) = S.split(':');
  if (Off.getAsInteger(10, F.Offset) || Size.getAsInteger(10, F.Size) ||
      (F.Size != 1 && F.Size != 2))
    return makeError("field '" + Text + "': OFF must be a number and SIZE 1 or 2");
  F.K = MessageField::ArgMemory;
  return F;
}

/// Checks that F's signature provides the field.
Error checkField(const Function &Fn, const MessageField &F, StringRef What) {
  if (F.K == MessageField::Global) {
    const GlobalVariable *GV = Fn.getParent()->getNamedGlobal(F.GlobalName);
    if (!GV)
      return makeError(formatv("message {0} of '{1}': no global '{2}'", What,
                               Fn.getName(), F.GlobalName));
    auto *IT = dyn_cast<IntegerType>(GV->getValueType());
    if (!IT || IT->getBitWidth() > 16)
      return makeError(formatv("message {0} of '{1}': global '{2}' is not an "
                               "integer of at most 16 bits",
                               What, Fn.getName(), F.GlobalName));
    return Error::success();
  }
  if (F.ArgNo >= Fn.arg_size())
    return makeError(formatv("message {0} of '{1}': the function has no argument {2}",
                             What, Fn.getName(), F.ArgNo));
  Type *T = Fn.getArg(F.ArgNo)->getType();
  if (F.K == MessageField::ArgMemory && !T->isPointerTy())
    return makeError(formatv("message {0} of '{1}': argument {2} is not a pointer",
                             What, Fn.getName(), F.ArgNo));
  if (F.K == MessageField::Arg &&
      (!T->isIntegerTy() || T->getIntegerBitWidth() > 32))
    return makeError(formatv("message {0} of '{1}': argument {2} is not an integer",
                             What, Fn.getName(), F.ArgNo));
  return Error::success();
}

/// The TinyOS CC2420 header (tos/chips/cc2420/CC2420.h, TinyOS 2.1.2, with
/// the I-frame network byte): length(1) fcf(2) dsn(1) destpan(2) dest(2)
/// src(2) network(1) type(1), little endian (nxle), at the start of message_t
/// (CC2420PacketBody.getHeader: data - sizeof(cc2420_header_t), the header
/// union being exactly that header on micaz and telosb).
constexpr uint32_t Cc2420DsnOffset = 3, Cc2420DestOffset = 6, Cc2420SrcOffset = 8;

std::optional<MessageInterface> tinyosInterface(const Function &F) {
  SmallVector<StringRef, 4> Parts = splitNescName(F.getName());
  if (Parts.size() != 3 || F.arg_size() < 1 || !F.getArg(0)->getType()->isPointerTy())
    return std::nullopt;
  MessageInterface I;
  I.Source = "tinyos-cc2420";
  I.Seq.K = MessageField::ArgMemory;
  I.Seq.Offset = Cc2420DsnOffset;
  I.Seq.Size = 1;
  I.Peer.K = MessageField::ArgMemory;
  I.Peer.Size = 2;
  if (Parts[0] == "UniqueSendP" && Parts[1] == "Send" && Parts[2] == "send" &&
      F.getReturnType()->isIntegerTy()) {
    I.Send = true;
    I.Peer.Offset = Cc2420DestOffset;
    return I;
  }
  if (Parts[0] == "UniqueReceiveP" && Parts[1] == "Receive" && Parts[2] == "receive") {
    I.Send = false;
    I.Peer.Offset = Cc2420SrcOffset;
    return I;
  }
  return std::nullopt;
}

bool isEntryOp(const Instruction &I) {
  return isa<FuncEntryOp>(&I) || isa<IrqEntryOp>(&I);
}
bool isExitOp(const Instruction *I) {
  return I && (isa<FuncExitOp>(I) || isa<IrqExitOp>(I));
}

} // namespace

std::string MessageField::str() const {
  switch (K) {
  case Arg:
    return formatv("arg{0}", ArgNo).str();
  case ArgMemory:
    return formatv("arg{0}[{1}:{2}]", ArgNo, Offset, Size).str();
  case Global:
    return "@" + GlobalName;
  }
  return "";
}

std::optional<Expected<MessageInterface>> parseMessageAnnotation(StringRef S) {
  bool Send;
  if (S.consume_front("wsn.send"))
    Send = true;
  else if (S.consume_front("wsn.recv"))
    Send = false;
  else
    return std::nullopt;
  if (!S.empty() && S.front() != ' ')
    return std::nullopt; // another wsn.* annotation
  MessageInterface I;
  I.Send = Send;
  I.Source = "annotation";
  bool HavePeer = false, HaveSeq = false, HaveLen = false;
  SmallVector<StringRef, 4> Words;
  S.split(Words, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef W : Words) {
    auto [Key, Val] = W.split('=');
    StringRef PeerKey = Send ? "dest" : "sender";
    if (Key == PeerKey || Key == "seq") {
      Expected<MessageField> Fl = parseField(Val);
      if (!Fl)
        return Fl.takeError();
      (Key == "seq" ? I.Seq : I.Peer) = *Fl;
      (Key == "seq" ? HaveSeq : HavePeer) = true;
    } else if (Send && Key == "ok" && (Val == "zero" || Val == "any")) {
      I.OkIsZero = Val == "zero";
    } else if (Key == "payload") {
      StringRef P = Val, Num, Off;
      std::tie(Num, Off) = P.split('+');
      if (!Num.consume_front("arg") || Num.getAsInteger(10, I.PayloadArg) ||
          (P.contains('+') && Off.getAsInteger(10, I.PayloadOffset)))
        return makeError(formatv("annotation '{0}{1}': payload '{2}' is not argN or "
                                 "argN+OFF",
                                 Send ? "wsn.send" : "wsn.recv", S, Val)
                             .str());
      I.HasPayload = true;
    } else if (Key == "len") {
      Expected<MessageField> Fl = parseField(Val);
      if (!Fl)
        return Fl.takeError();
      I.PayloadLen = *Fl;
      HaveLen = true;
    } else {
      return makeError(formatv("annotation '{0}{1}': unknown item '{2}' (expected "
                               "{3}=F seq=F{4} [payload=argN[+OFF] len=F])",
                               Send ? "wsn.send" : "wsn.recv", S, W, PeerKey,
                               Send ? " [ok=zero|any]" : "")
                           .str());
    }
  }
  if (!HavePeer || !HaveSeq)
    return makeError(formatv("annotation '{0}{1}' needs both {2}= and seq=",
                             Send ? "wsn.send" : "wsn.recv", S, Send ? "dest" : "sender")
                         .str());
  if (I.HasPayload != HaveLen)
    return makeError(formatv("annotation '{0}{1}': payload= and len= go together",
                             Send ? "wsn.send" : "wsn.recv", S)
                         .str());
  return I;
}

std::optional<Expected<MessageInterface>> messageInterfaceOf(const Function &F) {
  AnnotationMap Annotations = collectAnnotations(*F.getParent());
  std::optional<Expected<MessageInterface>> Found;
  auto It = Annotations.find(&F);
  if (It != Annotations.end())
    for (const std::string &A : It->second)
      if ((Found = parseMessageAnnotation(A)))
        break;
  if (!Found)
    if (std::optional<MessageInterface> T = tinyosInterface(F))
      Found.emplace(std::move(*T));
  if (!Found || !*Found)
    return Found;
  MessageInterface &I = **Found;
  if (Error E = checkField(F, I.Peer, I.Send ? "destination" : "sender"))
    return Expected<MessageInterface>(std::move(E));
  if (Error E = checkField(F, I.Seq, "sequence number"))
    return Expected<MessageInterface>(std::move(E));
  if (I.HasPayload) {
    if (I.PayloadArg >= F.arg_size() || !F.getArg(I.PayloadArg)->getType()->isPointerTy())
      return Expected<MessageInterface>(makeError(
          formatv("message payload of '{0}': argument {1} is not a pointer", F.getName(),
                  I.PayloadArg)));
    if (Error E = checkField(F, I.PayloadLen, "payload length"))
      return Expected<MessageInterface>(std::move(E));
  }
  if (I.Send && I.OkIsZero && !F.getReturnType()->isIntegerTy())
    return Expected<MessageInterface>(makeError(
        formatv("message send '{0}' returns no integer status (annotate ok=any)",
                F.getName())));
  return Found;
}

bool hasMessageRole(const Function &F) {
  std::optional<Expected<MessageInterface>> I = messageInterfaceOf(F);
  if (!I)
    return false;
  if (!*I)
    consumeError(I->takeError());
  return true;
}

namespace {

/// A function the instrumentation traces (it starts with an entry op).
bool isTraced(const Function &F) {
  if (F.isDeclaration())
    return false;
  for (const Instruction &I : F.getEntryBlock())
    if (isEntryOp(I))
      return true;
  return false;
}

/// Where a message op goes, and the values its fields are read from.
struct MessagePoint {
  Instruction *At = nullptr;   ///< insert before this
  Value *Status = nullptr;     ///< send: the returned status (null: always sent)
  std::vector<Value *> Args;   ///< the interface function's arguments there
  DebugLoc DL;
};

Value *fieldAt(IRBuilder<> &IRB, Module &M, const MessagePoint &P, const MessageField &Fl) {
  Type *I32 = IRB.getInt32Ty();
  switch (Fl.K) {
  case MessageField::Arg:
    return IRB.CreateZExtOrTrunc(P.Args[Fl.ArgNo], I32);
  case MessageField::ArgMemory: {
    Value *Ptr = IRB.CreateConstInBoundsGEP1_32(IRB.getInt8Ty(), P.Args[Fl.ArgNo], Fl.Offset,
                                                "wsn.msg.field");
    LoadInst *L =
        IRB.CreateAlignedLoad(IRB.getIntNTy(8 * Fl.Size), Ptr, Align(1), "wsn.msg.val");
    return IRB.CreateZExt(L, I32);
  }
  case MessageField::Global: {
    GlobalVariable *GV = M.getNamedGlobal(Fl.GlobalName);
    LoadInst *L = IRB.CreateLoad(GV->getValueType(), GV, "wsn.msg.val");
    return IRB.CreateZExt(L, I32);
  }
  }
  return nullptr;
}

/// Replay only (record lowering drops it with its operands): the payload's
/// bytes, kept until the site's send/recv op. A receive's right before its
/// op; a send's where the send starts (P: like a receive's point), since the
/// stack copies the payload into its frame there and the caller's buffer may
/// change before the send returns.
void emitPayload(Module &M, TraceOpBuilder &B, const MessageInterface &I, uint32_t Site,
                 const MessagePoint &P) {
  B.setDebugLoc(P.DL);
  B.setInsertPoint(P.At);
  IRBuilder<> &IRB = B.irb();
  Value *Buf = IRB.CreateConstInBoundsGEP1_32(IRB.getInt8Ty(), P.Args[I.PayloadArg],
                                              I.PayloadOffset, "wsn.msg.payload");
  B.createMsgPayload(Site, Buf, fieldAt(IRB, M, P, I.PayloadLen));
}

void emitAt(Module &M, TraceOpBuilder &B, const MessageInterface &I, uint32_t Site,
            MessagePoint P) {
  Instruction *At = P.At;
  if (I.Send && I.OkIsZero && P.Status) {
    IRBuilder<> IRB(At);
    Value *Ok = IRB.CreateICmpEQ(P.Status, Constant::getNullValue(P.Status->getType()),
                                 "wsn.msg.sent");
    At = SplitBlockAndInsertIfThen(Ok, At, /*Unreachable=*/false);
  }
  B.setDebugLoc(P.DL);
  B.setInsertPoint(At);
  Value *Peer = fieldAt(B.irb(), M, P, I.Peer);
  Value *Seq = fieldAt(B.irb(), M, P, I.Seq);
  if (I.HasPayload && !I.Send)
    emitPayload(M, B, I, Site, P);
  if (I.Send)
    B.createSend(Site, Peer, Seq);
  else
    B.createRecv(Site, Peer, Seq);
}

} // namespace

Expected<MessageOpStats> insertMessageOps(Module &M, TraceOpBuilder &B, IdAllocator &Ids) {
  MessageOpStats Stats;
  std::vector<std::pair<Function *, MessageInterface>> Work;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    std::optional<Expected<MessageInterface>> I = messageInterfaceOf(F);
    if (!I)
      continue;
    if (!*I)
      return I->takeError();
    Work.emplace_back(&F, std::move(**I));
  }
  for (auto &[F, I] : Work) {
    uint32_t Site = Ids.next(IdAllocator::Site);
    if (!I.Send)
      Stats.RecvSites.push_back({Site, F});
    std::vector<MessagePoint> Points;
    if (isTraced(*F)) {
      // Inside the function: RECV right after the entry op; SEND before the
      // exit op of every return.
      std::vector<Value *> Args;
      for (Argument &A : F->args())
        Args.push_back(&A);
      if (!I.Send) {
        for (Instruction &Ins : F->getEntryBlock())
          if (isEntryOp(Ins)) {
            Points.push_back({Ins.getNextNode(), nullptr, Args, DebugLoc()});
            break;
          }
      } else {
        if (I.HasPayload)
          for (Instruction &Ins : F->getEntryBlock())
            if (isEntryOp(Ins)) {
              emitPayload(M, B, I, Site, {Ins.getNextNode(), nullptr, Args, DebugLoc()});
              break;
            }
        for (BasicBlock &BB : *F)
          if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator())) {
            Instruction *At = isExitOp(R->getPrevNode()) ? R->getPrevNode() : R;
            Points.push_back({At, R->getReturnValue(), Args, R->getDebugLoc()});
          }
      }
    } else {
      // The function is not traced (replay skips its calls): the records go
      // around each call in a traced caller, outside the skipped span. RECV
      // before the call (and its skip.begin); SEND after it (and its skip.end
      // and effect, whose value is the status replay sees).
      for (User *U : F->users()) {
        auto *CB = dyn_cast<CallBase>(U);
        if (!CB || CB->getCalledFunction() != F)
          continue;
        Function *Caller = CB->getFunction();
        if (!isTraced(*Caller)) {
          Stats.Warnings.push_back(
              formatv("message {0} '{1}' is called from '{2}', which is not traced: no {3} "
                      "record there",
                      I.Send ? "send" : "receive", F->getName(), Caller->getName(),
                      I.Send ? "SEND" : "RECV")
                  .str());
          continue;
        }
        MessagePoint P;
        P.DL = CB->getDebugLoc();
        for (Value *A : CB->args())
          P.Args.push_back(A);
        if (!I.Send) {
          Instruction *Prev = CB->getPrevNode();
          P.At = Prev && isa<SkipBeginOp>(Prev) ? Prev : CB;
        } else {
          if (I.HasPayload) {
            Instruction *Prev = CB->getPrevNode();
            MessagePoint At = P;
            At.At = Prev && isa<SkipBeginOp>(Prev) ? Prev : CB;
            emitPayload(M, B, I, Site, At);
          }
          Instruction *Last = CB;
          P.Status = CB->getType()->isVoidTy() ? nullptr : CB;
          if (auto *End = dyn_cast_or_null<SkipEndOp>(CB->getNextNode())) {
            Last = End;
            if (auto *Eff = dyn_cast_or_null<EffectOp>(End->getNextNode())) {
              Last = Eff;
              if (!Eff->getType()->isVoidTy())
                P.Status = Eff;
            }
          }
          P.At = Last->getNextNode();
        }
        Points.push_back(P);
      }
    }
    for (MessagePoint &P : Points) {
      emitAt(M, B, I, Site, P);
      ++(I.Send ? Stats.Sends : Stats.Recvs);
    }
  }
  return Stats;
}

} // namespace wsn
