// ElfLoader.cpp - a small ELF32 little-endian reader (program headers only).
#include "ElfLoader.h"

#include "Cpu.h"

#include "absl/strings/str_format.h"

#include <fstream>
#include <iterator>

namespace wsn::msp430 {

namespace {
constexpr uint16_t EM_MSP430 = 105;
constexpr uint32_t PT_LOAD = 1;

uint32_t le32(const std::vector<uint8_t> &B, size_t O) {
  return uint32_t(B[O]) | uint32_t(B[O + 1]) << 8 | uint32_t(B[O + 2]) << 16 |
         uint32_t(B[O + 3]) << 24;
}
uint16_t le16(const std::vector<uint8_t> &B, size_t O) {
  return uint16_t(B[O] | B[O + 1] << 8);
}
} // namespace

absl::StatusOr<ElfImage> readElf(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return absl::NotFoundError(absl::StrFormat("%s: cannot open", Path));
  std::vector<uint8_t> B((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  auto Bad = [&](const std::string &What) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: %s", Path, What));
  };
  if (B.size() < 52 || B[0] != 0x7F || B[1] != 'E' || B[2] != 'L' || B[3] != 'F')
    return Bad("not an ELF file");
  if (B[4] != 1 || B[5] != 1)
    return Bad("not a 32-bit little-endian ELF file (MSP430 images are ELF32 LSB)");
  if (le16(B, 18) != EM_MSP430)
    return Bad(absl::StrFormat("machine %d is not MSP430 (%d)", le16(B, 18), EM_MSP430));
  ElfImage Img;
  Img.Entry = le32(B, 24);
  uint32_t PhOff = le32(B, 28);
  uint16_t PhEntSize = le16(B, 42), PhNum = le16(B, 44);
  if (PhEntSize < 32 || uint64_t(PhOff) + uint64_t(PhEntSize) * PhNum > B.size())
    return Bad("program header table lies outside the file");
  for (unsigned I = 0; I < PhNum; ++I) {
    size_t H = PhOff + size_t(I) * PhEntSize;
    if (le32(B, H) != PT_LOAD)
      continue;
    uint32_t Off = le32(B, H + 4), PAddr = le32(B, H + 12), FileSz = le32(B, H + 16);
    if (uint64_t(Off) + FileSz > B.size())
      return Bad(absl::StrFormat("segment %u (file offset 0x%x, 0x%x bytes) lies outside the file",
                                 I, Off, FileSz));
    if (FileSz == 0)
      continue;
    Img.Segments.push_back({PAddr, std::vector<uint8_t>(B.begin() + Off, B.begin() + Off + FileSz)});
  }
  if (Img.Segments.empty())
    return Bad("no loadable segment");
  return Img;
}

absl::Status loadElf(Cpu &C, const ElfImage &Image, const std::string &Path) {
  for (const ElfSegment &S : Image.Segments) {
    if (uint64_t(S.Address) + S.Bytes.size() > C.mcu().AddressSpace)
      return absl::OutOfRangeError(absl::StrFormat(
          "%s: segment at 0x%x (%u bytes) does not fit the %s address space (0x%x bytes)", Path,
          S.Address, unsigned(S.Bytes.size()), C.mcu().Name, C.mcu().AddressSpace));
    std::copy(S.Bytes.begin(), S.Bytes.end(), C.memory() + S.Address);
  }
  C.powerOn();
  return absl::OkStatus();
}

} // namespace wsn::msp430
