//===- CC2420Tx.cpp - CC2420 transmit path and acknowledgements -----------===//
//
// SWRS041B "Buffered transmit mode", "Frame Format", "Acknowledge Frames"
// and "Radio control state machine". spec/cc2420.md, "Transmit".
//
//===----------------------------------------------------------------------===//
#include "CC2420.h"

#include <algorithm>

namespace wsn {
namespace devices {

using namespace cc2420;

// The transmission is decided when it is strobed: its bytes are the TXFIFO's
// at that moment (spec/cc2420.md explains why), its times follow from the
// turnaround, the synchronisation header and the length byte.
bool CC2420::startTx(uint64_t StartNs, bool Ack, uint8_t AckSeq, bool AckPending) {
  if (Rx)
    rxAbort();
  Events[EvRxCalDone] = UINT64_MAX;
  RssiValidAt = UINT64_MAX;
  SackArmed = false;

  AirFrame F;
  F.Channel = channel();
  F.TxPowerDbm = txPowerDbm();
  F.StartNs = StartNs;
  // Synchronisation header: PREAMBLE_LENGTH + 1 leading zero bytes, then the
  // two SYNCWORD bytes (the last zero byte and the SFD 0xA7); 5 bytes with
  // the IEEE 802.15.4 compliant reset value 2 ("Frame Format").
  unsigned ShrBytes = (regv(MDMCTRL0) & Mdm0PreambleMask) + 1 + 2;
  F.SfdNs = StartNs + ShrBytes * ByteNs;
  F.IsAck = Ack;
  TxUnderflows = false;

  if (Ack) {
    // Figure "Acknowledge frame format": length 5, FCF (type 2, frame pending
    // bit 4), the sequence number, the FCS.
    uint8_t Mpdu[3] = {static_cast<uint8_t>(0x02 | (AckPending ? 0x10 : 0)), 0x00, AckSeq};
    uint16_t Fcs = fcs16(Mpdu, 3);
    F.Psdu = {
        5, Mpdu[0], Mpdu[1], Mpdu[2], static_cast<uint8_t>(Fcs), static_cast<uint8_t>(Fcs >> 8)};
    F.EndNs = F.SfdNs + F.Psdu.size() * ByteNs;
  } else if (TxCount == 0) {
    // Not even a length byte: underflow when it is fetched, after the SFD.
    TxUnderflows = true;
    F.EndNs = F.SfdNs;
  } else {
    unsigned Len = Ram[RamTxFifo] & 0x7F;
    bool AutoCrc = mdm0(Mdm0AutoCrc);
    // With AUTOCRC the last two MPDU bytes are the FCS the modem computes.
    unsigned FromFifo = AutoCrc ? (Len >= 2 ? Len - 2 : 0) : Len;
    unsigned Avail = TxCount - 1;
    F.Psdu.push_back(static_cast<uint8_t>(Len));
    unsigned Take = std::min(FromFifo, Avail);
    for (unsigned I = 0; I < Take; ++I)
      F.Psdu.push_back(Ram[RamTxFifo + 1 + I]);
    if (Avail < FromFifo) {
      // The modem fetches byte k of the PSDU as it starts sending it; the
      // first missing one stops the transmission (TX_UNDERFLOW).
      TxUnderflows = true;
      F.EndNs = F.SfdNs + F.Psdu.size() * ByteNs;
    } else {
      if (AutoCrc) {
        uint16_t Fcs = fcs16(F.Psdu.data() + 1, FromFifo);
        uint8_t FcsBytes[2] = {static_cast<uint8_t>(Fcs), static_cast<uint8_t>(Fcs >> 8)};
        for (unsigned I = 0; I < std::min(Len, 2u); ++I)
          F.Psdu.push_back(FcsBytes[I]);
      }
      F.EndNs = F.SfdNs + (1 + Len) * ByteNs;
    }
  }

  Tx = F;
  TxIsAck = Ack;
  St = Ack ? State::AckCalibrate : State::TxCalibrate;
  SfdOut = false;
  Events[EvTxStart] = F.StartNs;
  Events[EvTxSfd] = F.EndNs > F.SfdNs ? F.SfdNs : UINT64_MAX;
  Events[EvTxEnd] = F.EndNs;
  TxHandle = Air.Transmit ? Air.Transmit(F) : 0;
  return true;
}

void CC2420::txEvent(Ev E) {
  switch (E) {
  case EvTxStart:
    St = TxIsAck ? State::AckFrame : State::TxFrame;
    Locked = true;
    break;
  case EvTxSfd:
    // "the SFD pin goes active after the SFD field has been completely
    // transmitted" ("Transmit mode").
    SfdOut = true;
    break;
  case EvTxEnd:
    SfdOut = false;
    if (TxUnderflows) {
      TxUnderflowFlag = true;
      ++Counters.TxUnderflows;
    } else if (TxIsAck) {
      ++Counters.AcksSent;
    } else {
      ++Counters.FramesSent;
      TxRetained = true; // "the TXFIFO is automatically refilled with the last transmitted frame"
    }
    // Back to receive, through the RX calibration.
    enterRx();
    break;
  default:
    break;
  }
}

// The transmitter stops early (SRFOFF, SXOSCOFF, reset, power off): the
// medium shortens the frame, or forgets it if it had not started.
void CC2420::abortTx() {
  if (Now < Tx.EndNs && Air.Truncate)
    Air.Truncate(TxHandle, Now);
  Events[EvTxStart] = Events[EvTxSfd] = Events[EvTxEnd] = UINT64_MAX;
  SfdOut = false;
}

// SACK/SACKPEND ("Acknowledge Frames"): during a reception the
// acknowledgement follows the frame's last symbol by 12 symbol periods if its
// CRC is good; SACKPEND also sets the pending bit of automatic
// acknowledgements until a SACK clears it. Outside a reception the strobe
// acknowledges the last good frame 12 symbol periods later (beacon networks).
void CC2420::sackStrobe(bool Pending) {
  AckPendingSticky = Pending;
  if (St == State::RxFrame && Rx && !Rejecting) {
    SackArmed = true;
    SackPend = Pending;
  } else if ((St == State::RxSfdSearch || St == State::RxCalibrate) && LastRxCrcOk) {
    LastRxCrcOk = false;
    startTx(Now + TurnaroundNs, /*Ack=*/true, LastRxSeq, Pending);
  }
}

} // namespace devices
} // namespace wsn
