/* A minimal mote application around sensorc's generated checks: a millisecond clock, a send
 * routine that hands the remote-value message to the radio (here: a byte sink the simulator
 * or a debugger can watch), and the loop that polls for remote values and runs the checks.
 * Included by app_link_creation.c and app_loop_free.c. */
#ifndef SENSORC_APP_COMMON_H
#define SENSORC_APP_COMMON_H
#include <stdint.h>

typedef struct sensorc_msg sensorc_msg_t;
void sensorc_check_all(void);
void sensorc_poll(void);

static volatile uint32_t app_clock_ms;
volatile uint8_t app_radio_out[16];

uint32_t sensorc_now_ms(void) { return app_clock_ms; }

void sensorc_send(const sensorc_msg_t *msg) {
  const volatile uint8_t *src = (const volatile uint8_t *)msg;
  for (uint8_t i = 0; i < sizeof app_radio_out; ++i)
    app_radio_out[i] = src[i];
}

static void app_loop(void (*step)(uint32_t now)) {
  for (;;) {
    uint32_t now = app_clock_ms + 10;
    app_clock_ms = now;
    step(now);
    sensorc_poll();
    sensorc_check_all();
  }
}
#endif
