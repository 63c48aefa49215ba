/* radio.c - framed packets over a UART for wsn-sim (spec/radio.md). See radio.h. */
#include "radio.h"

#include <avr/interrupt.h>
#include <avr/io.h>

#ifndef RADIO_UART
#define RADIO_UART 1
#endif

#if RADIO_UART == 1
#define RADIO_UCSRA UCSR1A
#define RADIO_UCSRB UCSR1B
#define RADIO_UCSRC UCSR1C
#define RADIO_UBRRL UBRR1L
#define RADIO_UBRRH UBRR1H
#define RADIO_UDR UDR1
#define RADIO_RX_vect USART1_RX_vect
#define RADIO_U2X U2X1
#define RADIO_UDRE UDRE1
#define RADIO_RXEN RXEN1
#define RADIO_TXEN TXEN1
#define RADIO_RXCIE RXCIE1
#define RADIO_UCSZ0 UCSZ10
#define RADIO_UCSZ1 UCSZ11
#else
#define RADIO_UCSRA UCSR0A
#define RADIO_UCSRB UCSR0B
#define RADIO_UCSRC UCSR0C
#define RADIO_UBRRL UBRR0L
#define RADIO_UBRRH UBRR0H
#define RADIO_UDR UDR0
#define RADIO_RX_vect USART0_RX_vect
#define RADIO_U2X U2X0
#define RADIO_UDRE UDRE0
#define RADIO_RXEN RXEN0
#define RADIO_TXEN TXEN0
#define RADIO_RXCIE RXCIE0
#define RADIO_UCSZ0 UCSZ00
#define RADIO_UCSZ1 UCSZ01
#endif

/* Offsets in the frame buffer (after the sync byte). */
#define RADIO_HDR_LEN 8 /* LEN DEST(2) SRC(2) SEQ(2) TYPE */

extern volatile uint16_t __wsn_node_id;

uint16_t RadioC$seqno;
uint16_t RadioC$errors;
/* Receiver state: bytes of the frame after the sync byte, and how many arrived. */
static uint8_t RadioC$rxBuf[RADIO_HDR_LEN + RADIO_MAX_PAYLOAD + 2];
static uint8_t RadioC$rxCount;
static uint8_t RadioC$rxActive;
static radio_msg_t RadioC$rxMsg;

static uint16_t RadioC$crcByte(uint16_t crc, uint8_t b) {
  uint8_t i;
  crc ^= (uint16_t)b << 8;
  for (i = 0; i < 8; ++i)
    crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
  return crc;
}

uint16_t RadioC$nodeId(void) { return __wsn_node_id; }
uint16_t RadioC$lastSeq(void) { return RadioC$seqno; }
uint16_t RadioC$rxErrors(void) { return RadioC$errors; }

void RadioC$init(void) {
  RADIO_UBRRH = 0;
  RADIO_UBRRL = 3; /* with U2X: 7.3728 MHz / (8 * 4) = 230400 baud */
  RADIO_UCSRA = _BV(RADIO_U2X);
  RADIO_UCSRC = _BV(RADIO_UCSZ1) | _BV(RADIO_UCSZ0); /* 8N1 */
  RADIO_UCSRB = _BV(RADIO_RXEN) | _BV(RADIO_TXEN) | _BV(RADIO_RXCIE);
  RadioC$rxActive = 0;
}

static void RadioC$putByte(uint8_t b) {
  while (!(RADIO_UCSRA & _BV(RADIO_UDRE)))
    ;
  RADIO_UDR = b;
}

uint8_t RadioC$send(uint16_t dest, uint8_t type, const void *payload, uint8_t len) {
  uint8_t hdr[RADIO_HDR_LEN];
  const uint8_t *p = (const uint8_t *)payload;
  uint16_t crc = 0xFFFF, src = __wsn_node_id;
  uint8_t i;
  if (len > RADIO_MAX_PAYLOAD)
    return RADIO_FAIL;
  ++RadioC$seqno;
  hdr[0] = len;
  hdr[1] = (uint8_t)dest;
  hdr[2] = (uint8_t)(dest >> 8);
  hdr[3] = (uint8_t)src;
  hdr[4] = (uint8_t)(src >> 8);
  hdr[5] = (uint8_t)RadioC$seqno;
  hdr[6] = (uint8_t)(RadioC$seqno >> 8);
  hdr[7] = type;
  RadioC$putByte(RADIO_SYNC);
  for (i = 0; i < RADIO_HDR_LEN; ++i) {
    crc = RadioC$crcByte(crc, hdr[i]);
    RadioC$putByte(hdr[i]);
  }
  for (i = 0; i < len; ++i) {
    crc = RadioC$crcByte(crc, p[i]);
    RadioC$putByte(p[i]);
  }
  RadioC$putByte((uint8_t)crc);
  RadioC$putByte((uint8_t)(crc >> 8));
  return RADIO_SUCCESS;
}

/* A complete frame is in rxBuf: check it and signal the event. */
static void RadioC$frameDone(void) {
  uint8_t len = RadioC$rxBuf[0], i;
  uint16_t crc = 0xFFFF, got, me = __wsn_node_id;
  for (i = 0; i < RADIO_HDR_LEN + len; ++i)
    crc = RadioC$crcByte(crc, RadioC$rxBuf[i]);
  got = (uint16_t)(RadioC$rxBuf[RADIO_HDR_LEN + len] |
                   ((uint16_t)RadioC$rxBuf[RADIO_HDR_LEN + len + 1] << 8));
  if (crc != got) {
    ++RadioC$errors;
    return;
  }
  RadioC$rxMsg.len = len;
  RadioC$rxMsg.dest = (uint16_t)(RadioC$rxBuf[1] | ((uint16_t)RadioC$rxBuf[2] << 8));
  RadioC$rxMsg.src = (uint16_t)(RadioC$rxBuf[3] | ((uint16_t)RadioC$rxBuf[4] << 8));
  RadioC$rxMsg.seq = (uint16_t)(RadioC$rxBuf[5] | ((uint16_t)RadioC$rxBuf[6] << 8));
  RadioC$rxMsg.type = RadioC$rxBuf[7];
  if (RadioC$rxMsg.dest != me && RadioC$rxMsg.dest != RADIO_BROADCAST)
    return; /* address recognition: not for us */
  for (i = 0; i < len; ++i)
    RadioC$rxMsg.data[i] = RadioC$rxBuf[RADIO_HDR_LEN + i];
  RadioC$Receive$receive(&RadioC$rxMsg);
}

ISR(RADIO_RX_vect) {
  uint8_t b = RADIO_UDR;
  if (!RadioC$rxActive) {
    if (b == RADIO_SYNC) {
      RadioC$rxActive = 1;
      RadioC$rxCount = 0;
    }
    return;
  }
  if (RadioC$rxCount == 0 && b > RADIO_MAX_PAYLOAD) {
    ++RadioC$errors;
    RadioC$rxActive = (b == RADIO_SYNC); /* resynchronise */
    return;
  }
  RadioC$rxBuf[RadioC$rxCount++] = b;
  if (RadioC$rxCount == RADIO_HDR_LEN + RadioC$rxBuf[0] + 2) {
    RadioC$rxActive = 0;
    RadioC$frameDone();
  }
}
