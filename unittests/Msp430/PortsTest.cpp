// PortsTest.cpp - digital I/O against SLAU049F chapter 9.
#include "Rig.h"

#include <gtest/gtest.h>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

constexpr uint32_t P1IN = 0x20, P1OUT = 0x21, P1DIR = 0x22, P1IFG = 0x23, P1IES = 0x24,
                   P1IE = 0x25, P2IFG = 0x2B, P2IE = 0x2D, P4IN = 0x1C, P5OUT = 0x31,
                   P5DIR = 0x32;

// §9.2.1-9.2.3: PxIN reads the pin: the board's level where PxDIR = 0, PxOUT where it is 1.
TEST(Msp430Ports, InputsOutputsAndDirection) {
  Rig T;
  T.start();
  Ports &Io = T.Dev.ports();
  Io.setInput(4, 1, true);
  EXPECT_EQ(T.C.readByte(P4IN), 0x02);
  unsigned SeenPort = 0;
  uint8_t SeenOut = 0, SeenDir = 0;
  Io.onOutput([&](unsigned Port, uint8_t Out, uint8_t Dir) {
    SeenPort = Port;
    SeenOut = Out;
    SeenDir = Dir;
  });
  T.C.writeByte(P5OUT, 0x70); // TelosB LEDs are P5.4-P5.6
  T.C.writeByte(P5DIR, 0x70);
  EXPECT_EQ(SeenPort, 5u);
  EXPECT_EQ(SeenOut, 0x70);
  EXPECT_EQ(SeenDir, 0x70);
  EXPECT_EQ(T.C.readByte(0x30) & 0x70, 0x70); // P5IN follows the driven pins
  T.Dev.powerOn(); // PUC clears PxDIR
  EXPECT_EQ(T.C.readByte(P5DIR), 0);
}

// §9.2.6: PxIFGx is set on the edge PxIESx selects (0: low-to-high, 1: high-to-low); with
// PxIEx set it requests the port vector; the flag stays until software clears it.
TEST(Msp430Ports, EdgeInterrupts) {
  Rig T;
  T.start();
  Ports &Io = T.Dev.ports();
  T.C.writeByte(P1IES, 0x01); // P1.0 falling, P1.3 rising
  T.C.writeByte(P1IE, 0x09);
  Io.setInput(1, 3, true);
  EXPECT_EQ(T.C.readByte(P1IFG), 0x08);
  EXPECT_TRUE(T.C.irq().isSet(4)); // PORT1 vector 0xFFE8
  Io.setInput(1, 0, true); // rising edge on a falling-edge pin: no flag
  EXPECT_EQ(T.C.readByte(P1IFG), 0x08);
  Io.setInput(1, 0, false);
  EXPECT_EQ(T.C.readByte(P1IFG), 0x09);
  T.C.writeByte(P1IFG, 0);
  EXPECT_FALSE(T.C.irq().isSet(4));
  T.C.writeByte(P2IE, 0x80); // software can set a flag
  T.C.writeByte(P2IFG, 0x80);
  EXPECT_TRUE(T.C.irq().isSet(1)); // PORT2 vector 0xFFE2
  EXPECT_EQ(T.C.readByte(P1IN) & 0x09, 0x08);
  // An output pin's own transitions are edges too.
  T.C.writeByte(P1IES, 0x00);
  T.C.writeByte(P1DIR, 0x02);
  T.C.writeByte(P1OUT, 0x02);
  EXPECT_EQ(T.C.readByte(P1IFG) & 0x02, 0x02);
}

} // namespace
