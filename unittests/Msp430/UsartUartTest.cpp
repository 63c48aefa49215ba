// UsartUartTest.cpp - USART0 in UART mode against SLAU049F chapter 13.
#include "Rig.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

constexpr uint32_t U0CTL = 0x70, U0TCTL = 0x71, U0RCTL = 0x72, U0MCTL = 0x73, U0BR0 = 0x74,
                   U0BR1 = 0x75, U0RXBUF = 0x76, U0TXBUF = 0x77;
constexpr uint8_t SWRST = 0x01, CHAR = 0x10, SPB = 0x20, PENA = 0x80, SSEL_ACLK = 0x10,
                  SSEL_SMCLK = 0x20, TXEPT = 0x01, OE = 0x20, UTXE0 = 0x80, URXE0 = 0x40,
                  URXIFG0 = 0x40, UTXIFG0 = 0x80, URXIE0 = 0x40, UTXIE0 = 0x80;

/// `jmp $` with the watchdog held; USART0 as an 8N1 UART on ACLK at 9600 baud with the
/// guide's settings for 32768 Hz (§13.2.5 / Table 13-2: UxBR = 3, UxMCTL = 4Ah).
struct UartRig : Rig {
  std::vector<std::pair<uint8_t, uint64_t>> Sent;
  explicit UartRig(uint8_t Ctl = CHAR, uint8_t Tctl = SSEL_ACLK, uint8_t Br = 3,
                   uint8_t Mctl = 0x4A) {
    code({0x3FFF});
    start();
    C.writeWord(0x120, 0x5A80);
    Dev.usart(0)->onTransmit([this](uint8_t B, uint64_t At) { Sent.push_back({B, At}); });
    // §13.2.1: configure with SWRST set, enable the module, clear SWRST.
    C.writeByte(U0CTL, SWRST | Ctl);
    C.writeByte(U0TCTL, Tctl);
    C.writeByte(U0BR0, Br);
    C.writeByte(U0BR1, 0);
    C.writeByte(U0MCTL, Mctl);
    C.writeByte(ME1, UTXE0 | URXE0);
    C.writeByte(U0CTL, Ctl);
  }
  const ClockSource &aclk() { return Dev.clock().aclk(); }
  void until(uint64_t At) {
    while (C.cycles() < At)
      C.step();
  }
};

// §13.2.5: bit i of a frame lasts UxBR + m(i mod 8) BRCLK periods. 8N1 is 10 bits: with UxBR
// = 3 and UxMCTL = 4Ah (m1, m3, m6 set, and m1 again for the stop bit) a frame is
// 10 * 3 + 4 = 34 ACLK periods. UTXIFG0 comes back at once (UxTXBUF moved to the shift
// register, §13.2.6); TXEPT once the stop bit is out.
TEST(Msp430UsartUart, FrameTimeFromModulation) {
  UartRig T;
  uint64_t Tick0 = T.aclk().ticksAt(T.C.cycles());
  T.C.writeByte(U0TXBUF, 'A');
  EXPECT_EQ(T.C.readByte(IFG1) & UTXIFG0, UTXIFG0);
  EXPECT_EQ(T.C.readByte(U0TCTL) & TXEPT, 0);
  uint64_t End = T.aclk().cycleOfTick(Tick0 + 34);
  T.until(End - 1);
  EXPECT_TRUE(T.Sent.empty());
  T.until(End + 2);
  ASSERT_EQ(T.Sent.size(), 1u);
  EXPECT_EQ(T.Sent[0].first, 'A');
  EXPECT_EQ(T.Sent[0].second, End);
  EXPECT_EQ(T.C.readByte(U0TCTL) & TXEPT, TXEPT);
}

// §13.2.2 character format: 7 data bits, parity and two stop bits make 11 bits (33 periods
// at UxBR = 3 with no modulation); a 7-bit character drops bit 7.
TEST(Msp430UsartUart, CharacterFormat) {
  UartRig T(PENA | SPB, SSEL_ACLK, 3, 0x00);
  uint64_t Tick0 = T.aclk().ticksAt(T.C.cycles());
  T.C.writeByte(U0TXBUF, 0xC1);
  T.until(T.aclk().cycleOfTick(Tick0 + 33) + 2);
  ASSERT_EQ(T.Sent.size(), 1u);
  EXPECT_EQ(T.Sent[0].first, 0x41);
  EXPECT_EQ(T.Sent[0].second, T.aclk().cycleOfTick(Tick0 + 33));
}

// A character written while one is shifting waits in UxTXBUF (UTXIFG0 clear) and starts where
// the first one's stop bit ends: two frames, 68 periods.
TEST(Msp430UsartUart, BackToBack) {
  UartRig T;
  uint64_t Tick0 = T.aclk().ticksAt(T.C.cycles());
  T.C.writeByte(U0TXBUF, 'h');
  T.C.writeByte(U0TXBUF, 'i');
  EXPECT_EQ(T.C.readByte(IFG1) & UTXIFG0, 0);
  T.until(T.aclk().cycleOfTick(Tick0 + 68) + 2);
  ASSERT_EQ(T.Sent.size(), 2u);
  EXPECT_EQ(T.Sent[1].first, 'i');
  EXPECT_EQ(T.Sent[1].second, T.aclk().cycleOfTick(Tick0 + 68));
}

// The transmitter needs UTXE0 (§13.2.4): a character written before it is set leaves when
// it is set.
TEST(Msp430UsartUart, TransmitEnable) {
  UartRig T;
  T.C.writeByte(ME1, URXE0);
  T.C.writeByte(U0TXBUF, 'z');
  T.until(T.C.cycles() + 3000);
  EXPECT_TRUE(T.Sent.empty());
  T.C.writeByte(ME1, UTXE0 | URXE0);
  T.until(T.C.cycles() + 3000);
  ASSERT_EQ(T.Sent.size(), 1u);
  EXPECT_EQ(T.Sent[0].first, 'z');
}

// Receive (§13.2.3): a character from the host arrives one frame later in U0RXBUF with
// URXIFG0, which requests the USART0 RX vector (0xFFF2) with URXIE0; reading U0RXBUF resets
// URXIFG0. A second character before the read sets OE.
TEST(Msp430UsartUart, ReceiveAndOverrun) {
  UartRig T;
  const unsigned RxSlot = (0xFFF2 - 0xFFE0) / 2;
  T.C.writeByte(IE1, URXIE0);
  uint64_t Tick0 = T.aclk().ticksAt(T.C.cycles());
  T.Dev.usart(0)->receive('x');
  T.until(T.aclk().cycleOfTick(Tick0 + 34) - 1);
  EXPECT_EQ(T.C.readByte(IFG1) & URXIFG0, 0);
  T.until(T.aclk().cycleOfTick(Tick0 + 34) + 2);
  EXPECT_EQ(T.C.readByte(IFG1) & URXIFG0, URXIFG0);
  EXPECT_TRUE(T.C.irq().isSet(RxSlot));
  EXPECT_EQ(T.C.readByte(U0RXBUF), 'x');
  EXPECT_EQ(T.C.readByte(IFG1) & URXIFG0, 0);
  EXPECT_FALSE(T.C.irq().isSet(RxSlot));
  T.Dev.usart(0)->receive('1');
  T.Dev.usart(0)->receive('2');
  T.until(T.C.cycles() + 2 * 34 * 25 + 10);
  EXPECT_EQ(T.Dev.usart(0)->pendingReceive(), 0u);
  EXPECT_EQ(T.C.readByte(U0RCTL) & OE, OE);
  EXPECT_EQ(T.C.readByte(U0RXBUF), '2');
  EXPECT_EQ(T.C.readByte(U0RCTL) & OE, 0);
}

// The host waits while the receiver is off (URXE0 = 0); a character on the line when URXE0
// is cleared is lost (§13.2.4: no URXIFG0).
TEST(Msp430UsartUart, ReceiveEnable) {
  UartRig T;
  T.C.writeByte(ME1, UTXE0);
  T.Dev.usart(0)->receive('q');
  T.until(T.C.cycles() + 2 * 34 * 25);
  EXPECT_EQ(T.Dev.usart(0)->pendingReceive(), 1u);
  EXPECT_EQ(T.C.readByte(IFG1) & URXIFG0, 0);
  T.C.writeByte(ME1, UTXE0 | URXE0); // the host starts now
  T.until(T.C.cycles() + 100);
  T.C.writeByte(ME1, UTXE0); // switched off during the frame
  T.until(T.C.cycles() + 34 * 25 + 10);
  EXPECT_EQ(T.Dev.usart(0)->pendingReceive(), 0u);
  EXPECT_EQ(T.C.readByte(IFG1) & URXIFG0, 0);
}

// §13.2.1: setting SWRST resets URXIE0, UTXIE0 and URXIFG0 and sets UTXIFG0; UTXE0/URXE0 stay.
TEST(Msp430UsartUart, SwrstResetsEnablesAndFlags) {
  UartRig T;
  T.C.writeByte(IE1, URXIE0 | UTXIE0);
  T.C.writeByte(U0TXBUF, 'a');
  T.C.writeByte(U0TXBUF, 'b');
  T.C.writeByte(U0CTL, SWRST | CHAR);
  EXPECT_EQ(T.C.readByte(IE1) & (URXIE0 | UTXIE0), 0);
  EXPECT_EQ(T.C.readByte(IFG1) & (URXIFG0 | UTXIFG0), UTXIFG0);
  EXPECT_EQ(T.C.readByte(ME1), UTXE0 | URXE0);
  EXPECT_EQ(T.C.readByte(U0TCTL) & TXEPT, TXEPT);
}

// A UART on SMCLK stops in LPM3 (SCG1, SLAU049 §2.3): the character does not leave and the
// core sleeps with nothing to wait for; in LPM0 it leaves after 10 * 8 SMCLK periods.
TEST(Msp430UsartUart, SmclkUartInLowPowerModes) {
  for (uint16_t Mode : {uint16_t(0x10), uint16_t(0xD0)}) {
    SCOPED_TRACE(Mode);
    UartRig T(CHAR, SSEL_SMCLK, 8, 0x00);
    T.C.setReg(PC, 0x4100);
    T.word(0x4100, 0xD032); // bis #Mode, r2
    T.word(0x4102, Mode);
    uint64_t Start = T.C.cycles();
    T.C.writeByte(U0TXBUF, 'L');
    ASSERT_EQ(T.C.step(), StepKind::Instruction);
    if (Mode & SR_SCG1) {
      EXPECT_EQ(T.C.step(), StepKind::Asleep);
      EXPECT_TRUE(T.Sent.empty());
    } else {
      EXPECT_EQ(T.C.step(), StepKind::Idle);
      T.C.step();
      ASSERT_EQ(T.Sent.size(), 1u);
      EXPECT_EQ(T.Sent[0].second, Start + 80); // SMCLK = MCLK after PUC
    }
  }
}

} // namespace
