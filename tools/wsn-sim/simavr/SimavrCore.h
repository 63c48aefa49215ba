//===- SimavrCore.h - owning libsimavr cores and firmware images ----------===//
//
// libsimavr 1.6 hands its callers objects that avr_terminate only partly
// releases. Everything in the project that creates a core (wsn-sim's AvrNode,
// the replay tests' simavr oracle) frees it through these functions, so a
// sanitizer build reports no leak from a core that ran and was torn down.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_SIMAVRCORE_H
#define WSN_SIM_SIMAVRCORE_H

struct avr_t;
struct elf_firmware_t;

namespace wsn {
namespace sim {

/// Frees what elf_read_firmware allocated in Fw (the flash image, the .eeprom,
/// .fuse and .lock copies, the symbol table and its entries) and clears those
/// fields. Fw must have been zero-initialised before elf_read_firmware (which
/// returns before clearing it when the file cannot be opened). libsimavr
/// copies everything it keeps (avr_load_firmware: avr_loadcode, the EEPROM
/// ioctl, the fuses), so the image can be freed right after loading.
void freeSimavrFirmware(elf_firmware_t &Fw);

/// Tears a core from avr_make_mcu_by_name + avr_init down and frees it:
/// the per-address IRQ arrays of avr_iomem_getirq and the hooks on an unpooled
/// watchdog vector, then avr_terminate (I/O
/// modules' IRQs, flash, data), then the IRQs embedded in the avr_t that are
/// still in its IRQ pool (interrupt table and vectors: their names and
/// notify hooks), the pool's array, and the avr_t itself.
void destroySimavrCore(avr_t *Avr);

/// A core that crashed (cpu_Crashed) may have written past its data array
/// from inside libsimavr, so freeing its heap objects is not safe: it is kept,
/// reachable, until the process exits.
void retainCrashedSimavrCore(avr_t *Avr);

/// The half-read image of an elf_read_firmware call that crashed (run under
/// crash recovery) is in an unknown state: it is kept, reachable, until the
/// process exits rather than freed.
void retainAbandonedSimavrFirmware(const elf_firmware_t &Fw);

} // namespace sim
} // namespace wsn

#endif
