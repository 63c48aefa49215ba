/* trace.c - the trace runtime core: the ring writer and the record entry points.
 *
 * Format: spec/trace-format.md. Log types: Wang 2013 thesis section 4.1 (LOG types 1-5) and
 * section 5.1 (LOG type 6); segments and the anchor-armed rule: DESIGN-BRIEF section 4.
 *
 * Only <stdint.h>/<stddef.h> are used: there is no libc on the mote.
 */
#include "wsn/trace.h"
#include "port.h"

#include <stddef.h>

/* Compile-time checks of the configuration (C99: a negative array size is an error). */
typedef char wsn_check_header_is_32_bytes[sizeof(struct __wsn_trace_header) == 32 ? 1 : -1];
typedef char wsn_check_buf_multiple_of_seg[(WSN_TRACE_BUF_SIZE % WSN_TRACE_SEG_SIZE) == 0 ? 1 : -1];
typedef char wsn_check_two_segments[WSN_TRACE_BUF_SIZE >= 2 * WSN_TRACE_SEG_SIZE ? 1 : -1];
/* The whole object (32 + ring) is walked with 16-bit indices. */
typedef char wsn_check_buf_fits_u16[WSN_TRACE_BUF_SIZE <= 0x8000 ? 1 : -1];
typedef char wsn_check_seg_min[WSN_TRACE_SEG_SIZE >= 16 ? 1 : -1];
typedef char wsn_check_irq_depth[WSN_TRACE_IRQ_DEPTH >= 1 && WSN_TRACE_IRQ_DEPTH <= 255 ? 1 : -1];

/* The trace object: .bss, so it costs no flash; __wsn_rt_init writes the header. */
struct __wsn_trace_buffer __wsn_trace;
volatile uint16_t __wsn_node_id WSN_PORT_NOINIT;
volatile uint16_t __wsn_gv_reference;
/* Weak default so that programs without an instrumented module still link; the instrumented
 * module's strong definition wins. Weak definitions are not constant-folded. */
__attribute__((weak)) const uint32_t __wsn_module_hash = 0;

/* Runtime state (not part of the file). */
static uint8_t rt_armed;         /* anchor flag: no checkpoint yet in the current segment */
static uint8_t rt_irq_depth;     /* nesting of instrumented handlers */
static uint16_t rt_irq_saved[WSN_TRACE_IRQ_DEPTH]; /* interrupted contexts' #gv_reference */
static uint8_t *rt_cursor;       /* next byte of the open begin/put/end record */
static uint16_t rt_left;         /* bytes still owed to the open record */
static wsn_irq_state_t rt_open_irq; /* interrupt state saved by the open *_begin */

#define HDR (__wsn_trace.hdr)
/* All flags live in the low byte of the little-endian `flags` field: byte access is cheaper
 * on the 8-bit AVR. */
#define FLAGS (*(uint8_t *)&__wsn_trace.hdr.flags)

/* Scratch space where a record's tag and fixed fields are assembled before emit() copies them
 * into the ring. One static buffer serves every writer because all of them run with
 * interrupts disabled; it saves a stack frame per entry point on AVR. Largest user: SEND/RECV
 * (tag + three 16-bit varints). */
static uint8_t rt_rec[1 + 3 * 3];

#define NOINLINE __attribute__((noinline))

/* Write the header once (magic last, so a half-written header never looks valid). The object
 * is zero before (static storage, or __wsn_rt_reset), so only non-zero fields are stored. */
static NOINLINE void init_locked(void) {
  if (HDR.magic[0] == 'W')
    return;
#ifdef WSN_PORT_HOST
  __wsn_port_host_init();
#endif
  HDR.version = WSN_TRACE_VERSION;
  HDR.target = WSN_PORT_TARGET;
  HDR.node_id = __wsn_node_id;
  /* Read through a volatile lvalue: a const weak definition may otherwise be folded to its
   * default even when the module overrides it. */
  HDR.module_hash = *(const volatile uint32_t *)&__wsn_module_hash;
  HDR.buf_size = WSN_TRACE_BUF_SIZE;
  HDR.seg_size = WSN_TRACE_SEG_SIZE;
  HDR.violation = WSN_TRACE_NO_VIOLATION;
  rt_armed = 1; /* segment 0 is a new segment */
  HDR.magic[1] = 'T';
  HDR.magic[2] = 'R';
  HDR.magic[3] = 'B';
  HDR.magic[0] = 'W';
}

void __wsn_rt_init(void) {
  wsn_irq_state_t s = wsn_port_irq_save();
  init_locked();
  wsn_port_irq_restore(s);
}

void __wsn_rt_reset(void) {
  wsn_irq_state_t s = wsn_port_irq_save();
  /* volatile: keeps the compiler from turning the loop into a memset call (no libc). */
  volatile uint8_t *p = (volatile uint8_t *)&__wsn_trace;
  uint16_t i;
  for (i = 0; i < (uint16_t)sizeof(__wsn_trace); ++i)
    p[i] = 0;
  rt_irq_depth = 0;
  rt_left = 0;
  __wsn_gv_reference = 0;
  init_locked();
  wsn_port_irq_restore(s);
}

/* Advance head past n written bytes. Reaching a segment boundary enters the next segment at
 * once (wrapping after the last one) and arms the anchor flag, so head < buf_size always. */
static NOINLINE void commit(uint16_t n) {
  uint16_t head = (uint16_t)(HDR.head + n);
  if ((head % WSN_TRACE_SEG_SIZE) == 0) {
    if (head == WSN_TRACE_BUF_SIZE) {
      head = 0;
      ++HDR.wraps;
      FLAGS |= WSN_TRACE_FLAG_WRAPPED;
    }
    rt_armed = 1;
  }
  HDR.head = head;
}

/* Unsigned LEB128 of a 16-bit and of a 32-bit value; return the end. */
static NOINLINE uint8_t *put_varint(uint8_t *p, uint16_t v) {
  while (v >= 0x80u) {
    *p++ = (uint8_t)(v | 0x80u);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

static NOINLINE uint8_t *put_varint32(uint8_t *p, uint32_t v) {
  while (v >= 0x80u) {
    *p++ = (uint8_t)(v | 0x80u);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

/* Write a record: the n bytes assembled in `rec` (tag and fixed fields) followed by `extra`
 * payload bytes the caller fills through the returned pointer. When the record does not fit
 * in what is left of the current segment, one PAD byte (0x00) ends the segment there (the
 * decoder ignores the rest of it) and the record starts the next segment. Returns NULL when
 * nothing may be written (frozen; record larger than a segment, which marks the trace
 * DROPPED). Interrupts must be disabled. */
static NOINLINE uint8_t *emit(const uint8_t *rec, uint8_t n, uint16_t extra) {
  uint16_t total, room;
  uint8_t *p;
  init_locked();
  if (FLAGS & WSN_TRACE_FLAG_FROZEN)
    return NULL;
  if (extra > (uint16_t)(WSN_TRACE_SEG_SIZE - n)) {
    FLAGS |= WSN_TRACE_FLAG_DROPPED;
    return NULL;
  }
  total = (uint16_t)(n + extra);
  room = (uint16_t)(WSN_TRACE_SEG_SIZE - HDR.head % WSN_TRACE_SEG_SIZE);
  if (room < total) {
    __wsn_trace.data[HDR.head] = WSN_REC_PAD;
    commit(room);
  }
  p = &__wsn_trace.data[HDR.head];
  /* LOG type 4: the first anchor reached in a segment writes a checkpoint, which disarms the
   * flag; done before commit, which re-arms it if this record fills the segment exactly. */
  if (rec[0] == WSN_REC_CHECKPOINT)
    rt_armed = 0;
  commit(total);
  {
    /* volatile: a plain loop becomes a memcpy call, and there is no libc on the mote. */
    volatile uint8_t *d = p;
    while (n--)
      *d++ = *rec++;
    return (uint8_t *)d;
  }
}

/* A record of a tag and `nf` (1..3) fields, all varints except the raw little-endian 16-bit
 * checksum (second field) of CHECK/VIOLATION. Interrupts must be disabled. */
static NOINLINE void emit_fields(uint8_t tag, uint8_t nf, uint16_t a, uint16_t b, uint16_t c) {
  uint8_t *const rec = rt_rec;
  uint8_t *p = rec;
  *p++ = tag;
  p = put_varint(p, a);
  if (nf > 1) {
    if (tag >= WSN_REC_CHECK) {
      *p++ = (uint8_t)b;
      *p++ = (uint8_t)(b >> 8);
    } else {
      p = put_varint(p, b);
    }
  }
  if (nf > 2)
    p = put_varint(p, c);
  emit(rec, (uint8_t)(p - rec), 0);
}

/* A locked record of a tag and varint fields; ENTRY/EXIT also reset #gv_reference in the same
 * atomic step (thesis 4.1, LOG type 2: reset at every instrumented entry and exit). */
static NOINLINE void record(uint8_t tag, uint8_t nf, uint16_t a, uint16_t b, uint16_t c) {
  wsn_irq_state_t s = wsn_port_irq_save();
  emit_fields(tag, nf, a, b, c);
  if (tag <= WSN_REC_EXIT)
    __wsn_gv_reference = 0;
  wsn_port_irq_restore(s);
}

void __wsn_rt_entry(uint16_t fid) { record(WSN_REC_ENTRY, 1, fid, 0, 0); }
void __wsn_rt_exit(uint16_t fid) { record(WSN_REC_EXIT, 1, fid, 0, 0); }
void __wsn_rt_sched(uint16_t task) { record(WSN_REC_SCHED, 1, task, 0, 0); }
void __wsn_rt_skip_begin(uint16_t site) { record(WSN_REC_SKIP_BEGIN, 1, site, 0, 0); }
void __wsn_rt_skip_end(uint16_t site) { record(WSN_REC_SKIP_END, 1, site, 0, 0); }
void __wsn_rt_send(uint16_t site, uint16_t dest, uint16_t seq) {
  record(WSN_REC_SEND, 3, site, seq, dest);
}
void __wsn_rt_recv(uint16_t site, uint16_t sender, uint16_t seq) {
  record(WSN_REC_RECV, 3, site, sender, seq);
}

/* LOG type 2 at a handler: the interrupted context's count goes into the record, is saved
 * and the handler starts counting from 0; IRQ_EXIT restores it. Deeper nesting than
 * WSN_TRACE_IRQ_DEPTH cannot be restored exactly and marks the trace DROPPED. */
void __wsn_rt_irq_entry(uint16_t irq) {
  wsn_irq_state_t s = wsn_port_irq_save();
  uint16_t count = __wsn_gv_reference;
  emit_fields(WSN_REC_IRQ, 2, irq, count, 0);
  if (rt_irq_depth < WSN_TRACE_IRQ_DEPTH)
    rt_irq_saved[rt_irq_depth] = count;
  else
    FLAGS |= WSN_TRACE_FLAG_DROPPED;
  ++rt_irq_depth;
  __wsn_gv_reference = 0;
  wsn_port_irq_restore(s);
}

void __wsn_rt_irq_exit(uint16_t irq) {
  wsn_irq_state_t s = wsn_port_irq_save();
  emit_fields(WSN_REC_IRQ_EXIT, 1, irq, 0, 0);
  if (rt_irq_depth) {
    --rt_irq_depth;
    __wsn_gv_reference =
        rt_irq_depth < WSN_TRACE_IRQ_DEPTH ? rt_irq_saved[rt_irq_depth] : 0;
  }
  wsn_port_irq_restore(s);
}

void __wsn_rt_input(uint16_t site, uint32_t value) {
  uint8_t *const rec = rt_rec;
  uint8_t *p = rec;
  wsn_irq_state_t s = wsn_port_irq_save();
  *p++ = WSN_REC_INPUT;
  p = put_varint(p, site);
  p = put_varint32(p, value);
  emit(rec, (uint8_t)(p - rec), 0);
  wsn_port_irq_restore(s);
}

/* Open a payload record `tag id len bytes[len]` and leave interrupts disabled until
 * __wsn_rt_record_end. The whole record is reserved (and head moved past it) here. */
static NOINLINE void open_payload(uint8_t tag, uint16_t id, uint16_t len) {
  uint8_t *const rec = rt_rec;
  uint8_t *p = rec;
  rt_open_irq = wsn_port_irq_save();
  *p++ = tag;
  p = put_varint(p, id);
  p = put_varint(p, len);
  rt_cursor = emit(rec, (uint8_t)(p - rec), len);
  rt_left = rt_cursor ? len : 0;
}

uint8_t __wsn_rt_anchor_armed(void) {
  uint8_t armed;
  wsn_irq_state_t s = wsn_port_irq_save();
  init_locked();
  armed = rt_armed && !(FLAGS & WSN_TRACE_FLAG_FROZEN);
  wsn_port_irq_restore(s);
  return armed;
}

void __wsn_rt_checkpoint_begin(uint16_t anchor, uint16_t len) {
  open_payload(WSN_REC_CHECKPOINT, anchor, len);
}

void __wsn_rt_effect_begin(uint16_t site, uint16_t len) {
  open_payload(WSN_REC_EFFECT, site, len);
}

NOINLINE void __wsn_rt_put(const void *p, uint16_t n) {
  const uint8_t *b = (const uint8_t *)p;
  volatile uint8_t *d = rt_cursor; /* volatile: no memcpy call (no libc on the mote) */
  if (n > rt_left)
    n = rt_left;
  rt_left = (uint16_t)(rt_left - n);
  while (n--)
    *d++ = *b++;
  rt_cursor = (uint8_t *)d;
}

NOINLINE void __wsn_rt_record_end(void) {
  if (rt_left) {
    /* Fewer bytes than announced: zero-filled (volatile: no memset call, there is no libc). */
    volatile uint8_t *p = rt_cursor;
    FLAGS |= WSN_TRACE_FLAG_DROPPED;
    while (rt_left) {
      *p++ = 0;
      --rt_left;
    }
  }
  wsn_port_irq_restore(rt_open_irq);
}

void __wsn_rt_input_bytes(uint16_t site, const void *p, uint16_t n) {
  open_payload(WSN_REC_INPUT_BYTES, site, n);
  __wsn_rt_put(p, n);
  __wsn_rt_record_end();
}

/* The hooks differ in code (a nop) so that identical-code folding can never merge them. */
__attribute__((noinline, used)) void __wsn_check_hook(uint16_t inv) {
  __asm__ __volatile__("" : : "r"(inv) : "memory");
}

__attribute__((noinline, used)) void __wsn_violation_hook(uint16_t inv) {
  __asm__ __volatile__("nop" : : "r"(inv) : "memory");
}

void __wsn_rt_check(uint16_t inv, uint8_t ok, uint16_t crc) {
  uint8_t first_violation = 0;
  wsn_irq_state_t s = wsn_port_irq_save();
  emit_fields(ok ? WSN_REC_CHECK : WSN_REC_VIOLATION, 2, inv, crc, 0);
  ++HDR.checks;
  if (!ok && !(FLAGS & WSN_TRACE_FLAG_VIOLATION)) {
    first_violation = 1;
    HDR.violation = inv;
    FLAGS |= WSN_TRACE_FLAG_VIOLATION;
#if WSN_TRACE_BLACKBOX
    FLAGS |= WSN_TRACE_FLAG_FROZEN;
#endif
  }
  wsn_port_irq_restore(s);
  __wsn_check_hook(inv);
  if (first_violation) {
#ifdef WSN_PORT_HOST
    __wsn_port_host_violation();
#endif
    __wsn_violation_hook(inv);
  }
}

/* CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF by the caller, MSB first, no final xor). */
uint16_t __wsn_crc16(uint16_t crc, const void *p, uint16_t n) {
  const uint8_t *b = (const uint8_t *)p;
  while (n--) {
    uint8_t i;
    crc ^= (uint16_t)((uint16_t)*b++ << 8);
    for (i = 0; i < 8; ++i)
      crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
  }
  return crc;
}

void __wsn_rt_drain(void (*put)(uint8_t)) {
  wsn_irq_state_t s = wsn_port_irq_save();
  const uint8_t *p = (const uint8_t *)&__wsn_trace;
  uint16_t i;
  init_locked();
  for (i = 0; i < (uint16_t)sizeof(__wsn_trace); ++i)
    put(p[i]);
  wsn_port_irq_restore(s);
}
