//===- SimavrOracle.cpp - run an AVR ELF in simavr until a marker ---------===//
#include "SimavrOracle.h"

#include "MoteMemoryModel.h"
#include "SimavrCore.h"

#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>

using namespace llvm;

namespace wsn {

namespace {
// libsimavr's default sleep callback waits in real time; we want none.
void noSleep(avr_t *, avr_cycle_count_t) {}
} // namespace

Expected<SimavrRun> runSimavrToMarker(const std::string &ElfPath, const std::string &MCU,
                                      const std::string &Marker, uint64_t MaxCycles) {
  Expected<MoteImage> Img = readMoteImage(ElfPath);
  if (!Img)
    return Img.takeError();
  auto It = Img->Code.find(Marker);
  if (It == Img->Code.end())
    return createStringError(inconvertibleErrorCode(), "%s: no function '%s'",
                             ElfPath.c_str(), Marker.c_str());
  uint64_t Target = It->second.Addr;

  elf_firmware_t Fw = {};
  if (elf_read_firmware(ElfPath.c_str(), &Fw) != 0) {
    sim::freeSimavrFirmware(Fw);
    return createStringError(inconvertibleErrorCode(), "%s: simavr cannot read it",
                             ElfPath.c_str());
  }
  avr_t *Avr = avr_make_mcu_by_name(MCU.c_str());
  if (!Avr) {
    sim::freeSimavrFirmware(Fw);
    return createStringError(inconvertibleErrorCode(), "simavr does not know MCU %s",
                             MCU.c_str());
  }
  avr_init(Avr);
  Avr->sleep = noSleep;
  Avr->log = 0;
  avr_load_firmware(Avr, &Fw);
  sim::freeSimavrFirmware(Fw); // the core holds its own copy
  SimavrRun R;
  std::string Err;
  for (;;) {
    if (Avr->pc == Target)
      break;
    int State = avr_run(Avr);
    if (State == cpu_Done || State == cpu_Crashed) {
      Err = "program stopped (state " + std::to_string(State) + ") before reaching '" +
            Marker + "'";
      break;
    }
    if (Avr->cycle > MaxCycles) {
      Err = "no '" + Marker + "' within " + std::to_string(MaxCycles) + " cycles";
      break;
    }
  }
  R.Cycles = Avr->cycle;
  R.Data.assign(Avr->data, Avr->data + Avr->ramend + 1);
  if (Avr->state == cpu_Crashed)
    sim::retainCrashedSimavrCore(Avr);
  else
    sim::destroySimavrCore(Avr);
  if (!Err.empty())
    return createStringError(inconvertibleErrorCode(), "%s: %s", ElfPath.c_str(),
                             Err.c_str());
  return R;
}

} // namespace wsn
