/* host.c - the host port of the trace runtime: node id from the environment and the .wtr
 * file writer. Compiled to nothing for the motes. */
#if !defined(__AVR__) && !defined(__MSP430__)
#include "wsn/trace.h"
#include "port.h"

#include <stdio.h>
#include <stdlib.h>

/* WSN_TRACE_OUT unset: "trace.wtr"; set but empty: no automatic file. */
static const char *trace_out_path(void) {
  const char *p = getenv("WSN_TRACE_OUT");
  return p ? p : "trace.wtr";
}

static void write_auto(void) {
  const char *path = trace_out_path();
  if (*path && __wsn_rt_write_file(path) != 0)
    fprintf(stderr, "wsn-trace runtime: cannot write trace file '%s'\n", path);
}

int __wsn_rt_write_file(const char *path) {
  FILE *f = fopen(path, "wb");
  size_t n;
  if (!f)
    return -1;
  __wsn_rt_init();
  n = fwrite(&__wsn_trace, 1, WSN_TRACE_FILE_SIZE, f);
  if (fclose(f) != 0 || n != WSN_TRACE_FILE_SIZE)
    return -1;
  return 0;
}

void __wsn_port_host_init(void) {
  static int registered;
  const char *id = getenv("WSN_NODE_ID");
  if (id && *id)
    __wsn_node_id = (uint16_t)strtoul(id, NULL, 0);
  if (!registered) {
    registered = 1;
    atexit(write_auto);
  }
}

void __wsn_port_host_violation(void) { write_auto(); }
#else
/* ISO C forbids an empty translation unit. */
typedef int wsn_trace_host_port_unused;
#endif
