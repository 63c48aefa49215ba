// UsartSpiTest.cpp - USART0 in SPI master mode against SLAU049F chapter 14 (class Usart).
#include "Rig.h"

#include <gtest/gtest.h>

#include <vector>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

constexpr uint32_t U0CTL = 0x70, U0TCTL = 0x71, U0BR0 = 0x74, U0BR1 = 0x75, U0RXBUF = 0x76,
                   U0TXBUF = 0x77;
constexpr uint8_t SWRST = 0x01, MM = 0x02, SYNC = 0x04, CHAR = 0x10, SSEL_SMCLK = 0x20,
                  TXEPT = 0x01, USPIE0 = 0x40, URXIFG0 = 0x40, UTXIFG0 = 0x80;

struct SpiRig : Rig {
  std::vector<uint8_t> Sent;
  std::vector<uint64_t> SentAt, EndAt;
  SpiRig() {
    code({0x3FFF});
    start();
    C.writeWord(0x120, 0x5A80);
    Dev.usart(0)->setDevice([this](uint8_t B) {
      Sent.push_back(B);
      SentAt.push_back(C.cycles());
      EndAt.push_back(Dev.usart(0)->nextEvent()); // boards time the byte with this
      return uint8_t(~B);
    });
    // §14.2.1 initialisation: SWRST set, configure, enable the module, clear SWRST.
    C.writeByte(U0CTL, SWRST | CHAR | SYNC | MM);
    C.writeByte(U0TCTL, SSEL_SMCLK);
    C.writeByte(U0BR0, 2);
    C.writeByte(U0BR1, 0);
    C.writeByte(ME1, USPIE0);
    C.writeByte(U0CTL, CHAR | SYNC | MM);
  }
  void until(uint64_t At) {
    while (C.cycles() < At)
      C.step();
  }
};

// A byte takes 8 bit clocks of BRCLK/UxBR (SMCLK/2 here, SMCLK = MCLK after PUC): 16 cycles.
// UTXIFG0 comes back when UxTXBUF moves to the shift register, URXIFG0 with the byte received;
// reading U0RXBUF resets URXIFG0; TXEPT when all is sent.
TEST(Msp430UsartSpi, MasterTransfer) {
  SpiRig T;
  EXPECT_EQ(T.C.readByte(IFG1) & UTXIFG0, UTXIFG0); // ready after PUC/SWRST
  uint64_t Start = T.C.cycles();
  T.C.writeByte(U0TXBUF, 0xA5);
  EXPECT_EQ(T.C.readByte(IFG1) & UTXIFG0, UTXIFG0);
  EXPECT_EQ(T.C.readByte(U0TCTL) & TXEPT, 0);
  T.until(Start + 14);
  EXPECT_TRUE(T.Sent.empty());
  T.until(Start + 18); // devices are brought up to date at instruction boundaries
  ASSERT_EQ(T.Sent.size(), 1u);
  EXPECT_EQ(T.SentAt[0], Start + 16);
  EXPECT_EQ(T.EndAt[0], Start + 16);
  EXPECT_EQ(T.Sent[0], 0xA5);
  EXPECT_EQ(T.C.readByte(IFG1) & URXIFG0, URXIFG0);
  EXPECT_EQ(T.C.readByte(U0RXBUF), 0x5A);
  EXPECT_EQ(T.C.readByte(IFG1) & URXIFG0, 0);
  EXPECT_EQ(T.C.readByte(U0TCTL) & TXEPT, TXEPT);
}

// A byte written while one is shifting waits in UxTXBUF (UTXIFG0 clear) and follows it.
TEST(Msp430UsartSpi, BackToBack) {
  SpiRig T;
  uint64_t Start = T.C.cycles();
  T.C.writeByte(U0TXBUF, 0x01);
  T.C.writeByte(U0TXBUF, 0x02);
  EXPECT_EQ(T.C.readByte(IFG1) & UTXIFG0, 0);
  T.until(Start + 40);
  ASSERT_EQ(T.Sent.size(), 2u);
  EXPECT_EQ(T.Sent[1], 0x02);
  EXPECT_GE(T.SentAt[1] - T.SentAt[0], 16u);
  EXPECT_EQ(T.C.readByte(U0RXBUF), 0xFD);
}

// With SWRST set (or the module disabled) nothing is sent.
TEST(Msp430UsartSpi, ResetHoldsTheModule) {
  SpiRig T;
  T.C.writeByte(U0CTL, SWRST | CHAR | SYNC | MM);
  T.C.writeByte(U0TXBUF, 0x33);
  T.until(T.C.cycles() + 100);
  EXPECT_TRUE(T.Sent.empty());
}

} // namespace
