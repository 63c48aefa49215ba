// msp430-run - run an MSP430 ELF in the WSNMsp430 core for a number of instructions and print
// what happened as one JSON object (instructions, cycles, wall and CPU seconds spent in the
// run loop, the stop reason, PC and SR). For benchmarks (bench/simspeed) and scripts.
//
//   msp430-run [--mcu=msp430f1611] [--instructions=N] fw.elf
#include "Chip.h"
#include "ElfLoader.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

#include <chrono>
#include <ctime>
#include <iostream>

using namespace wsn::msp430;

int main(int Argc, char **Argv) {
  std::string McuName = "msp430f1611", Elf;
  uint64_t Count = 1000000;
  for (int I = 1; I < Argc; ++I) {
    absl::string_view A = Argv[I];
    if (absl::ConsumePrefix(&A, "--mcu=")) {
      McuName = std::string(A);
    } else if (absl::ConsumePrefix(&A, "--instructions=")) {
      if (!absl::SimpleAtoi(A, &Count)) {
        std::cerr << "msp430-run: bad --instructions value '" << A << "'\n";
        return 2;
      }
    } else if (!A.empty() && A[0] == '-') {
      std::cerr << "msp430-run: unknown option " << A
                << "\nusage: msp430-run [--mcu=PART] [--instructions=N] FILE.elf\n";
      return 2;
    } else {
      Elf = std::string(A);
    }
  }
  if (Elf.empty()) {
    std::cerr << "usage: msp430-run [--mcu=PART] [--instructions=N] FILE.elf\n";
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
  auto T0 = std::chrono::steady_clock::now();
  std::clock_t Cpu0 = std::clock();
  uint64_t Done = C.run(Count);
  double CpuSecs = double(std::clock() - Cpu0) / CLOCKS_PER_SEC;
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  const char *State = C.faulted() ? "fault" : (C.sr() & SR_CPUOFF) ? "asleep" : "running";
  std::cout << absl::StrFormat("{\"instructions\": %u, \"cycles\": %u, \"seconds\": %.6f, \"cpu_seconds\": %.6f, "
                               "\"state\": \"%s\", \"fault\": \"%s\", \"pc\": %u, \"sr\": %u}\n",
                               Done, C.cycles(), Secs, CpuSecs, State, C.fault(), C.reg(PC), C.sr());
  return C.faulted() ? 1 : 0;
}
