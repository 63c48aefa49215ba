//===- TestUtil.h - helpers shared by the Preprocessor unit tests ---------===//
#ifndef WSN_UNITTESTS_PREPROCESSOR_TESTUTIL_H
#define WSN_UNITTESTS_PREPROCESSOR_TESTUTIL_H

#include "Preprocessor.h"
#include "ReplayLog.h"
#include "TraceFormat.h"

#include "llvm/Support/Error.h"
#include "gtest/gtest.h"

#include <string>

namespace wsn::test {

/// The value of E, failing the test (with the message) on an error.
template <typename T> T take(llvm::Expected<T> E) {
  if (!E) {
    ADD_FAILURE() << "unexpected error: " << llvm::toString(E.takeError());
    return T();
  }
  return std::move(*E);
}

inline std::string errText(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : std::string("<success>");
}
template <typename T> std::string errText(llvm::Expected<T> E) {
  if (E)
    return "<success>";
  return llvm::toString(E.takeError());
}

/// "" on success; otherwise the divergence's record index and text (or the
/// text of another error, prefixed "OTHER: ").
struct Outcome {
  bool Ok = true;
  bool Divergence = false, End = false;
  size_t Record = 0;
  std::string Text;
};
inline Outcome outcome(llvm::Error E) {
  Outcome O;
  if (!E)
    return O;
  O.Ok = false;
  llvm::handleAllErrors(
      std::move(E),
      [&](const ReplayDivergence &D) {
        O.Divergence = true;
        O.Record = D.Record;
        O.Text = D.message();
      },
      [&](const ReplayEnd &D) {
        O.End = true;
        O.Record = D.Record;
        O.Text = D.message();
      },
      [&](const llvm::ErrorInfoBase &B) { O.Text = "OTHER: " + B.message(); });
  return O;
}
template <typename T> Outcome outcome(llvm::Expected<T> E) {
  return outcome(E ? llvm::Error::success() : E.takeError());
}

inline PreprocessedTrace preprocess(const TraceWriter &W, PreprocessOptions O = {}) {
  auto F = TraceFile::parse(W.bytes());
  if (!F) {
    ADD_FAILURE() << llvm::toString(F.takeError());
    return PreprocessedTrace();
  }
  return take(preprocessTrace(*F, O));
}

/// Repeat false: every control record as its own byte (no REPEAT, spec/trace-format.md
/// section 3.8), for tests whose point is where records fall in the segments.
inline TraceWriter writer(uint16_t Buf = 1024, uint16_t Seg = 256, bool BlackBox = true,
                          uint32_t Hash = 0, uint16_t Node = 0, bool Repeat = true) {
  TraceWriter::Options O;
  O.Repeat = Repeat;
  O.BufSize = Buf;
  O.SegSize = Seg;
  O.BlackBox = BlackBox;
  O.ModuleHash = Hash;
  O.NodeId = Node;
  return llvm::cantFail(TraceWriter::create(O));
}

} // namespace wsn::test

#endif
