/* SenseC.c - sense-and-send (in the style of the thesis's TC2, section 4.5), as nesC emits C.
 *
 * A 1 kHz tick drives a one-shot software alarm (TinyOS's VirtualizeTimerC pattern). When the
 * alarm fires, the handler starts an ADC conversion; the ADC handler stores the sample, measures
 * the time since the previous sample and posts the send task; the task frames the sample and
 * sends it over the serial port (TinyOS serial framing: 0x7E, payload, CRC-16, 0x7E) and
 * re-arms the alarm. The invariant sample_period (invariants.c) requires consecutive samples
 * to be SENSE_PERIOD ticks apart, within SENSE_SLACK.
 *
 * The bug (real, data-dependent): the alarm is re-armed at the END of the send task. A sample
 * above SENSE_THRESHOLD makes the task also send an alarm report (the whole sample history
 * with its CRC), which takes several milliseconds on the serial line, so the next sample comes
 * late and the period check fails. Small samples never trigger it.
 * (The fix: a periodic timer, or re-arming in the ADC handler.)
 */
#include "scheduler.h"

#include <wsn/invariant.h>

#define SENSE_PERIOD 64u /* ticks between samples */
#define SENSE_HISTORY 32u
#define SENSE_THRESHOLD ((3u << HAL_ADC_BITS) / 4u)

enum { SenseC$send = 0 };

uint16_t SenseC$clock;       /* ticks since boot (timer handler) */
uint16_t SenseC$alarmAt;     /* one-shot alarm time */
uint8_t SenseC$alarmArmed;
uint16_t SenseC$lastSampleAt;
uint16_t SenseC$period;      /* ticks between the last two samples */
uint16_t SenseC$samples;     /* samples taken */
uint16_t SenseC$sample;      /* last sample */
uint16_t SenseC$history[SENSE_HISTORY];
uint8_t SenseC$histPos;
uint8_t SenseC$seq;

WSN_DECLARE_INVARIANT(sample_period);

/* ---- serial framing (TinyOS SerialP style, without escaping) ---- */
static uint16_t SenseC$crcByte(uint16_t crc, uint8_t b) {
  crc ^= (uint16_t)b << 8;
  for (uint8_t i = 0; i < 8; ++i)
    crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
  return crc;
}

static uint16_t SenseC$putByte(uint16_t crc, uint8_t b) {
  hal_uart_put(b);
  return SenseC$crcByte(crc, b);
}

static void SenseC$sendFrame(uint8_t type, const uint16_t *words, uint8_t n) {
  uint16_t crc = 0;
  hal_uart_put(0x7E);
  crc = SenseC$putByte(crc, type);
  crc = SenseC$putByte(crc, SenseC$seq++);
  for (uint8_t i = 0; i < n; ++i) {
    crc = SenseC$putByte(crc, (uint8_t)(words[i] >> 8));
    crc = SenseC$putByte(crc, (uint8_t)words[i]);
  }
  hal_uart_put((uint8_t)(crc >> 8));
  hal_uart_put((uint8_t)crc);
  hal_uart_put(0x7E);
}

/* ---- the alarm: Timer.startOneShot / fired ---- */
static void SenseC$Timer$startOneShot(uint16_t dt) {
  __nesc_atomic_t a = __nesc_atomic_start();
  SenseC$alarmAt = (uint16_t)(SenseC$clock + dt);
  SenseC$alarmArmed = 1;
  __nesc_atomic_end(a);
}

static void SenseC$Timer$fired(void) { hal_adc_start(); /* Read.read() */ }

/* Tick handler: advance the clock, fire the alarm when due. */
HAL_TIMER_ISR() {
  SenseC$clock++;
  if (SenseC$alarmArmed && SenseC$clock == SenseC$alarmAt) {
    SenseC$alarmArmed = 0;
    SenseC$Timer$fired();
  }
}

/* Read.readDone: interrupt context. */
static void SenseC$Read$readDone(uint16_t value) {
  SenseC$sample = value;
  if (SenseC$samples)
    SenseC$period = (uint16_t)(SenseC$clock - SenseC$lastSampleAt);
  SenseC$lastSampleAt = SenseC$clock;
  SenseC$samples++;
  SchedulerBasicP$TaskBasic$postTask(SenseC$send);
}

HAL_ADC_ISR() { SenseC$Read$readDone(hal_adc_result()); }

void SenseC$send$runTask(void) {
  uint16_t v;
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    WSN_CHECK(sample_period);
    v = SenseC$sample;
    __nesc_atomic_end(a);
  }
  SenseC$history[SenseC$histPos] = v;
  SenseC$histPos = (uint8_t)((SenseC$histPos + 1) % SENSE_HISTORY);
  SenseC$sendFrame(1, &v, 1);
  if (v > SENSE_THRESHOLD) /* alarm report: the whole history */
    SenseC$sendFrame(2, SenseC$history, SENSE_HISTORY);
  SenseC$Timer$startOneShot(SENSE_PERIOD); /* BUG: re-armed after the variable-length send */
}

void SchedulerBasicP$TaskBasic$runTask(uint8_t id) {
  switch (id) {
  case SenseC$send:
    SenseC$send$runTask();
    break;
  default:
    break;
  }
}

void RealMainP$SoftwareInit$init(void) {
  hal_leds_set(0);
  hal_uart_init();
}

void RealMainP$Boot$booted(void) {
  hal_timer_start();
  SenseC$Timer$startOneShot(SENSE_PERIOD);
}
