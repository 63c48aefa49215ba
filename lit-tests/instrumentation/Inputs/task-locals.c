/* nesC-shaped (as examples/aodv writes its tasks): two tasks, static functions called from
 * main's scheduler loop, each with a local array of its own; both are inlined into main before
 * the instrumentation runs. At -Os llc's stack colouring gives the two arrays one stack slot
 * (their lifetimes are disjoint), so at main's anchor the slot holds whichever task ran last.
 * (LLVM colours a frame of 32 bytes or more.) Neither array is live at the anchor: a checkpoint must not hold (or compare) them. */
#include <stdint.h>
#include <wsn/invariant.h>
#define PINC (*(volatile uint8_t *)0x33)
#define PIND (*(volatile uint8_t *)0x30)
uint16_t AppC$heard;  /* bytes summed by the frame task */
uint16_t AppC$sensed; /* samples summed by the sense task */
uint16_t AppC$runs;
WSN_INVARIANT(runs_small) { return AppC$runs < 60000u; }

/* A frame of 20 header bytes from the port; one of them, picked by the port, counts. */
static void AppC$frameTask(void) {
  uint8_t hdr[20];
  for (uint8_t i = 0; i < 20; ++i)
    hdr[i] = (uint8_t)(PINC + 1);
  AppC$heard += hdr[PIND % 20];
  AppC$runs++;
}

/* 20 samples, all 0xff-based so they differ from a frame's bytes; one is summed. */
static void AppC$senseTask(void) {
  uint8_t samples[20];
  for (uint8_t i = 0; i < 20; ++i)
    samples[i] = (uint8_t)(0xff - (PINC & 3));
  AppC$sensed += samples[PIND % 20];
  AppC$runs++;
}

int main(void) {
  for (;;) {
    if (PIND & 1)
      AppC$frameTask();
    else
      AppC$senseTask();
    WSN_CHECK(runs_small);
  }
}
