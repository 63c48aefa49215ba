// TelosBBoardTest.cpp - the TelosB board's wiring (spec/telosb.md) on a bare msp430f1611 Chip:
// the pins written through the CPU's bus reach the LEDs and the CC2420, the CC2420's outputs
// reach the ports, and MCLK cycles map to nanoseconds through the Basic Clock module.
#include "TelosBBoard.h"

#include "gtest/gtest.h"

using namespace wsn::sim;
using namespace wsn::msp430;

namespace {

class TelosBBoardTest : public ::testing::Test {
protected:
  TelosBBoardTest() : Dev(*lookupMcu("msp430f1611")), Board(Dev) { Dev.powerOn(); }
  // Port registers (SLAU049 chapter 9, Table 9-2): P4OUT 0x1D, P4DIR 0x1E, P5OUT 0x31, P5DIR 0x32.
  void out(unsigned Port, uint8_t V) { Dev.cpu().writeByte(Port == 4 ? 0x1D : 0x31, V); }
  void dir(unsigned Port, uint8_t V) { Dev.cpu().writeByte(Port == 4 ? 0x1E : 0x32, V); }
  Chip Dev;
  TelosBBoard Board;
};

TEST_F(TelosBBoardTest, LedsArePort5Bits4To6LitWhenDrivenLow) {
  // telosa/PlatformLedsC: Led0 P5.4, Led1 P5.5, Led2 P5.6; LedsP lights a LED with clr().
  EXPECT_EQ(Board.leds(), 0u);
  out(5, 0x70);
  dir(5, 0x70); // outputs driven high: dark
  EXPECT_EQ(Board.leds(), 0u);
  out(5, 0x60); // P5.4 low
  EXPECT_EQ(Board.leds(), 1u);
  out(5, 0x10); // P5.5, P5.6 low
  EXPECT_EQ(Board.leds(), 6u);
  dir(5, 0x00); // inputs: a LED sinks only into a pin driven low
  EXPECT_EQ(Board.leds(), 0u);
  ASSERT_EQ(Board.ledHistory().size(), 3u);
  EXPECT_EQ(ledString(Board.ledHistory()[1].Leds, Board.ledNames()), "-GB");
  // Other port 5 pins do not matter.
  dir(5, 0x70);
  out(5, 0x7F);
  EXPECT_EQ(Board.leds(), 0u);
}

TEST_F(TelosBBoardTest, VregEnIsP45AndCsnP42) {
  // telosa/chips/cc2420/HplCC2420PinsC: VRENM -> Port45, CSNM -> Port42, RSTNM -> Port46.
  EXPECT_FALSE(Board.radioPowered());
  dir(4, 0x64);
  out(4, 0x04); // CSn high only
  EXPECT_FALSE(Board.radioPowered());
  out(4, 0x24); // VREG_EN high
  EXPECT_TRUE(Board.radioPowered());
  EXPECT_TRUE(Board.radioUsed());
  out(4, 0x04);
  EXPECT_FALSE(Board.radioPowered());
  EXPECT_TRUE(Board.radioUsed());
  // As an input the pin is not driven: the regulator stays off even with P4OUT.5 set.
  dir(4, 0x00);
  out(4, 0x20);
  EXPECT_FALSE(Board.radioPowered());
}

TEST_F(TelosBBoardTest, RadioOutputsAndTheButtonAreInputsOfPorts1And4And2) {
  // FIFOP P1.0, FIFO P1.3, CCA P1.4, SFD P4.1 are the CC2420's; nothing else is.
  for (unsigned Port = 1; Port <= 6; ++Port)
    for (unsigned Bit = 0; Bit < 8; ++Bit) {
      bool Radio = (Port == 1 && (Bit == 0 || Bit == 3 || Bit == 4)) || (Port == 4 && Bit == 1);
      EXPECT_EQ(Board.drivesPin(Port, Bit), Radio) << "P" << Port << "." << Bit;
    }
  // Unpowered, the CC2420 drives its outputs low; the user button (telosb/UserButtonP: "high
  // when released") holds P2.7 high.
  EXPECT_EQ(Dev.ports().in(1) & 0x19, 0);
  EXPECT_EQ(Dev.ports().in(4) & 0x02, 0);
  EXPECT_EQ(Dev.ports().in(2) & 0x80, 0x80);
}

TEST_F(TelosBBoardTest, CyclesMapToNanosecondsThroughTheDco) {
  // After PUC the DCO runs at the model's 800 kHz (spec/msp430.md, Basic Clock): 1250 ns a cycle.
  EXPECT_EQ(Board.nsAt(800000), 1000000000u);
  EXPECT_EQ(Board.cycleAt(1000000000), 800000u);
  EXPECT_EQ(Board.cycleAt(1000000001), 800001u); // the first cycle whose time reaches it
  // Times are mapped from the current cycle on (power-on took the 4 reset cycles); an
  // earlier time maps to the current cycle.
  ASSERT_EQ(Dev.cpu().cycles(), 4u);
  EXPECT_EQ(Board.cycleAt(1251), 4u);
  for (uint64_t C : {4ull, 5ull, 12345ull, 999999ull})
    EXPECT_EQ(Board.cycleAt(Board.nsAt(C)), C);
  // Edges the core handles late (the SFD capture) map back to their own cycle.
  EXPECT_EQ(mclkPastCycleAt(Dev, 2500), 2u);
  EXPECT_EQ(mclkPastCycleAt(Dev, 2501), 3u);
  EXPECT_EQ(mclkPastCycleAt(Dev, 0), 0u);
  EXPECT_EQ(mclkPastCycleAt(Dev, 7000), 4u); // not in the past: the current cycle
}

} // namespace
