/* wsn-trace-testgen: a test helper (not a tool). Drives the real host trace runtime through a
 * fixed scenario and writes the resulting .wtr file, for lit-tests/trace-dump.
 *
 *   wsn-trace-testgen basic OUT.wtr   every record kind, nesting, a violation (frozen)
 *   wsn-trace-testgen wrap OUT.wtr    a scheduler loop with an anchor, wrapping the ring 3x
 *   wsn-trace-testgen inputs OUT.wtr  inputs written plain and as INPUT_S (format 6)
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

int main(int argc, char **argv) {
  setenv("WSN_TRACE_OUT", "", 1); /* only the explicit file below */
  if (argc != 3 || (strcmp(argv[1], "basic") != 0 && strcmp(argv[1], "wrap") != 0 &&
                    strcmp(argv[1], "inputs") != 0)) {
    fprintf(stderr, "usage: wsn-trace-testgen basic|wrap|inputs OUT.wtr\n");
    return 2;
  }
  setenv("WSN_NODE_ID", "5", 1);
  if (strcmp(argv[1], "basic") == 0)
    basic();
  else if (strcmp(argv[1], "inputs") == 0)
    inputs();
  else
    wrap();
  if (__wsn_rt_write_file(argv[2]) != 0) {
    fprintf(stderr, "wsn-trace-testgen: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
