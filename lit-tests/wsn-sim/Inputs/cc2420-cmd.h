/* cc2420-cmd.h - the CC2420 commands of the wsn-sim lit programs, on every board: command
 * strobes, 16-bit register access and a 3-byte frame sent over SPI (CC2420 datasheet,
 * "Configuration interface", "TXFIFO"), and a busy-wait. The board's header defines the bus: spi (one byte exchanged), csn_low and
 * csn_high (the chip select), after including this file or before. */
#ifndef WSN_LIT_CC2420_CMD_H
#define WSN_LIT_CC2420_CMD_H

#include <stdint.h>

static inline uint8_t spi(uint8_t b);
static inline void csn_low(void);
static inline void csn_high(void);

/* About 4n cycles (a volatile counter: the compiler keeps every iteration). */
static inline void delay4(uint16_t n) {
  for (volatile uint16_t i = 0; i < n; ++i)
    ;
}
static inline uint8_t strobe(uint8_t s) {
  csn_low();
  uint8_t st = spi(s);
  csn_high();
  return st;
}
static inline void reg_write(uint8_t a, uint16_t v) {
  csn_low();
  spi(a);
  spi(v >> 8);
  spi(v & 0xFF);
  csn_high();
}
static inline uint16_t reg_read(uint8_t a) {
  csn_low();
  spi(0x40 | a);
  uint16_t v = (uint16_t)spi(0) << 8;
  v |= spi(0);
  csn_high();
  return v;
}
/* Sends a frame of three bytes: length 5 (the CC2420 appends the 2-byte FCS, AUTOCRC) and the
 * bytes into the TXFIFO, then STXON. */
static inline void send3(uint8_t a, uint8_t b, uint8_t c) {
  csn_low();
  spi(0x3E); /* TXFIFO */
  spi(5);    /* length: 3 bytes + FCS */
  spi(a);
  spi(b);
  spi(c);
  csn_high();
  strobe(0x04); /* STXON */
}

#endif
