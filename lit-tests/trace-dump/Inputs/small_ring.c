/* Drives the runtime compiled with a tiny ring (see small-ring.test): SCHED task=1..N. */
#include "wsn/trace.h"

#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 2 ? atoi(argv[2]) : 100;
  int i;
  for (i = 1; i <= n; ++i)
    __wsn_rt_sched((uint16_t)i);
  return __wsn_rt_write_file(argv[1]) == 0 ? 0 : 1;
}
