//===- SimavrCore.cpp - owning libsimavr cores and firmware images --------===//
#include "SimavrCore.h"

extern "C" {
#include <simavr/avr_watchdog.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_irq.h>
}

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace wsn {
namespace sim {

// avr_iomem_getirq (sim_io.c) allocates one block of 8 pin IRQs plus an "all"
// IRQ per I/O address on first use and keeps it in avr->io[a].irq.
static constexpr uint32_t IoMemIrqCount = 9;

void freeSimavrFirmware(elf_firmware_t &Fw) {
  free(Fw.flash);
  free(Fw.eeprom);
  free(Fw.fuse);
  free(Fw.lockbits);
  Fw.flash = Fw.eeprom = Fw.fuse = Fw.lockbits = nullptr;
  Fw.flashsize = Fw.eesize = Fw.fusesize = 0;
#if ELF_SYMBOLS
  for (uint32_t I = 0; I < Fw.symbolcount; ++I)
    free(Fw.symbol[I]);
  free(Fw.symbol);
  Fw.symbol = nullptr;
  Fw.symbolcount = 0;
#endif
}

void destroySimavrCore(avr_t *Avr) {
  if (!Avr)
    return;
  // 1. avr_terminate does not free the per-address IRQ blocks.
  for (auto &Io : Avr->io)
    if (Io.irq) {
      avr_free_irq(Io.irq, IoMemIrqCount);
      Io.irq = nullptr;
    }
  // 1b. avr_watchdog_reset (avr_watchdog.c) hooks a notify onto the watchdog
  //     vector's IRQ even where the MCU has no watchdog interrupt (atmega128:
  //     vector 0), and then avr_register_vector never put that IRQ in the pool.
  for (avr_io_t *Io = Avr->io_port; Io; Io = Io->next)
    if (Io->kind && !strcmp(Io->kind, "watchdog")) {
      auto *Wd = reinterpret_cast<avr_watchdog_t *>(Io);
      if (!Wd->watchdog.irq[0].pool)
        avr_free_irq(Wd->watchdog.irq, AVR_INT_IRQ_COUNT);
    }
  // 2. The I/O modules (their dealloc and IRQ blocks), flash, data.
  avr_terminate(Avr);
  // 3. IRQs still in the pool live inside the avr_t (avr_interrupt_init's table
  //    IRQs, avr_register_vector's vector IRQs): avr_free_irq on one of them
  //    frees its name and hooks and takes it out of the pool; it frees the IRQ
  //    itself only when it came from avr_alloc_irq, which none left here did
  //    (a block with that flag is freed by its first element only, so such
  //    an IRQ is released just of its name and hooks).
  avr_irq_pool_t &Pool = Avr->irq_pool;
  for (int I = 0; I < Pool.count; ++I)
    if (avr_irq_t *Irq = Pool.irq[I]) {
      Irq->flags &= ~IRQ_FLAG_ALLOC;
      avr_free_irq(Irq, 1);
    }
  free(Pool.irq);
  Pool.irq = nullptr;
  Pool.count = 0;
  // 4. avr_make_mcu_by_name's copy of the MCU description (avr_core_allocate).
  free(Avr);
}

// What is kept until exit: reachable from here, so LeakSanitizer does not count it.
namespace {
struct Retained {
  std::mutex M;
  std::vector<avr_t *> Cores;
  std::vector<elf_firmware_t> Images;
};
Retained &retained() {
  static Retained *R = new Retained();
  return *R;
}
} // namespace

void retainCrashedSimavrCore(avr_t *Avr) {
  Retained &R = retained();
  std::lock_guard<std::mutex> L(R.M);
  R.Cores.push_back(Avr);
}

void retainAbandonedSimavrFirmware(const elf_firmware_t &Fw) {
  Retained &R = retained();
  std::lock_guard<std::mutex> L(R.M);
  R.Images.push_back(Fw);
}

} // namespace sim
} // namespace wsn
