//===- Air802154.h - what an IEEE 802.15.4 (2.4 GHz O-QPSK) frame is on air ===//
//
// The vocabulary shared by a transceiver model (CC2420.h) and the medium
// (Medium802154.h): a frame on the air with its channel, power and times, the
// PHY's symbol and byte times, channel <-> frequency and the frame check
// sequence. Times are absolute simulated nanoseconds chosen by the caller.
// spec/cc2420.md, "Air side", is the contract.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_DEVICES_AIR802154_H
#define WSN_DEVICES_AIR802154_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wsn {
namespace devices {

/// 2.4 GHz PHY: 62.5 ksymbol/s, 4 bits a symbol, so 250 kbit/s.
constexpr uint64_t SymbolNs = 16000;
constexpr uint64_t ByteNs = 2 * SymbolNs; // 32 us
/// Synchronisation header: 4 preamble bytes (8 zero symbols) and the SFD byte.
constexpr unsigned PreambleBytes = 4;
constexpr unsigned SfdBytes = 1;
/// aTurnaroundTime: 12 symbol periods.
constexpr uint64_t TurnaroundNs = 12 * SymbolNs; // 192 us
/// The longest PSDU (aMaxPHYPacketSize); the length byte's 7 low bits.
constexpr unsigned MaxPsduBytes = 127;

/// Channels 11..26 sit at 2405 + 5 (k - 11) MHz. Returns 0 for a frequency
/// that is not an 802.15.4 channel centre.
unsigned channelOfMhz(unsigned Mhz);
unsigned mhzOfChannel(unsigned Channel);

/// The 802.15.4 FCS: CRC-16/ITU-T (x^16 + x^12 + x^5 + 1, initial value 0,
/// bits processed least significant first), over the MPDU bytes before the FCS.
/// The FCS goes on the air low byte first.
uint16_t fcs16(const uint8_t *Data, size_t Len);

/// One transmission as the sender hands it to the medium.
struct AirFrame {
  /// The PHY payload as sent: the length byte, then the MPDU including its
  /// two FCS bytes. A truncated transmission (TX underflow, or the sender
  /// switched off) ends early: EndNs says when, and the bytes that were not
  /// sent are not here.
  std::vector<uint8_t> Psdu;
  unsigned Channel = 0;  // 11..26
  double TxPowerDbm = 0; // output power of the sender's PA
  uint64_t StartNs = 0;  // first preamble symbol leaves the antenna
  uint64_t SfdNs = 0;    // the SFD byte has been sent (StartNs + 160 us)
  uint64_t EndNs = 0;    // the last bit has been sent
  bool IsAck = false;    // an automatic/strobed acknowledgement (statistics only)
};

} // namespace devices
} // namespace wsn

#endif
