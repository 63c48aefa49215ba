/* RadioSenseC.c - sense and send over the CC2420 (MicaZ, TelosB, Z1), as nesC emits C.
 *
 * A periodic timer (the HAL's tick) starts an ADC conversion every SENSE_PERIOD ticks; the ADC
 * handler stores the sample in a one-slot buffer and posts the send task; the task broadcasts
 * the sample through RadioC (examples/radio/cc2420.c: CSMA backoff, CCA, STXONCCA, the SFD
 * edges) and, for a sample above SENSE_THRESHOLD, also an alarm report with the recent history
 * (two more frames). The invariant no_sample_lost (invariants.c) requires every sample to be
 * sent: when the task starts, at most the one new sample is waiting.
 *
 * The bug (real, timing-dependent): the one-slot buffer. Each frame waits for a random CSMA
 * backoff of up to 32 backoff periods (10 ms), so a task that sends an alarm report can
 * outlast two sampling periods; the second sample then overwrites the first before it was
 * sent. Which samples raise an alarm depends on the (seeded) ADC values, how long the frames
 * wait on the backoff generator's state: every seed reaches the loss by its own path.
 * (The fix: a queue of samples, or sampling from the task.)
 */
#include "radio.h"
#include "scheduler.h"

#include <wsn/invariant.h>

/* Ticks between samples: 12 ms, longer than one frame can take (<= 11 ms). 12 ticks of the
 * MicaZ's 1019 Hz tick; 3 of the MSP430 HAL's (HAL_TIMER_PERIOD 4000: 250 Hz at 1 MHz). */
#define SENSE_PERIOD ((12u * HAL_TICK_HZ + 500u) / 1000u)
#define SENSE_HISTORY 16u
#define SENSE_THRESHOLD ((3u << HAL_ADC_BITS) / 4u)
#define AM_READING 0x21
#define AM_ALARM 0x22

enum { RadioSenseC$send = 0 };

uint16_t RadioSenseC$clock;   /* ticks since boot */
uint16_t RadioSenseC$samples; /* samples taken (ADC handler) */
uint16_t RadioSenseC$sent;    /* samples sent (task) */
uint16_t RadioSenseC$sample;  /* the one-slot buffer */
uint16_t RadioSenseC$alarms;
uint16_t RadioSenseC$received;
uint16_t RadioSenseC$history[SENSE_HISTORY];
uint8_t RadioSenseC$histPos;

WSN_DECLARE_INVARIANT(no_sample_lost);

/* Timer.fired: every SENSE_PERIOD ticks, Read.read(). */
HAL_TIMER_ISR() {
  RadioSenseC$clock++;
  if (RadioSenseC$clock % SENSE_PERIOD == 0)
    hal_adc_start();
}

/* Read.readDone (interrupt context): the one-slot buffer. */
HAL_ADC_ISR() {
  RadioSenseC$sample = hal_adc_result();
  RadioSenseC$samples++;
  SchedulerBasicP$TaskBasic$postTask(RadioSenseC$send);
}

/* Receive.receive: nothing to do but count (a lone node hears nobody). */
void RadioC$Receive$receive(const radio_msg_t *msg) { RadioSenseC$received++; }

void RadioSenseC$send$runTask(void) {
  uint16_t v;
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    WSN_CHECK(no_sample_lost);
    v = RadioSenseC$sample;
    RadioSenseC$sent = RadioSenseC$samples;
    __nesc_atomic_end(a);
  }
  RadioSenseC$history[RadioSenseC$histPos] = v;
  RadioSenseC$histPos = (uint8_t)((RadioSenseC$histPos + 1) % SENSE_HISTORY);
  RadioC$send(RADIO_BROADCAST, AM_READING, &v, sizeof v);
  if (v > SENSE_THRESHOLD) { /* alarm report: the history, in two frames */
    RadioSenseC$alarms++;
    RadioC$send(RADIO_BROADCAST, AM_ALARM, RadioSenseC$history, sizeof RadioSenseC$history / 2);
    RadioC$send(RADIO_BROADCAST, AM_ALARM, RadioSenseC$history + SENSE_HISTORY / 2,
                sizeof RadioSenseC$history / 2);
  }
}

void SchedulerBasicP$TaskBasic$runTask(uint8_t id) {
  switch (id) {
  case RadioSenseC$send:
    RadioSenseC$send$runTask();
    break;
  default:
    break;
  }
}

void RealMainP$SoftwareInit$init(void) {
  hal_leds_set(0);
  RadioC$init();
}

void RealMainP$Boot$booted(void) { hal_timer_start(); }
