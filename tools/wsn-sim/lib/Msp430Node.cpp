//===- Msp430Node.cpp - a simulated mote on the WSNMsp430 core ------------===//
#include "Msp430Node.h"

#include "ElfLoader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace wsn {
namespace sim {

using msp430::Cpu;
using msp430::StepKind;

static Error nodeError(uint16_t Id, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "node " + Twine(Id) + ": " + Msg);
}

//===----------------------------------------------------------------------===//
// Scheduler
//===----------------------------------------------------------------------===//

void Msp430Node::Scheduler::advanceTo(uint64_t Cycle) {
  Now = std::max(Now, Cycle);
  // Due items in time order (ties: the order they were added), each rescheduled.
  for (;;) {
    Item *Due = nullptr;
    for (Item &I : Items)
      if (I.At && I.At <= Now && (!Due || I.At < Due->At))
        Due = &I;
    if (!Due)
      return;
    Due->At = Due->F(Due->At);
  }
}

uint64_t Msp430Node::Scheduler::nextEvent() const {
  uint64_t Next = Bound > Now ? Bound : msp430::kNever;
  for (const Item &I : Items)
    if (I.At)
      Next = std::min(Next, I.At);
  return Next;
}

//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<Node>> Msp430Node::create(const FirmwareInfo &FW,
                                                   const NodeOptions &Opts) {
  std::unique_ptr<Msp430Node> N(new Msp430Node(FW, Opts));
  if (Error E = N->init())
    return std::move(E);
  return std::unique_ptr<Node>(std::move(N));
}

Msp430Node::~Msp430Node() = default;

Error Msp430Node::init() {
  auto Mcu = msp430::lookupMcu(Opts.Mcu);
  if (!Mcu.ok())
    return nodeError(Opts.NodeId, std::string(Mcu.status().message()));
  if (Opts.AdcLo > Opts.AdcHi || Opts.AdcHi > 4095)
    return nodeError(Opts.NodeId, "bad ADC range " + Twine(Opts.AdcLo) + ":" +
                                      Twine(Opts.AdcHi) + " (0 <= LO <= HI <= 4095 on " +
                                      Opts.Mcu + "'s ADC12)");
  auto Img = msp430::readElf(FW.Path);
  if (!Img.ok())
    return nodeError(Opts.NodeId, std::string(Img.status().message()));
  // Every loadable byte must land in the part's flash or information memory: an image
  // linked for another part would otherwise run from the wrong addresses.
  for (const msp430::ElfSegment &Sg : Img->Segments) {
    if (Sg.Bytes.empty())
      continue;
    uint64_t Lo = Sg.Address, Hi = Lo + Sg.Bytes.size();
    bool InFlash = Lo >= Mcu->FlashStart && Hi <= Mcu->FlashEnd;
    bool InInfo = Lo >= Mcu->InfoStart && Hi <= Mcu->InfoEnd;
    if (!InFlash && !InInfo)
      return nodeError(Opts.NodeId,
                       "'" + FW.Path + "': bytes loaded at 0x" + utohexstr(Lo) + "-0x" +
                           utohexstr(Hi - 1) + " lie outside the flash of " + Opts.Mcu + " (0x" +
                           utohexstr(Mcu->FlashStart) + "-0x" + utohexstr(Mcu->FlashEnd - 1) +
                           "): the image was linked for another part (" + FW.Msp430Part +
                           "?); give --mcu");
  }
  if (!FW.Msp430Part.empty() && FW.Msp430Part != Opts.Mcu)
    Warnings.push_back("'" + FW.Path + "' looks linked for " + FW.Msp430Part +
                       " (its load addresses), not " + Opts.Mcu +
                       " (--mcu): RAM, stack and vectors may not match");
  // This node's clock parts (spec/wsn-sim.md section 4, "Clocks"): DCO spread and LFXT1.
  double DcoMin, DcoMax;
  msp430::BasicClock::dcoSpread(Mcu->BasicClockPlus, DcoMin, DcoMax);
  Clocks = drawNodeClocks(Opts, DcoMin, DcoMax);
  msp430::ClockParts Parts;
  Parts.DcoScale = Clocks.DcoScale;
  Parts.LfxtPpb = Clocks.CrystalPpb;
  Parts.LfxtPhase32 = Clocks.CrystalPhase32;
  Dev = std::make_unique<msp430::Chip>(*Mcu, 0xFF, Parts);
  Cpu &C = Dev->cpu();
  Board = makeMsp430Board(Opts.Mcu, *Dev);
  C.addDevice(&Sched);
  if (auto St = msp430::loadElf(C, *Img, FW.Path); !St.ok())
    return nodeError(Opts.NodeId, std::string(St.message()));
  Dev->sfr().powerOnReset();

  const msp430::McuInfo &M = C.mcu();
  if (FW.HasRuntime && (FW.TraceAddr < M.RamStart || FW.TraceAddr + FW.TraceSize > M.RamEnd))
    return nodeError(Opts.NodeId, "__wsn_trace (0x" + utohexstr(FW.TraceAddr) + ", " +
                                      Twine(FW.TraceSize) + " bytes) lies outside the RAM of " +
                                      Opts.Mcu + " (0x" + utohexstr(M.RamStart) + "-0x" +
                                      utohexstr(M.RamEnd - 1) + ")");

  // Node ids the way tos-set-symbols gives them: initialised variables get the id in their
  // initial value in flash (the startup code copies .data from its load address); .noinit
  // ones straight into RAM; zero-initialised ones cannot keep a value.
  uint8_t *Mem = C.memory();
  for (const IdSymbol &S : FW.IdSymbols) {
    uint32_t At;
    if (S.Where == IdSymbol::Bss) {
      Warnings.push_back(S.Name + " is zero-initialised (.bss): its node id cannot be set "
                                  "before start; left 0");
      continue;
    }
    if (S.Where == IdSymbol::Data) {
      At = FW.DataLoadAddr + S.DataOffset;
      if (!FW.DataLoadAddr || At + S.Size > C.memorySize())
        return nodeError(Opts.NodeId, "'" + FW.Path + "': " + S.Name +
                                          " has no load address in flash for its initial value");
    } else {
      At = S.Addr;
      if (At < M.RamStart || At + S.Size > M.RamEnd)
        return nodeError(Opts.NodeId, S.Name + " lies outside the RAM of " + Opts.Mcu);
    }
    Mem[At] = Opts.NodeId & 0xFF;
    if (S.Size > 1)
      Mem[At + 1] = Opts.NodeId >> 8;
  }

  for (const auto &[Name, Addr] : FW.CountPcs) {
    PcCount P;
    P.Name = Name;
    P.Addr = Addr;
    PcCounts.push_back(P);
  }

  // Static pin levels: port digits 1..6; the pins the board drives keep the board's level.
  auto PortNo = [&](char P, const char *Opt) -> Expected<unsigned> {
    if (P < '1' || P > '6')
      return nodeError(Opts.NodeId, Twine(Opt) + ": " + Opts.Mcu + " has ports 1..6, not '" +
                                        Twine(P) + "'");
    return unsigned(P - '0');
  };
  for (const auto &[Port, Levels] : Opts.Pins) {
    Expected<unsigned> N = PortNo(Port, "--pins");
    if (!N)
      return N.takeError();
    for (unsigned Bit = 0; Bit < 8; ++Bit)
      if (!boardDriven(*N, Bit))
        Dev->ports().setInput(*N, Bit, (Levels >> Bit) & 1);
  }

  // Random switch levels, changing at seeded random times.
  if (Opts.SwitchMean) {
    Expected<unsigned> N = PortNo(Opts.SwitchPort, "--switches");
    if (!N)
      return N.takeError();
    unsigned Port = *N;
    SwitchRng.emplace(Opts.Seed, Opts.NodeId, Stream::Switches);
    auto Set = [this, Port](uint8_t Levels) {
      for (unsigned Bit = 0; Bit < 8; ++Bit)
        if (!boardDriven(Port, Bit))
          Dev->ports().setInput(Port, Bit, (Levels >> Bit) & 1);
    };
    Set(static_cast<uint8_t>(SwitchRng->next() & 0xFF));
    uint64_t Mean = Opts.SwitchMean;
    Sched.add(C.cycles() + SwitchRng->uniform(1, 2 * Mean - 1), [this, Set, Mean](uint64_t When) {
      Set(static_cast<uint8_t>(SwitchRng->next() & 0xFF));
      return When + SwitchRng->uniform(1, 2 * Mean - 1);
    });
  }

  // External interrupt pulses on P1/P2 pins (idle high, IrqPulseCycles low).
  IrqRngs.reserve(Opts.Irqs.size());
  for (const IrqStimulus &S : Opts.Irqs) {
    if (S.Port != 1 && S.Port != 2)
      return nodeError(Opts.NodeId, "--irq int" + Twine(S.Int) + ": " + Opts.Mcu +
                                        " takes a port 1 or 2 pin (--irq p1.N:MEAN or p2.N)");
    if (S.Int > 7)
      return nodeError(Opts.NodeId, "--irq p" + Twine(S.Port) + "." + Twine(S.Int) +
                                        ": pins are 0..7");
    if (boardDriven(S.Port, S.Int))
      return nodeError(Opts.NodeId, "--irq p" + Twine(S.Port) + "." + Twine(S.Int) +
                                        ": the CC2420 drives that pin (spec/telosb.md)");
    if (S.MeanCycles < 2 * IrqPulseCycles)
      return nodeError(Opts.NodeId, "interrupt mean " + Twine(S.MeanCycles) +
                                        " cycles is too short (minimum " +
                                        Twine(2 * IrqPulseCycles) + ")");
    // Stream per pin: the ExtIrq stream of this node, offset by port and pin.
    IrqRngs.emplace_back(streamSeed(Opts.Seed, Opts.NodeId, Stream::ExtIrq) + S.Port * 8 +
                         S.Int);
    SimRng *Rng = &IrqRngs.back();
    unsigned Port = S.Port, Bit = S.Int;
    uint64_t Mean = S.MeanCycles;
    Dev->ports().setInput(Port, Bit, true);
    auto Low = std::make_shared<bool>(false);
    Sched.add(C.cycles() + Rng->uniform(1, 2 * Mean - 1),
              [this, Rng, Port, Bit, Mean, Low](uint64_t When) -> uint64_t {
                if (!*Low) {
                  *Low = true;
                  Dev->ports().setInput(Port, Bit, false);
                  ++Stats.IrqPulses;
                  return When + IrqPulseCycles;
                }
                *Low = false;
                Dev->ports().setInput(Port, Bit, true);
                return When + Rng->uniform(1, 2 * Mean - 1);
              });
  }

  // Random bytes from the host on the platform's serial port (TelosB: USART1, Z1: USCI_A0).
  // They queue on the host side and go out back to back at the firmware's baud rate; the
  // host waits while the receiver is off. A byte finding 64 still queued is lost.
  if (Opts.UartMean) {
    const int Serial = Mcu->Cpux ? 0 : 1;
    UartRng.emplace(Opts.Seed, Opts.NodeId, Stream::Uart);
    uint64_t Mean = Opts.UartMean;
    if (!withSerial(Serial, [](auto *) {}))
      return nodeError(Opts.NodeId, "--uart: " + Opts.Mcu + " has no serial port " +
                                        Twine(Serial));
    Sched.add(C.cycles() + UartRng->uniform(1, 2 * Mean - 1),
              [this, Serial, Mean](uint64_t When) {
                uint8_t Byte = static_cast<uint8_t>(UartRng->next() & 0xFF);
                withSerial(Serial, [&](auto *U) {
                  if (U->pendingReceive() >= 64) {
                    ++Stats.UartDropped;
                  } else {
                    U->receive(Byte);
                    ++Stats.UartBytes;
                  }
                });
                return When + UartRng->uniform(1, 2 * Mean - 1);
              });
  }
  // --drain uartN: the bytes the firmware sends on serial port N.
  if (Opts.DrainUart >= 0 &&
      !withSerial(Opts.DrainUart, [this](auto *U) {
        U->onTransmit([this](uint8_t B, uint64_t) { Drained.push_back(B); });
      }))
    return nodeError(Opts.NodeId, "--drain: " + Opts.Mcu + " has no uart" +
                                      Twine(Opts.DrainUart) +
                                      (Mcu->Cpux ? " (USCI_A0/A1: uart0, uart1)"
                                                 : " (USART0/1: uart0, uart1)"));

  // ADC12 results: every conversion returns a seeded random code in [LO, HI].
  if (Opts.Adc) {
    AdcRng.emplace(Opts.Seed, Opts.NodeId, Stream::Adc);
    Dev->adc().setSource([this](unsigned, uint64_t) {
      ++Stats.AdcSamples;
      return static_cast<uint16_t>(AdcRng->uniform(Opts.AdcLo, Opts.AdcHi));
    });
  }
  C.eventsChanged();
  return Error::success();
}

template <typename F> bool Msp430Node::withSerial(int N, F Fn) {
  if (N < 0 || N > 1)
    return false;
  if (Dev->cpu().mcu().Cpux) {
    msp430::Usci *U = Dev->usciA(unsigned(N));
    if (U)
      Fn(U);
    return U != nullptr;
  }
  auto *U = Dev->usart(unsigned(N));
  if (U)
    Fn(U);
  return U != nullptr;
}

uint64_t Msp430Node::cycle() const { return Dev->cpu().cycles(); }
uint64_t Msp430Node::nsAt(uint64_t Cycle) const { return mclkNsAt(*Dev, Cycle); }
uint64_t Msp430Node::cycleAt(uint64_t Ns) const { return mclkCycleAt(*Dev, Ns); }
uint32_t Msp430Node::clockHz() const {
  return static_cast<uint32_t>(std::llround(Dev->clock().mclkHz()));
}

const uint8_t *Msp430Node::dataMemory() const { return Dev->cpu().memory(); }
bool Msp430Node::interruptsEnabled() const { return Dev->cpu().sr() & msp430::SR_GIE; }
uint32_t Msp430Node::pc() const { return Dev->cpu().reg(msp430::PC); }

uint16_t Msp430Node::violationArgument() const {
  // The first argument is in R12 (the MSP430 EABI, as clang and mspgcc pass it).
  return static_cast<uint16_t>(Dev->cpu().reg(12));
}
bool Msp430Node::halted() const {
  uint16_t Sr = Dev->cpu().sr();
  return (Sr & msp430::SR_CPUOFF) && !(Sr & msp430::SR_GIE);
}

StopKind Msp430Node::runUntil(uint64_t Target) {
  if (Terminated)
    return LastStop;
  Cpu &C = Dev->cpu();
  // The bound is an event: a sleeping core wakes there instead of jumping past it.
  Sched.Bound = Target;
  C.eventsChanged();
  const bool Watch = FW.HasRuntime || !PcCounts.empty();
  while (C.cycles() < Target) {
    const uint64_t Before = C.cycles();
    const uint32_t PcBefore = C.reg(msp430::PC);
    bool WakeReturn = false;
    StepKind K = stepWatched(WakeReturn);
    if (K != StepKind::Idle && K != StepKind::Asleep) {
      ActiveCycles += C.cycles() - Before; // Idle jumps over sleeping time
      if (Opts.Profile)
        profileCycles(PcBefore, C.cycles() - Before);
    }
    if (K == StepKind::Faulted) {
      Terminated = true;
      CrashReason = C.fault();
      return LastStop = StopKind::Crashed;
    }
    // The stack ran into the globals (the MSP430 pushes at SP after decrementing it,
    // SLAU049 section 3.4.2: a word at SP below the end of .noinit overwrote one).
    if (FW.RamEnd && C.reg(msp430::SP) < *FW.RamEnd) {
      Terminated = true;
      std::vector<unsigned> Nested(C.runningInterrupts().begin(), C.runningInterrupts().end());
      CrashReason =
          stackOverflow(C.reg(msp430::SP), *FW.RamEnd, "__wsn_noinit_end", C.cycles(), Nested);
      return LastStop = StopKind::Crashed;
    }
    if (K == StepKind::Idle || K == StepKind::Asleep) {
      if (halted()) {
        Terminated = true;
        return LastStop = StopKind::Halted;
      }
      continue;
    }
    // Safe at every instruction: ringPos ignores the header while a record is open.
    if (Opts.FullTrace)
      pollFullTrace();
    if (WatchWakes)
      noteStep(WakeReturn);
    if (Watch) {
      StopKind S = atPc(C.reg(msp430::PC), C.cycles());
      if (S != StopKind::None)
        return S;
    }
  }
  return StopKind::None;
}

StepKind Msp430Node::stepWatched(bool &WakeReturn) {
  Cpu &C = Dev->cpu();
  WakeReturn = false;
  if (!WatchWakes)
    return C.step();
  const uint8_t *M = C.memory();
  auto Word = [&](uint32_t A) { return uint16_t(M[A] | (M[A + 1] << 8)); };
  // RETI is 0x1300 (SLAU049 §3.4.6; also on the CPUX).
  const uint32_t Pc = C.reg(msp430::PC);
  const bool Reti = !IrqFrames.empty() && Pc + 1 < C.memorySize() && Word(Pc) == 0x1300;
  StepKind K = C.step();
  if (K == StepKind::Interrupt) {
    // The SR the CPU stacked (at the new SP, SLAU049 §2.2.3) says whether it slept. An
    // interrupt pending at a wake's RETI is taken before the instruction after the sleep
    // runs (its stacked SR has the LPM bits the first handler cleared): replay delivers it
    // at the same sleep hook, so it counts as taken in the sleep (TelosB TmoteSkyRadioBlink,
    // two TIMERB1 interrupts back to back: without this the bound stop after the second
    // ran on to the next anchor, SchedulerBasicP__m_head mote 0xFF, replay 0x4).
    const uint32_t Sp = C.reg(msp430::SP);
    IrqFrames.push_back(JustWoke ||
                        (Sp + 1 < C.memorySize() && (Word(Sp) & msp430::SR_CPUOFF)));
    JustWoke = false;
  } else if (Reti && K == StepKind::Instruction) {
    bool Slept = IrqFrames.back();
    IrqFrames.pop_back();
    // Taken in a low-power mode and returning with the CPU on: the handler cleared the
    // stacked LPM bits, so the core goes on after the instruction that entered the mode.
    WakeReturn = Slept && !(C.sr() & msp430::SR_CPUOFF);
    JustWoke = WakeReturn;
  } else {
    JustWoke = false;
  }
  return K;
}

bool Msp430Node::stepOnce() {
  bool WakeReturn;
  return stepWatched(WakeReturn) != StepKind::Faulted;
}

std::string Msp430Node::settleToRecord(uint64_t Limit) {
  Cpu &C = Dev->cpu();
  if (recordOpen())
    return "record";
  if (C.sr() & msp430::SR_CPUOFF)
    return "sleep";
  uint64_t End = C.cycles() + Limit;
  Sched.Bound = End;
  C.eventsChanged();
  while (C.cycles() < End && !Terminated) {
    bool WakeReturn = false;
    StepKind K = stepWatched(WakeReturn);
    if (K == StepKind::Faulted)
      return "end";
    if (K == StepKind::Interrupt)
      return "interrupt";
    if (recordOpen())
      return "record";
    if (C.sr() & msp430::SR_CPUOFF)
      return "sleep";
    // Replay delivers an interrupt taken in a low-power mode where its count comes due,
    // before the LPM hook, and ends at that hook when no record follows (spec/replay.md,
    // "sleep", `bis SRC, r2`): the state right after the return is where replay ends.
    if (WakeReturn)
      return "sleep";
  }
  return "end";
}

std::vector<uint8_t> Msp430Node::dataSpace() const {
  const Cpu &C = Dev->cpu();
  const msp430::McuInfo &M = C.mcu();
  const uint8_t *Mem = C.memory();
  // Registers are not memory: below PeripheralEnd the array holds what the CPU wrote to
  // unmapped addresses and the fill byte under mapped registers. The RAM mirror reads RAM.
  std::vector<uint8_t> Out(Mem, Mem + M.RamEnd);
  for (uint32_t A = M.MirrorStart; A < M.MirrorEnd && A < M.RamEnd; ++A)
    Out[A] = Mem[A - M.MirrorStart + M.RamStart];
  return Out;
}

} // namespace sim
} // namespace wsn
