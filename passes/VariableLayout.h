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

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cstdint>

namespace llvm {
class Constant;
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

} // namespace wsn

#endif
