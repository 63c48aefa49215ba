//===- VariableLayout.h - the program's variables in a known order --------===//
//
// spec/instrumentation.md section 10, "Adjacent variables". The record tables list
// (address, size) pairs of globals; two variables that lie next to each other in the mote's
// RAM can be one pair, but where the linker puts each global (one section each with
// -fdata-sections) is not known when the tables are made. VariableLayout fixes it: the
// variables the tables list go, in module order, into one section per kind (`.bss.wsn.vars`
// for zero-initialised ones, `.data.wsn.vars` for the others). The backend emits a section's
// globals in module order, each at its own alignment, and the linker moves a section only as
// a whole, so a variable's successor in that order is its successor in RAM. Only listed
// variables are placed, and they go into llvm.compiler.used: a merged pair names only its
// first variable, and the optimiser must neither delete a placed one (one the program only
// writes would go, and the ones after it move up) nor split one (GlobalOpt inserts the parts
// before the original, between two placed variables).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_VARIABLELAYOUT_H
#define WSN_PASSES_VARIABLELAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cstdint>
#include <vector>

namespace llvm {
class Constant;
class DataLayout;
class GlobalVariable;
class Module;
} // namespace llvm

namespace wsn {

class VariableLayout {
public:
  /// Places the variables of \p Listed that can be (defined, writable, not thread-local, in
  /// address space 0, without a section of their own, not weak or common) into the two
  /// sections in module order, each with its alignment made explicit, and keeps them in the
  /// image (llvm.compiler.used).
  VariableLayout(llvm::Module &M,
                 const llvm::SmallPtrSetImpl<const llvm::GlobalVariable *> &Listed);

  /// Whether the \p SizeA bytes at \p A are immediately followed in RAM by \p B. \p A and
  /// \p B are a placed global, a constant offset into one, or a constant address (an I/O
  /// register). True within one global, from the end of a placed global to the start of its
  /// successor when no padding can fall between them, and between constant addresses.
  bool follows(llvm::Constant *A, uint32_t SizeA, llvm::Constant *B) const;

  /// Sections the variables are placed in.
  static constexpr const char *BssSection = ".bss.wsn.vars";
  static constexpr const char *DataSection = ".data.wsn.vars";

private:
  struct Placed {
    const llvm::GlobalVariable *Next = nullptr; ///< successor in its section
  };
  llvm::Module &M;
  llvm::DenseMap<const llvm::GlobalVariable *, Placed> Order;
};

/// Whether VariableLayout places \p G (defined, writable, not thread-local, in address
/// space 0, without a section of its own, not weak or common) when a table lists it.
bool placeableVariable(const llvm::GlobalVariable &G);

/// The alignment VariableLayout gives a placed \p G.
uint64_t placedAlignment(const llvm::DataLayout &DL, const llvm::GlobalVariable &G);

// Variables ordered by the lists they are in (spec/instrumentation.md section 10, "Variables
// ordered by their lists"). The lists are in module order, so a variable that one list has
// and the next one in module order does not breaks that list's run. orderByLists chooses the
// order of one section's variables; orderVariablesByLists moves the module's globals into it
// before the instrumentation makes the lists again.

/// A variable of one section to order: its size and the alignment it is placed with.
struct OrderVar {
  uint64_t Size = 0;
  uint64_t Align = 1;
};

/// Whether \p B, placed right after \p A in a section, starts where A ends wherever the
/// section puts A (VariableLayout::follows for whole variables).
inline bool mergesAfter(const OrderVar &A, const OrderVar &B) {
  return B.Align <= 1 || (A.Align >= B.Align && A.Size % B.Align == 0);
}

/// The number of (address, size) pairs the tables of \p Lists (indices into \p Vars, each
/// list a set: its members come in the order they are placed) take when Vars lie in one
/// section in \p Order (a permutation of Vars' indices), not counting the split of runs
/// over 255 bytes.
unsigned countListRuns(llvm::ArrayRef<OrderVar> Vars, llvm::ArrayRef<unsigned> Order,
                       llvm::ArrayRef<std::vector<unsigned>> Lists);

/// An order of \p Vars (indices; Vars in module order) with few list runs: the variables
/// grouped by the set of lists they are in (inside a group the aligned ones whose size keeps
/// their alignment, the other aligned ones, the byte-aligned ones, each in module order), the
/// groups ordered by a nearest-neighbour tour improved by
/// segment reversals and moves. Vars from index \p Movable on stay at the end in their
/// order (variables the instrumentation adds after the program's). Deterministic.
std::vector<unsigned> orderByLists(llvm::ArrayRef<OrderVar> Vars, unsigned Movable,
                                   llvm::ArrayRef<std::vector<unsigned>> Lists);

/// What orderVariablesByLists did (for -wsn-stats and tests).
struct VariableOrderStats {
  unsigned Placed = 0;                  ///< listed variables that can be placed
  unsigned Lists = 0;                   ///< distinct table lists
  unsigned RunsBefore = 0, RunsAfter = 0; ///< countListRuns in module order / after
};

/// Moves the globals of \p M that the record tables of \p Instrumented (an instrumented
/// copy of M; \p Original maps its globals to M's) list and VariableLayout can place into
/// the order orderByLists gives for the tables' lists: the zero-initialised ones first, then
/// the others, in the slots the listed globals had in M's global list (the other globals keep
/// their order). The lists are what the record lowering makes tables of: each checkpoint's
/// globals, and for each effect that fits a table either its short form's two parts and the
/// handler part or its whole record, and each check's inputs.
VariableOrderStats
orderVariablesByLists(llvm::Module &M, llvm::Module &Instrumented,
                      const llvm::DenseMap<const llvm::GlobalVariable *, llvm::GlobalVariable *>
                          &Original);

} // namespace wsn

#endif
