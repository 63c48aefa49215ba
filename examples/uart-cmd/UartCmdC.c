/* UartCmdC.c - a serial command interpreter with a pulse counter, written as nesC emits C: a
 * third test case in the style of the thesis's TC1/TC2 (section 4.5), for nested interrupts.
 *
 * Three interrupt sources share the program's state:
 *  - the USART receive handler reads the byte (a LOG 5 input inside a handler), puts it into
 *    a 16-byte ring shared with the parse task and posts the task; the task takes bytes out
 *    in atomic sections and interprets them: 0xF0..0xFF set the pulse filter's rate (the low
 *    nibble), any other byte is data folded into a checksum;
 *  - the external interrupt (AVR INT0, MSP430 P1.7) counts a pulse. It re-enables interrupts
 *    at once (the filter work that follows is long, and ticks and serial bytes must not
 *    wait), so timer, receive and further external interrupts nest inside it;
 *  - the periodic tick counts time and posts the report task every REPORT_TICKS ticks.
 *    At the first tick after a pulse it also posts the pulse task, which checks.
 * Every tick and every pulse is an event: UartCmdC$events must equal ticks + pulses. The
 * invariant cmd_accounting (invariants.c) checks that, and that the ring and the parser
 * account for every received byte (count and sum), in the report and pulse tasks and after
 * each rate command.
 *
 * The bug (real, timing- and data-dependent): the pulse handler reads UartCmdC$events, runs
 * its filter with interrupts enabled, and only then writes events + 1 back. A tick (or a
 * second pulse) nested inside that window increments events, and the write-back erases it:
 * the next check fails. The window grows with the rate the serial commands set, so where and
 * when the update is lost depends on the received bytes and on the interleaving of the three
 * interrupt sources, which replay must reproduce exactly.
 * (The fix: increment events in an atomic section, or before sei.)
 */
#include "scheduler.h"

#include <wsn/invariant.h>

#define UART_RING 16u        /* bytes, a power of two */
#define CMD_RATE 0xF0u       /* 0xF0..0xFF: rate command, rate = low nibble */
#define REPORT_TICKS 32u     /* ticks between two reports */
#define PULSE_WORK_BASE 2u   /* filter steps per pulse: BASE + STEP * rate + switches */
#define PULSE_WORK_STEP 3u

enum { UartCmdC$parse = 0, UartCmdC$report = 1, UartCmdC$pulse = 2 };

/* Receive ring: the handler writes head, the task tail. */
uint8_t UartCmdC$ring[UART_RING];
uint8_t UartCmdC$head;
uint8_t UartCmdC$tail;
uint16_t UartCmdC$received; /* bytes put into the ring */
uint16_t UartCmdC$rxSum;    /* their sum */
uint16_t UartCmdC$overruns; /* bytes dropped: ring full */

/* Parser (task). */
uint16_t UartCmdC$parsed;
uint16_t UartCmdC$parsedSum;
uint16_t UartCmdC$checksum; /* Fletcher-style over the data bytes */
uint16_t UartCmdC$commands;
uint8_t UartCmdC$rate; /* 0..15, read by the pulse handler */

/* Events: timer and pulse handlers. */
uint16_t UartCmdC$ticks;
uint16_t UartCmdC$pulses;
uint16_t UartCmdC$events;
uint16_t UartCmdC$filter; /* the pulse handler's smoothed rate */
uint16_t UartCmdC$spread; /* and its spread */
uint16_t UartCmdC$reports;
/* Set by the pulse handler, which does not post the check itself: the scheduler is not
 * instrumented, so a post from a handler running with interrupts enabled would be a skipped
 * call whose effect record restores every global a nested handler writes (events too), and
 * replay would be given the outcome of the race instead of reproducing it. The next tick
 * posts the pulse task. */
bool_t UartCmdC$pulseSeen;

WSN_DECLARE_INVARIANT(cmd_accounting);

static inline error_t UartCmdC$parse$postTask(void) {
  return SchedulerBasicP$TaskBasic$postTask(UartCmdC$parse);
}
static inline error_t UartCmdC$report$postTask(void) {
  return SchedulerBasicP$TaskBasic$postTask(UartCmdC$report);
}
static inline error_t UartCmdC$pulse$postTask(void) {
  return SchedulerBasicP$TaskBasic$postTask(UartCmdC$pulse);
}

/* UartStream.receivedByte: interrupt context, interrupts off. */
HAL_UART_RX_ISR() {
  uint8_t b = hal_uart_rx_byte();
  uint8_t next = (uint8_t)((UartCmdC$head + 1u) & (UART_RING - 1u));
  if (next == UartCmdC$tail) {
    UartCmdC$overruns++;
    return;
  }
  UartCmdC$ring[UartCmdC$head] = b;
  UartCmdC$head = next;
  UartCmdC$received++;
  UartCmdC$rxSum = (uint16_t)(UartCmdC$rxSum + b);
  UartCmdC$parse$postTask();
}

/* GpioInterrupt.fired: interrupt context; re-enables interrupts for the long filter. */
HAL_EXT_ISR() {
  uint8_t rate, steps, switches;
  uint16_t e, f;
  hal_ext_ack();
  switches = hal_input_bits(); /* read (and recorded) before interrupts are re-enabled */
  __nesc_enable_interrupt();
  /* A tick that became pending while interrupts were off is taken here, before events is
   * read. */
  rate = UartCmdC$rate;
  f = UartCmdC$filter;
  steps = (uint8_t)(PULSE_WORK_BASE + PULSE_WORK_STEP * rate + (switches & 3u));
  for (uint8_t i = 0; i < steps; ++i) /* smooth the rate */
    f = (uint16_t)(f - (f >> 3) + 8u * rate + i);
  UartCmdC$filter = f;
  e = UartCmdC$events; /* BUG: read here ... */
  for (uint8_t i = 0; i < steps; ++i) /* spread of the filter, as long again */
    f = (uint16_t)((f >> 1) + (uint16_t)(f << 3) + i);
  UartCmdC$spread = f;
  UartCmdC$events = (uint16_t)(e + 1u); /* ... written back here, with interrupts enabled */
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    UartCmdC$pulses++;
    UartCmdC$pulseSeen = TRUE;
    __nesc_atomic_end(a);
  }
}

/* Timer.fired: interrupt context, interrupts off. */
HAL_TIMER_ISR() {
  UartCmdC$ticks++;
  UartCmdC$events++;
  if ((UartCmdC$ticks % REPORT_TICKS) == 0)
    UartCmdC$report$postTask();
  if (UartCmdC$pulseSeen) {
    UartCmdC$pulseSeen = FALSE;
    UartCmdC$pulse$postTask();
  }
}

/* Takes the oldest byte out of the ring; 0 when it is empty. */
static bool_t UartCmdC$pop(uint8_t *b) {
  bool_t got = FALSE;
  __nesc_atomic_t a = __nesc_atomic_start();
  if (UartCmdC$tail != UartCmdC$head) {
    *b = UartCmdC$ring[UartCmdC$tail];
    UartCmdC$tail = (uint8_t)((UartCmdC$tail + 1u) & (UART_RING - 1u));
    got = TRUE;
  }
  __nesc_atomic_end(a);
  return got;
}

void UartCmdC$parse$runTask(void) {
  uint8_t b;
  bool_t command = FALSE;
  while (UartCmdC$pop(&b)) {
    UartCmdC$parsed++;
    UartCmdC$parsedSum = (uint16_t)(UartCmdC$parsedSum + b);
    if (b >= CMD_RATE) {
      UartCmdC$rate = (uint8_t)(b & 0x0Fu); /* one byte: atomic on both MCUs */
      UartCmdC$commands++;
      command = TRUE;
    } else {
      uint8_t lo = (uint8_t)(UartCmdC$checksum + b);
      uint8_t hi = (uint8_t)((UartCmdC$checksum >> 8) + lo);
      UartCmdC$checksum = (uint16_t)((uint16_t)hi << 8 | lo);
    }
  }
  if (command) {
    __nesc_atomic_t a = __nesc_atomic_start();
    WSN_CHECK(cmd_accounting);
    __nesc_atomic_end(a);
  }
}

void UartCmdC$report$runTask(void) {
  uint8_t rate;
  {
    __nesc_atomic_t a = __nesc_atomic_start();
    WSN_CHECK(cmd_accounting);
    UartCmdC$reports++;
    rate = UartCmdC$rate;
    __nesc_atomic_end(a);
  }
  hal_leds_set((uint8_t)(rate >> 1));
}

/* After each pulse: the check runs right after the handler that may have lost an update, so
 * the retained tail of the trace holds the nested interrupts that caused it. */
void UartCmdC$pulse$runTask(void) {
  __nesc_atomic_t a = __nesc_atomic_start();
  WSN_CHECK(cmd_accounting);
  __nesc_atomic_end(a);
}

void SchedulerBasicP$TaskBasic$runTask(uint8_t id) {
  switch (id) {
  case UartCmdC$parse:
    UartCmdC$parse$runTask();
    break;
  case UartCmdC$report:
    UartCmdC$report$runTask();
    break;
  case UartCmdC$pulse:
    UartCmdC$pulse$runTask();
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
  hal_uart_rx_start();
  hal_ext_start();
}
