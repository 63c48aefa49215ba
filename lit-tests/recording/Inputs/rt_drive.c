/* rt_drive.c - drives every trace runtime entry point with a seeded pseudo-random sequence
 * that wraps the ring several times, then ends with a violation (black-box freeze). Built for
 * AVR (run in wsn-sim) and for the host, it must give the same records: the runtime's code
 * paths are target-specific (table reads with lpm on AVR, pointer widths, init at reset), the
 * format is not. */
#include "wsn/trace.h"

#if defined(__AVR__)
#define TBL const __flash
#else
#define TBL const
#endif

#ifndef STEPS
#define STEPS 700
#endif

struct pair {
  const void *addr;
  uint8_t size;
} __attribute__((packed));
struct eff2 {
  uint16_t len;
  uint8_t ret_bytes, n;
  struct pair p[2];
} __attribute__((packed));
struct eff0 {
  uint16_t len;
  uint8_t ret_bytes, n;
} __attribute__((packed));
struct tail2 {
  uint8_t n;
  struct pair p[2];
} __attribute__((packed));
struct vars2 {
  uint16_t bytes;
  uint8_t n;
  struct pair p[2];
} __attribute__((packed));
struct chk2 {
  uint16_t id;
  uint8_t n;
  struct pair p[2];
} __attribute__((packed));
struct ckp3 {
  uint16_t id, len;
  uint8_t n;
  struct pair p[3];
} __attribute__((packed));

uint8_t g1[3];
uint16_t g2;
uint8_t big[40];
uint8_t sparse[37]; /* about a quarter non-zero: its checkpoints are packed */

/* Effect tables (the site is an argument): 2-byte return value; 1-byte return; no variables
 * at all. */
static TBL struct eff2 ef_a = {2 + 3 + 2, 2, 2, {{g1, 3}, {&g2, 2}}};
static TBL struct eff2 ef_b = {1 + 40 + 1, 1, 2, {{big, 40}, {g1 + 1, 1}}};
static TBL struct eff0 ef_c = {0, 0, 0};
static TBL struct eff2 ef_d = {4 + 3 + 2, 4, 2, {{g1, 3}, {&g2, 2}}};
static TBL struct vars2 vs_a = {3 + 2, 2, {{g1, 3}, {&g2, 2}}};
/* A shared tail: the last pair of ef_e and ck_b (size 0) links to it (on AVR by its word
 * address, pm(), hence the alignment). */
static TBL struct tail2 tl_a __attribute__((aligned(2))) = {2, {{big + 10, 5}, {&g2, 2}}};
static TBL struct eff2 ef_e = {1 + 3 + 5 + 2, 1, 2, {{g1, 3}, {(const void *)(uintptr_t)&tl_a, 0}}};
static TBL struct chk2 ck_b = {3, 2, {{g1 + 1, 2}, {(const void *)(uintptr_t)&tl_a, 0}}};
static TBL struct chk2 ck_a = {2, 2, {{&g2, 2}, {big + 3, 7}}};
static TBL struct ckp3 cp_a = {1, 3 + 2 + 40, 3, {{g1, 3}, {&g2, 2}, {big, 40}}};
/* A checkpoint whose variables go on in a linked table (the packing walk follows links as
 * the copying one does, spec/trace-format.md 3.2). */
struct vars1 {
  uint16_t bytes;
  uint8_t n;
  struct pair p[1];
} __attribute__((packed));
static TBL struct vars1 vs_s = {37, 1, {{sparse, 37}}};
static TBL struct ckp3 cp_l = {
    8, 37 + 3 + 5 + 2, 3, {{sparse, 37}, {g1, 3}, {(const void *)(uintptr_t)&tl_a, 0}}};

#ifdef BIG_RECORDS
/* -DBIG_RECORDS (segments of 512 bytes or more): records of 280-303 bytes, so that the
 * writer's room and fold counts go past 8 bits. */
uint8_t huge[300];
static TBL struct eff2 ef_h = {2 + 255 + 45, 2, 2, {{huge, 255}, {huge + 255, 45}}};
static TBL struct ckp3 cp_h = {4, 3 + 255 + 45, 3, {{g1, 3}, {huge, 255}, {huge + 255, 45}}};
#endif

/* How often a checkpoint went packed into the rest of a segment its plain record would have
 * reached the end of, and how often the pieces' entries gave one up ("again"; spec/trace-
 * format.md 3.2): written as INPUTs at the end, so the test sees both paths taken, the same
 * on every target. The anchors are below 128: the plain record is 3 + len bytes, one more
 * for a len of 128 or more. */
static uint16_t in_rest, agains, ck_head;
static void ck_after(uint16_t len) {
  uint16_t seg = __wsn_trace.hdr.seg_size, h = __wsn_trace.hdr.head;
  uint16_t rest = (uint16_t)(seg - ck_head % seg), plain = (uint16_t)(3u + (len >= 128) + len);
  if (plain >= rest && h > ck_head && (uint16_t)(h - ck_head) < rest)
    ++in_rest;
}

/* Writes SCHED records (2 bytes) until the rest of the segment is `rest` or `rest` + 1 bytes. */
static void place(uint16_t rest) {
  uint16_t seg = __wsn_trace.hdr.seg_size;
  for (;;) {
    uint16_t r = (uint16_t)(seg - __wsn_trace.hdr.head % seg);
    if (r == rest || r == rest + 1)
      return;
    __wsn_rt_sched(1);
  }
}

/* Both ways of section 3.2, whatever the seeded steps did (their counts depend on where the
 * other records put the head): the head placed where the plain record does not fit, once
 * with the sparse variables, which then go packed into the rest, and once with dense ones in
 * pieces that do not fit packed either (given up, "again", written after a PAD). */
static void both_paths(void) {
  uint16_t local = 0x0101;
  uint8_t again;
  __wsn_rt_init(); /* the header's seg_size, before the first record */
  place(30); /* sparse: plain 3 + 37 + 2 = 42 bytes, packed about 15 */
  ck_head = __wsn_trace.hdr.head;
  do {
    __wsn_rt_checkpoint_begin(9, 37 + 2);
    __wsn_rt_put_t((uintptr_t)&vs_s);
    __wsn_rt_put(&local, 2);
    again = __wsn_rt_record_end();
    agains = (uint16_t)(agains + again);
  } while (again);
  ck_after(37 + 2);
  g1[0] = 1, g1[1] = 2, g1[2] = 3, g2 = 0x0404;
  place(8); /* dense: plain 3 + 7 = 10 bytes, packed 3 + 1 + 7 = 11 */
  ck_head = __wsn_trace.hdr.head;
  do {
    __wsn_rt_checkpoint_begin(7, 3 + 2 + 2);
    __wsn_rt_put_t((uintptr_t)&vs_a);
    __wsn_rt_put(&local, 2);
    again = __wsn_rt_record_end();
    agains = (uint16_t)(agains + again);
  } while (again);
  ck_after(3 + 2 + 2);
}

#ifdef Z_EFFECTS
/* -DZ_EFFECTS (a runtime without effect keys, -DWSN_TRACE_EFFECT_KEYS=0): effects without
 * their zero bytes (EFFECT_Z, spec/trace-format.md 3.6) at every rest of a segment around
 * their size: packed in the rest, ending exactly at the segment's end, not fitting the rest
 * (packed or plain after a PAD), not smaller (plain); as span records (3.5) over their
 * SKIP_BEGIN and not; a whole form in two parts (a short form whose table has 0x40: its first
 * m pairs, then the module's handler table); and, with Z_SEG (the segment size, 256 or 512),
 * an effect whose plain record fills a segment exactly. */
uint8_t zbuf[30], zhot[3];
struct effs2 {
  uint16_t len;
  uint8_t ret_bytes;
  uint16_t own;
  uint8_t m, n;
  struct pair p[2];
} __attribute__((packed));
struct hnd2 {
  uint16_t bytes;
  uint8_t n;
  struct pair p[2];
} __attribute__((packed));
/* ret 2, zbuf, g2: 34 bytes */
static TBL struct eff2 ef_z = {2 + 30 + 2, 2, 2, {{zbuf, 30}, {&g2, 2}}};
/* short form: ret 1, zhot (the callee's own, which no handler writes: the first m = 1 pair),
 * zbuf + 10 (10 bytes); whole form: ret 1, zhot, then the handler table */
static TBL struct effs2 ef_s = {1 + 3 + 10, 0x80 | 0x40 | 1, 3, 1, 2, {{zhot, 3}, {zbuf + 10, 10}}};
TBL struct hnd2 __wsn_effect_handlers = {20 + 2, 2, {{zbuf + 5, 20}, {&g2, 2}}};
#ifdef Z_SEG
uint8_t zseg[Z_SEG];
#if Z_SEG == 256 /* tag, site < 128, len >= 128 (2 bytes): 4 + 252 */
static TBL struct eff2 ef_f = {252, 0, 1, {{zseg, 252}}};
#else /* 4 + 508 */
static TBL struct eff2 ef_f = {508, 0, 2, {{zseg, 255}, {zseg + 255, 253}}};
#endif
#endif

/* What every EFFECT_Z step left in the trace object (from `head` on: the header before it
 * names the target), stale bytes included, folded into one value that the end writes as an
 * INPUT: so the targets' traces are compared after each step, not only at the end. */
static uint16_t zsum = 0xFFFF;
static void zsnap(void) {
  /* the runtime's geometry, which the AVR driver (built without it) does not see; 16-bit
   * words rotated in (cheap enough for mspdebug's simulator) */
  uint16_t buf = __wsn_trace.hdr.buf_size, seg = __wsn_trace.hdr.seg_size;
  uint16_t n = (uint16_t)(8 + buf / 2 + buf / seg);
  const uint16_t *w = (const uint16_t *)((const uint8_t *)&__wsn_trace + 16);
  while (n--)
    zsum = (uint16_t)(((zsum << 3) | (zsum >> 13)) + *w++);
}

static void zeffects(uint16_t v) {
  uint16_t rest;
  uint8_t i;
  for (rest = 1; rest < 48; ++rest) {
    for (i = 0; i < 30; ++i) /* sparse, now and then dense (not smaller: plain) */
      zbuf[i] = (rest % 7 == 3 || (i + rest) % 9 == 0) ? (uint8_t)(v + i) : 0;
    zhot[rest % 3] = (uint8_t)rest;
    place(rest);
    __wsn_rt_effect_t(50, (uintptr_t)&ef_z, (rest & 1) ? 0 : v);
    zsnap();
    place(rest);
    __wsn_rt_effect_t(51, (uintptr_t)&ef_s, v);
    zsnap(); /* whole: not a skipped call's */
    place(rest);
    __wsn_rt_skip_begin(52); /* empty span, no handler: the short form */
    __wsn_rt_skip_effect_t(52, (uintptr_t)&ef_s, 0);
    zsnap();
    place(rest);
    __wsn_rt_skip_begin(200); /* a handler inside: the whole form, a 2-byte site */
    __wsn_rt_irq_entry(3);
    __wsn_rt_irq_exit(3);
    __wsn_rt_skip_effect_t(200, (uintptr_t)&ef_s, rest);
    zsnap();
    place(rest);
    __wsn_rt_skip_begin(53);
    __wsn_rt_skip_effect32_t(53, (uintptr_t)&ef_z, 0x10000u * rest);
    zsnap();
#ifdef Z_SEG
    zseg[(rest * 37u) % Z_SEG] = (uint8_t)rest;
    if (rest & 1)
      zseg[(rest * 11u) % Z_SEG] = 0;
    place(rest);
    __wsn_rt_effect_t(54, (uintptr_t)&ef_f, 0);
    zsnap();
    place(rest);
    __wsn_rt_skip_begin(55);
    __wsn_rt_skip_effect_t(55, (uintptr_t)&ef_f, 0);
    zsnap();
#endif
  }
}
#endif

static uint32_t rnd_state = 12345;
static uint16_t rnd(void) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (uint16_t)(rnd_state >> 12);
}

static void mutate(void) {
  uint16_t r = rnd();
  g1[r % 3] = (uint8_t)(r >> 3);
  g2 = (uint16_t)(g2 * 31u + r);
  big[r % 40] ^= (uint8_t)(r >> 5);
  sparse[r % 37] = ((r >> 6) & 3) ? 0 : (uint8_t)(r | 1);
}

/* One one-byte control record chosen by j (spec/trace-format.md 3.5): ENTRY or EXIT of fid
 * j % 47, IRQ (count j & 3) or IRQ_EXIT of irq 1 + j % 8; the same j, the same byte. */
static void ctl_rec(uint16_t j) {
  switch (j % 4u) {
  case 0: __wsn_rt_entry((uint16_t)(j % 47u)); break;
  case 1: __wsn_rt_exit((uint16_t)(j % 47u)); break;
  case 2:
    __wsn_gv_reference = (uint16_t)(j & 3u);
    (void)__wsn_rt_irq_enter((uint16_t)(1u + j % 8u));
    break;
  default: __wsn_rt_irq_leave((uint16_t)(1u + j % 8u), 0); break;
  }
}

int main(void) {
  uint16_t i;
  __wsn_gv_reference = 0;
  both_paths();
#ifdef Z_EFFECTS
  zeffects(0x1234);
#endif
  for (i = 0; i < STEPS; ++i) {
    uint16_t r = rnd(), v = rnd();
    mutate();
    __wsn_gv_reference = (uint16_t)(__wsn_gv_reference + (r & 3));
#ifdef BIG_RECORDS
    if ((v & 7) == 5) {
      huge[r % 300] ^= (uint8_t)v;
      switch ((r >> 4) & 3) {
      case 0: __wsn_rt_effect_t(400, (uintptr_t)&ef_h, v); break;
      case 1:
        ck_head = __wsn_trace.hdr.head;
        __wsn_rt_checkpoint_t((uintptr_t)&cp_h);
        ck_after(3 + 255 + 45);
        break;
      case 2:
        __wsn_rt_effect_begin(401, 280);
        __wsn_rt_put(huge, 280);
        __wsn_rt_record_end();
        break;
      default: __wsn_rt_input_bytes(402, huge, (uint16_t)(250 + v % 50)); break;
      }
    }
#endif
    switch (r % 17) {
    case 0: __wsn_rt_entry((uint16_t)(v % 300)); break;
    case 1: __wsn_rt_exit((uint16_t)(v % 300)); break;
    case 2:
      __wsn_rt_irq_entry((uint16_t)(v % 9));
      __wsn_gv_reference = (uint16_t)(v & 0x7FF);
      __wsn_rt_irq_exit((uint16_t)(v % 9));
      break;
    case 3: __wsn_rt_sched(v); break;
    case 4: /* near sites and values 0-5 (and one over 127): mostly INPUT_S (spec/trace-format.md
             * 3.4), one byte when the value is in a recent slot */
      __wsn_rt_input8((uint8_t)(40 + (v & 7)), (uint8_t)((v >> 8) % 6u));
      __wsn_rt_input8((uint8_t)(41 + (v & 7)), (uint8_t)((v >> 11) % 6u));
      __wsn_rt_input16((uint16_t)(36 + (v & 15)), (v & 0x4000) ? 1000u : (uint16_t)(v >> 14));
      break;
    case 5: __wsn_rt_input16((uint16_t)(v % 1000), rnd()); break;
    case 6: __wsn_rt_input((uint16_t)(v % 200), ((uint32_t)rnd() << 16) | v); break;
    case 7: __wsn_rt_input_bytes((uint16_t)(v % 50), big, (uint16_t)(v % 20)); break;
    case 8: __wsn_rt_send((uint16_t)(v % 4), 0xFFFF, r); break;
    case 9: __wsn_rt_recv((uint16_t)(v % 4), (uint16_t)(v % 7), r); break;
    case 10:
      /* SKIP_END merged; a site id over 127 sharing ef_a's table */
      __wsn_rt_skip_begin(21);
      __wsn_rt_skip_effect_t(21, (uintptr_t)&ef_a, v);
      __wsn_rt_effect_t(300, (uintptr_t)&ef_a, r);
      if (v & 0x0C) {
        /* the effect of the bytes the call changed (spec/trace-format.md 3.3), as
         * __wsn_rt_skip_call writes it: a snapshot after SKIP_BEGIN, one byte changed, a
         * return value of 0 or not; whole when a handler ran inside the span */
        uint8_t snap[41];
        __wsn_rt_skip_begin(22);
        __wsn_rt_snap((uintptr_t)&ef_b, snap);
        if ((v & 0x30) == 0x30) {
          __wsn_rt_irq_entry(3);
          __wsn_rt_irq_exit(3);
        }
        big[v % 40] ^= 0x5A;
        __wsn_rt_skip_effect_c(22, (uintptr_t)&ef_b, (v & 64) ? v : 0, snap);
      }
      break;
    case 11:
      __wsn_rt_effect_t(300, (uintptr_t)&ef_b, v);
      __wsn_rt_effect32_t(301, (uintptr_t)&ef_d, ((uint32_t)r << 16) | v);
      __wsn_rt_effect_t(302, (uintptr_t)&ef_e, r);
      break;
    case 12:
      __wsn_rt_skip_begin(5);
      __wsn_rt_skip_effect_t(5, (uintptr_t)&ef_c, 0);
      __wsn_rt_skip_begin(6);
      __wsn_rt_skip_effect32_t(6, (uintptr_t)&ef_d, 0x80000001u);
      break;
    case 13:
#ifdef BIG_RECORDS
      if (v & 1) {
        ck_head = __wsn_trace.hdr.head;
        __wsn_rt_checkpoint_t((uintptr_t)&cp_h);
        ck_after(3 + 255 + 45);
        break;
      }
#endif
      ck_head = __wsn_trace.hdr.head;
      __wsn_rt_checkpoint_t((uintptr_t)((v & 2) ? &cp_l : &cp_a));
      ck_after((v & 2) ? 37 + 3 + 5 + 2 : 3 + 2 + 40);
      break;
    case 14:
      if (__wsn_rt_anchor_armed()) {
        /* globals by table, then a "local" by put, as the lowering of an anchor with locals;
         * over the sparse globals, packed in place (spec/trace-format.md 3.2); again, as the
         * lowering, when packing into the rest of a segment gave it up */
        uint8_t again;
        ck_head = __wsn_trace.hdr.head;
        do {
          if (v & 4) {
            __wsn_rt_checkpoint_begin(9, 37 + 2);
            __wsn_rt_put_t((uintptr_t)&vs_s);
          } else {
            __wsn_rt_checkpoint_begin(7, 3 + 2 + 2);
            __wsn_rt_put_t((uintptr_t)&vs_a);
          }
          /* now and then ended early: the local's bytes zero-filled (DROPPED), packed from
           * their plain place, or given up in the rest of a segment */
          if ((r & 0x70) != 0x70)
            __wsn_rt_put(&v, 2);
          again = __wsn_rt_record_end();
          agains = (uint16_t)(agains + again);
        } while (again);
        ck_after((v & 4) ? 37 + 2 : 3 + 2 + 2);
      }
      break;
    case 16: { /* format 9 (spec/trace-format.md 3.8): a periodic run of one-byte control
                * records of periods 1-8 (REPEAT records for those up to the writer's 4, the
                * others as bytes), counts past their limit of 255, runs cut by segment ends and
                * by the records around them */
      uint16_t p = (uint16_t)(1u + v % 8u), n = (uint16_t)((v >> 3) % 300u), k, j;
      for (k = 0; k < n; ++k) {
        j = (uint16_t)(k % p + (r & 7u));
        ctl_rec(j);
      }
      break;
    }
    case 15:
      __wsn_rt_check_t((uintptr_t)&ck_a, 1);
      __wsn_rt_check_t((uintptr_t)&ck_b, 1);
      break;
    default:
      __wsn_rt_check((uint16_t)(v % 5), 1, __wsn_crc16(0xFFFF, big, 8));
      __wsn_rt_effect_begin(9, 3);
      __wsn_rt_put(g1, 3);
      __wsn_rt_record_end();
      break;
    }
  }
  /* REPEAT records of every period the writer looks for that stay in the retained tail
   * (spec/trace-format.md 3.8): runs of p = 1..8 one-byte control records (5-8 stay bytes),
   * p = 1 past the count's limit of 255, each run ended by a SCHED. */
  for (i = 1; i <= 8; ++i) {
    uint16_t k, j, n = i == 1 ? 260u : (uint16_t)(3u * i + 4u);
    for (k = 0; k < n; ++k) {
      j = (uint16_t)(k % i + 2u * i);
      ctl_rec(j);
    }
    __wsn_rt_sched(i);
  }
  /* Passing checks that stay in the retained tail (spec/trace-format.md 3.9): CHECK_S for inv
   * 1..3 (through both entry points), the plain CHECK for inv 0, 4 and 300 (a two-byte varint);
   * the violation at the end keeps its full form. */
  for (i = 0; i < 7; ++i) {
    static const uint16_t invs[7] = {1, 2, 3, 0, 4, 300, 1};
    __wsn_rt_check(invs[i], 1, __wsn_crc16(0xFFFF, big, (uint16_t)(i + 1)));
  }
  __wsn_rt_check_t((uintptr_t)&ck_b, 1);
  /* A burst of inputs that stays in the retained tail (spec/trace-format.md 3.4): sites near
   * the previous one (d = -8..7) and far from it, values in a recent slot and not, at each
   * varint length, through both entry points. */
  for (i = 0; i < 64; ++i) {
    static const uint16_t vals[8] = {0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, 0xFFFF, 1};
    uint16_t r = rnd(), site = (uint16_t)(60 + r % 23), val = vals[(r >> 5) & 7];
    if (r & 0x100)
      __wsn_rt_input8((uint8_t)site, (uint8_t)val);
    else
      __wsn_rt_input16(site, val);
  }
  /* Every record carries the counts the runtime kept; the last one shows the final count. */
  __wsn_rt_input16(997, in_rest);
  __wsn_rt_input16(998, agains);
#ifdef Z_EFFECTS
  __wsn_rt_input16(996, zsum);
#endif
  __wsn_rt_input16(999, __wsn_gv_reference);
  __wsn_rt_check_t((uintptr_t)&ck_a, 0);
  __wsn_rt_entry(1); /* frozen: not written */
#if defined(__AVR__) || defined(__MSP430__)
  for (;;) {
  }
#endif
  return 0;
}
