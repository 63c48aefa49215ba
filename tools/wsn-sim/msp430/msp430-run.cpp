// msp430-run - run an MSP430 ELF in the WSNMsp430 core for a number of instructions and print
// what happened as one JSON object (instructions, cycles, wall and CPU seconds spent in the
// run loop, the stop reason, PC and SR). For benchmarks (bench/simspeed) and scripts.
//
//   msp430-run [--mcu=msp430f1611] [--instructions=N] [--watch-ports]
//              [--serial-out=FILE] [--serial-in=TEXT] [--serial-unit=N] fw.elf
//
// --serial-out writes every character the firmware sends on a UART (USART0/1 of the F1611,
// USCI_A0/A1 of the F2617) to FILE as it leaves the stop bit; --serial-in sends TEXT's bytes to
// unit N (default: USART1 on the F1611, TelosB's USB serial; USCI_A0 on the F2617, Z1's),
// one frame after another at the baud rate the firmware set.
//
// --watch-ports prints every change of a port's PxOUT/PxDIR as
// "port P<n> out=0x.. dir=0x.. cycle=<c> ms=<real time>" on stderr (LEDs, radio pins).
#include "Chip.h"
#include "ElfLoader.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

using namespace wsn::msp430;

int main(int Argc, char **Argv) {
  std::string McuName = "msp430f1611", Elf;
  uint64_t Count = 1000000;
  bool WatchPorts = false;
  std::string SerialOut, SerialIn;
  int SerialUnit = -1;
  for (int I = 1; I < Argc; ++I) {
    absl::string_view A = Argv[I];
    if (absl::ConsumePrefix(&A, "--mcu=")) {
      McuName = std::string(A);
    } else if (absl::ConsumePrefix(&A, "--instructions=")) {
      if (!absl::SimpleAtoi(A, &Count)) {
        std::cerr << "msp430-run: bad --instructions value '" << A << "'\n";
        return 2;
      }
    } else if (A == "--watch-ports") {
      WatchPorts = true;
    } else if (absl::ConsumePrefix(&A, "--serial-out=")) {
      SerialOut = std::string(A);
    } else if (absl::ConsumePrefix(&A, "--serial-in=")) {
      SerialIn = std::string(A);
    } else if (absl::ConsumePrefix(&A, "--serial-unit=")) {
      if (!absl::SimpleAtoi(A, &SerialUnit) || SerialUnit < 0 || SerialUnit > 1) {
        std::cerr << "msp430-run: bad --serial-unit value '" << A << "' (0 or 1)\n";
        return 2;
      }
    } else if (!A.empty() && A[0] == '-') {
      std::cerr << "msp430-run: unknown option " << A
                << "\nusage: msp430-run [--mcu=PART] [--instructions=N] [--watch-ports] "
                   "[--serial-out=FILE] [--serial-in=TEXT] [--serial-unit=N] FILE.elf\n";
      return 2;
    } else {
      Elf = std::string(A);
    }
  }
  if (Elf.empty()) {
    std::cerr << "usage: msp430-run [--mcu=PART] [--instructions=N] [--watch-ports] FILE.elf\n";
    return 2;
  }
  auto Mcu = lookupMcu(McuName);
  if (!Mcu.ok()) {
    std::cerr << "msp430-run: " << Mcu.status().message() << "\n";
    return 2;
  }
  Chip Dev(*Mcu);
  auto Img = readElf(Elf);
  if (!Img.ok()) {
    std::cerr << "msp430-run: " << Img.status().message() << "\n";
    return 2;
  }
  if (auto St = loadElf(Dev.cpu(), *Img, Elf); !St.ok()) {
    std::cerr << "msp430-run: " << St.message() << "\n";
    return 2;
  }
  Dev.sfr().powerOnReset();
  Cpu &C = Dev.cpu();
  if (WatchPorts)
    Dev.ports().onOutput([&](unsigned Port, uint8_t Out, uint8_t Dir) {
      std::cerr << absl::StrFormat("port P%u out=0x%02x dir=0x%02x cycle=%u ms=%.3f\n", Port, Out,
                                   Dir, C.cycles(), Dev.clock().picosecondsAt(C.cycles()) / 1e9);
    });
  std::FILE *Out = nullptr;
  if (!SerialOut.empty() && !(Out = std::fopen(SerialOut.c_str(), "wb"))) {
    std::cerr << "msp430-run: cannot write " << SerialOut << "\n";
    return 2;
  }
  auto Sink = [&](uint8_t B, uint64_t) {
    if (Out)
      std::fputc(B, Out);
  };
  for (unsigned U = 0; U < 2; ++U) {
    if (Usart *X = Dev.usart(U))
      X->onTransmit(Sink);
    if (Usci *X = Dev.usciA(U))
      X->onTransmit(Sink);
  }
  unsigned InUnit = SerialUnit >= 0 ? unsigned(SerialUnit) : (Dev.usart(1) ? 1 : 0);
  for (char Ch : SerialIn) {
    if (Usart *X = Dev.usart(InUnit))
      X->receive(uint8_t(Ch));
    else if (Usci *X = Dev.usciA(InUnit))
      X->receive(uint8_t(Ch));
  }
  auto T0 = std::chrono::steady_clock::now();
  std::clock_t Cpu0 = std::clock();
  uint64_t Done = C.run(Count);
  double CpuSecs = double(std::clock() - Cpu0) / CLOCKS_PER_SEC;
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  const char *State = C.faulted() ? "fault" : (C.sr() & SR_CPUOFF) ? "asleep" : "running";
  std::cout << absl::StrFormat("{\"instructions\": %u, \"cycles\": %u, \"seconds\": %.6f, \"cpu_seconds\": %.6f, "
                               "\"state\": \"%s\", \"fault\": \"%s\", \"pc\": %u, \"sr\": %u}\n",
                               Done, C.cycles(), Secs, CpuSecs, State, C.fault(), C.reg(PC), C.sr());
  if (Out)
    std::fclose(Out);
  return C.faulted() ? 1 : 0;
}
