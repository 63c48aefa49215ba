//===- CC2420.h - the Chipcon/TI CC2420 802.15.4 transceiver --------------===//
//
// A platform-neutral model of the CC2420 (data sheet SWRS041) as a board sees
// it: input pins (CSn, VREG_EN, RESETn), the SPI byte exchange, output pins
// (FIFO, FIFOP, CCA, SFD) and the antenna. The model knows nothing about the
// microcontroller or the simulator that drives it: a board wires it the way a
// schematic does (spec/cc2420.md).
//
// Time is absolute simulated nanoseconds given by the caller; the model never
// reads a clock. Before any pin or SPI interaction at time T the board calls
// advanceTo(T) (the input methods also do it themselves), and it schedules a
// wake-up at nextEventNs() so that output pin edges happen at their exact
// nanosecond (oscillator start-up, byte clocks, turnaround, CCA window).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_DEVICES_CC2420_H
#define WSN_DEVICES_CC2420_H

#include "Air802154.h"
#include "CC2420Regs.h"

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

namespace wsn {
namespace devices {

class CC2420 {
public:
  enum class Pin : uint8_t { Fifo, Fifop, Cca, Sfd };
  /// Called at the exact nanosecond an output pin changes level (electrical
  /// level, after the IOCFG0 polarity bits).
  using PinListener = std::function<void(Pin, bool Level, uint64_t Ns)>;

  /// The radio's view of the medium (Medium802154::attach fills it). Every
  /// member may be empty: a radio without a medium transmits into nothing and
  /// hears only its noise floor.
  struct AirPort {
    /// A transmission is announced when it is decided (the STXON/STXONCCA
    /// strobe, or the end of a frame that triggers an acknowledgement), i.e.
    /// one turnaround before its first preamble symbol. Returns a handle.
    std::function<uint64_t(const AirFrame &)> Transmit;
    /// The announced transmission stops at Ns (SRFOFF, SXOSCOFF, VREG_EN low,
    /// reset): the medium shortens it (or drops it if Ns <= StartNs).
    std::function<void(uint64_t Handle, uint64_t Ns)> Truncate;
    /// Total power (dBm) on Channel at this antenna at Ns, other senders and
    /// the noise floor included (for RSSI and CCA).
    std::function<double(unsigned Channel, uint64_t Ns)> EnergyDbm;
    /// The noise floor (dBm) at this antenna. When set, the radio adds the
    /// announced transmissions to it itself instead of asking EnergyDbm
    /// (the same sum, without a call into the medium per RSSI evaluation).
    std::function<double()> NoiseDbm;
    /// Whether a frame this radio is receiving was corrupted by an overlapping
    /// transmission at this receiver (asked once, at the frame's end).
    std::function<bool(uint64_t Handle)> Corrupted;
  };

  /// The radio control state machine (data sheet "Radio control state machine"),
  /// with the power states in front of it.
  enum class State : uint8_t {
    VregOff,      // VREG_EN low: no supply, the SPI does not answer
    VregStarting, // VREG_EN high, regulator not yet up
    PowerDown,    // regulator up, crystal oscillator off (also while RESETn low)
    XoscStarting, // SXOSCON issued, waiting for XOSC16M_STABLE
    Idle,
    RxCalibrate, // 12 symbols after SRXON (or after TX) before listening
    RxSfdSearch,
    RxFrame,
    RxOverflow,   // RXFIFO overflowed; SFLUSHRX leaves it
    TxCalibrate,  // turnaround between STXON/STXONCCA and the first preamble symbol
    TxFrame,      // preamble, SFD and PSDU on the air (after it, or an
                  // underflow, the radio returns to RxCalibrate)
    TxCalWait,    // after STXCAL: synthesiser on, waiting for a TX strobe
    AckCalibrate, // turnaround before an acknowledgement frame
    AckFrame,     // acknowledgement on the air
  };

  /// Counters for run.json and tests.
  struct Stats {
    uint64_t FramesSent = 0;
    uint64_t AcksSent = 0;
    uint64_t TxUnderflows = 0;
    uint64_t CcaRefused = 0;     // STXONCCA ignored on a busy channel
    uint64_t FramesReceived = 0; // completely in the RXFIFO (CRC good or bad)
    uint64_t CrcErrors = 0;
    uint64_t AddressRejected = 0;
    uint64_t RxOverflows = 0;
    uint64_t FramesMissed = 0;      // heard on our channel while not able to receive
    uint64_t LateAnnouncements = 0; // announced after their SFD time (slice too long)
  };

  /// Start-up delays; the defaults are the data sheet's (spec/cc2420.md).
  struct Timing {
    uint64_t VregStartupNs = 600000; // "Voltage Regulator": start-up time
    uint64_t XoscStartupNs = 860000; // "Crystal Oscillator": start-up time
  };

  CC2420();
  explicit CC2420(const Timing &T);

  /// Called when something from outside (a frame announced by the medium)
  /// makes nextEventNs() earlier than it was: the board re-arms its wake-up.
  using WakeListener = std::function<void(uint64_t Ns)>;

  void setPinListener(PinListener L) { OnPin = std::move(L); }
  void setWakeListener(WakeListener L) { OnWake = std::move(L); }
  void setAirPort(AirPort P) { Air = std::move(P); }

  // --- Input pins. Each calls advanceTo(Ns) first.
  void setVregEn(bool Level, uint64_t Ns);
  void setResetN(bool Level, uint64_t Ns);
  void setCsn(bool Level, uint64_t Ns);
  /// One SPI byte while CSn is low: returns the MISO byte. The first byte
  /// after CSn falls is a command strobe, register or RAM address and returns
  /// the status byte. With CSn high, or without supply, returns 0 and does
  /// nothing.
  uint8_t spiExchange(uint8_t Mosi, uint64_t Ns);

  // --- Output pins (electrical level).
  bool pin(Pin P) const;

  // --- Time.
  /// The next time an internal event changes something observable
  /// (UINT64_MAX if none).
  uint64_t nextEventNs() const;
  /// Processes every internal event up to and including Ns. Time never goes
  /// back: an earlier Ns is ignored.
  void advanceTo(uint64_t Ns);
  uint64_t nowNs() const { return Now; }

  // --- Air side, called by the medium.
  /// A transmission that reaches this antenna at RxDbm (link gain applied;
  /// any channel: the model checks its own channel at the SFD). Decodable is
  /// false when the medium judged it too weak (sensitivity, SNR): it then only
  /// adds energy. Must be announced before its StartNs reaches this radio's
  /// time for exact CCA, before its SfdNs for reception.
  void airFrame(const AirFrame &F, uint64_t Handle, double RxDbm, bool Decodable = true);
  /// A transmission announced earlier stops at EndNs.
  void airTruncated(uint64_t Handle, uint64_t EndNs);

  // --- Inspection (tests, run.json, boards).
  uint8_t status() const;
  State state() const { return St; }
  uint16_t reg(uint8_t Addr) const;
  uint8_t ram(uint16_t Addr) const { return Ram[Addr % cc2420::RamSize]; }
  unsigned channel() const;  // from FSCTRL.FREQ; 0 if not an 802.15.4 channel
  double txPowerDbm() const; // from TXCTRL.PA_LEVEL
  unsigned rxFifoCount() const { return RxCount; }
  unsigned txFifoCount() const { return TxCount; }
  const Stats &stats() const { return Counters; }

private:
  /// A transmission heard at this antenna.
  struct Heard {
    AirFrame F;
    uint64_t Handle = 0;
    double RxDbm = 0;
    bool Decodable = true;
    double RxMw = 0; // RxDbm in milliwatts
  };
  enum class Spi : uint8_t { Command, RegHigh, RegLow, TxFifo, RxFifo, RamBank, RamData, Ignore };
  /// Internal events; at most one pending time per kind.
  enum Ev : unsigned {
    EvVregUp,
    EvXoscUp,
    EvRxCalDone,
    EvTxStart,
    EvTxSfd,
    EvTxEnd,
    EvRxSfd,
    EvRxByte,
    EvCca,
    NumEvents
  };

  // Power, state and events (CC2420.cpp).
  bool powered() const;
  bool inRx() const;
  bool inTx() const;
  uint64_t txTurnaroundNs() const;
  void powerUpReset();
  void chipReset();
  void fire(Ev E);
  void reschedule();
  void strobe(uint8_t S);
  void enterRx();
  void enterRxSearch();
  void leaveRadio();
  void goIdle();
  // Registers and RAM.
  uint16_t readReg(uint8_t Addr) const;
  void writeReg(uint8_t Addr, uint16_t V);
  bool mdm0(uint16_t Bit) const { return (Regs[cc2420::MDMCTRL0 - cc2420::FirstReg] & Bit) != 0; }
  uint16_t regv(uint8_t Addr) const { return Regs[Addr - cc2420::FirstReg]; }
  // FIFOs.
  void txFifoWrite(uint8_t B);
  uint8_t rxFifoPop();
  bool rxFifoPush(uint8_t B);
  void flushRx();
  // Transmit (CC2420Tx.cpp).
  bool startTx(uint64_t StartNs, bool Ack, uint8_t AckSeq, bool AckPending);
  void txEvent(Ev E);
  void abortTx();
  void sackStrobe(bool Pending);
  // Receive (CC2420Rx.cpp).
  void rxSfd();
  void rxByte();
  void rxFrameDone();
  void rxAbort();
  bool addressDecision(bool &Accept) const;
  uint8_t correlation(double RxDbm, bool Ok) const;
  void forgetOldFrames();
  // RSSI and CCA.
  double averagePowerDbm(uint64_t At) const;
  double averagePowerUncached(uint64_t At, unsigned Ch) const;
  bool rssiValid() const;
  /// Refresh: re-measure the RSSI now (STXONCCA, register changes); else the
  /// energy verdict of the last CCA change point is kept.
  bool ccaSignal(bool Refresh);
  uint64_t nextCcaChange() const;
  // Pins.
  bool fifoLogic() const;
  bool fifopLogic() const;
  bool sfdLogic() const;
  void updatePins();

  Timing Tm;
  PinListener OnPin;
  WakeListener OnWake;
  AirPort Air;
  uint64_t Now = 0;
  State St = State::VregOff;
  bool VregEn = false, ResetN = true, Csn = true;
  bool XoscOn = false;
  bool TxUnderflowFlag = false;
  bool Locked = false;
  uint64_t RssiValidAt = UINT64_MAX;
  uint64_t calDoneAt = 0; // STXCAL: LOCK from then on
  std::array<uint64_t, NumEvents> Events;
  uint64_t NextAt = UINT64_MAX; // min(Events), kept by reschedule()

  // SPI transaction.
  Spi SpiSt = Spi::Command;
  bool SpiRead = false;
  uint8_t SpiAddr = 0;
  uint16_t SpiWord = 0;
  uint16_t RamAddr = 0;

  std::array<uint16_t, cc2420::LastReg - cc2420::FirstReg + 1> Regs{};
  std::array<uint8_t, cc2420::RamSize> Ram{};

  // TXFIFO: RAM 0x000.. holds TxCount bytes. After a transmission it keeps
  // the frame for a retransmission until the next write (section 17.1).
  unsigned TxCount = 0;
  bool TxRetained = false;
  // RXFIFO: a ring in RAM 0x080..0x0FF.
  unsigned RxHead = 0, RxCount = 0;
  bool RxOverflowFlag = false;

  // Transmission in progress (data frame or acknowledgement).
  AirFrame Tx;
  uint64_t TxHandle = 0;
  bool TxIsAck = false;
  bool TxUnderflows = false; // this transmission runs out of TXFIFO bytes
  bool SfdOut = false;       // SFD pin driven by the transmitter

  // Reception.
  std::deque<Heard> Pending;   // announced, by SfdNs, SFD not yet due
  std::vector<Heard> Recent;   // for RSSI/CCA windows
  std::optional<Heard> Rx;     // the frame being received
  unsigned RxIndex = 0;        // PSDU bytes received so far
  unsigned RxLen = 0;          // its length field
  unsigned CurBytes = 0;       // bytes of it written to the RXFIFO
  std::vector<uint8_t> RxMpdu; // MPDU bytes as received
  bool RxCrcOk = false;
  bool AddrPending = false;    // address recognition not decided yet
  bool Rejecting = false;      // rejected: wait for its end
  bool SfdIn = false;          // SFD pin driven by the receiver
  bool SfdStuck = false;       // overflow mid-frame: needs 2 SFLUSHRX
  bool FrameDoneFifop = false; // FIFOP for a complete short frame
  bool RxCorrupted = false;
  double RxRssiDbm = 0;
  uint16_t RxFcs = 0; // FCS computed over the received MPDU
  bool SackArmed = false, SackPend = false, AckPendingSticky = false;
  bool LastRxCrcOk = false;
  uint8_t LastRxSeq = 0;
  bool CcaEnergyClear = false; // energy part of CCA, with hysteresis
  bool CcaEnergyDirty = true;  // re-measure at the next evaluation
  // The last RSSI average (SPI traffic re-evaluates the CCA pin per byte);
  // valid while no frame was announced or cut since (AirGen).
  uint64_t AirGen = 0;
  mutable struct {
    bool Valid = false;
    uint64_t At = 0, Gen = 0;
    unsigned Ch = 0;
    double Dbm = 0;
  } AvgCache;

  std::array<bool, 4> PinLevel{};
  Stats Counters;
};

} // namespace devices
} // namespace wsn

#endif
