//===- CC2420.cpp - CC2420 power, SPI, registers, strobes and pins --------===//
//
// The transmit path is in CC2420Tx.cpp, the receive path, RSSI and CCA in
// CC2420Rx.cpp. spec/cc2420.md is the contract; section names below are
// those of the data sheet SWRS041B.
//
//===----------------------------------------------------------------------===//
#include "CC2420.h"

#include <algorithm>

namespace wsn {
namespace devices {

using namespace cc2420;

CC2420::CC2420() : CC2420(Timing()) {}

CC2420::CC2420(const Timing &T) : Tm(T) {
  Events.fill(UINT64_MAX);
  for (uint8_t A = FirstReg; A <= LastReg; ++A)
    Regs[A - FirstReg] = resetValue(A);
}

// --- Power ---------------------------------------------------------------

// Registers and the radio state return to their reset values; RAM keeps its
// contents (it is lost only when the regulator is off, "RAM access").
void CC2420::chipReset() {
  if (St == State::TxCalibrate || St == State::TxFrame || St == State::AckCalibrate ||
      St == State::AckFrame)
    abortTx();
  if (Rx)
    rxAbort();
  for (uint8_t A = FirstReg; A <= LastReg; ++A)
    Regs[A - FirstReg] = resetValue(A);
  for (Ev E : {EvXoscUp, EvRxCalDone, EvTxStart, EvTxSfd, EvTxEnd, EvRxByte, EvCca})
    Events[E] = UINT64_MAX;
  XoscOn = false;
  Locked = false;
  TxUnderflowFlag = false;
  RssiValidAt = UINT64_MAX;
  TxCount = 0;
  TxRetained = false;
  RxHead = RxCount = 0;
  RxOverflowFlag = false;
  SfdIn = SfdOut = SfdStuck = false;
  FrameDoneFifop = false;
  SackArmed = SackPend = AckPendingSticky = false;
  LastRxCrcOk = false;
  CcaEnergyClear = false;
  SpiSt = Spi::Command;
  if (St != State::VregOff && St != State::VregStarting)
    St = State::PowerDown;
}

void CC2420::powerUpReset() {
  Ram.fill(0);
  St = State::PowerDown;
  chipReset();
}

void CC2420::setVregEn(bool Level, uint64_t Ns) {
  advanceTo(Ns);
  if (Level == VregEn)
    return;
  VregEn = Level;
  if (Level) {
    St = State::VregStarting;
    Events[EvVregUp] = Now + Tm.VregStartupNs;
  } else {
    chipReset();
    St = State::VregOff;
    Events[EvVregUp] = UINT64_MAX;
  }
  reschedule();
  updatePins();
}

void CC2420::setResetN(bool Level, uint64_t Ns) {
  advanceTo(Ns);
  if (Level == ResetN)
    return;
  ResetN = Level;
  // Held in reset while low ("Pin assignment": RESETn, active low).
  if (!Level) {
    chipReset();
    reschedule();
    updatePins();
  }
}

bool CC2420::powered() const { return St != State::VregOff && St != State::VregStarting; }

// --- Time ----------------------------------------------------------------

uint64_t CC2420::nextEventNs() const { return NextAt; }

void CC2420::advanceTo(uint64_t Ns) {
  while (NextAt <= Ns) {
    auto It = std::min_element(Events.begin(), Events.end());
    if (*It == UINT64_MAX || *It > Ns)
      break;
    if (*It > Now)
      Now = *It;
    Ev E = static_cast<Ev>(It - Events.begin());
    *It = UINT64_MAX;
    fire(E);
    updatePins();
  }
  if (Ns > Now)
    Now = Ns;
}

void CC2420::fire(Ev E) {
  switch (E) {
  case EvVregUp:
    powerUpReset();
    break;
  case EvXoscUp:
    if (St == State::XoscStarting) {
      XoscOn = true;
      St = State::Idle;
    }
    break;
  case EvRxCalDone:
    if (St == State::RxCalibrate) {
      Locked = true;
      enterRxSearch();
    }
    break;
  case EvTxStart:
  case EvTxSfd:
  case EvTxEnd:
    txEvent(E);
    break;
  case EvRxSfd:
    rxSfd();
    break;
  case EvRxByte:
    rxByte();
    break;
  case EvCca:
    CcaEnergyDirty = true; // a CCA change point: the pin follows the RSSI
    break;
  case NumEvents:
    break;
  }
  reschedule();
}

// --- State changes -------------------------------------------------------

bool CC2420::inRx() const {
  return St == State::RxCalibrate || St == State::RxSfdSearch || St == State::RxFrame ||
         St == State::RxOverflow;
}

bool CC2420::inTx() const {
  return St == State::TxCalibrate || St == State::TxFrame || St == State::AckCalibrate ||
         St == State::AckFrame;
}

// SRXON, and the end of every transmission: 12 symbol periods of receiver
// calibration ("Radio control state machine") before the SFD search.
void CC2420::enterRx() {
  St = State::RxCalibrate;
  RssiValidAt = UINT64_MAX;
  Events[EvRxCalDone] = Now + TurnaroundNs;
}

// RSSI_VALID: "the receiver has been enabled for at least 8 symbol periods"
// (Table 5, "Clear Channel Assessment"); the model counts from the end of the
// calibration, when the receiver listens.
void CC2420::enterRxSearch() {
  St = State::RxSfdSearch;
  if (RssiValidAt == UINT64_MAX)
    RssiValidAt = Now + 8 * SymbolNs;
}

// Leaves whatever the radio does (SRFOFF, SXOSCOFF, STXCAL, STXON...).
void CC2420::leaveRadio() {
  if (inTx())
    abortTx();
  if (Rx)
    rxAbort();
  Events[EvRxCalDone] = UINT64_MAX;
  RssiValidAt = UINT64_MAX;
  SackArmed = false;
}

void CC2420::goIdle() {
  leaveRadio();
  St = State::Idle;
  Locked = false;
}

// --- Command strobes ("Command strobes", Table 7) -----------------------

void CC2420::strobe(uint8_t S) {
  bool Running = St != State::PowerDown && St != State::XoscStarting;
  switch (S) {
  case SNOP:
    break;
  case SXOSCON:
    if (St == State::PowerDown) {
      St = State::XoscStarting;
      Events[EvXoscUp] = Now + Tm.XoscStartupNs;
    }
    break;
  case SXOSCOFF:
    if (Running)
      leaveRadio();
    Events[EvXoscUp] = UINT64_MAX;
    St = State::PowerDown;
    XoscOn = false;
    Locked = false;
    break;
  case SRFOFF:
    if (Running)
      goIdle();
    break;
  case STXCAL:
    // Synthesiser on for TX; LOCK after the 12-symbol calibration.
    if (Running && !inTx()) {
      leaveRadio();
      St = State::TxCalWait;
      Locked = false;
      Events[EvRxCalDone] = UINT64_MAX;
      Events[EvTxStart] = UINT64_MAX;
      calDoneAt = Now + TurnaroundNs;
    }
    break;
  case SRXON:
    // Ignored while transmitting (the transmitter returns to RX by itself)
    // and while the RXFIFO overflow waits for SFLUSHRX.
    if (Running && !inTx() && St != State::RxOverflow) {
      leaveRadio();
      enterRx();
    }
    break;
  case STXON:
  case STXONCCA:
    if (!Running || inTx())
      break;
    if (S == STXONCCA && !ccaSignal(/*Refresh=*/true)) {
      ++Counters.CcaRefused; // "The STXONCCA strobe is ignored if the channel is busy"
      break;
    }
    startTx(Now + txTurnaroundNs(), /*Ack=*/false, 0, false);
    break;
  case SFLUSHRX:
    flushRx();
    break;
  case SFLUSHTX:
    // Clears TX_UNDERFLOW ("Buffered transmit mode"). A transmission in
    // progress keeps the frame it took at its strobe.
    TxCount = 0;
    TxRetained = false;
    TxUnderflowFlag = false;
    break;
  case SACK:
  case SACKPEND:
    sackStrobe(S == SACKPEND);
    break;
  default:
    // SRXDEC, STXENC, SAES: the security engine is not modelled
    // (spec/cc2420.md); ENC_BUSY stays 0. 0x0F is not a strobe.
    break;
  }
}

uint8_t CC2420::status() const {
  uint8_t S = 0;
  if (XoscOn)
    S |= StXosc16mStable;
  if (TxUnderflowFlag)
    S |= StTxUnderflow;
  if (inTx())
    S |= StTxActive;
  if (Locked || (St == State::TxCalWait && Now >= calDoneAt))
    S |= StLock;
  if (rssiValid())
    S |= StRssiValid;
  return S;
}

// --- Registers -----------------------------------------------------------

uint16_t CC2420::reg(uint8_t Addr) const { return readReg(Addr); }

uint16_t CC2420::readReg(uint8_t Addr) const {
  if (Addr < FirstReg || Addr > LastReg)
    return 0;
  uint16_t V = regv(Addr);
  if (Addr == RSSI) {
    // RSSI_VAL (7:0, read-only): the 8-symbol average in dB above the
    // offset, -128 while invalid.
    int Val = -128;
    if (rssiValid()) {
      double P = averagePowerDbm(Now) - RssiOffsetDb;
      Val = static_cast<int>(P < 0 ? P - 0.5 : P + 0.5);
      Val = std::clamp(Val, -128, 127);
    }
    V = static_cast<uint16_t>((V & 0xFF00) | static_cast<uint8_t>(static_cast<int8_t>(Val)));
  }
  return V;
}

void CC2420::writeReg(uint8_t Addr, uint16_t V) {
  if (Addr < FirstReg || Addr > LastReg || isReadOnly(Addr))
    return;
  if (Addr == RSSI)
    V = static_cast<uint16_t>((V & 0xFF00) | (regv(RSSI) & 0x00FF));
  Regs[Addr - FirstReg] = V;
  CcaEnergyDirty = true; // thresholds, mode or channel may have changed
  // MAIN.RESETn = 0 resets the chip like the RESETn pin ("Configuration
  // Registers", MAIN); the written value stays readable.
  if (Addr == MAIN && !(V & 0x8000)) {
    chipReset();
    Regs[MAIN - FirstReg] = V;
  }
}

unsigned CC2420::channel() const { return channelOfMhz(2048 + (regv(FSCTRL) & FsCtrlFreqMask)); }

double CC2420::txPowerDbm() const { return paLevelDbm(regv(TXCTRL) & TxCtrlPaLevelMask); }

uint64_t CC2420::txTurnaroundNs() const {
  return (regv(TXCTRL) & TxCtrlTurnaround) ? 12 * SymbolNs : 8 * SymbolNs;
}

// --- SPI ("4-wire Serial Configuration and Data Interface") -------------

void CC2420::setCsn(bool Level, uint64_t Ns) {
  advanceTo(Ns);
  if (Level == Csn)
    return;
  Csn = Level;
  // Every transaction starts with a command/address byte when CSn falls;
  // FIFO and RAM accesses end when it rises.
  SpiSt = Spi::Command;
}

uint8_t CC2420::spiExchange(uint8_t Mosi, uint64_t Ns) {
  advanceTo(Ns);
  if (Csn || !powered() || !ResetN)
    return 0;
  uint8_t Out = status();
  switch (SpiSt) {
  case Spi::Command:
    if (Mosi & RamBit) {
      RamAddr = Mosi & 0x7F;
      SpiSt = Spi::RamBank;
    } else {
      SpiAddr = Mosi & AddrMask;
      SpiRead = (Mosi & ReadBit) != 0;
      if (SpiAddr <= SAES)
        strobe(SpiAddr); // the status byte returned is the one before the strobe
      else if (SpiAddr == TXFIFO)
        SpiSt = SpiRead ? Spi::Ignore : Spi::TxFifo;
      else if (SpiAddr == RXFIFO)
        SpiSt = SpiRead ? Spi::RxFifo : Spi::Ignore;
      else if (SpiAddr >= FirstReg)
        SpiSt = Spi::RegHigh; // 0x31-0x3D: no register, read 0, writes lost
      // 0x0F is a reserved strobe: nothing happens.
    }
    break;
  case Spi::RegHigh:
    // Data bytes return the register's current contents, read or write.
    Out = static_cast<uint8_t>(readReg(SpiAddr) >> 8);
    SpiWord = static_cast<uint16_t>(Mosi << 8);
    SpiSt = Spi::RegLow;
    break;
  case Spi::RegLow:
    Out = static_cast<uint8_t>(readReg(SpiAddr));
    if (!SpiRead)
      writeReg(SpiAddr, static_cast<uint16_t>(SpiWord | Mosi));
    SpiSt = Spi::Command; // several registers may follow in one CSn period
    break;
  case Spi::TxFifo:
    txFifoWrite(Mosi);
    Out = status(); // returned for every TXFIFO byte ("Buffered transmit mode")
    break;
  case Spi::RxFifo:
    Out = rxFifoPop();
    break;
  case Spi::RamBank:
    RamAddr = static_cast<uint16_t>(RamAddr | ((Mosi >> 6) & 3) << 7);
    SpiRead = (Mosi & RamReadBit) != 0;
    SpiSt = Spi::RamData;
    break;
  case Spi::RamData:
    if (RamAddr < RamSize) {
      Out = Ram[RamAddr];
      if (!SpiRead)
        Ram[RamAddr] = Mosi;
    } else {
      Out = 0;
    }
    RamAddr = static_cast<uint16_t>((RamAddr + 1) & 0x1FF);
    break;
  case Spi::Ignore:
    break;
  }
  reschedule();
  updatePins();
  return Out;
}

// --- FIFOs ---------------------------------------------------------------

void CC2420::txFifoWrite(uint8_t B) {
  // After a transmission the TXFIFO keeps the frame; the next write flushes
  // it first, except after an underflow ("Buffered transmit mode").
  if (TxRetained && !TxUnderflowFlag)
    TxCount = 0;
  TxRetained = false;
  if (TxCount >= FifoBytes)
    return; // full: the byte is lost (spec/cc2420.md)
  Ram[RamTxFifo + TxCount++] = B;
}

uint8_t CC2420::rxFifoPop() {
  if (RxCount == 0)
    return 0; // reading an empty RXFIFO: undefined on the chip, 0 here
  uint8_t B = Ram[RamRxFifo + RxHead];
  RxHead = (RxHead + 1) % FifoBytes;
  --RxCount;
  if (CurBytes > RxCount)
    CurBytes = RxCount;
  FrameDoneFifop = false; // "FIFOP will go low once one byte has been read"
  return B;
}

bool CC2420::rxFifoPush(uint8_t B) {
  if (RxCount >= FifoBytes)
    return false;
  Ram[RamRxFifo + (RxHead + RxCount) % FifoBytes] = B;
  ++RxCount;
  ++CurBytes;
  return true;
}

// SFLUSHRX empties the RXFIFO and leaves the overflow state. After an
// overflow in the middle of a frame the SFD pin returns to idle only with a
// second SFLUSHRX ("RXFIFO overflow": the strobe must be issued twice).
// A frame being received is abandoned and the receiver searches for the next
// SFD: its bytes had nowhere to go. (The model used to stay in RxFrame with
// no frame, deaf until SRXON: a frame whose SFD came between a driver's two
// flushes after an overflow silenced the radio for good, issue 18.)
void CC2420::flushRx() {
  bool WasOverflow = RxOverflowFlag;
  if (!WasOverflow && SfdStuck)
    SfdStuck = false;
  RxHead = RxCount = 0;
  CurBytes = 0;
  FrameDoneFifop = false;
  RxOverflowFlag = false;
  if (Rx)
    rxAbort();
  if (St == State::RxOverflow || St == State::RxFrame)
    enterRxSearch();
}

// --- Pins ("Microcontroller Interface and Pin Description") -------------

bool CC2420::fifoLogic() const { return RxCount > 0 && !RxOverflowFlag; }

bool CC2420::fifopLogic() const {
  if (RxOverflowFlag)
    return true;
  if (FrameDoneFifop)
    return true;
  // Bytes of a frame that has not passed address recognition do not count.
  unsigned Visible = RxCount - (AddrPending ? std::min(CurBytes, RxCount) : 0);
  return Visible > (regv(IOCFG0) & Iocfg0FifopThrMask);
}

bool CC2420::sfdLogic() const { return SfdOut || SfdIn || SfdStuck; }

bool CC2420::pin(Pin P) const { return PinLevel[static_cast<unsigned>(P)]; }

void CC2420::updatePins() {
  std::array<bool, 4> L{};
  if (powered()) {
    uint16_t Io0 = regv(IOCFG0), Io1 = regv(IOCFG1);
    L[0] = fifoLogic() != ((Io0 & Iocfg0FifoPolarity) != 0);
    L[1] = fifopLogic() != ((Io0 & Iocfg0FifopPolarity) != 0);
    bool Cca = false;
    unsigned CcaMux = Io1 & Iocfg1CcaMuxMask;
    if (CcaMux == 0)
      Cca = ccaSignal(/*Refresh=*/false);
    else if (CcaMux == CcaMuxXosc16mStable)
      Cca = XoscOn;
    L[2] = Cca != ((Io0 & Iocfg0CcaPolarity) != 0);
    bool Sfd = ((Io1 >> Iocfg1SfdMuxShift) & 0x1F) == 0 && sfdLogic();
    L[3] = Sfd != ((Io0 & Iocfg0SfdPolarity) != 0);
  }
  for (unsigned I = 0; I < 4; ++I)
    if (L[I] != PinLevel[I]) {
      PinLevel[I] = L[I];
      if (OnPin)
        OnPin(static_cast<Pin>(I), L[I], Now);
    }
}

} // namespace devices
} // namespace wsn
