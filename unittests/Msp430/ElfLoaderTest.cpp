// ElfLoaderTest.cpp - loading an MSP430 ELF (PT_LOAD segments at their load addresses, reset
// vector at 0xFFFE) and the errors for files that are not one.
#include "Chip.h"
#include "ElfLoader.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace wsn::msp430;

namespace {

TEST(Msp430Elf, LoadsSegmentsAndStartsAtTheResetVector) {
  auto Img = readElf(WSN_MSP430_TINY);
  ASSERT_TRUE(Img.ok()) << Img.status();
  Chip Dev(*lookupMcu("msp430f1611"));
  ASSERT_TRUE(loadElf(Dev.cpu(), *Img, WSN_MSP430_TINY).ok());
  EXPECT_EQ(Dev.cpu().reg(PC), 0x4000u);
  Dev.cpu().run(3);
  EXPECT_EQ(Dev.cpu().reg(5), 0x1234u); // the .data word plus one
  EXPECT_EQ(Dev.cpu().readWord(0x120), 0x6980); // the watchdog is held
}

TEST(Msp430Elf, Errors) {
  auto Missing = readElf("/nonexistent/fw.elf");
  ASSERT_FALSE(Missing.ok());
  EXPECT_EQ(Missing.status().message(), "/nonexistent/fw.elf: cannot open");

  std::string Text = testing::TempDir() + "/not-an-elf.txt";
  std::ofstream(Text) << "hello, this is not an ELF file at all, but long enough to look at it";
  auto NotElf = readElf(Text);
  ASSERT_FALSE(NotElf.ok());
  EXPECT_NE(NotElf.status().message().find("not an ELF file"), std::string::npos);

  auto Host = readElf("/proc/self/exe"); // this test: an x86-64 ELF64
  ASSERT_FALSE(Host.ok());
  EXPECT_NE(Host.status().message().find("not a 32-bit little-endian ELF file"), std::string::npos);
}

} // namespace
