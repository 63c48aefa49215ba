// UsciTest.cpp - the msp430f2617's USCI modules against SLAU144J chapters 15 (UART) and 16
// (SPI); I2C (chapter 17) is refused.
#include "Rig.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

constexpr uint32_t UCA0CTL0 = 0x60, UCA0CTL1 = 0x61, UCA0BR0 = 0x62, UCA0MCTL = 0x64,
                   UCA0STAT = 0x65, UCA0RXBUF = 0x66, UCA0TXBUF = 0x67;
constexpr uint32_t UCB0CTL0 = 0x68, UCB0CTL1 = 0x69, UCB0BR0 = 0x6A, UCB0STAT = 0x6D,
                   UCB0RXBUF = 0x6E, UCB0TXBUF = 0x6F;
constexpr uint32_t UCA1CTL1 = 0xD1, UCA1BR0 = 0xD2, UCA1TXBUF = 0xD7, UC1IFG = 0x07;
constexpr uint8_t UCSWRST = 0x01, UCSSEL_ACLK = 0x40, UCSSEL_SMCLK = 0x80, UCSYNC = 0x01,
                  UCMST = 0x08, UCMSB = 0x20, UCOS16 = 0x01, UCBUSY = 0x01, UCOE = 0x20;
constexpr uint8_t UCA0RXIFG = 0x01, UCA0TXIFG = 0x02, UCB0RXIFG = 0x04, UCB0TXIFG = 0x08;
constexpr unsigned AB0RxSlot = (0xFFEE - 0xFFC0) / 2, AB0TxSlot = (0xFFEC - 0xFFC0) / 2;

struct UsciRig : Rig {
  std::vector<uint8_t> Spi;
  std::vector<uint64_t> SpiAt, SpiEnd;
  std::vector<std::pair<uint8_t, uint64_t>> Uart;
  UsciRig() : Rig("msp430f2617") {
    code({0x3FFF});
    start();
    C.setReg(SP, 0x3100);
    C.writeWord(0x120, 0x5A80);
    Dev.usciB(0)->setDevice([this](uint8_t B) {
      Spi.push_back(B);
      SpiAt.push_back(C.cycles());
      SpiEnd.push_back(Dev.usciB(0)->nextEvent());
      return uint8_t(~B);
    });
    Dev.usciA(0)->onTransmit([this](uint8_t B, uint64_t At) { Uart.push_back({B, At}); });
  }
  /// §16.3.1: configure with UCSWRST set, then release it.
  void spiMaster(uint8_t Br) {
    C.writeByte(UCB0CTL1, UCSWRST | UCSSEL_SMCLK);
    C.writeByte(UCB0CTL0, UCMST | UCSYNC | UCMSB);
    C.writeByte(UCB0BR0, Br);
    C.writeByte(UCB0CTL1, UCSSEL_SMCLK);
  }
  void uart(uint8_t Ssel, uint8_t Br, uint8_t Mctl) {
    C.writeByte(UCA0CTL1, UCSWRST | Ssel);
    C.writeByte(UCA0CTL0, 0); // 8N1, LSB first, UART
    C.writeByte(UCA0BR0, Br);
    C.writeByte(UCA0MCTL, Mctl);
    C.writeByte(UCA0CTL1, Ssel);
  }
  const ClockSource &aclk() { return Dev.clock().aclk(); }
  void until(uint64_t At) {
    while (C.cycles() < At)
      C.step();
  }
};

// §16.3.6: the bit clock is BRCLK / UCBRx, a byte 8 bit clocks (16 SMCLK periods at UCBRx =
// 2); UCB0TXIFG comes back when UCB0TXBUF moves to the shift register, UCB0RXIFG with the
// byte received, UCBUSY while shifting (§16.4.5).
TEST(Msp430Usci, SpiMasterOnB0) {
  UsciRig T;
  T.spiMaster(2);
  uint64_t Start = T.C.cycles();
  T.C.writeByte(UCB0TXBUF, 0xA5);
  EXPECT_EQ(T.C.readByte(IFG2) & UCB0TXIFG, UCB0TXIFG);
  EXPECT_EQ(T.C.readByte(UCB0STAT) & UCBUSY, UCBUSY);
  T.until(Start + 14);
  EXPECT_TRUE(T.Spi.empty());
  T.until(Start + 18);
  ASSERT_EQ(T.Spi.size(), 1u);
  EXPECT_EQ(T.SpiAt[0], Start + 16);
  EXPECT_EQ(T.SpiEnd[0], Start + 16);
  EXPECT_EQ(T.C.readByte(UCB0STAT) & UCBUSY, 0);
  EXPECT_EQ(T.C.readByte(IFG2) & UCB0RXIFG, UCB0RXIFG);
  EXPECT_EQ(T.C.readByte(UCB0RXBUF), 0x5A);
  EXPECT_EQ(T.C.readByte(IFG2) & UCB0RXIFG, 0);
}

// Two bytes back to back: the second waits in UCB0TXBUF (UCB0TXIFG clear) and follows; a
// received byte not read before the next sets UCOE (§16.3.7), cleared by reading UCB0RXBUF.
TEST(Msp430Usci, SpiBackToBackAndOverrun) {
  UsciRig T;
  T.spiMaster(1);
  uint64_t Start = T.C.cycles();
  T.C.writeByte(UCB0TXBUF, 0x01);
  T.C.writeByte(UCB0TXBUF, 0x02);
  EXPECT_EQ(T.C.readByte(IFG2) & UCB0TXIFG, 0);
  T.until(Start + 20);
  ASSERT_EQ(T.Spi.size(), 2u);
  EXPECT_EQ(T.SpiAt[1], Start + 16);
  EXPECT_EQ(T.C.readByte(UCB0STAT) & UCOE, UCOE);
  EXPECT_EQ(T.C.readByte(UCB0RXBUF), 0xFD);
  EXPECT_EQ(T.C.readByte(UCB0STAT) & UCOE, 0);
}

// §15.3.11 low-frequency mode: bit i lasts UCBRx + m(i), m from Table 15-2. 9600 baud from
// 32768 Hz (Table 15-4: UCBRx = 3, UCBRSx = 3): pattern 0 1 0 1 0 1 0 0, wrapping for the
// 9th and 10th bits (0, 1), so an 8N1 frame is 10 * 3 + 4 = 34 ACLK periods.
TEST(Msp430Usci, UartLowFrequencyFrame) {
  UsciRig T;
  T.uart(UCSSEL_ACLK, 3, 3 << 1);
  uint64_t Tick0 = T.aclk().ticksAt(T.C.cycles());
  T.C.writeByte(UCA0TXBUF, 'Z');
  EXPECT_EQ(T.C.readByte(IFG2) & UCA0TXIFG, UCA0TXIFG);
  uint64_t End = T.aclk().cycleOfTick(Tick0 + 34);
  T.until(End - 1);
  EXPECT_TRUE(T.Uart.empty());
  T.until(End + 2);
  ASSERT_EQ(T.Uart.size(), 1u);
  EXPECT_EQ(T.Uart[0].first, 'Z');
  EXPECT_EQ(T.Uart[0].second, End);
}

// §15.3.11 oversampling mode: bit i lasts (16 + m(i)) * UCBRx + UCBRFx BRCLK periods (the
// row UCBRFx of Table 15-3 has UCBRFx ones). UCBRx = 4, UCBRFx = 3, UCBRSx = 0: 67 periods
// a bit, 670 SMCLK periods (= MCLK cycles after PUC) a frame.
TEST(Msp430Usci, UartOversamplingFrame) {
  UsciRig T;
  T.uart(UCSSEL_SMCLK, 4, 3 << 4 | UCOS16);
  uint64_t Start = T.C.cycles();
  T.C.writeByte(UCA0TXBUF, 'o');
  T.until(Start + 672);
  ASSERT_EQ(T.Uart.size(), 1u);
  EXPECT_EQ(T.Uart[0].second, Start + 670);
}

// Receive: the host's character lands in UCA0RXBUF after a frame with UCA0RXIFG; the shared
// USCIAB0RX line (0xFFEE) stays up while UCB0RXIFG is pending after UCA0RXIFG is cleared;
// the flags are not reset by the interrupt.
TEST(Msp430Usci, UartReceiveSharesTheVector) {
  UsciRig T;
  T.uart(UCSSEL_ACLK, 3, 3 << 1);
  T.spiMaster(1);
  T.C.writeByte(IE2, UCA0RXIFG | UCB0RXIFG);
  uint64_t Tick0 = T.aclk().ticksAt(T.C.cycles());
  T.Dev.usciA(0)->receive('r');
  T.C.writeByte(UCB0TXBUF, 0x10);
  T.until(T.aclk().cycleOfTick(Tick0 + 34) + 2);
  EXPECT_EQ(T.C.readByte(IFG2) & (UCA0RXIFG | UCB0RXIFG), UCA0RXIFG | UCB0RXIFG);
  EXPECT_TRUE(T.C.irq().isSet(AB0RxSlot));
  EXPECT_EQ(T.C.readByte(UCA0RXBUF), 'r');
  EXPECT_TRUE(T.C.irq().isSet(AB0RxSlot)); // UCB0RXIFG still pending
  T.C.readByte(UCB0RXBUF);
  EXPECT_FALSE(T.C.irq().isSet(AB0RxSlot));
  EXPECT_FALSE(T.C.irq().isSet(AB0TxSlot)); // TX flags set but not enabled
}

// §15.3.1: setting UCSWRST resets UCA0RXIE, UCA0TXIE, UCA0RXIFG and the error bits and sets
// UCA0TXIFG; USCI_B0's bits in the same registers are untouched.
TEST(Msp430Usci, SwrstResetsOnlyItsBits) {
  UsciRig T;
  T.uart(UCSSEL_ACLK, 3, 0);
  T.C.writeByte(IE2, UCA0RXIFG | UCA0TXIFG | UCB0RXIFG);
  T.C.writeByte(UCA0CTL1, UCSWRST);
  EXPECT_EQ(T.C.readByte(IE2), UCB0RXIFG);
  EXPECT_EQ(T.C.readByte(IFG2) & (UCA0RXIFG | UCA0TXIFG), UCA0TXIFG);
  EXPECT_EQ(T.C.readByte(UCA0STAT), 0);
}

// USCI_A1 keeps its flags in UC1IFG (0x07), not IFG2.
TEST(Msp430Usci, A1FlagsInUc1ifg) {
  UsciRig T;
  std::vector<uint8_t> Out;
  T.Dev.usciA(1)->onTransmit([&](uint8_t B, uint64_t) { Out.push_back(B); });
  T.C.writeByte(UCA1CTL1, UCSWRST | UCSSEL_SMCLK);
  T.C.writeByte(UCA1BR0, 8);
  T.C.writeByte(UCA1CTL1, UCSSEL_SMCLK);
  EXPECT_EQ(T.C.readByte(UC1IFG) & 0x02, 0x02);
  T.C.writeByte(UCA1TXBUF, '1');
  T.C.writeByte(UCA1TXBUF, '2');
  EXPECT_EQ(T.C.readByte(UC1IFG) & 0x02, 0);
  T.until(T.C.cycles() + 2 * 80 + 4);
  EXPECT_EQ(Out, (std::vector<uint8_t>{'1', '2'}));
  EXPECT_EQ(T.C.readByte(UC1IFG) & 0x02, 0x02);
}

// I2C mode (UCMODEx = 11 on USCI_B) is not modelled: releasing UCSWRST in it stops the core
// with a message naming the module.
TEST(Msp430Usci, I2cIsRefused) {
  UsciRig T;
  T.C.writeByte(UCB0CTL1, UCSWRST | UCSSEL_SMCLK);
  T.C.writeByte(UCB0CTL0, UCMST | 0x06 | UCSYNC);
  T.C.writeByte(UCB0CTL1, UCSSEL_SMCLK);
  EXPECT_EQ(T.C.step(), StepKind::Faulted);
  EXPECT_NE(T.C.fault().find("USCI_B0: I2C"), std::string::npos);
}

} // namespace
