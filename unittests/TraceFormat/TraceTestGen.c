/* wsn-trace-testgen: a test helper (not a tool). Drives the real host trace runtime through a
 * fixed scenario and writes the resulting .wtr file, for lit-tests/trace-dump.
 *
 *   wsn-trace-testgen basic OUT.wtr   every record kind, nesting, a violation (frozen)
 *   wsn-trace-testgen wrap OUT.wtr    a scheduler loop with an anchor, wrapping the ring 3x
 *   wsn-trace-testgen inputs OUT.wtr  inputs written plain and as INPUT_S (format 6)
 *   wsn-trace-testgen control OUT.wtr the compact control records of format 7
 *   wsn-trace-testgen checks OUT.wtr  checks written plain and as CHECK_S (format 10)
 */
#define _POSIX_C_SOURCE 200112L
#include "wsn/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As an instrumented module would: the trace header carries this hash. */
const uint32_t __wsn_module_hash = 0x5EED1234u;

static void basic(void) {
  static const uint8_t vars[4] = {0x10, 0x00, 0x2a, 0x00};
  static const uint8_t msg[5] = {'h', 'e', 'l', 'l', 'o'};
  static const uint8_t eff[3] = {0x01, 0xff, 0x7f};
  uint16_t period = 120;
  __wsn_rt_init();
  __wsn_rt_entry(1); /* main */
  if (__wsn_rt_anchor_armed()) {
    do {
      __wsn_rt_checkpoint_begin(0, sizeof vars);
      __wsn_rt_put(vars, 2);
      __wsn_rt_put(vars + 2, 2);
    } while (__wsn_rt_record_end());
  }
  __wsn_rt_sched(3);
  __wsn_rt_entry(2);
  __wsn_gv_reference = 2;
  __wsn_rt_irq_entry(7);
  __wsn_rt_input(4, 513);
  __wsn_rt_irq_exit(7);
  __wsn_rt_input_bytes(5, msg, sizeof msg);
  __wsn_rt_recv(6, 3, 41);
  __wsn_rt_skip_begin(8);
  __wsn_rt_effect_begin(8, sizeof eff);
  __wsn_rt_put(eff, sizeof eff);
  __wsn_rt_record_end();
  __wsn_rt_skip_end(8);
  __wsn_rt_send(9, 0xFFFF, 42);
  __wsn_rt_exit(2);
  __wsn_rt_check(0, 1, __wsn_crc16(0xFFFF, "123456789", 9));
  __wsn_rt_check(1, 0, __wsn_crc16(0xFFFF, &period, sizeof period));
  __wsn_rt_entry(99); /* frozen: not recorded */
}

static void wrap(void) {
  uint16_t counter = 0;
  __wsn_rt_init();
  while (__wsn_trace.hdr.wraps < 3 || __wsn_trace.hdr.head < 300) {
    if (__wsn_rt_anchor_armed()) {
      do {
        __wsn_rt_checkpoint_begin(0, sizeof counter);
        __wsn_rt_put(&counter, sizeof counter);
      } while (__wsn_rt_record_end());
    }
    __wsn_rt_entry(2);
    __wsn_gv_reference = (uint16_t)(counter % 5);
    if (counter % 3 == 0) {
      __wsn_rt_irq_entry(1);
      __wsn_rt_input(1, counter * 1000u);
      __wsn_rt_irq_exit(1);
    }
    __wsn_rt_exit(2);
    __wsn_rt_check(0, 1, __wsn_crc16(0xFFFF, &counter, sizeof counter));
    ++counter;
  }
}

/* The example of spec/trace-format.md section 3.4 inside a function, then a quiet handler's
 * input (not written) and one more INPUT_S naming a slot. */
static void inputs(void) {
  __wsn_rt_init();
  __wsn_rt_entry(1);
  __wsn_rt_input(300, 5);       /* 07 AC 02 05 */
  __wsn_rt_input(301, 5);       /* 31: site +1, slot 0 */
  __wsn_rt_input(299, 0);       /* 4E: site -2, slot 1 */
  __wsn_rt_input(299, 1000);    /* 20 E8 07: site +0, the value */
  __wsn_rt_input(320, 7);       /* plain: 21 ids away */
  __wsn_rt_input(321, 0x12345); /* plain: over 16 bits */
  __wsn_rt_skip_begin(8);
  __wsn_rt_irq_entry(2); /* quiet: nothing is written, the state is unchanged */
  __wsn_rt_input(40, 9);
  __wsn_rt_irq_exit(2);
  __wsn_rt_skip_end(8);
  __wsn_rt_input(322, 1000);    /* 41: site +1, slot 1 */
  __wsn_rt_exit(1);
}

/* An effect table of the lowering (spec/trace-format.md section 4): u16 len, u8 ret_bytes,
 * u8 n, then n pairs of a pointer-sized address and a u8 size. */
static uint8_t *table(uint8_t *t, uint8_t ret_bytes, const void *a, uint8_t na, const void *b,
                      uint8_t nb) {
  uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
  uint16_t len = (uint16_t)(ret_bytes + na + nb);
  unsigned i, k = 4;
  t[0] = (uint8_t)len;
  t[1] = (uint8_t)(len >> 8);
  t[2] = ret_bytes;
  t[3] = 2;
  for (i = 0; i < sizeof pa; ++i)
    t[k++] = (uint8_t)(pa >> (8 * i));
  t[k++] = na;
  for (i = 0; i < sizeof pb; ++i)
    t[k++] = (uint8_t)(pb >> (8 * i));
  t[k++] = nb;
  return t;
}

/* Format 7 (spec/trace-format.md section 3.5): ENTRY/EXIT and IRQ/IRQ_EXIT in one byte and in
 * the plain form past the short ranges; empty skip spans of each effect kind (a full effect, a
 * delta against it, the changes against a snapshot in a new segment), and a span with a quiet
 * handler's CHECK inside, written in the old form. */
static void control(void) {
  static uint8_t state[2] = {1, 2}, queue[8], t[32], snap[10], fill[256];
  uint16_t c;
  __wsn_rt_init();
  table(t, 2, state, sizeof state, queue, sizeof queue);
  __wsn_rt_entry(1);   /* A1 */
  __wsn_rt_entry(100); /* 01 64 */
  __wsn_gv_reference = 2;
  __wsn_rt_irq_entry(3); /* 7A */
  __wsn_rt_irq_exit(3);  /* 92 */
  __wsn_gv_reference = 5;
  __wsn_rt_irq_entry(9); /* 03 09 05 */
  __wsn_rt_irq_exit(9);  /* 04 09 */
  __wsn_rt_skip_begin(20);
  state[0] = 7;
  __wsn_rt_skip_effect_t(20, (uintptr_t)t, 0x0102); /* SPAN_EFFECT: 13 14 0c ... */
  __wsn_rt_skip_begin(20);
  queue[3] = 9;
  __wsn_rt_skip_effect_t(20, (uintptr_t)t, 0x0102); /* SPAN_EFFECT_DELTA: 18 14 0c 03 05 01 09 */
  __wsn_rt_skip_begin(21);
  c = __wsn_rt_irq_enter(2); /* quiet */
  __wsn_rt_check(4, 1, 0x1234);
  __wsn_rt_irq_leave(2, c);
  __wsn_rt_skip_effect_t(21, (uintptr_t)t, 0); /* not empty: SKIP_END, then the effect */
  __wsn_rt_exit(100);                          /* 02 64 */
  /* The rest of segment 0 (an INPUT_BYTES of 4 + n bytes, n >= 128), so that the next span
   * starts segment 1, where no effect key is. */
  __wsn_rt_input_bytes(1, fill, (uint16_t)(WSN_TRACE_SEG_SIZE - __wsn_trace.hdr.head - 4));
  __wsn_rt_skip_begin(22);
  memcpy(snap, state, sizeof state);
  memcpy(snap + sizeof state, queue, sizeof queue);
  state[1] = 3;
  __wsn_rt_skip_effect_c(22, (uintptr_t)t, 0, snap); /* SPAN_EFFECT_C: 1a 16 0c 08 03 00 */
  __wsn_rt_exit(1); /* D1 */
}

/* Passing checks of inv 1..3 as CHECK_S (format 10, spec/trace-format.md 3.9), of inv 0, 4
 * and 200 as CHECK; a violation of inv 2 in full, then a check not written (frozen). */
static void checks(void) {
  __wsn_rt_entry(1);               /* A1 */
  __wsn_rt_check(1, 1, 0xBEEF);    /* 19 EF BE */
  __wsn_rt_check(2, 1, 0x0102);    /* 1B 02 01 */
  __wsn_rt_check(3, 1, 0xFFFF);    /* 1D FF FF */
  __wsn_rt_check(0, 1, 0x1111);    /* 0E 00 11 11 */
  __wsn_rt_check(4, 1, 0x2222);    /* 0E 04 22 22 */
  __wsn_rt_check(200, 1, 0x3333);  /* 0E C8 01 33 33 */
  __wsn_rt_check(2, 0, 0x4444);    /* 0F 02 44 44 */
  __wsn_rt_check(1, 1, 0x5555);    /* frozen */
}

int main(int argc, char **argv) {
  setenv("WSN_TRACE_OUT", "", 1); /* only the explicit file below */
  if (argc != 3 || (strcmp(argv[1], "basic") != 0 && strcmp(argv[1], "wrap") != 0 &&
                    strcmp(argv[1], "inputs") != 0 && strcmp(argv[1], "control") != 0 &&
                    strcmp(argv[1], "checks") != 0)) {
    fprintf(stderr, "usage: wsn-trace-testgen basic|wrap|inputs|control|checks OUT.wtr\n");
    return 2;
  }
  setenv("WSN_NODE_ID", "5", 1);
  if (strcmp(argv[1], "basic") == 0)
    basic();
  else if (strcmp(argv[1], "inputs") == 0)
    inputs();
  else if (strcmp(argv[1], "control") == 0)
    control();
  else if (strcmp(argv[1], "checks") == 0)
    checks();
  else
    wrap();
  if (__wsn_rt_write_file(argv[2]) != 0) {
    fprintf(stderr, "wsn-trace-testgen: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
