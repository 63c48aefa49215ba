//===- InterruptState.h - where interrupts are certainly disabled ---------===//
//
// A forward data-flow analysis of the interrupt-enable flag (AVR SREG bit I,
// MSP430 SR bit GIE) over the mote program (spec/instrumentation.md section
// 7.1). Thesis section 4.2 replays an interrupt at the reference count where it
// arrived and skips uninstrumented calls together with everything that ran
// inside them; both need to know where an interrupt can arrive at all:
//  - a skipped call can only be interrupted when interrupts may be enabled at
//    the call or inside the callee, and only then must its effect carry what
//    the handlers write;
//  - a handler entered with interrupts disabled must count its references to
//    interrupt-shared globals as soon as it, or anything it calls, may enable
//    them.
// The flag is Off or Maybe-on at each point. cli/dint (also in asm), the
// nesC atomic start, and a restore of a status value saved while Off make it
// Off; sei/eint, a status write of unknown value, a call that may enable
// interrupts, and anything not understood make it Maybe-on.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_INTERRUPTSTATE_H
#define WSN_PASSES_INTERRUPTSTATE_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>
#include <map>
#include <set>

namespace llvm {
class Function;
class Instruction;
class Module;
class Value;
} // namespace llvm

namespace wsn {

class InterruptState {
public:
  /// EntryOff(F): F is entered with interrupts disabled (AVR signal handlers,
  /// MSP430 handlers); every other function may be entered with them on.
  InterruptState(const llvm::Module &M,
                 std::function<bool(const llvm::Function &)> EntryOff);

  /// Interrupts are certainly disabled just before I (its function entered as
  /// EntryOff says).
  bool offBefore(const llvm::Instruction &I);
  /// Called with interrupts disabled, F (and everything it calls) never
  /// enables them and returns with them disabled.
  bool keepsOff(const llvm::Function &F);
  /// F, entered as EntryOff says, may run with interrupts enabled somewhere,
  /// itself or inside a callee.
  bool mayRunEnabled(const llvm::Function &F);

private:
  enum : uint8_t { Unreached = 0, Off = 1, On = 2 };
  struct Result {
    llvm::DenseSet<const llvm::Instruction *> OffBefore;
    bool EverOn = false;
    bool EndsOff = true;
  };
  const Result &analyze(const llvm::Function &F, bool EntryOff);
  uint8_t savedState(const llvm::Value *V,
                     const llvm::DenseMap<const llvm::Value *, uint8_t> &Saved,
                     unsigned Depth = 0) const;
  bool flagKnownClear(const llvm::Value *V,
                      const llvm::DenseMap<const llvm::Value *, uint8_t> &Saved) const;

  const llvm::Module &M;
  std::function<bool(const llvm::Function &)> EntryOff;
  bool AVR = false, MSP430 = false;
  uint64_t FlagBit = 0;  ///< I (0x80) or GIE (0x08)
  std::map<std::pair<const llvm::Function *, bool>, Result> Cache;
  std::set<std::pair<const llvm::Function *, bool>> InProgress;
};

} // namespace wsn

#endif
