// Z1BoardTest.cpp - the Z1 board's wiring (spec/z1.md) on a bare msp430f2617 Chip: where it
// differs from the TelosB's (TelosBBoardTest.cpp covers the shared board logic), through the
// CPU's bus and the ports.
#include "Z1Board.h"

#include "gtest/gtest.h"

using namespace wsn::sim;
using namespace wsn::msp430;

namespace {

// Port registers (SLAU144 chapter 8, Table 8-2): P4OUT 0x1D, P4DIR 0x1E, P5OUT 0x31, P5DIR 0x32.
constexpr uint16_t P4Out = 0x1D, P4Dir = 0x1E, P5Out = 0x31, P5Dir = 0x32;

TEST(Z1BoardTest, LedsRedYellowGreenOnP54P55P56AndRegulatorOnP45) {
  Chip Dev(*lookupMcu("msp430f2617"));
  Z1Board Board(Dev);
  Dev.powerOn();
  // z1 hardware.h: Led0 (red) P5.4, Led1 (green) P5.6, Led2 (yellow) P5.5; lit when low.
  Dev.cpu().writeByte(P5Out, 0x70);
  Dev.cpu().writeByte(P5Dir, 0x70);
  EXPECT_EQ(Board.leds(), 0u);
  Dev.cpu().writeByte(P5Out, 0x30); // P5.6 low: Led1
  EXPECT_EQ(Board.leds(), 2u);
  Dev.cpu().writeByte(P5Out, 0x50); // P5.5 low: Led2
  EXPECT_EQ(Board.leds(), 4u);
  EXPECT_EQ(ledString(Board.leds(), Board.ledNames()), "--Y");
  // HplCC2420PinsC: VREG_EN P4.5 (CSn is P3.0 on the Z1, not on port 4).
  Dev.cpu().writeByte(P4Dir, 0x60);
  Dev.cpu().writeByte(P4Out, 0x20);
  EXPECT_TRUE(Board.radioPowered());
  Dev.cpu().writeByte(P4Out, 0x00);
  EXPECT_FALSE(Board.radioPowered());
  EXPECT_TRUE(Board.radioUsed());
}

TEST(Z1BoardTest, RadioOutputsOnP12P13P14P41AndTheButtonOnP25) {
  Chip Dev(*lookupMcu("msp430f2617"));
  Z1Board Board(Dev);
  Dev.powerOn();
  for (unsigned Port = 1; Port <= 6; ++Port)
    for (unsigned Bit = 0; Bit < 8; ++Bit) {
      bool Radio = (Port == 1 && Bit >= 2 && Bit <= 4) || (Port == 4 && Bit == 1);
      EXPECT_EQ(Board.drivesPin(Port, Bit), Radio) << "P" << Port << "." << Bit;
    }
  // Unpowered, the CC2420 drives FIFOP, FIFO, CCA and SFD low; the released button reads high.
  EXPECT_EQ(Dev.ports().in(1) & 0x1C, 0);
  EXPECT_EQ(Dev.ports().in(4) & 0x02, 0);
  EXPECT_EQ(Dev.ports().in(2) & 0x20, 0x20);
}

} // namespace
