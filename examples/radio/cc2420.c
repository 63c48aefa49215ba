/* cc2420.c - RadioC (radio.h) on the CC2420 transceiver of the MicaZ, the TelosB and the Z1,
 * written for this project in the style of nesC-generated C (component$function names, atomic
 * sections, an async receive event signalled from the FIFOP interrupt). The board's wiring
 * (pins, SPI module, interrupt, busy-wait counts) is in cc2420_avr.h (MicaZ) and
 * cc2420_msp430.h (TelosB, Z1); everything here is the same on the three.
 *
 * What it does (numbers from the CC2420 datasheet, TI SWRS041):
 *   - start-up: VREG_EN high, wait for the regulator, RESETn pulse, SXOSCON, poll the status byte
 *     until XOSC16M_STABLE (datasheet section 13.2 "Voltage regulator", 18 "Configuration");
 *   - configuration: hardware address recognition, automatic CRC and automatic acknowledgements
 *     (MDMCTRL0.ADR_DECODE/AUTOCRC/AUTOACK), FIFOP when a whole frame is in the RXFIFO
 *     (IOCFG0.FIFOP_THR = 127, active high), channel 26, PAN id and short address in RAM;
 *   - send: an IEEE 802.15.4 data frame (intra-PAN, short addresses, acknowledgement request when
 *     unicast) written to the TXFIFO; CSMA: a random backoff, CCA pin, STXONCCA (refused when the
 *     channel is busy: the status byte then shows no TX_ACTIVE), up to RADIO_CSMA_TRIES attempts;
 *     then it waits for the end of the frame and, when unicast, for the acknowledgement (up to
 *     RADIO_ACK_TRIES transmissions);
 *   - receive: the FIFOP interrupt reads whole frames out of the RXFIFO; the CC2420 has
 *     replaced their FCS with RSSI and CRC-OK/correlation bytes (datasheet 16.4); acknowledgement
 *     frames complete a pending send, data frames are signalled as RadioC$Receive$receive.
 *
 * Frame (MPDU, little-endian): FCF(2) DSN(1) DESTPAN(2) DEST(2) SRC(2) TYPE(1) SEQ(2) PAYLOAD FCS(2).
 * The 16-bit SEQ is the sender's frame counter (radio.h); the 8-bit DSN is its low byte, used
 * to match acknowledgements.
 * Targets: atmega128 (MicaZ), msp430f1611 (TelosB), msp430f2617 (Z1). */
#include "radio.h"

#if defined(__AVR__)
#include "cc2420_avr.h"
#elif defined(__MSP430__)
#include "cc2420_msp430.h"
#else
#error "cc2420.c: a MicaZ (avr), TelosB or Z1 (msp430) target"
#endif

#ifndef RADIO_CHANNEL
#define RADIO_CHANNEL 26
#endif
#ifndef RADIO_PAN
#define RADIO_PAN 0x22
#endif
#define RADIO_CSMA_TRIES 8
#define RADIO_ACK_TRIES 3

/* Command strobes, registers and RAM addresses (datasheet section 37, "Register overview"). */
enum {
  CC2420_SNOP = 0x00, CC2420_SXOSCON = 0x01, CC2420_SRXON = 0x03, CC2420_STXONCCA = 0x05,
  CC2420_SRFOFF = 0x06, CC2420_SFLUSHRX = 0x08, CC2420_SFLUSHTX = 0x09,
  CC2420_MDMCTRL0 = 0x11, CC2420_FSCTRL = 0x18, CC2420_IOCFG0 = 0x1C,
  CC2420_TXFIFO = 0x3E, CC2420_RXFIFO = 0x3F,
  CC2420_REG_READ = 0x40, CC2420_RAM_ACCESS = 0x80, CC2420_RAM_READ = 0x20,
  CC2420_RAM_PANID = 0x168
};
/* Status byte bits (datasheet Table 5). */
#define CC2420_XOSC16M_STABLE 0x40
#define CC2420_TX_ACTIVE 0x08

/* The node's id, as TinyOS names it: the simulator (like tos-set-symbols) writes it into the
 * image before reset. */
uint16_t TOS_NODE_ID = 1;

uint16_t RadioC$seqno;
uint16_t RadioC$errors;
uint16_t RadioC$noAck;     /* unicast frames whose acknowledgement never came */
uint16_t RadioC$busy;      /* sends given up because the channel stayed busy */
static volatile uint8_t RadioC$ackPending; /* a unicast frame waits for its ACK */
static volatile uint8_t RadioC$ackDsn;     /* ... with this DSN */
static volatile uint8_t RadioC$acked;
uint16_t RadioC$duplicates; /* retransmissions suppressed by the receiver */
/* The last (source, sequence number) pairs received: a frame whose ACK was lost comes again,
 * and is not signalled twice (TinyOS's unique-receive filter does the same). */
#define RADIO_HISTORY 8
static uint16_t RadioC$histSrc[RADIO_HISTORY], RadioC$histSeq[RADIO_HISTORY];
static uint8_t RadioC$histNext, RadioC$histUsed;
static uint16_t RadioC$lfsr;            /* backoff generator */
/* The receive interrupt's frame buffer; a send builds its frame in RadioC$txFrame, so a frame
 * that arrives while a send is under way cannot change the one being sent. */
static uint8_t RadioC$frame[RADIO_MAX_PAYLOAD + 16];
static uint8_t RadioC$txFrame[RADIO_MAX_PAYLOAD + 16];
static radio_msg_t RadioC$rxMsg;

/* n iterations of a few cycles each (RADIO_WAIT_* give the counts for the board's clock). */
static void RadioC$busyWait(uint16_t n) {
  while (n--)
    __asm__ __volatile__("nop");
}

static uint8_t RadioC$spi(uint8_t b) {
  RADIO_SPI_PUT(b);
  while (RADIO_SPI_BUSY())
    ;
  return RADIO_SPI_GET();
}

static void RadioC$select(void) { RADIO_CSN_LOW(); }
static void RadioC$deselect(void) { RADIO_CSN_HIGH(); }

static uint8_t RadioC$strobe(uint8_t cmd) {
  uint8_t status;
  RadioC$select();
  status = RadioC$spi(cmd);
  RadioC$deselect();
  return status;
}

static void RadioC$writeReg(uint8_t reg, uint16_t value) {
  RadioC$select();
  RadioC$spi(reg);
  RadioC$spi((uint8_t)(value >> 8)); /* registers are sent most significant byte first */
  RadioC$spi((uint8_t)value);
  RadioC$deselect();
}

static void RadioC$writeRam(uint16_t addr, const uint8_t *p, uint8_t n) {
  RadioC$select();
  RadioC$spi((uint8_t)(CC2420_RAM_ACCESS | (addr & 0x7F)));
  RadioC$spi((uint8_t)((addr >> 1) & 0xC0)); /* bank bits, read/write bit clear: write */
  while (n--)
    RadioC$spi(*p++);
  RadioC$deselect();
}

uint16_t RadioC$nodeId(void) { return TOS_NODE_ID; }
uint16_t RadioC$lastSeq(void) { return RadioC$seqno; }
uint16_t RadioC$rxErrors(void) { return RadioC$errors; }

void RadioC$init(void) {
  uint8_t addr[4];
  RADIO_PINS_INIT(); /* the radio unpowered, CSn high, the SPI master ready */

  RADIO_VREG_ON();
  RadioC$busyWait(RADIO_WAIT_REGULATOR); /* regulator start-up: at most 0.6 ms (Table 4) */
  RADIO_RESETN_LOW();
  RadioC$busyWait(RADIO_WAIT_RESET);
  RADIO_RESETN_HIGH();
  while (!(RadioC$strobe(CC2420_SXOSCON) & CC2420_XOSC16M_STABLE))
    ;

  /* ADR_DECODE, CCA_HYST 2, CCA_MODE 3, AUTOCRC, AUTOACK, PREAMBLE_LENGTH 2 (the default). */
  RadioC$writeReg(CC2420_MDMCTRL0, 0x0AF2);
  /* FIFOP_THR 127: FIFOP rises only when a whole frame is in the RXFIFO; polarities default. */
  RadioC$writeReg(CC2420_IOCFG0, 0x007F);
  /* LOCK_THR 1, FREQ = 357 + 5 (k - 11) MHz above 2048 (datasheet section 32). */
  RadioC$writeReg(CC2420_FSCTRL, (uint16_t)(0x4000 | (357 + 5 * (RADIO_CHANNEL - 11))));
  addr[0] = (uint8_t)RADIO_PAN;
  addr[1] = (uint8_t)(RADIO_PAN >> 8);
  addr[2] = (uint8_t)TOS_NODE_ID;
  addr[3] = (uint8_t)(TOS_NODE_ID >> 8);
  RadioC$writeRam(CC2420_RAM_PANID, addr, 4); /* PANID then SHORTADR */
  RadioC$lfsr = (uint16_t)(0xACE1u ^ TOS_NODE_ID);

  RadioC$strobe(CC2420_SFLUSHRX);
  RadioC$strobe(CC2420_SFLUSHRX);
  RadioC$strobe(CC2420_SRXON);
  RADIO_FIFOP_IRQ_INIT(); /* on FIFOP's rising edge */
}

/* A backoff of 1..32 units of 320 us (20 symbols, the 802.15.4 unit backoff period). */
static void RadioC$backoff(void) {
  uint8_t units;
  RadioC$lfsr = (uint16_t)((RadioC$lfsr >> 1) ^ (-(RadioC$lfsr & 1u) & 0xB400u));
  units = (uint8_t)((RadioC$lfsr & 31u) + 1u);
  while (units--)
    RadioC$busyWait(RADIO_WAIT_BACKOFF_UNIT);
}

/* One transmission of the frame in the TXFIFO under CSMA: 1 when it went out. */
static uint8_t RadioC$transmit(void) {
  uint8_t tries;
  for (tries = 0; tries < RADIO_CSMA_TRIES; ++tries) {
    RadioC$backoff();
    if (!RADIO_CCA())
      continue; /* channel busy */
    RADIO_SFD_ARM();
    /* Atomic: the receive interrupt uses the SPI bus too (CSn low, bytes in flight). */
    __nesc_atomic_t s = RadioC$atomicStart();
    uint8_t active = (RadioC$strobe(CC2420_STXONCCA) & CC2420_TX_ACTIVE) ||
                     (RadioC$strobe(CC2420_SNOP) & CC2420_TX_ACTIVE);
    RadioC$atomicEnd(s);
    if (!active)
      continue; /* STXONCCA refused: CCA turned busy */
    while (!RADIO_SFD_SEEN()) /* SFD rises once the sync header is out */
      ;
    while (RADIO_SFD()) /* and falls at the end of the frame */
      ;
    return 1;
  }
  return 0;
}

uint8_t RadioC$send(uint16_t dest, uint8_t type, const void *payload, uint8_t len) {
  const uint8_t *p = (const uint8_t *)payload;
  uint8_t n = 0, i, attempt, unicast = dest != RADIO_BROADCAST;
  uint16_t src = TOS_NODE_ID;
  if (len > RADIO_MAX_PAYLOAD)
    return RADIO_FAIL;
  ++RadioC$seqno;
  RadioC$txFrame[n++] = (uint8_t)(len + 14); /* length: MPDU incl. FCS */
  RadioC$txFrame[n++] = (uint8_t)(unicast ? 0x61 : 0x41); /* data, intra-PAN, ACK request */
  RadioC$txFrame[n++] = 0x88;                              /* short dest and source addresses */
  RadioC$txFrame[n++] = (uint8_t)RadioC$seqno;             /* DSN */
  RadioC$txFrame[n++] = (uint8_t)RADIO_PAN;
  RadioC$txFrame[n++] = (uint8_t)(RADIO_PAN >> 8);
  RadioC$txFrame[n++] = (uint8_t)dest;
  RadioC$txFrame[n++] = (uint8_t)(dest >> 8);
  RadioC$txFrame[n++] = (uint8_t)src;
  RadioC$txFrame[n++] = (uint8_t)(src >> 8);
  RadioC$txFrame[n++] = type;
  RadioC$txFrame[n++] = (uint8_t)RadioC$seqno;
  RadioC$txFrame[n++] = (uint8_t)(RadioC$seqno >> 8);
  for (i = 0; i < len; ++i)
    RadioC$txFrame[n++] = p[i];

  /* The TXFIFO is loaded in one atomic section: the receive interrupt uses the SPI bus too,
   * and one taken between these bytes would pull CSn high and send its own command into the
   * middle of the load. */
  {
    __nesc_atomic_t s = RadioC$atomicStart();
    RadioC$strobe(CC2420_SFLUSHTX);
    RadioC$select();
    RadioC$spi(CC2420_TXFIFO);
    for (i = 0; i < n; ++i)
      RadioC$spi(RadioC$txFrame[i]);
    RadioC$deselect();
    RadioC$atomicEnd(s);
  }

  for (attempt = 0; attempt < (unicast ? RADIO_ACK_TRIES : 1); ++attempt) {
    uint16_t wait;
    __nesc_atomic_t s = RadioC$atomicStart();
    RadioC$acked = 0;
    RadioC$ackDsn = (uint8_t)RadioC$seqno;
    RadioC$ackPending = unicast;
    RadioC$atomicEnd(s);
    if (!RadioC$transmit()) {
      RadioC$ackPending = 0;
      ++RadioC$busy;
      return RADIO_FAIL;
    }
    if (!unicast)
      return RADIO_SUCCESS;
    /* The ACK starts 12 symbols after the frame and lasts 11 bytes on the air (about 0.55 ms);
     * the receive interrupt sets acked. Wait up to about 1.5 ms. */
    for (wait = 0; wait < 15 && !RadioC$acked; ++wait)
      RadioC$busyWait(RADIO_WAIT_ACK_STEP);
    if (RadioC$acked) {
      RadioC$ackPending = 0;
      return RADIO_SUCCESS;
    }
  }
  RadioC$ackPending = 0;
  ++RadioC$noAck;
  return RADIO_SUCCESS; /* sent; not acknowledged (counted in RadioC$noAck) */
}

static uint8_t RadioC$readRx(void) { return RadioC$spi(0); }

/* One frame of LEN bytes out of the RXFIFO (CSn low, RXFIFO read command and length sent). */
static void RadioC$frameIn(uint8_t len) {
  uint8_t i, fcf0, crcOk;
  for (i = 0; i < len; ++i)
    RadioC$frame[i] = RadioC$readRx();
  crcOk = RadioC$frame[len - 1] & 0x80; /* FCS replaced by RSSI, CRC_OK|correlation */
  if (!crcOk) {
    ++RadioC$errors;
    return;
  }
  fcf0 = RadioC$frame[0];
  if ((fcf0 & 7) == 2) { /* acknowledgement: FCF DSN FCS */
    if (RadioC$ackPending && RadioC$frame[2] == RadioC$ackDsn)
      RadioC$acked = 1;
    return;
  }
  if ((fcf0 & 7) != 1 || len < 14 || len - 14 > RADIO_MAX_PAYLOAD)
    return; /* not one of our data frames */
  RadioC$rxMsg.dest = (uint16_t)(RadioC$frame[5] | ((uint16_t)RadioC$frame[6] << 8));
  RadioC$rxMsg.src = (uint16_t)(RadioC$frame[7] | ((uint16_t)RadioC$frame[8] << 8));
  RadioC$rxMsg.type = RadioC$frame[9];
  RadioC$rxMsg.seq = (uint16_t)(RadioC$frame[10] | ((uint16_t)RadioC$frame[11] << 8));
  for (i = 0; i < RadioC$histUsed; ++i)
    if (RadioC$histSrc[i] == RadioC$rxMsg.src && RadioC$histSeq[i] == RadioC$rxMsg.seq) {
      ++RadioC$duplicates;
      return;
    }
  RadioC$histSrc[RadioC$histNext] = RadioC$rxMsg.src;
  RadioC$histSeq[RadioC$histNext] = RadioC$rxMsg.seq;
  RadioC$histNext = (uint8_t)((RadioC$histNext + 1) % RADIO_HISTORY);
  if (RadioC$histUsed < RADIO_HISTORY)
    ++RadioC$histUsed;
  RadioC$rxMsg.len = (uint8_t)(len - 14);
  for (i = 0; i < RadioC$rxMsg.len; ++i)
    RadioC$rxMsg.data[i] = RadioC$frame[12 + i];
  RadioC$Receive$receive(&RadioC$rxMsg);
}

/* FIFOP: at least one whole frame in the RXFIFO (or an overflow: FIFOP high, FIFO low). */
RADIO_FIFOP_ISR() {
  RADIO_FIFOP_ACK();
  while (RADIO_FIFOP()) {
    if (!RADIO_FIFO()) { /* overflow (datasheet section 16.5): flush twice */
      ++RadioC$errors;
      RadioC$strobe(CC2420_SFLUSHRX);
      RadioC$strobe(CC2420_SFLUSHRX);
      return;
    }
    uint8_t len;
    RadioC$select();
    RadioC$spi(CC2420_RXFIFO | CC2420_REG_READ);
    len = RadioC$readRx();
    if (len < 5 || len > sizeof RadioC$frame) { /* cannot be a frame: drop the whole FIFO */
      RadioC$deselect();
      ++RadioC$errors;
      RadioC$strobe(CC2420_SFLUSHRX);
      RadioC$strobe(CC2420_SFLUSHRX);
      return;
    }
    RadioC$frameIn(len);
    RadioC$deselect();
  }
}
