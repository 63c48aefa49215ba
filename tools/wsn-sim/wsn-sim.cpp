//===- wsn-sim.cpp - run MicaZ (AVR) and TelosB (MSP430) firmware ---------===//
//
//   wsn-sim run FW.elf --seed S -o DIR [options]     one node
//   wsn-sim net TOPO --node ID=FW.elf ... --seed S --seconds T -o DIR [options]
//
// spec/wsn-sim.md documents the options, the outputs and the nondeterminism
// model; spec/micaz.md and spec/telosb.md the boards and spec/cc2420.md the
// radio and its medium. The MCU family comes from each ELF's e_machine.
//
//===----------------------------------------------------------------------===//
#include "SimFirmware.h"
#include "SimNode.h"
#include "SimRun.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace llvm;
using namespace wsn::sim;

static const char *Usage =
    "usage:\n"
    "  wsn-sim run FW.elf --seed S -o DIR [--mcu atmega128|msp430f1611|msp430f2617] [--freq HZ]\n"
    "          [--max-cycles N] [--settle] [--stop-after-checks K]\n"
    "          [--bound-moves N [--bound-step CYCLES] [--bound-end CYCLES]]\n"
    "          [--irq intN:MEAN_CYCLES | --irq pP.N:MEAN_CYCLES]...\n"
    "          [--uart MEAN_CYCLES] [--adc LO:HI] [--pins PORT=VALUE]... [--switches PORT:MEAN]\n"
    "          [--node-id ID] [--leds FILE] [--count-pc SYMBOL|0xADDR]... [--profile]\n"
    "          [--drain uartN] [--drain-cycles N] [--full-trace] [--nominal-clocks]\n"
    "  wsn-sim net TOPOLOGY --node ID=FW.elf... --seed S --seconds T -o DIR\n"
    "          [--mcu atmega128|msp430f1611|msp430f2617] [--freq HZ] [--quantum CYCLES] [--snr-threshold DB]\n"
    "          [--settle] [--irq intN:MEAN | pP.N:MEAN] [--uart MEAN] [--adc LO:HI] [--nominal-clocks]\n"
    "          [--leds FILE] [--count-pc SYMBOL|0xADDR]... [--profile] [--progress auto|bar|lines|none]\n"
    "  (--node also takes a range: --node 1-4=sensor.elf; AVR and MSP430 ELFs mix)\n"
    "  (MSP430: ports are digits, --pins 6=0x0f; interrupt pins p1.N/p2.N; ADC LO:HI to 4095)\n";

namespace {
struct UsageError {
  std::string Msg;
};

class Args {
public:
  Args(int Argc, char **Argv) : V(Argv + 1, Argv + Argc) {}
  bool done() const { return I >= V.size(); }
  StringRef peek() const { return V[I]; }
  StringRef next() { return V[I++]; }
  /// For "--opt value" and "--opt=value".
  bool option(StringRef Name, std::string &Val) {
    StringRef A = V[I];
    if (A == Name) {
      if (I + 1 >= V.size())
        throw UsageError{"option " + Name.str() + " needs a value"};
      Val = V[I + 1];
      I += 2;
      return true;
    }
    if (A.starts_with(Name) && A.size() > Name.size() && A[Name.size()] == '=') {
      Val = A.substr(Name.size() + 1).str();
      ++I;
      return true;
    }
    return false;
  }

private:
  std::vector<std::string> V;
  size_t I = 0;
};

uint64_t parseU64(StringRef Opt, StringRef S) {
  uint64_t V;
  if (S.getAsInteger(0, V))
    throw UsageError{Opt.str() + ": '" + S.str() + "' is not a non-negative integer"};
  return V;
}

double parseReal(StringRef Opt, StringRef S) {
  double D;
  if (S.getAsDouble(D) || !std::isfinite(D))
    throw UsageError{Opt.str() + ": '" + S.str() + "' is not a number"};
  return D;
}

IrqStimulus parseIrq(StringRef S) {
  auto [Name, Mean] = S.split(':');
  IrqStimulus I;
  unsigned N;
  if (Name.consume_front("p")) {
    // An MSP430 port pin: p1.N or p2.N (the interrupt-capable ports).
    auto [Port, Pin] = Name.split('.');
    unsigned P;
    if (Port.getAsInteger(10, P) || (P != 1 && P != 2) || Pin.getAsInteger(10, N) || N > 7 ||
        Mean.empty())
      throw UsageError{"--irq: expected pP.N:MEAN_CYCLES with P 1 or 2 and N in 0..7, got '" +
                       S.str() + "'"};
    I.Port = P;
  } else if (!Name.consume_front("int") || Name.getAsInteger(10, N) || N > 7 || Mean.empty()) {
    throw UsageError{"--irq: expected intN:MEAN_CYCLES with N in 0..7 (AVR) or pP.N:MEAN_CYCLES "
                     "(MSP430), got '" + S.str() + "'"};
  }
  I.Int = N;
  I.MeanCycles = parseU64("--irq", Mean);
  if (I.MeanCycles < 2 * IrqPulseCycles)
    throw UsageError{"--irq: mean must be at least " + std::to_string(2 * IrqPulseCycles) +
                     " cycles"};
  return I;
}

/// --pins PORT=VALUE, e.g. C=0xff (AVR) or 6=0xff (MSP430): the port's 8 input pins held
/// at those levels.
void parsePins(StringRef S, NodeOptions &O) {
  auto [Port, Val] = S.split('=');
  unsigned V;
  if (Port.size() != 1 || !isAlnum(Port[0]) || Val.getAsInteger(0, V) || V > 0xFF)
    throw UsageError{"--pins: expected PORT=VALUE with a port letter (AVR) or digit (MSP430) "
                     "and 0..0xff, got '" + S.str() + "'"};
  O.Pins.push_back({static_cast<char>(toUpper(Port[0])), static_cast<uint8_t>(V)});
}

/// --switches PORT:MEAN_CYCLES, e.g. C:200000: the port's 8 input pins take a new seeded
/// random byte at reset and then after uniform(1, 2*MEAN-1) cycles each time.
void parseSwitches(StringRef S, NodeOptions &O) {
  auto [Port, Mean] = S.split(':');
  uint64_t M;
  if (Port.size() != 1 || !isAlnum(Port[0]) || Mean.getAsInteger(0, M) || M == 0)
    throw UsageError{"--switches: expected PORT:MEAN_CYCLES with a port letter (AVR) or digit "
                     "(MSP430) and a positive mean, got '" + S.str() + "'"};
  O.SwitchPort = static_cast<char>(toUpper(Port[0]));
  O.SwitchMean = M;
}

void parseAdc(StringRef S, NodeOptions &O) {
  auto [Lo, Hi] = S.split(':');
  unsigned L, H;
  // The node checks HI against its converter: 1023 on the AVR, 4095 on the MSP430's ADC12.
  if (Lo.getAsInteger(0, L) || Hi.getAsInteger(0, H) || L > H || H > 4095)
    throw UsageError{"--adc: expected LO:HI with 0 <= LO <= HI <= 1023 (AVR) or 4095 (MSP430), "
                     "got '" + S.str() + "'"};
  O.Adc = true;
  O.AdcLo = L;
  O.AdcHi = H;
}

int parseUartName(StringRef Opt, StringRef S) {
  unsigned N;
  if (!S.consume_front("uart") || S.getAsInteger(10, N) || N > 3)
    throw UsageError{Opt.str() + ": expected uart0..uart3, got '" + S.str() + "'"};
  return static_cast<int>(N);
}

/// Options common to both subcommands. Returns true when it consumed one.
bool commonOption(Args &A, NodeOptions &O, bool &HaveSeed, std::string &Out,
                  std::string &LedLog, std::vector<std::string> &CountPcs) {
  std::string V;
  if (A.option("--seed", V)) {
    O.Seed = parseU64("--seed", V);
    HaveSeed = true;
  } else if (A.option("--mcu", V)) {
    O.Mcu = V;
  } else if (A.option("--freq", V)) {
    uint64_t F = parseU64("--freq", V);
    if (F == 0 || F > 100000000)
      throw UsageError{"--freq: clock must be 1..100000000 Hz"};
    O.Frequency = static_cast<uint32_t>(F);
  } else if (A.option("--irq", V)) {
    IrqStimulus I = parseIrq(V);
    for (const IrqStimulus &J : O.Irqs)
      if (J.Int == I.Int && J.Port == I.Port)
        throw UsageError{"--irq: " + (I.Port ? "p" + std::to_string(I.Port) + "." : std::string("int")) +
                         std::to_string(I.Int) + " given twice"};
    O.Irqs.push_back(I);
  } else if (A.option("--uart", V)) {
    O.UartMean = parseU64("--uart", V);
    if (O.UartMean == 0)
      throw UsageError{"--uart: mean must be positive"};
  } else if (A.option("--adc", V)) {
    parseAdc(V, O);
  } else if (A.option("--pins", V)) {
    parsePins(V, O);
  } else if (A.option("--switches", V)) {
    parseSwitches(V, O);
  } else if (A.option("-o", V) || A.option("--output", V)) {
    Out = V;
  } else if (A.option("--count-pc", V)) {
    if (V.empty())
      throw UsageError{"--count-pc: needs a function symbol or 0xADDR"};
    CountPcs.push_back(V);
  } else if (A.peek() == "--profile") {
    A.next();
    O.Profile = true;
  } else if (A.peek() == "--nominal-clocks") {
    A.next();
    O.NominalClocks = true;
  } else if (A.option("--leds", V)) {
    if (V.empty())
      throw UsageError{"--leds: needs a file name"};
    LedLog = V;
  } else {
    return false;
  }
  return true;
}

int report(Error E) {
  // The topology reader's messages are compiler style and say "error:" already.
  std::string Msg = toString(std::move(E));
  errs() << (StringRef(Msg).contains(": error: ") ? "wsn-sim: " : "wsn-sim: error: ") << Msg
         << "\n";
  return 1;
}

/// Resolves --count-pc names against one firmware.
Error resolveCountPcs(const std::vector<std::string> &Names, StringRef Path,
                      std::vector<std::pair<std::string, uint32_t>> &Out) {
  Out.clear();
  for (const std::string &N : Names) {
    Expected<uint32_t> A = codeAddress(Path, N);
    if (!A)
      return A.takeError();
    Out.push_back({N, *A});
  }
  return Error::success();
}

int cmdRun(Args &A) {
  SingleOptions SO;
  std::vector<std::string> CountPcs;
  std::string Elf, Out, V;
  bool HaveSeed = false, HaveMoves = false, HaveMaxCycles = false;
  while (!A.done()) {
    if (commonOption(A, SO.Node, HaveSeed, Out, SO.LedLog, CountPcs))
      continue;
    if (A.option("--max-cycles", V)) {
      SO.MaxCycles = parseU64("--max-cycles", V);
      HaveMaxCycles = true;
    } else if (A.option("--stop-after-checks", V)) {
      SO.Node.StopAfterChecks = parseU64("--stop-after-checks", V);
      if (!SO.Node.StopAfterChecks)
        throw UsageError{"--stop-after-checks: K must be at least 1"};
    } else if (A.option("--node-id", V)) {
      uint64_t Id = parseU64("--node-id", V);
      if (Id > 0xFFFE)
        throw UsageError{"--node-id: 0..65534"};
      SO.Node.NodeId = static_cast<uint16_t>(Id);
    } else if (A.option("--drain", V)) {
      SO.Node.DrainUart = parseUartName("--drain", V);
    } else if (A.option("--drain-cycles", V)) {
      SO.DrainCycles = parseU64("--drain-cycles", V);
    } else if (A.peek() == "--full-trace") {
      A.next();
      SO.Node.FullTrace = true;
    } else if (A.peek() == "--settle") {
      A.next();
      SO.Settle = true;
    } else if (A.option("--bound-moves", V)) {
      if (!SO.Search)
        SO.Search.emplace();
      SO.Search->Moves = parseU64("--bound-moves", V);
      HaveMoves = true;
    } else if (A.option("--bound-step", V)) {
      if (!SO.Search)
        SO.Search.emplace();
      SO.Search->Step = parseU64("--bound-step", V);
      if (!SO.Search->Step)
        throw UsageError{"--bound-step: must be at least 1"};
    } else if (A.option("--bound-end", V)) {
      if (!SO.Search)
        SO.Search.emplace();
      SO.Search->End = parseU64("--bound-end", V);
    } else if (A.peek().starts_with("-")) {
      throw UsageError{"unknown option '" + A.peek().str() + "' for 'run'"};
    } else if (Elf.empty()) {
      Elf = A.next().str();
    } else {
      throw UsageError{"unexpected argument '" + A.peek().str() + "' (one firmware per run)"};
    }
  }
  if (Elf.empty())
    throw UsageError{"run: no firmware ELF given"};
  if (!HaveSeed)
    throw UsageError{"run: --seed S is required"};
  if (Out.empty())
    throw UsageError{"run: -o DIR is required"};
  if (SO.Search) {
    if (!HaveMoves)
      throw UsageError{"--bound-step and --bound-end need --bound-moves N"};
    if (!SO.Settle || !HaveMaxCycles)
      throw UsageError{"--bound-moves needs --settle and --max-cycles B (the first bound)"};
    if (SO.Node.DrainUart >= 0 || SO.Node.FullTrace)
      throw UsageError{"--bound-moves cannot be combined with --drain or --full-trace"};
  }

  auto FW = inspectFirmware(Elf);
  if (!FW)
    return report(FW.takeError());
  if (Error E = resolveCountPcs(CountPcs, Elf, FW->CountPcs))
    return report(std::move(E));
  auto R = runSingle(*FW, SO, Out, errs());
  if (!R)
    return report(R.takeError());
  outs() << "wsn-sim: stop=" << stopKindName(R->Stop) << " cycles=" << R->Cycles;
  if (R->HasTrace)
    outs() << " checks=" << R->Checks;
  else
    outs() << " (no trace runtime)";
  if (R->Violated)
    outs() << " violation=" << R->ViolationId << "@" << R->ViolationCycle;
  if (R->Search)
    outs() << " bound_search=" << R->Search->End << "@" << R->Search->Cycle << " moves="
           << R->Search->Moves;
  outs() << " -> " << Out << "\n";
  // run.json has the fault too; say it where the user looks first.
  if (R->Stop == StopKind::Crashed && !R->CrashReason.empty())
    errs() << "wsn-sim: crashed: " << R->CrashReason << "\n";
  return 0;
}

void parseNodeSpec(StringRef S, std::map<uint16_t, std::string> &Nodes) {
  auto [Ids, Path] = S.split('=');
  if (Path.empty() || Ids.empty())
    throw UsageError{"--node: expected ID=FW.elf or FIRST-LAST=FW.elf, got '" + S.str() + "'"};
  auto [First, Last] = Ids.split('-');
  unsigned F, L;
  if (First.getAsInteger(10, F) || (Last.empty() ? (L = F, false) : Last.getAsInteger(10, L)) ||
      F > L || L > 0xFFFE)
    throw UsageError{"--node: bad node id(s) '" + Ids.str() + "' (0..65534)"};
  for (unsigned I = F; I <= L; ++I) {
    if (Nodes.count(I))
      throw UsageError{"--node: node " + std::to_string(I) + " given twice"};
    Nodes[I] = Path.str();
  }
}

int cmdNet(Args &A) {
  NetOptions NO;
  std::vector<std::string> CountPcs;
  std::string Topo, Out, V;
  std::map<uint16_t, std::string> NodePaths;
  bool HaveSeed = false, HaveSeconds = false;
  while (!A.done()) {
    if (commonOption(A, NO.Template, HaveSeed, Out, NO.LedLog, CountPcs))
      continue;
    if (A.option("--node", V)) {
      parseNodeSpec(V, NodePaths);
    } else if (A.option("--seconds", V)) {
      NO.Seconds = parseReal("--seconds", V);
      if (!(NO.Seconds > 0) || NO.Seconds > 1e6)
        throw UsageError{"--seconds: must be in (0, 1e6]"};
      HaveSeconds = true;
    } else if (A.option("--quantum", V)) {
      NO.Quantum = parseU64("--quantum", V);
      if (!NO.Quantum)
        throw UsageError{"--quantum: must be positive"};
    } else if (A.option("--snr-threshold", V)) {
      NO.SnrThreshold = parseReal("--snr-threshold", V);
    } else if (A.peek() == "--settle") {
      A.next();
      NO.Settle = true;
    } else if (A.option("--progress", V)) {
      if (V == "auto")
        NO.Progress = ProgressMode::Auto;
      else if (V == "bar")
        NO.Progress = ProgressMode::Bar;
      else if (V == "lines")
        NO.Progress = ProgressMode::Lines;
      else if (V == "none")
        NO.Progress = ProgressMode::None;
      else
        throw UsageError{"--progress: auto, bar, lines or none"};
    } else if (A.peek().starts_with("-")) {
      throw UsageError{"unknown option '" + A.peek().str() + "' for 'net'"};
    } else if (Topo.empty()) {
      Topo = A.next().str();
    } else {
      throw UsageError{"unexpected argument '" + A.peek().str() + "' (one topology file)"};
    }
  }
  if (Topo.empty())
    throw UsageError{"net: no topology file given"};
  if (NodePaths.empty())
    throw UsageError{"net: no --node ID=FW.elf given"};
  if (!HaveSeed)
    throw UsageError{"net: --seed S is required"};
  if (!HaveSeconds)
    throw UsageError{"net: --seconds T is required"};
  if (Out.empty())
    throw UsageError{"net: -o DIR is required"};

  auto T = wsn::topology::readTopologyFile(Topo);
  if (!T)
    return report(T.takeError());
  // 0xFFFF is the radio's broadcast address, not a node: named with the line
  // of the first record that uses it.
  for (unsigned N : T->Nodes)
    if (N > 0xFFFE) {
      unsigned Line = T->Noise.count(N) ? T->Noise.at(N).Line : ~0u;
      for (const auto &[Link, G] : T->Gains)
        if (Link.first == N || Link.second == N)
          Line = std::min(Line, G.Line);
      return report(createStringError(inconvertibleErrorCode(),
                                      Topo + ":" + Twine(Line) + ": error: node id " + Twine(N) +
                                          " is the broadcast address (nodes are 0..65534)"));
    }
  std::map<uint16_t, FirmwareInfo> FWs;
  std::map<std::string, FirmwareInfo> Cache;
  for (auto &[Id, Path] : NodePaths) {
    auto It = Cache.find(Path);
    if (It == Cache.end()) {
      auto FW = inspectFirmware(Path);
      if (!FW)
        return report(FW.takeError());
      if (Error E = resolveCountPcs(CountPcs, Path, FW->CountPcs))
        return report(std::move(E));
      It = Cache.emplace(Path, *FW).first;
    }
    FWs[Id] = It->second;
  }
  auto Net = Network::create(*T, FWs, NO, errs());
  if (!Net)
    return report(Net.takeError());
  if (Error E = (*Net)->run(Out, errs()))
    return report(std::move(E));
  outs() << "wsn-sim: " << FWs.size() << " nodes, " << format("%g", NO.Seconds) << " s";
  if (const wsn::devices::Medium802154 *M = (*Net)->medium())
    outs() << "; cc2420 transmissions " << M->stats().Transmissions << ", deliveries "
           << M->stats().Deliveries << ", collisions " << M->stats().Collisions;
  outs() << " -> " << Out << "\n";
  return 0;
}
} // namespace

int main(int Argc, char **Argv) {
  Args A(Argc, Argv);
  try {
    if (A.done()) {
      errs() << Usage;
      return 2;
    }
    StringRef Cmd = A.next();
    if (Cmd == "run")
      return cmdRun(A);
    if (Cmd == "net")
      return cmdNet(A);
    if (Cmd == "-h" || Cmd == "--help") {
      outs() << Usage;
      return 0;
    }
    throw UsageError{"unknown command '" + Cmd.str() + "' (run or net)"};
  } catch (const UsageError &U) {
    errs() << "wsn-sim: error: " << U.Msg << "\n" << Usage;
    return 2;
  }
}
