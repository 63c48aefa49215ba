//===- CC2420Rx.cpp - CC2420 receive path, address recognition, RSSI, CCA ===//
//
// SWRS041B "Receive mode", "RXFIFO overflow", "Buffered receive mode",
// "Address Recognition", "Frame check sequence", "RSSI / Energy Detection",
// "Link Quality Indication" and "Clear Channel Assessment".
// spec/cc2420.md, "Receive" and "RSSI and CCA".
//
//===----------------------------------------------------------------------===//
#include "CC2420.h"

#include <algorithm>
#include <cmath>

namespace wsn {
namespace devices {

using namespace cc2420;

namespace {
constexpr uint64_t RssiWindowNs = 8 * SymbolNs; // RSSI averages 8 symbols
constexpr double NoMediumDbm = -100.0;          // a radio without a medium

int roundDb(double V) { return static_cast<int>(std::floor(V + 0.5)); }
} // namespace

// --- Air side --------------------------------------------------------------

void CC2420::airFrame(const AirFrame &F, uint64_t Handle, double RxDbm, bool Decodable) {
  uint64_t Before = nextEventNs();
  ++AirGen;
  CcaEnergyDirty = true;
  Heard H{F, Handle, RxDbm, Decodable, std::pow(10.0, RxDbm / 10.0)};
  if (F.SfdNs < Now) {
    // Announced too late for this radio (the lock-step slice is too long):
    // its energy still counts, it cannot be received.
    ++Counters.LateAnnouncements;
    Recent.push_back(std::move(H));
  } else {
    auto It = std::upper_bound(Pending.begin(), Pending.end(), F.SfdNs,
                               [](uint64_t T, const Heard &X) { return T < X.F.SfdNs; });
    Pending.insert(It, std::move(H));
  }
  reschedule();
  uint64_t After = nextEventNs();
  if (After < Before && OnWake)
    OnWake(After);
}

void CC2420::airTruncated(uint64_t Handle, uint64_t EndNs) {
  ++AirGen;
  CcaEnergyDirty = true;
  auto Cut = [&](Heard &H) {
    if (H.Handle == Handle && EndNs < H.F.EndNs) {
      H.F.EndNs = EndNs;
      if (EndNs <= H.F.SfdNs)
        H.Decodable = false; // its SFD never went out
    }
  };
  for (Heard &H : Pending)
    Cut(H);
  for (Heard &H : Recent)
    Cut(H);
  if (Rx)
    Cut(*Rx);
  reschedule();
}

// Pending frames whose SFD time has come leave the queue (they are kept for
// the RSSI window); the next SFD and the next change of the channel's energy
// become events while the receiver is on.
void CC2420::reschedule() {
  Events[EvRxSfd] = UINT64_MAX;
  Events[EvCca] = UINT64_MAX;
  forgetOldFrames();
  while (!Pending.empty() && Pending.front().F.SfdNs < Now) {
    Recent.push_back(std::move(Pending.front()));
    Pending.pop_front();
  }
  if (inRx()) {
    if (!Pending.empty())
      Events[EvRxSfd] = Pending.front().F.SfdNs;
    Events[EvCca] = nextCcaChange();
  }
  // Every change of Events ends here (events, SPI, inputs, the air side).
  NextAt = *std::min_element(Events.begin(), Events.end());
}

void CC2420::forgetOldFrames() {
  Recent.erase(std::remove_if(Recent.begin(), Recent.end(),
                              [&](const Heard &H) { return H.F.EndNs + RssiWindowNs < Now; }),
               Recent.end());
}

// --- Reception -------------------------------------------------------------

// "In receive mode, the SFD pin goes active after the start of frame
// delimiter (SFD) field has been completely received" ("Receive mode").
void CC2420::rxSfd() {
  while (!Pending.empty() && Pending.front().F.SfdNs <= Now) {
    Heard H = std::move(Pending.front());
    Pending.pop_front();
    Recent.push_back(H);
    if (!H.Decodable || H.F.Channel != channel() || H.F.EndNs <= H.F.SfdNs)
      continue;
    if (St != State::RxSfdSearch) {
      ++Counters.FramesMissed;
      continue;
    }
    Rx = std::move(H);
    St = State::RxFrame;
    RxIndex = 0;
    RxLen = 0;
    CurBytes = 0;
    RxMpdu.clear();
    AddrPending = mdm0(Mdm0AdrDecode);
    Rejecting = false;
    RxCorrupted = false;
    SackArmed = false;
    SfdIn = true;
    Events[EvRxByte] = Now + ByteNs;
  }
}

void CC2420::rxAbort() {
  Rx.reset();
  SfdIn = false;
  AddrPending = false;
  Rejecting = false;
  Events[EvRxByte] = UINT64_MAX;
}

// One PSDU byte has been received (32 us after the previous one).
void CC2420::rxByte() {
  if (!Rx || St != State::RxFrame)
    return;
  const AirFrame &F = Rx->F;
  uint8_t B = 0;
  // A byte the sender never sent (it stopped early) is noise: 0 here, and
  // the frame's CRC fails.
  if (RxIndex < F.Psdu.size() && Now <= F.EndNs)
    B = F.Psdu[RxIndex];
  else
    RxCorrupted = true;

  bool Last = false;
  uint8_t ToFifo = B;
  if (RxIndex == 0) {
    RxLen = B & 0x7F;
    // The RSSI byte is the average over the first 8 symbols after the SFD.
    RxRssiDbm = averagePowerDbm(Rx->F.SfdNs + RssiWindowNs);
    Last = RxLen == 0;
  } else {
    RxMpdu.push_back(B);
    unsigned I = RxIndex; // 1..RxLen
    Last = I == RxLen;
    if (mdm0(Mdm0AutoCrc) && RxLen >= 2 && I >= RxLen - 1) {
      // Figure "Data in RXFIFO when MDMCTRL0.AUTOCRC is set": the FCS is
      // replaced by the RSSI (signed) and CRC-OK (bit 7) + correlation.
      if (I == RxLen - 1) {
        ToFifo = static_cast<uint8_t>(
            static_cast<int8_t>(std::clamp(roundDb(RxRssiDbm - RssiOffsetDb), -128, 127)));
      } else {
        bool Ok = !RxCorrupted && !(Air.Corrupted && Air.Corrupted(Rx->Handle));
        uint16_t Want = fcs16(RxMpdu.data(), RxLen - 2);
        Ok = Ok && RxMpdu[RxLen - 2] == static_cast<uint8_t>(Want) &&
             RxMpdu[RxLen - 1] == static_cast<uint8_t>(Want >> 8);
        RxCrcOk = Ok;
        ToFifo = static_cast<uint8_t>((Ok ? 0x80 : 0) | correlation(Rx->RxDbm, Ok));
      }
    }
  }
  if (AddrPending) {
    bool Accept = false;
    bool Decided = addressDecision(Accept);
    if (Decided || Last) {
      // A frame that ends before its address fields is rejected.
      AddrPending = false;
      if (!Decided || !Accept) {
        // "If any of the above requirements are not satisfied ... CC2420
        // will disregard the incoming frame and flush the data from the
        // RXFIFO. Only data from the rejected frame is flushed". The SFD
        // pin goes inactive at once; the search for a new SFD resumes only
        // after the rejected frame's end ("Address Recognition").
        unsigned Drop = std::min(CurBytes, RxCount);
        RxCount -= Drop;
        CurBytes = 0;
        Rejecting = true;
        SfdIn = false;
        ++Counters.AddressRejected;
      }
    }
  }

  if (!Rejecting && !rxFifoPush(ToFifo)) {
    // "RXFIFO overflow": reception stops; FIFOP active with FIFO inactive
    // until SFLUSHRX; the SFD pin stays as it is until a second SFLUSHRX.
    RxOverflowFlag = true;
    ++Counters.RxOverflows;
    SfdStuck = SfdIn;
    SfdIn = false;
    Rx.reset();
    Events[EvRxByte] = UINT64_MAX;
    St = State::RxOverflow;
    return;
  }
  ++RxIndex;
  if (Last)
    rxFrameDone();
  else
    Events[EvRxByte] = Now + ByteNs;
}

void CC2420::rxFrameDone() {
  SfdIn = false;
  Events[EvRxByte] = UINT64_MAX;
  if (Rejecting) {
    Rx.reset();
    Rejecting = false;
    St = State::RxSfdSearch;
    return;
  }
  bool AutoCrc = mdm0(Mdm0AutoCrc) && RxLen >= 2;
  bool CrcOk = AutoCrc && RxCrcOk;
  ++Counters.FramesReceived;
  if (AutoCrc && !CrcOk)
    ++Counters.CrcErrors;
  // "FIFOP will also go active when the last byte of a new packet is
  // received, even if the threshold is not exceeded."
  FrameDoneFifop = true;
  CurBytes = 0;
  LastRxCrcOk = CrcOk;
  LastRxSeq = RxMpdu.size() >= 3 ? RxMpdu[2] : 0;

  uint16_t Fcf = RxMpdu.size() >= 2 ? static_cast<uint16_t>(RxMpdu[0] | RxMpdu[1] << 8) : 0;
  bool AckRequest = (Fcf & (1u << 5)) != 0 && (Fcf & 7) != 2;
  // "If MDMCTRL0.AUTOACK is enabled, an acknowledge frame is transmitted for
  // all incoming frames accepted by the address recognition with the
  // acknowledge request flag set and a valid CRC" ("Acknowledge Frames").
  bool Auto = mdm0(Mdm0AutoAck) && mdm0(Mdm0AdrDecode) && AckRequest && CrcOk;
  bool Strobed = SackArmed && CrcOk;
  bool Pend = SackArmed ? SackPend : AckPendingSticky;
  Rx.reset();
  SackArmed = false;
  if (Auto || Strobed) {
    LastRxCrcOk = false;
    startTx(Now + TurnaroundNs, /*Ack=*/true, LastRxSeq, Pend);
  } else {
    St = State::RxSfdSearch;
  }
}

// The data sheet's address recognition rules ("Address Recognition", after
// IEEE 802.15.4-2003 7.5.6.2). Returns false while the fields needed are not
// all received; Accept holds the verdict once it returns true.
bool CC2420::addressDecision(bool &Accept) const {
  const std::vector<uint8_t> &M = RxMpdu;
  if (M.size() < 2)
    return false;
  uint16_t Fcf = static_cast<uint16_t>(M[0] | M[1] << 8);
  unsigned Type = Fcf & 7;
  unsigned DstMode = (Fcf >> 10) & 3, SrcMode = (Fcf >> 14) & 3;
  bool IntraPan = (Fcf & (1u << 6)) != 0;
  if (Type >= 4) {
    // Reserved frame types are illegal unless RESERVED_FRAME_MODE accepts them.
    Accept = mdm0(Mdm0ReservedFrameMode);
    return true;
  }
  if (Type == 2) { // acknowledgement: no address fields
    Accept = true;
    return true;
  }
  if (DstMode == 1 || SrcMode == 1) { // reserved addressing modes
    Accept = false;
    return true;
  }
  auto AddrLen = [](unsigned Mode) { return Mode == 2 ? 2u : Mode == 3 ? 8u : 0u; };
  unsigned Off = 3; // FCF, sequence number
  unsigned DstPanOff = Off, DstAddrOff = 0, SrcPanOff = 0;
  if (DstMode) {
    DstAddrOff = DstPanOff + 2;
    Off = DstAddrOff + AddrLen(DstMode);
  }
  bool SrcPan = SrcMode && !(IntraPan && DstMode);
  SrcPanOff = Off;
  unsigned Need = Off;
  if ((Type == 0 || !DstMode) && SrcPan)
    Need = SrcPanOff + 2;
  if (M.size() < Need)
    return false;

  auto Le16 = [&](unsigned At) { return static_cast<uint16_t>(M[At] | M[At + 1] << 8); };
  uint16_t PanId = static_cast<uint16_t>(Ram[RamPanId] | Ram[RamPanId + 1] << 8);
  uint16_t Short = static_cast<uint16_t>(Ram[RamShortAdr] | Ram[RamShortAdr + 1] << 8);
  Accept = true;
  if (Type == 0) {
    // Beacons: the source PAN must match, unless IOCFG0.BCN_ACCEPT says the
    // programmed PAN id is 0xFFFF (accept every beacon).
    if (!(regv(IOCFG0) & Iocfg0BcnAccept) && (!SrcPan || Le16(SrcPanOff) != PanId))
      Accept = false;
  }
  if (DstMode) {
    uint16_t DPan = Le16(DstPanOff);
    if (DPan != PanId && DPan != 0xFFFF)
      Accept = false;
    if (DstMode == 2) {
      uint16_t D = Le16(DstAddrOff);
      if (D != Short && D != 0xFFFF)
        Accept = false;
    } else if (!std::equal(M.begin() + DstAddrOff, M.begin() + DstAddrOff + 8,
                           Ram.begin() + RamIeeeAdr)) {
      Accept = false;
    }
  } else if (Type == 1 || Type == 3) {
    // Only source addressing: accepted by a PAN coordinator of that PAN.
    if (!mdm0(Mdm0PanCoordinator) || !SrcPan || Le16(SrcPanOff) != PanId)
      Accept = false;
  }
  return true;
}

// Correlation value (7 bits) of the last byte: the data sheet gives about 110
// for the best frames and about 50 for the worst it still receives ("Link
// Quality Indication"); the model maps received power linearly between the
// sensitivity (-95 dBm: 50) and 10 dB above it (110). A corrupted frame
// reports 50.
uint8_t CC2420::correlation(double RxDbm, bool Ok) const {
  if (!Ok)
    return 50;
  double C = 50 + 6 * (RxDbm + 95);
  return static_cast<uint8_t>(std::clamp(roundDb(C), 50, 110));
}

// --- RSSI and CCA ------------------------------------------------------------

bool CC2420::rssiValid() const { return inRx() && St != State::RxCalibrate && Now >= RssiValidAt; }

// The power on this radio's channel averaged (in milliwatts) over the 8
// symbol periods before At. The medium's power is constant between the
// start and end times of the transmissions this antenna hears, so the
// integral is exact.
double CC2420::averagePowerDbm(uint64_t At) const {
  if (!Air.EnergyDbm && !Air.NoiseDbm)
    return NoMediumDbm;
  unsigned Ch = channel();
  if (AvgCache.Valid && AvgCache.At == At && AvgCache.Ch == Ch && AvgCache.Gen == AirGen)
    return AvgCache.Dbm;
  double V = averagePowerUncached(At, Ch);
  AvgCache.Valid = true;
  AvgCache.At = At;
  AvgCache.Ch = Ch;
  AvgCache.Gen = AirGen;
  AvgCache.Dbm = V;
  return V;
}

double CC2420::averagePowerUncached(uint64_t At, unsigned Ch) const {
  uint64_t From = At >= RssiWindowNs ? At - RssiWindowNs : 0;
  std::vector<uint64_t> Cuts = {From, At};
  auto Add = [&](const Heard &H) {
    if (H.F.Channel != Ch)
      return;
    for (uint64_t T : {H.F.StartNs, H.F.EndNs})
      if (T > From && T < At)
        Cuts.push_back(T);
  };
  for (const Heard &H : Pending)
    Add(H);
  for (const Heard &H : Recent)
    Add(H);
  if (Rx)
    Add(*Rx);
  std::sort(Cuts.begin(), Cuts.end());
  Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
  // Power at T: from the medium, or the noise floor plus the transmissions
  // this antenna was told about (the frame being received is also in Recent).
  double NoiseMw = Air.NoiseDbm ? std::pow(10.0, Air.NoiseDbm() / 10.0) : 0;
  auto PowerMw = [&](uint64_t T) {
    if (!Air.NoiseDbm)
      return std::pow(10.0, Air.EnergyDbm(Ch, T) / 10.0);
    double Mw = NoiseMw;
    auto Sum = [&](const Heard &H) {
      if (H.F.Channel == Ch && H.F.StartNs <= T && T < H.F.EndNs)
        Mw += H.RxMw;
    };
    for (const Heard &H : Pending)
      Sum(H);
    for (const Heard &H : Recent)
      Sum(H);
    return Mw;
  };
  if (Cuts.size() < 2 || At == From)
    return 10.0 * std::log10(PowerMw(At));
  double Mw = 0;
  for (size_t I = 0; I + 1 < Cuts.size(); ++I)
    Mw += PowerMw(Cuts[I]) * double(Cuts[I + 1] - Cuts[I]);
  Mw /= double(At - From);
  return 10.0 * std::log10(Mw);
}

// "Clear Channel Assessment": mode 1 clear when the RSSI is below the
// threshold (with MDMCTRL0.CCA_HYST dB of hysteresis), mode 2 clear when not
// receiving valid IEEE 802.15.4 data, mode 3 both. The RSSI compared is the
// register value (1 dB steps, offset -45) against RSSI.CCA_THR. CCA is valid
// only with RSSI_VALID; otherwise the channel reads busy.
bool CC2420::ccaSignal(bool Refresh) {
  if (!rssiValid()) {
    CcaEnergyClear = false;
    CcaEnergyDirty = true;
    return false;
  }
  if (Refresh || CcaEnergyDirty) {
    CcaEnergyDirty = false;
    int Thr = static_cast<int8_t>(regv(RSSI) >> 8);
    int Hyst = (regv(MDMCTRL0) >> Mdm0CcaHystShift) & 7;
    int Rssi = std::clamp(roundDb(averagePowerDbm(Now) - RssiOffsetDb), -128, 127);
    if (Rssi >= Thr)
      CcaEnergyClear = false;
    else if (Rssi < Thr - Hyst)
      CcaEnergyClear = true;
  }
  bool Receiving = St == State::RxFrame;
  switch ((regv(MDMCTRL0) >> Mdm0CcaModeShift) & 3) {
  case 1:
    return CcaEnergyClear;
  case 2:
    return !Receiving;
  default: // 3, and the reserved 0 (spec/cc2420.md)
    return CcaEnergyClear && !Receiving;
  }
}

// When the CCA input can change next: RSSI_VALID, a transmission's start or
// end on this channel, or 8 symbols after one (the average settles).
uint64_t CC2420::nextCcaChange() const {
  uint64_t Next = UINT64_MAX;
  auto Consider = [&](uint64_t T) {
    if (T > Now && T < Next)
      Next = T;
  };
  Consider(RssiValidAt);
  unsigned Ch = channel();
  auto Add = [&](const Heard &H) {
    if (H.F.Channel != Ch)
      return;
    for (uint64_t T : {H.F.StartNs, H.F.EndNs})
      Consider(T), Consider(T + RssiWindowNs);
  };
  for (const Heard &H : Pending)
    Add(H);
  for (const Heard &H : Recent)
    Add(H);
  if (Rx)
    Add(*Rx);
  return Next;
}

} // namespace devices
} // namespace wsn
