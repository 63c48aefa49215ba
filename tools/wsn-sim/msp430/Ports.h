// Ports.h - digital I/O ports P1-P6 (SLAU049 chapter 9): PxIN, PxOUT, PxDIR, PxSEL, and on
// P1/P2 the edge-triggered interrupt flags PxIFG with PxIES (edge select) and PxIE.
//
// A board drives input pins with setInput and watches outputs with onOutput. A pin's PxIN is
// its level: the board's input where PxDIR is 0, PxOUT where the port drives it. Not modelled:
// the F2xx pull resistors (PxREN) and PxSEL2.
#ifndef WSN_MSP430_PORTS_H
#define WSN_MSP430_PORTS_H

#include "Peripheral.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace wsn::msp430 {

class Cpu;

class Ports : public Peripheral {
public:
  /// Port 1 and 2 vectors: 0xFFE8/0xFFE2 on the F1611, 0xFFE4/0xFFE6 on the F2617.
  explicit Ports(Cpu &C);
  void map(); ///< P1/P2 at 0x20-0x2E, P3/P4 at 0x18-0x1F, P5/P6 at 0x30-0x37
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  /// PUC: PxDIR, PxSEL, PxIFG, PxIE cleared; PxOUT and PxIES keep their (undefined) values.
  void reset() override;

  /// The level the board puts on pin Port.Bit (Port 1..6) from now on.
  void setInput(unsigned Port, unsigned Bit, bool Level);
  /// Called after PxOUT or PxDIR of a port changed: (port, PxOUT, PxDIR).
  void onOutput(std::function<void(unsigned, uint8_t, uint8_t)> Fn) {
    Watchers.push_back(std::move(Fn));
  }
  uint8_t out(unsigned Port) const { return P[Port - 1].Out; }
  uint8_t dir(unsigned Port) const { return P[Port - 1].Dir; }
  uint8_t in(unsigned Port) const { return level(P[Port - 1]); }

private:
  struct Port {
    uint8_t External = 0, Out = 0, Dir = 0, Sel = 0, Ifg = 0, Ies = 0, Ie = 0;
  };
  static uint8_t level(const Port &X) {
    return uint8_t((X.Dir & X.Out) | (~X.Dir & X.External));
  }
  /// Sets PxIFG bits for the edges between two levels (P1 and P2 only), per PxIES.
  void edges(unsigned Index, uint8_t Before, uint8_t After);
  void updateLines();
  bool decode(uint32_t Addr, unsigned &Index, unsigned &Reg) const;

  Cpu &C;
  Port P[6];
  unsigned Slot1, Slot2;
  std::vector<std::function<void(unsigned, uint8_t, uint8_t)>> Watchers;
};

} // namespace wsn::msp430

#endif
