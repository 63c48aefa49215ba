//===- JsonNesting.cpp - bound the nesting of JSON before parsing it ------===//
#include "JsonNesting.h"

#include "llvm/ADT/Twine.h"

using namespace llvm;

namespace wsn {

Error checkJsonNesting(StringRef Text, unsigned MaxDepth) {
  unsigned Depth = 0, Line = 1;
  size_t LineStart = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (C == '\n') {
      ++Line;
      LineStart = I + 1;
    }
    if (InString) {
      if (C == '\\')
        ++I; // the escaped character cannot end the string
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > MaxDepth)
        return createStringError(inconvertibleErrorCode(),
                                 "line " + Twine(Line) + ", column " +
                                     Twine(I - LineStart + 1) +
                                     ": JSON nested deeper than " + Twine(MaxDepth) +
                                     " levels");
    } else if ((C == ']' || C == '}') && Depth) {
      --Depth;
    }
  }
  return Error::success();
}

} // namespace wsn
