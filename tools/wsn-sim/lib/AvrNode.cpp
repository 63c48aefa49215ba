//===- AvrNode.cpp - a simulated mote on libsimavr ------------------------===//
#include "AvrNode.h"
#include "SimavrCore.h"

#include <algorithm>

extern "C" {
#include <simavr/avr_adc.h>
#include <simavr/avr_ioport.h>
#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_interrupts.h>
#include <simavr/sim_io.h>
}

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>

using namespace llvm;

namespace wsn {
namespace sim {

//===----------------------------------------------------------------------===//
// simavr logging: route the core's messages to stderr with the node id, drop
// chatter below warnings.
//===----------------------------------------------------------------------===//

static std::map<const avr_t *, uint16_t> &nodeIds() {
  static std::map<const avr_t *, uint16_t> M;
  return M;
}

static void simLogger(avr_t *Avr, const int Level, const char *Fmt, va_list Ap) {
  if (Level > LOG_WARNING)
    return;
  char Buf[512];
  vsnprintf(Buf, sizeof(Buf), Fmt, Ap);
  size_t L = strlen(Buf);
  while (L && (Buf[L - 1] == '\n' || Buf[L - 1] == '\r'))
    Buf[--L] = 0;
  if (!L)
    return;
  auto It = Avr ? nodeIds().find(Avr) : nodeIds().end();
  // simavr repeats some warnings at every occurrence (a nested interrupt past its stack of
  // 64: one line per interrupt): each distinct line is shown three times per node, then once
  // more saying that further copies are left out.
  static std::map<std::pair<int, std::string>, unsigned> Seen;
  unsigned N = ++Seen[{It != nodeIds().end() ? int(It->second) : -1, std::string(Buf)}];
  if (N > 4)
    return;
  const char *More = N == 4 ? " (repeated; further copies of this message are not shown)" : "";
  if (It != nodeIds().end())
    simCoreLog() << "wsn-sim: node " << It->second << ": simavr: " << Buf << More << "\n";
  else
    simCoreLog() << "wsn-sim: simavr: " << Buf << More << "\n";
}

/// Cycles libsimavr skipped while the core slept, since runUntil last took
/// them (one process simulates its nodes one after another, on one thread).
static uint64_t SleptCycles = 0;

static void noSleep(avr_t *, avr_cycle_count_t HowLong) {
  // Simulated time only: the core advances its cycle counter past the sleep
  // (by 1 + HowLong, right after this call); never wait in real time
  // (libsimavr's raw callback calls usleep).
  SleptCycles += 1 + HowLong;
}

static avr_uart_t *findUart(avr_t *Avr, int N) {
  for (avr_io_t *Io = Avr->io_port; Io; Io = Io->next)
    if (Io->kind && !strcmp(Io->kind, "uart")) {
      auto *U = reinterpret_cast<avr_uart_t *>(Io);
      if (U->name == '0' + N)
        return U;
    }
  return nullptr;
}

static Error nodeError(uint16_t Id, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "node " + Twine(Id) + ": " + Msg);
}

//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<Node>> AvrNode::create(const FirmwareInfo &FW,
                                                const NodeOptions &Opts) {
  std::unique_ptr<AvrNode> N(new AvrNode(FW, Opts));
  if (Error E = N->init())
    return std::move(E);
  return std::unique_ptr<Node>(std::move(N));
}

AvrNode::~AvrNode() {
  Board.reset();
  Timer0.reset();
  if (Avr) {
    nodeIds().erase(Avr);
    // After firmware that ran away and crashed the core, libsimavr 1.6's
    // avr_terminate can itself crash freeing the I/O modules' IRQs (seen on
    // a bench/fidelity/progfuzz.py program whose code wrote timer registers
    // at random). The run's results are written by then: keep that core
    // until the process exits instead of crashing the tool.
    if (Avr->state == cpu_Crashed)
      retainCrashedSimavrCore(Avr);
    else
      destroySimavrCore(Avr);
  }
}

Error AvrNode::init() {
  avr_global_logger_set(simLogger);
  if (Opts.AdcLo > Opts.AdcHi || Opts.AdcHi > 1023)
    return nodeError(Opts.NodeId, "bad ADC range " + Twine(Opts.AdcLo) + ":" +
                                      Twine(Opts.AdcHi) + " (0 <= LO <= HI <= 1023)");
  Avr = avr_make_mcu_by_name(Opts.Mcu.c_str());
  if (!Avr)
    return nodeError(Opts.NodeId, "unknown MCU '" + Opts.Mcu +
                                      "' (libsimavr has no core by that name; MicaZ is atmega128)");
  nodeIds()[Avr] = Opts.NodeId;
  if (avr_init(Avr) != 0)
    return nodeError(Opts.NodeId, "libsimavr could not initialise MCU '" + Opts.Mcu + "'");
  Avr->log = LOG_WARNING;

  // The image is ours (elf_read_firmware allocates it); the core keeps copies.
  struct FirmwareImage {
    elf_firmware_t Fw;
    FirmwareImage() { memset(&Fw, 0, sizeof(Fw)); }
    ~FirmwareImage() { freeSimavrFirmware(Fw); }
  } Image;
  elf_firmware_t &Fw = Image.Fw;
  // libsimavr's ELF loader trusts the file and can crash on a damaged one that
  // LLVM's reader (inspectFirmware) accepted: run it under crash recovery, and
  // on a crash abandon its half-read state and report the file.
  static bool CrashRecovery = [] {
    llvm::CrashRecoveryContext::Enable();
    return true;
  }();
  (void)CrashRecovery;
  int Loaded = -1;
  llvm::CrashRecoveryContext CRC;
  if (!CRC.RunSafely([&] { Loaded = elf_read_firmware(FW.Path.c_str(), &Fw); })) {
    retainAbandonedSimavrFirmware(Fw);
    memset(&Fw, 0, sizeof(Fw));
    return nodeError(Opts.NodeId, "'" + FW.Path +
                                      "': damaged ELF: libsimavr's loader crashed reading it");
  }
  if (Loaded != 0)
    return nodeError(Opts.NodeId, "libsimavr could not load '" + FW.Path + "'");
  // libsimavr aborts the process on code larger than the flash: check first.
  if (uint64_t(Fw.flashbase) + Fw.flashsize > Avr->flashend + 1u)
    return nodeError(Opts.NodeId, "'" + FW.Path + "' has " + Twine(Fw.flashsize) +
                                      " bytes of code, more than the " +
                                      Twine(Avr->flashend + 1u) + " bytes of flash of " +
                                      Opts.Mcu);
  Fw.frequency = Opts.Frequency;
  Fw.vcc = Fw.avcc = Fw.aref = 3000; // MicaZ runs at 3 V
  // Node ids the way tos-set-symbols gives them: initialised variables get the
  // id in their initial value in flash (simavr's loader puts .data right after
  // .text, where the C startup copies it from).
  for (const IdSymbol &S : FW.IdSymbols) {
    if (S.Where != IdSymbol::Data)
      continue;
    uint32_t At = Fw.flashsize - Fw.datasize + S.DataOffset;
    if (S.DataOffset + S.Size > Fw.datasize || At + S.Size > Fw.flashsize)
      return nodeError(Opts.NodeId, "'" + FW.Path + "': " + S.Name +
                                        " lies outside the .data image libsimavr loaded");
    Fw.flash[At] = Opts.NodeId & 0xFF;
    if (S.Size > 1)
      Fw.flash[At + 1] = Opts.NodeId >> 8;
  }
  avr_load_firmware(Avr, &Fw);
  Avr->frequency = Opts.Frequency;
  Avr->vcc = Avr->avcc = Avr->aref = 3000;
  Avr->sleep = noSleep;
  if (FW.HasRuntime && FW.TraceAddr + FW.TraceSize > Avr->ramend + 1u)
    return nodeError(Opts.NodeId, "__wsn_trace (0x" + utohexstr(FW.TraceAddr) + ", " +
                                      Twine(FW.TraceSize) + " bytes) lies outside the data space of " +
                                      Opts.Mcu);

  // Variables the startup code does not touch (.noinit, e.g. __wsn_node_id)
  // get the id in SRAM before the first instruction; zero-initialised ones
  // cannot keep a value (tos-set-symbols cannot set them either).
  for (const IdSymbol &S : FW.IdSymbols) {
    if (S.Where == IdSymbol::Bss) {
      Warnings.push_back(S.Name + " is zero-initialised (.bss): its node id cannot be set "
                                  "before start; left 0");
      continue;
    }
    if (S.Where != IdSymbol::NoInit)
      continue;
    if (S.Addr + S.Size > Avr->ramend + 1u)
      return nodeError(Opts.NodeId, S.Name + " lies outside the data space");
    Avr->data[S.Addr] = Opts.NodeId & 0xFF;
    if (S.Size > 1)
      Avr->data[S.Addr + 1] = Opts.NodeId >> 8;
  }

  for (const auto &[Name, Addr] : FW.CountPcs) {
    PcCount C;
    C.Name = Name;
    C.Addr = Addr;
    PcCounts.push_back(C);
  }

  // MicaZ board: Timer0 from the 32.768 kHz crystal, the LEDs (spec/micaz.md). The
  // crystal is this node's physical part (spec/wsn-sim.md section 4, "Clocks"); the AVR
  // has no DCO.
  if (Opts.Mcu == "atmega128") {
    Clocks = drawNodeClocks(Opts, 1.0, 1.0);
    Timer0.reset(AsyncTimer0::attach(Avr, Clocks.CrystalPpb, Clocks.CrystalPhase32));
    Board = std::make_unique<MicaZBoard>(Avr);
    if (Error E = Board->attach())
      return nodeError(Opts.NodeId, toString(std::move(E)));
  }

  // UARTs: no console printing, no polling sleep (that one waits in real time).
  for (int U = 0; U < 4; ++U) {
    if (!findUart(Avr, U))
      continue;
    uint32_t Flags = 0;
    avr_ioctl(Avr, AVR_IOCTL_UART_GET_FLAGS('0' + U), &Flags);
    Flags &= ~(AVR_UART_FLAG_POLL_SLEEP | AVR_UART_FLAG_STDIO);
    avr_ioctl(Avr, AVR_IOCTL_UART_SET_FLAGS('0' + U), &Flags);
  }

  // Static pin levels (switches, jumpers): driven once, before the firmware starts.
  for (const auto &[Port, Levels] : Opts.Pins) {
    for (unsigned Bit = 0; Bit < 8; ++Bit) {
      avr_irq_t *Pin = avr_io_getirq(Avr, AVR_IOCTL_IOPORT_GETIRQ(Port), Bit);
      if (!Pin)
        return nodeError(Opts.NodeId, Opts.Mcu + " has no port " + Twine(Port));
      avr_raise_irq(Pin, (Levels >> Bit) & 1);
    }
  }

  // Random switch levels, changing at seeded random times.
  if (Opts.SwitchMean) {
    for (unsigned Bit = 0; Bit < 8; ++Bit) {
      SwitchPins[Bit] = avr_io_getirq(Avr, AVR_IOCTL_IOPORT_GETIRQ(Opts.SwitchPort), Bit);
      if (!SwitchPins[Bit])
        return nodeError(Opts.NodeId, Opts.Mcu + " has no port " + Twine(Opts.SwitchPort));
    }
    SwitchRng.emplace(Opts.Seed, Opts.NodeId, Stream::Switches);
    setSwitches(static_cast<uint8_t>(SwitchRng->next() & 0xFF));
    avr_cycle_timer_register(Avr, SwitchRng->uniform(1, 2 * Opts.SwitchMean - 1),
                             onSwitchTimer, this);
  }

  // External interrupt pulses (pins idle high).
  for (const IrqStimulus &S : Opts.Irqs) {
    if (S.Port != 0)
      return nodeError(Opts.NodeId, "--irq p" + Twine(S.Port) + "." + Twine(S.Int) +
                                        ": an MSP430 port pin; " + Opts.Mcu +
                                        " takes intN (INT0..INT7)");
    if (S.Int > 7)
      return nodeError(Opts.NodeId, "no external interrupt int" + Twine(S.Int) +
                                        " (atmega128 has int0..int7)");
    if (S.MeanCycles < 2 * IrqPulseCycles)
      return nodeError(Opts.NodeId, "interrupt mean " + Twine(S.MeanCycles) +
                                        " cycles is too short (minimum " +
                                        Twine(2 * IrqPulseCycles) + ")");
    char Port = S.Int < 4 ? 'D' : 'E'; // INT0-3 on PD0-3, INT4-7 on PE4-7
    avr_irq_t *Pin = avr_io_getirq(Avr, AVR_IOCTL_IOPORT_GETIRQ(Port), S.Int);
    if (!Pin)
      return nodeError(Opts.NodeId, Opts.Mcu + " has no pin for int" + Twine(S.Int));
    // Stream per interrupt line: the ExtIrq stream of this node, offset by the line.
    auto Src = std::unique_ptr<IrqSource>(new IrqSource{
        this, S, Pin, false,
        SimRng(streamSeed(Opts.Seed, Opts.NodeId, Stream::ExtIrq) + S.Int)});
    avr_raise_irq(Pin, 1);
    uint64_t First = Src->Rng.uniform(1, 2 * S.MeanCycles - 1);
    avr_cycle_timer_register(Avr, First, onIrqTimer, Src.get());
    IrqSources.push_back(std::move(Src));
  }

  // Random UART0 receive bytes.
  if (Opts.UartMean) {
    Uart0 = findUart(Avr, 0);
    Uart0In = avr_io_getirq(Avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    if (!Uart0 || !Uart0In)
      return nodeError(Opts.NodeId, Opts.Mcu + " has no UART0");
    UartRng.emplace(Opts.Seed, Opts.NodeId, Stream::Uart);
    avr_cycle_timer_register(Avr, UartRng->uniform(1, 2 * Opts.UartMean - 1), onUartTimer,
                             this);
  }

  // ADC results: answer every conversion start with a random value.
  if (Opts.Adc) {
    AdcIrqs = avr_io_getirq(Avr, AVR_IOCTL_ADC_GETIRQ, 0);
    if (!AdcIrqs)
      return nodeError(Opts.NodeId, Opts.Mcu + " has no ADC");
    AdcRng.emplace(Opts.Seed, Opts.NodeId, Stream::Adc);
    avr_irq_register_notify(AdcIrqs + ADC_IRQ_OUT_TRIGGER, onAdcTrigger, this);
  }

  if (Opts.DrainUart >= 0) {
    avr_irq_t *Out =
        avr_io_getirq(Avr, AVR_IOCTL_UART_GETIRQ('0' + Opts.DrainUart), UART_IRQ_OUTPUT);
    if (!Out)
      return nodeError(Opts.NodeId, Opts.Mcu + " has no UART" + Twine(Opts.DrainUart));
    avr_irq_register_notify(Out, onDrainTx, this);
  }
  return Error::success();
}

uint64_t AvrNode::cycle() const { return Avr->cycle; }

uint64_t AvrNode::nsAt(uint64_t Cycle) const {
  return uint64_t((unsigned __int128)Cycle * 1000000000u / Opts.Frequency);
}

uint64_t AvrNode::cycleAt(uint64_t Ns) const {
  unsigned __int128 N = (unsigned __int128)Ns * Opts.Frequency;
  return uint64_t((N + 999999999u) / 1000000000u);
}

const uint8_t *AvrNode::dataMemory() const { return Avr->data; }
bool AvrNode::interruptsEnabled() const { return Avr->sreg[S_I]; }
uint32_t AvrNode::pc() const { return Avr->pc; }

uint16_t AvrNode::violationArgument() const {
  // The hook's argument (the invariant id) is in r25:r24 (avr-gcc ABI).
  return static_cast<uint16_t>(Avr->data[24] | (Avr->data[25] << 8));
}

uint64_t AvrNode::onBound(avr_t *, uint64_t, void *) { return 0; }

StopKind AvrNode::runUntil(uint64_t Target) {
  if (Terminated)
    return LastStop;
  // A timer at the target keeps a sleeping core from jumping past it.
  if (Avr->cycle < Target)
    avr_cycle_timer_register(Avr, Target - Avr->cycle, onBound, this);
  const bool Watch = FW.HasRuntime || !PcCounts.empty();
  while (Avr->cycle < Target) {
    // A step that sleeps jumps over the sleeping time (to the next timer or
    // interrupt), which the sleep callback reports; the rest is active time.
    const uint64_t Before = Avr->cycle;
    const uint32_t PcBefore = Avr->pc;
    const bool Reti = WatchWakes && flashWord(PcBefore) == 0x9518;
    SleptCycles = 0;
    int State = avr_run(Avr);
    const uint64_t Step = Avr->cycle - Before;
    ActiveCycles += Step - std::min<uint64_t>(Step, SleptCycles);
    if (Opts.Profile)
      profileCycles(PcBefore, Step - std::min<uint64_t>(Step, SleptCycles));
    // After SEI (or RETI, or an SREG write that sets I) the AVR executes
    // exactly one more instruction before a pending interrupt ("Reset and
    // Interrupt Handling": "the instruction following SEI will be executed
    // before any pending interrupts"). libsimavr 1.6 waits for two, so in
    // TinyOS's idle loop (cli ... sei; sleep; cli) an interrupt that became
    // pending while I was clear is never taken: SLEEP does not sleep with
    // an interrupt pending and the next CLI closes the window again
    // (spec/micaz.md, "Interrupt latency after SEI").
    if (Avr->interrupt_state < 0)
      Avr->interrupt_state = avr_has_pending_interrupts(Avr);
    if (State == cpu_Done || State == cpu_Crashed) {
      Terminated = true;
      LastStop = State == cpu_Done ? StopKind::Halted : StopKind::Crashed;
      return LastStop;
    }
    // The stack ran into the globals: a push writes at SP, then decrements it (ATmega128
    // datasheet, "Stack Pointer"), so SP + 1 below the end of .bss/.noinit means a byte
    // there was overwritten (the trace ring and the runtime's state lie last).
    if (FW.RamEnd) {
      uint32_t Sp = uint32_t(Avr->data[R_SPL]) | uint32_t(Avr->data[R_SPH]) << 8;
      if (Sp + 1 < *FW.RamEnd) {
        Terminated = true;
        std::vector<unsigned> Nested;
        for (unsigned I = 0; I < Avr->interrupts.running_ptr && I < 64; ++I)
          if (Avr->interrupts.running[I])
            Nested.push_back(Avr->interrupts.running[I]->vector);
        // simavr keeps a stack of 64 running vectors and stops counting past it.
        const bool Full = Avr->interrupts.running_ptr >= 64;
        CrashReason = stackOverflow(Sp + 1, *FW.RamEnd, "_end", Avr->cycle, Nested, Full);
        return LastStop = StopKind::Crashed;
      }
    }
    // Safe at every instruction: ringPos uses the header only while no
    // record is open (trace-format.md section 1.1). Polling only with SREG.I
    // set lost segments of TinyOS apps, whose boot code and atomic sections
    // write several rings' worth of records with interrupts disabled.
    if (Opts.FullTrace)
      pollFullTrace();
    if (WatchWakes)
      noteStep(returnedIntoSleep(Reti));
    if (Watch) {
      StopKind S = atPc(Avr->pc, Avr->cycle);
      if (S != StopKind::None)
        return S;
    }
  }
  return StopKind::None;
}

bool AvrNode::stepOnce() {
  int State = avr_run(Avr);
  if (Avr->interrupt_state < 0)
    Avr->interrupt_state = avr_has_pending_interrupts(Avr);
  return State != cpu_Done && State != cpu_Crashed;
}

uint16_t AvrNode::flashWord(uint32_t Byte) const {
  return Byte + 1 <= Avr->flashend ? uint16_t(Avr->flash[Byte] | (Avr->flash[Byte + 1] << 8))
                                   : 0;
}

bool AvrNode::returnedIntoSleep(bool WasReti) const {
  // Instruction words (AVR instruction set manual): RETI 0x9518, SLEEP 0x9588. A handler
  // that returns to the instruction after a SLEEP was taken in that sleep (the instruction
  // after SEI runs before any interrupt, so `sei; sleep` cannot be struck between them).
  return WasReti && Avr->pc >= 2 && flashWord(Avr->pc - 2) == 0x9588;
}

std::string AvrNode::settleToRecord(uint64_t Limit) {
  if (recordOpen())
    return "record";
  if (Avr->state == cpu_Sleeping)
    return "sleep";
  uint64_t End = Avr->cycle + Limit;
  while (Avr->cycle < End && !Terminated) {
    bool Reti = flashWord(Avr->pc) == 0x9518;
    int State = avr_run(Avr);
    if (State == cpu_Done || State == cpu_Crashed)
      return "end";
    if (recordOpen())
      return "record";
    if (Avr->state == cpu_Sleeping)
      return "sleep";
    // Replay delivers an interrupt taken in a sleep where its count comes due, before the
    // sleep hook, and ends at that hook when no record follows (spec/replay.md, "sleep"):
    // the state right after the return is where replay of this trace ends.
    if (returnedIntoSleep(Reti))
      return "sleep";
    if (FW.VectorsEnd && Avr->pc < FW.VectorsEnd)
      return "interrupt";
  }
  return "end";
}

//===----------------------------------------------------------------------===//
// Stimuli
//===----------------------------------------------------------------------===//

void AvrNode::setSwitches(uint8_t Levels) {
  for (unsigned Bit = 0; Bit < 8; ++Bit)
    avr_raise_irq(SwitchPins[Bit], (Levels >> Bit) & 1);
}

uint64_t AvrNode::onSwitchTimer(avr_t *, uint64_t When, void *P) {
  auto *N = static_cast<AvrNode *>(P);
  N->setSwitches(static_cast<uint8_t>(N->SwitchRng->next() & 0xFF));
  return When + N->SwitchRng->uniform(1, 2 * N->Opts.SwitchMean - 1);
}

uint64_t AvrNode::onIrqTimer(avr_t *, uint64_t When, void *P) {
  auto *S = static_cast<IrqSource *>(P);
  if (!S->Low) {
    // Falling edge, then the pin stays low for IrqPulseCycles.
    S->Low = true;
    avr_raise_irq(S->Pin, 0);
    ++S->Owner->Stats.IrqPulses;
    return When + IrqPulseCycles;
  }
  S->Low = false;
  avr_raise_irq(S->Pin, 1);
  return When + S->Rng.uniform(1, 2 * S->Cfg.MeanCycles - 1);
}

bool AvrNode::uartFull(avr_uart_t *U) const {
  // The FIFO is full when advancing the write cursor would meet the read one.
  return ((U->input.write + 1) & (uart_fifo_fifo_size - 1)) == U->input.read;
}

uint64_t AvrNode::onUartTimer(avr_t *Avr, uint64_t When, void *P) {
  auto *N = static_cast<AvrNode *>(P);
  uint8_t Byte = static_cast<uint8_t>(N->UartRng->next() & 0xFF);
  // A byte arriving while the receiver is off or its FIFO is full is lost, as
  // on the wire.
  if (!avr_regbit_get(Avr, N->Uart0->rxen) || N->uartFull(N->Uart0)) {
    ++N->Stats.UartDropped;
  } else {
    avr_raise_irq(N->Uart0In, Byte);
    ++N->Stats.UartBytes;
  }
  return When + N->UartRng->uniform(1, 2 * N->Opts.UartMean - 1);
}

void AvrNode::onAdcTrigger(avr_irq_t *, uint32_t Value, void *P) {
  auto *N = static_cast<AvrNode *>(P);
  avr_adc_mux_t Mux;
  static_assert(sizeof(Mux) >= sizeof(uint32_t), "mux layout");
  memset(&Mux, 0, sizeof(Mux));
  memcpy(&Mux, &Value, sizeof(Value));
  unsigned Channel = Mux.src & 7;
  uint64_t V = N->AdcRng->uniform(N->Opts.AdcLo, N->Opts.AdcHi);
  // simavr converts millivolts with the selected reference (ADMUX REFS1:0 on
  // the atmega128: 00 AREF, 01 AVCC, 11 internal 2.56 V): pick the voltage
  // that converts back to exactly V.
  uint8_t Admux = N->Avr->data[0x27];
  uint32_t Ref = (Admux >> 6) == 3 ? 2560 : (Admux >> 6) == 1 ? N->Avr->avcc : N->Avr->aref;
  uint32_t MilliVolts = static_cast<uint32_t>((V * Ref + 1022) / 1023);
  ++N->Stats.AdcSamples;
  avr_raise_irq(N->AdcIrqs + ADC_IRQ_ADC0 + Channel, MilliVolts);
  if (Mux.kind == ADC_MUX_DIFF)
    avr_raise_irq(N->AdcIrqs + ADC_IRQ_ADC0 + (Mux.diff & 7), 0);
}

void AvrNode::onDrainTx(avr_irq_t *, uint32_t Value, void *P) {
  static_cast<AvrNode *>(P)->Drained.push_back(static_cast<uint8_t>(Value));
}

std::vector<uint8_t> AvrNode::dataSpace() const {
  return std::vector<uint8_t>(Avr->data, Avr->data + Avr->ramend + 1);
}

} // namespace sim
} // namespace wsn
