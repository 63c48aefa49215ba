//===- TraceReseal.cpp - test helper: rewrite a trace's check values -------------===//
//
// wsn-trace-reseal IN OUT: writes IN with every retained segment's check value recomputed
// from the bytes it now holds (spec/trace-format.md section 1.2), i.e. the trace as a
// runtime that wrote these bytes would have left it. Tests use it to build traces whose
// records disagree with the header or the program while the segments are intact (the damage
// those tests are about is not a change after the write). Not a user tool.
//
//===----------------------------------------------------------------------===//
#include "TraceFormat.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <system_error>

using namespace llvm;

int main(int argc, char **argv) {
  if (argc != 3) {
    errs() << "usage: wsn-trace-reseal IN.wtr OUT.wtr\n";
    return 2;
  }
  auto MB = MemoryBuffer::getFile(argv[1], /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!MB) {
    errs() << "wsn-trace-reseal: " << argv[1] << ": " << MB.getError().message() << "\n";
    return 2;
  }
  StringRef D = (*MB)->getBuffer();
  std::vector<uint8_t> B(D.begin(), D.end());
  if (Error E = wsn::resealTrace(B)) {
    errs() << "wsn-trace-reseal: " << argv[1] << ": " << toString(std::move(E)) << "\n";
    return 1;
  }
  std::error_code EC;
  raw_fd_ostream OS(argv[2], EC);
  if (EC) {
    errs() << "wsn-trace-reseal: " << argv[2] << ": " << EC.message() << "\n";
    return 2;
  }
  OS.write(reinterpret_cast<const char *>(B.data()), B.size());
  return 0;
}
