/* hal_script.c - a host HAL (hal_host.h's contract) driven by a script of recorded inputs and
 * interrupts, for the native baseline of bench/replay-speed.
 *
 * The example programs are compiled for the host unchanged (the examples/<name> C files and
 * examples/common/scheduler.c with hal_host.h), linked with this file instead of hal_host.c.
 * bench/replay-speed/replay_speed.py writes the script from a recorded trace; every line is
 * one event, in the order the trace recorded them:
 *
 *   T      the timer interrupt (HAL_TIMER_ISR)
 *   A      the ADC-complete interrupt (HAL_ADC_ISR)
 *   R v    a value read by hal_adc_result()
 *   S v    a value read by hal_input_bits()   (the switches)
 *   L      an LED port read by hal_leds_set() (position only: where interrupts fell)
 *
 * Delivery: once the program has started its timer, each HAL call first runs the interrupts
 * the script has before the next value event (handlers do not nest, as on the motes; the
 * values a handler reads are its own), then, when the next event is the call's own kind,
 * consumes it (its value for R and S). A HAL read the trace did not record (it happened in an
 * uninstrumented callee the replay skips) takes no event and returns a neutral value (0; the
 * UART is always ready). hal_sleep() and hal_uart_put() run at most one interrupt: on the mote
 * each interrupt wakes the idle loop, which runs the tasks it posted before sleeping again, and
 * a burst of all the ticks up to the next value would merge them (a task posted twice runs
 * once), so a long run would make fewer checks than the recorded one. So the program sees the
 * recorded inputs and the recorded number of handler runs, with interrupts landing at HAL-call
 * granularity.
 *
 * The run ends at the WSN_SCRIPT_CHECKS-th invariant check (the program is linked with
 * -Wl,--wrap=<invariant function>, and __wrap_ counts the calls; define WSN_SCRIPT_INVARIANT to
 * the invariant function's name), or when the script is used up. At the end it prints one line
 * to stderr: events consumed of the script, timer and ADC handler runs, values, checks.
 *
 * Environment: WSN_SCRIPT (the script file, required), WSN_SCRIPT_CHECKS (0: no limit).
 * The script is read before main (a constructor), so a profiler counting main sees the program.
 */
#include "hal.h"

#include <stdio.h>
#include <stdlib.h>

void hal_host_timer_isr(void) __attribute__((weak));
void hal_host_adc_isr(void) __attribute__((weak));

typedef struct {
  char kind;
  uint16_t value;
} script_event;

static struct {
  script_event *ev;
  size_t n, pos;
  unsigned long timer, adc, values, unrecorded, dropped, checks, max_checks, idle;
  int in_isr, started;
  uint16_t adc_value;
} S;

static void script_finish(const char *why) {
  fflush(stdout);
  fprintf(stderr,
          "hal_script: %s: %zu of %zu events, timer %lu, adc %lu, values %lu, unrecorded reads "
          "%lu, dropped %lu, checks %lu\n",
          why, S.pos, S.n, S.timer, S.adc, S.values, S.unrecorded, S.dropped, S.checks);
  exit(0);
}

/* The script is read with one fread and parsed by hand: a long run's script has hundreds of
 * thousands of lines, and sscanf per line would cost the baseline ten times what the program
 * itself executes. */
__attribute__((constructor)) static void script_load(void) {
  const char *path = getenv("WSN_SCRIPT"), *k = getenv("WSN_SCRIPT_CHECKS");
  if (!path) {
    fprintf(stderr, "hal_script: set WSN_SCRIPT to the event script\n");
    exit(2);
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  size_t size = 0, cap = 1 << 16;
  char *text = malloc(cap + 1);
  for (size_t got; text && (got = fread(text + size, 1, cap - size, f)) > 0;) {
    size += got;
    if (size == cap)
      text = realloc(text, (cap *= 2) + 1);
  }
  fclose(f);
  size_t evcap = 1024;
  S.ev = malloc(evcap * sizeof *S.ev);
  if (!text || !S.ev) {
    fprintf(stderr, "hal_script: out of memory\n");
    exit(2);
  }
  text[size] = '\n';
  unsigned long lineno = 0;
  for (char *p = text, *end = text + size; p < end; ++p) {
    char *line = p;
    while (*p != '\n')
      ++p;
    ++lineno;
    char *q = line;
    while (q < p && (*q == ' ' || *q == '\t' || *q == '\r'))
      ++q;
    if (q == p)
      continue; /* blank line */
    char kind = *q++;
    unsigned long v = 0;
    int digits = 0;
    while (q < p && (*q == ' ' || *q == '\t'))
      ++q;
    for (; q < p && *q >= '0' && *q <= '9' && v <= 0xFFFF; ++q, ++digits)
      v = v * 10 + (unsigned long)(*q - '0');
    while (q < p && (*q == ' ' || *q == '\t' || *q == '\r'))
      ++q;
    int needs = kind == 'R' || kind == 'S';
    if ((kind != 'T' && kind != 'A' && kind != 'R' && kind != 'S' && kind != 'L') || q != p ||
        needs != (digits > 0) || v > 0xFFFF) {
      fprintf(stderr, "%s:%lu: bad event '%.*s'\n", path, lineno,
              (int)(p - line < 20 ? p - line : 20), line);
      exit(2);
    }
    if (S.n == evcap)
      S.ev = realloc(S.ev, (evcap *= 2) * sizeof *S.ev);
    if (!S.ev) {
      fprintf(stderr, "hal_script: out of memory\n");
      exit(2);
    }
    S.ev[S.n++] = (script_event){kind, (uint16_t)v};
  }
  free(text);
  S.max_checks = k ? strtoul(k, NULL, 10) : 0;
}

static int is_irq(char k) { return k == 'T' || k == 'A'; }

/* Runs the handler of interrupt event K ('T' or 'A'); handlers do not nest. */
static inline __attribute__((always_inline)) void script_run_irq(char k) {
  S.in_isr = 1;
  if (k == 'T') {
    ++S.timer;
    if (hal_host_timer_isr)
      hal_host_timer_isr();
  } else {
    ++S.adc;
    if (hal_host_adc_isr)
      hal_host_adc_isr();
  }
  S.in_isr = 0;
}

/* Runs the interrupts at the front of the script, up to the first value event that was there
 * before they ran (values the handlers read are theirs); returns how many ran. Nothing runs
 * before the program has started its timer (boot runs with interrupts off). */
static unsigned script_irqs(void) {
  unsigned ran = 0;
  size_t end = S.pos;
  if (S.in_isr || !S.started)
    return 0;
  while (end < S.n && is_irq(S.ev[end].kind))
    ++end;
  for (; S.pos < end; ++ran)
    script_run_irq(S.ev[S.pos++].kind);
  return ran;
}

/* One interrupt, for the hot callers (hal_sleep, hal_uart_put): on the mote an interrupt costs
 * the hardware a few cycles, so the baseline's delivery should cost little too. */
static inline __attribute__((always_inline)) int script_irq1(void) {
  if (S.in_isr || !S.started || S.pos >= S.n)
    return 0;
  char k = S.ev[S.pos].kind;
  if (!is_irq(k))
    return 0;
  ++S.pos;
  script_run_irq(k);
  return 1;
}

/* A HAL read of kind K: interrupts first, then the value if the script has it next. */
static uint16_t script_read(char k, int *found) {
  script_irqs();
  if (S.pos < S.n && S.ev[S.pos].kind == k) {
    ++S.values;
    *found = 1;
    return S.ev[S.pos++].value;
  }
  ++S.unrecorded;
  *found = 0;
  return 0;
}

#define WSN_SCRIPT_WRAP2(name) __wrap_##name
#define WSN_SCRIPT_WRAP(name) WSN_SCRIPT_WRAP2(name)
#define WSN_SCRIPT_REAL2(name) __real_##name
#define WSN_SCRIPT_REAL(name) WSN_SCRIPT_REAL2(name)
#ifdef WSN_SCRIPT_INVARIANT
_Bool WSN_SCRIPT_REAL(WSN_SCRIPT_INVARIANT)(void);
_Bool WSN_SCRIPT_WRAP(WSN_SCRIPT_INVARIANT)(void) {
  _Bool ok = WSN_SCRIPT_REAL(WSN_SCRIPT_INVARIANT)();
  if (++S.checks == S.max_checks)
    script_finish("stop at check");
  return ok;
}
#endif

void hal_init(void) {}

void hal_leds_set(uint8_t v) {
  int found;
  (void)v;
  (void)script_read('L', &found);
}

uint8_t hal_input_bits(void) {
  int found;
  return (uint8_t)script_read('S', &found);
}

void hal_timer_start(void) { S.started = 1; }
void hal_adc_start(void) {}

uint16_t hal_adc_result(void) {
  int found;
  return script_read('R', &found);
}

void hal_uart_init(void) {}

uint8_t hal_uart_put(uint8_t b) {
  (void)b;
  script_irq1();
  return 1;
}

/* Idle: the next interrupts wake the program. A value event the program does not read next
 * (it was read in a context the native run reaches differently) is dropped after the program
 * idles past it repeatedly, so the run cannot hang; the end line reports it. */
void hal_sleep(void) {
  if (S.pos >= S.n)
    script_finish("end of script");
  if (script_irq1()) {
    S.idle = 0;
    return;
  }
  if (++S.idle > 1000) {
    ++S.pos;
    ++S.dropped;
    S.idle = 0;
  }
}
