// Adc12Test.cpp - ADC12 conversions against SLAU049F chapter 17.
#include "Rig.h"

#include <gtest/gtest.h>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

constexpr uint32_t ADC12CTL0 = 0x1A0, ADC12CTL1 = 0x1A2, ADC12IFG = 0x1A4, ADC12IE = 0x1A6,
                   ADC12IV = 0x1A8, ADC12MCTL0 = 0x80, ADC12MEM0 = 0x140;
constexpr uint16_t SHT0_2 = 0x0200, ADC12ON = 0x0010, ENC = 0x0002, ADC12SC = 0x0001,
                   SHP = 0x0200, SSEL_MCLK = 0x0010, CONSEQ_SEQ = 0x0002, BUSY = 0x0001;

struct AdcRig : Rig {
  AdcRig() {
    code({0x3FFF});
    start();
    C.writeWord(0x120, 0x5A80);
    Dev.adc().setSource([](unsigned Ch, uint64_t) { return uint16_t(0x100 * Ch + 0x23); });
  }
  void until(uint64_t At) {
    while (C.cycles() < At)
      C.step();
  }
};

// §17.2.5/§17.2.7 single-channel single conversion, SHP = 1, SHT0 = 2 (16 ADC12CLK cycles of
// sampling) + 13 of conversion on MCLK: 29 cycles; the result in ADC12MEM0 with ADC12IFG0,
// ADC12BUSY meanwhile; reading ADC12MEM0 resets ADC12IFG0 (§17.2.8).
TEST(Msp430Adc12, SingleConversion) {
  AdcRig T;
  T.C.writeByte(ADC12MCTL0, 5); // INCH = A5
  T.C.writeWord(ADC12CTL1, SHP | SSEL_MCLK);
  T.C.writeWord(ADC12IE, 0x0001);
  uint64_t Start = T.C.cycles();
  T.C.writeWord(ADC12CTL0, SHT0_2 | ADC12ON | ENC | ADC12SC);
  EXPECT_EQ(T.C.readWord(ADC12CTL1) & BUSY, BUSY);
  T.until(Start + 28);
  EXPECT_EQ(T.C.readWord(ADC12IFG), 0);
  T.until(Start + 31);
  EXPECT_EQ(T.C.readWord(ADC12IFG), 0x0001);
  EXPECT_EQ(T.C.readWord(ADC12CTL1) & BUSY, 0);
  EXPECT_TRUE(T.C.irq().isSet(7)); // ADC12 vector 0xFFEE
  EXPECT_EQ(T.C.readWord(ADC12IV), 0x06);
  EXPECT_EQ(T.C.readWord(ADC12MEM0), 0x523);
  EXPECT_EQ(T.C.readWord(ADC12IFG), 0);
  EXPECT_FALSE(T.C.irq().isSet(7));
}

// Sequence of channels (CONSEQ = 1): from CSTARTADD through the ADC12MCTLx with EOS.
TEST(Msp430Adc12, SequenceToEos) {
  AdcRig T;
  T.C.writeByte(ADC12MCTL0 + 2, 1);
  T.C.writeByte(ADC12MCTL0 + 3, 0x80 | 4); // EOS
  T.C.writeWord(ADC12CTL1, 0x2000 | SHP | SSEL_MCLK | CONSEQ_SEQ); // CSTARTADD = 2
  uint64_t Start = T.C.cycles();
  T.C.writeWord(ADC12CTL0, SHT0_2 | ADC12ON | ENC | ADC12SC);
  T.until(Start + 2 * 29 + 4);
  EXPECT_EQ(T.C.readWord(ADC12IFG), 0x000C);
  EXPECT_EQ(T.C.readWord(ADC12MEM0 + 4), 0x123);
  EXPECT_EQ(T.C.readWord(ADC12MEM0 + 6), 0x423);
  EXPECT_EQ(T.C.readWord(ADC12CTL1) & BUSY, 0);
}

// ADC12MCTLx can be written only while ENC = 0 (§17.3).
TEST(Msp430Adc12, ControlLockedWhileEnabled) {
  AdcRig T;
  T.C.writeWord(ADC12CTL0, ADC12ON | ENC);
  T.C.writeByte(ADC12MCTL0, 7);
  EXPECT_EQ(T.C.readByte(ADC12MCTL0), 0);
}

} // namespace
