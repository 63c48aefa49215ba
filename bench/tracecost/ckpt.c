/* ckpt.c - one checkpoint per iteration for bench/tracecost/ckptcost.py (the cost of writing
 * a checkpoint, packed as CHECKPOINT_Z or plain, spec/trace-format.md section 3.2). The
 * checkpoint is shaped like those of the real nesC applications: NVARS variables of 1-8
 * bytes, LEN bytes in all, about a third of them non-zero (NONZERO_MOD), in stretches. Each
 * iteration resets the trace (so the anchor flag is armed and the record starts a segment)
 * and, with RECORDS=1, writes the checkpoint; RECORDS=0 measures the loop and the reset.
 * STREAMED=1 writes it as an anchor with locals does (the globals by table, then a local). */
#include "wsn/trace.h"

#ifndef ITER
#define ITER 50
#endif
#ifndef RECORDS
#define RECORDS 1
#endif
#ifndef STREAMED
#define STREAMED 0 /* 1: the checkpoint of an anchor with locals (begin, put_t, put, end) */
#endif
#define LEN 355
#define NVARS 94

#if defined(__AVR__)
#define TBL const __flash
#else
#define TBL const
#endif

struct pair {
  const void *addr;
  uint8_t size;
} __attribute__((packed));
struct ckp {
  uint16_t id, len;
  uint8_t n;
  struct pair p[NVARS];
} __attribute__((packed));

uint8_t st[LEN];

/* 94 variables over st: sizes 1, 2, 4, 8 and one that takes the rest. */
#define V(o, s) {st + (o), s}
#define PAIRS \
{V(0, 2), V(2, 2), V(4, 1), V(5, 1), V(6, 4), V(10, 8), V(18, 2), V(20, 2), V(22, 1), \
     V(23, 1), V(24, 4), V(28, 8), V(36, 2), V(38, 2), V(40, 1), V(41, 1), V(42, 4), V(46, 8), \
     V(54, 2), V(56, 2), V(58, 1), V(59, 1), V(60, 4), V(64, 8), V(72, 2), V(74, 2), V(76, 1), \
     V(77, 1), V(78, 4), V(82, 8), V(90, 2), V(92, 2), V(94, 1), V(95, 1), V(96, 4), V(100, 8), \
     V(108, 2), V(110, 2), V(112, 1), V(113, 1), V(114, 4), V(118, 8), V(126, 2), V(128, 2), \
     V(130, 1), V(131, 1), V(132, 4), V(136, 8), V(144, 2), V(146, 2), V(148, 1), V(149, 1), \
     V(150, 4), V(154, 8), V(162, 2), V(164, 2), V(166, 1), V(167, 1), V(168, 4), V(172, 8), \
     V(180, 2), V(182, 2), V(184, 1), V(185, 1), V(186, 4), V(190, 8), V(198, 2), V(200, 2), \
     V(202, 1), V(203, 1), V(204, 4), V(208, 8), V(216, 2), V(218, 2), V(220, 1), V(221, 1), \
     V(222, 4), V(226, 8), V(234, 2), V(236, 2), V(238, 1), V(239, 1), V(240, 4), V(244, 8), \
     V(252, 2), V(254, 2), V(256, 1), V(257, 1), V(258, 4), V(262, 8), V(270, 2), V(272, 2), \
     V(274, 1), V(275, 80)}
#if STREAMED
/* An anchor with locals: globals by one table (__wsn_rt_put_t), then a 2-byte local. */
struct vars {
  uint16_t bytes;
  uint8_t n;
  struct pair p[NVARS];
} __attribute__((packed));
static TBL struct vars vs = {LEN, NVARS, PAIRS};
#else
static TBL struct ckp cp = {1, LEN, NVARS, PAIRS};
#endif

int main(void) {
  uint16_t i;
  /* A third non-zero, in stretches of 1-4 bytes (counters, pointers, flags). */
  for (i = 0; i < LEN; ++i)
    st[i] = (uint8_t)(((i * 7u) % 23u) < 8u ? 1u + i % 251u : 0u);
  for (i = 0; i < ITER; ++i) {
    __wsn_rt_reset();
#if RECORDS && STREAMED
    {
      volatile uint16_t local = i;
      uint16_t l = local;
      do { /* as the lowering: again when packing into a segment's rest gave it up */
        __wsn_rt_checkpoint_begin(1, LEN + 2);
        __wsn_rt_put_t((uintptr_t)&vs);
        __wsn_rt_put(&l, 2);
      } while (__wsn_rt_record_end());
    }
#elif RECORDS
    __wsn_rt_checkpoint_t((uintptr_t)&cp);
#endif
  }
  __wsn_rt_check(2, 0, 0);
#if defined(__MSP430__)
  __asm__ __volatile__("bis #0xF0, r2"); /* LPM4: msp430-run stops here */
#endif
  for (;;)
    ;
}
