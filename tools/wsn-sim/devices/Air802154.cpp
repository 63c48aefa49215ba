//===- Air802154.cpp - 802.15.4 channels and the frame check sequence -----===//
#include "Air802154.h"

namespace wsn {
namespace devices {

unsigned channelOfMhz(unsigned Mhz) {
  if (Mhz < 2405 || Mhz > 2480 || (Mhz - 2405) % 5 != 0)
    return 0;
  return 11 + (Mhz - 2405) / 5;
}

unsigned mhzOfChannel(unsigned Channel) {
  if (Channel < 11 || Channel > 26)
    return 0;
  return 2405 + 5 * (Channel - 11);
}

// 802.15.4 sends every byte least significant bit first and defines the FCS
// over that bit order, so the register shifts right with the reflected
// polynomial 0x8408 (x^16 + x^12 + x^5 + 1).
uint16_t fcs16(const uint8_t *Data, size_t Len) {
  uint16_t Crc = 0;
  for (size_t I = 0; I < Len; ++I) {
    Crc ^= Data[I];
    for (int B = 0; B < 8; ++B)
      Crc =
          (Crc & 1) ? static_cast<uint16_t>((Crc >> 1) ^ 0x8408) : static_cast<uint16_t>(Crc >> 1);
  }
  return Crc;
}

} // namespace devices
} // namespace wsn
