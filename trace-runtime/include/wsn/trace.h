/* wsn/trace.h - the mote trace runtime of wsn-trace (C99, no libc on the mote).
 *
 * This is the API the record lowering (wsn-lower<record>) calls. The trace it writes is the
 * object __wsn_trace, laid out exactly as spec/trace-format.md describes (32-byte header, the
 * ring, a check value per segment), so a simulator or debugger retrieves a trace by reading
 * sizeof(__wsn_trace) bytes at that symbol, and a host build writes the same bytes to a .wtr
 * file.
 *
 * Every entry point is interrupt safe: it saves the interrupt state, disables interrupts,
 * writes its record and restores the state. The begin/put/end families (checkpoints and
 * effects) keep interrupts disabled from begin to end, so a record is never interleaved.
 *
 * The log types follow the thesis (Wang 2013, section 4.1 "What to Record": LOG types 1-5;
 * section 5.1: LOG type 6) with the refinements of DESIGN-BRIEF section 4.
 *
 * Symbols other tools rely on (keep these names): __wsn_trace, __wsn_node_id,
 * __wsn_check_hook, __wsn_violation_hook, __wsn_module_hash.
 */
#ifndef WSN_TRACE_H
#define WSN_TRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Ring size in bytes and segment size (spec/trace-format.md section 2). The ring must hold at
 * least two segments and be a multiple of the segment size; both fit in 16 bits. These macros
 * matter when the runtime itself is compiled. */
#ifndef WSN_TRACE_BUF_SIZE
#define WSN_TRACE_BUF_SIZE 1024
#endif
#ifndef WSN_TRACE_SEG_SIZE
#define WSN_TRACE_SEG_SIZE 256
#endif
/* Black-box mode: after the first violation no more records are written (flags bit 2). */
#ifndef WSN_TRACE_BLACKBOX
#define WSN_TRACE_BLACKBOX 1
#endif
/* How many nested interrupt handlers can save the interrupted #gv_reference. */
#ifndef WSN_TRACE_IRQ_DEPTH
#define WSN_TRACE_IRQ_DEPTH 4
#endif
/* How many full EFFECT records of the current segment the runtime remembers as keys that later
 * effects of the same length are written against (EFFECT_DELTA, spec/trace-format.md section
 * 3.1); 0 writes every effect in full; at most 8. RAM: 2 + that many x (1 + pointer size)
 * bytes. */
#ifndef WSN_TRACE_EFFECT_KEYS
#define WSN_TRACE_EFFECT_KEYS 4
#endif

/* The largest snapshot, in bytes, that __wsn_rt_skip_call takes on the stack before a skipped
 * call so that its effect can be written as the bytes the call changed (EFFECT_C,
 * spec/trace-format.md section 3.3); an effect with more variable bytes is written as before
 * (no snapshot). 0: never. */
#ifndef WSN_TRACE_SNAP_MAX
#define WSN_TRACE_SNAP_MAX 128
#endif

/* Header field values (spec/trace-format.md section 1). */
#define WSN_TRACE_VERSION 10
#define WSN_TRACE_TARGET_HOST 0
#define WSN_TRACE_TARGET_AVR 1
#define WSN_TRACE_TARGET_MSP430 2
#define WSN_TRACE_FLAG_WRAPPED 0x0001u
#define WSN_TRACE_FLAG_VIOLATION 0x0002u
#define WSN_TRACE_FLAG_FROZEN 0x0004u
#define WSN_TRACE_FLAG_DROPPED 0x0008u  /* a record was dropped (too big / unbalanced) */
#define WSN_TRACE_NO_VIOLATION 0xFFFFu

/* Record tags (spec/trace-format.md section 3). */
enum {
  WSN_REC_PAD = 0x00,
  WSN_REC_ENTRY = 0x01,
  WSN_REC_EXIT = 0x02,
  WSN_REC_IRQ = 0x03,
  WSN_REC_IRQ_EXIT = 0x04,
  WSN_REC_SCHED = 0x05,
  WSN_REC_CHECKPOINT = 0x06,
  WSN_REC_INPUT = 0x07,
  WSN_REC_INPUT_BYTES = 0x08,
  WSN_REC_SEND = 0x09,
  WSN_REC_RECV = 0x0A,
  WSN_REC_EFFECT = 0x0B,
  WSN_REC_SKIP_BEGIN = 0x0C,
  WSN_REC_SKIP_END = 0x0D,
  WSN_REC_CHECK = 0x0E,
  WSN_REC_VIOLATION = 0x0F,
  WSN_REC_EFFECT_DELTA = 0x10, /* format 3: an EFFECT as changes against a key (section 3.1) */
  WSN_REC_CHECKPOINT_Z = 0x11, /* format 4: a CHECKPOINT without its zero bytes (section 3.2) */
  WSN_REC_EFFECT_C = 0x12,     /* format 5: an EFFECT of the bytes the call changed (section 3.3) */
  WSN_REC_EFFECT_Z = 0x14,     /* format 7: an EFFECT without its zero bytes (section 3.6) */
  /* format 8 (section 3.7): CHECKPOINT_Z, EFFECT_C and EFFECT_Z with two-level groups (a
   * bitmap of the groups whose mask is not 0, then those groups only); span forms tag + 8 */
  WSN_REC_CHECKPOINT_Z2 = 0x15,
  WSN_REC_EFFECT_C2 = 0x16,
  WSN_REC_EFFECT_Z2 = 0x17,
  /* format 6: INPUT_S, tags 0x20-0x6F = 0x20 + 16k + (d & 15): an INPUT whose site is the
   * segment's previous INPUT's site + d (d = -8..7) and whose value is the segment's recent
   * input value in slot k - 1 (k = 1..4) or follows as a varint (k = 0) (section 3.4) */
  WSN_REC_INPUT_S = 0x20,
  /* format 7 (section 3.5): an empty skip span (SKIP_BEGIN site, SKIP_END site and the
   * span's EFFECT, EFFECT_DELTA or EFFECT_C, nothing written between) as one record with the
   * effect's fields and the effect's tag + 8 */
  WSN_REC_SPAN_EFFECT = 0x13,
  WSN_REC_SPAN_EFFECT_DELTA = 0x18,
  WSN_REC_SPAN_EFFECT_C = 0x1A,
  /* format 7: IRQ irq count in the tag, 0x70 + 4 (irq - 1) + count (irq 1..8, count 0..3);
   * IRQ_EXIT irq as 0x90 + irq - 1 (irq 1..8) */
  WSN_REC_IRQ_S = 0x70,
  WSN_REC_IRQ_EXIT_S = 0x90,
  /* format 9 (section 3.8): REPEAT, 0x98 + p - 1 (period p 1..8), then a count n (1..255):
   * n more one-byte control records repeating the p written before it */
  WSN_REC_REPEAT = 0x98,
  /* format 10 (section 3.9): CHECK_S, 0x19 + 2 (inv - 1) (inv 1..3), then the raw 16-bit
   * checksum: a CHECK without its inv field */
  WSN_REC_CHECK_S = 0x19,
  /* format 7: ENTRY fid as 0xA0 + fid, EXIT fid as 0xD0 + fid (fid 0..46) */
  WSN_REC_ENTRY_S = 0xA0,
  WSN_REC_EXIT_S = 0xD0
};
#define WSN_TRACE_IRQ_SHORT 8  /* irq ids 1..8 fit IRQ_S / IRQ_EXIT_S */
#define WSN_TRACE_FID_SHORT 47 /* fids 0..46 fit ENTRY_S / EXIT_S */
#define WSN_TRACE_INV_SHORT 3  /* invariant ids 1..3 fit CHECK_S */

/* The 32-byte header; all fields little-endian (native on every supported target). */
struct __wsn_trace_header {
  uint8_t magic[4];     /* 'W' 'T' 'R' 'B' */
  uint8_t version;      /* WSN_TRACE_VERSION */
  uint8_t target;       /* WSN_TRACE_TARGET_* */
  uint16_t node_id;     /* copied from __wsn_node_id by __wsn_rt_init */
  uint32_t module_hash; /* copied from __wsn_module_hash */
  uint16_t buf_size;    /* WSN_TRACE_BUF_SIZE */
  uint16_t seg_size;    /* WSN_TRACE_SEG_SIZE */
  uint16_t head;        /* next write offset in data, always < buf_size */
  uint16_t flags;       /* WSN_TRACE_FLAG_* */
  uint32_t wraps;       /* times writing wrapped to segment 0 */
  uint32_t checks;      /* invariant checks executed */
  uint16_t violation;   /* first violated invariant, WSN_TRACE_NO_VIOLATION if none */
  uint16_t open;        /* bit 15: a record is being written; then bits 0-14 = the head before
                           it (spec/trace-format.md section 1.1) */
};

/* Segments in the ring. */
#define WSN_TRACE_NUM_SEGS (WSN_TRACE_BUF_SIZE / WSN_TRACE_SEG_SIZE)

/* The trace object: header + ring + one check value per segment (CRC-16/CCITT-FALSE of the
 * segment's bytes in this lap, updated as each record closes; spec/trace-format.md 1.2).
 * This is the .wtr file, byte for byte. */
struct __wsn_trace_buffer {
  struct __wsn_trace_header hdr;
  uint8_t data[WSN_TRACE_BUF_SIZE];
  uint8_t check[WSN_TRACE_NUM_SEGS][2]; /* little-endian, low byte stored first */
};

/* Bytes of the .wtr file: the header, the ring and the check values, with no padding. A host
 * compiler may pad the struct to its alignment (4 on x86: with an odd number of segments the
 * struct is 2 bytes longer than the file), so writers and drains use this, not sizeof. */
#define WSN_TRACE_FILE_SIZE                                                                   \
  (sizeof(struct __wsn_trace_header) + WSN_TRACE_BUF_SIZE + 2u * WSN_TRACE_NUM_SEGS)

/* The one trace object (in .bss; __wsn_rt_init fills the header). */
extern struct __wsn_trace_buffer __wsn_trace;

/* The node id. On a mote it lives in .noinit: the simulator (or a bootloader) stores the id
 * there before the program starts. On the host, __wsn_rt_init sets it from env WSN_NODE_ID. */
extern volatile uint16_t __wsn_node_id;

/* Hash of the instrumented module; the instrumented module defines it (strong), the runtime
 * provides a weak 0 so uninstrumented test programs link. */
extern const uint32_t __wsn_module_hash;

/* #gv_reference (LOG type 2): the lowering adds `n` to it inside each atomic region. The
 * runtime resets it at function entry/exit and saves/restores it around handlers. */
extern volatile uint16_t __wsn_gv_reference;

/* Initialise the header (magic, sizes, node id, module hash) if not done yet. Idempotent;
 * every record writer calls it lazily, so an explicit call is only needed for the header. */
void __wsn_rt_init(void);
/* Discard the whole trace (zero header and ring, disarm, unfreeze) and initialise again. */
void __wsn_rt_reset(void);

/* LOG 1: ENTRY fid, then #gv_reference = 0. */
void __wsn_rt_entry(uint16_t fid);
/* LOG 1: EXIT fid, then #gv_reference = 0. */
void __wsn_rt_exit(uint16_t fid);
/* LOG 2: IRQ irq count=#gv_reference; saves #gv_reference and resets it to 0. */
void __wsn_rt_irq_entry(uint16_t irq);
/* LOG 2: IRQ_EXIT irq; restores the interrupted context's #gv_reference. */
void __wsn_rt_irq_exit(uint16_t irq);
/* LOG 2, the same records without the runtime's stack of counts: irq_enter returns the
 * interrupted context's #gv_reference, which the handler passes back to irq_leave. */
uint16_t __wsn_rt_irq_enter(uint16_t irq);
void __wsn_rt_irq_leave(uint16_t irq, uint16_t count);
/* LOG 3: SCHED task. */
void __wsn_rt_sched(uint16_t task);

/* LOG 4. Returns 1 when the anchor flag is armed, i.e. no checkpoint has been written since
 * writing entered the current segment (and the trace is not frozen). */
uint8_t __wsn_rt_anchor_armed(void);
/* LOG 4: disable interrupts and start CHECKPOINT anchor len; disarms the anchor flag. The
 * caller then writes exactly `len` bytes with __wsn_rt_put and calls __wsn_rt_record_end,
 * and repeats all three while __wsn_rt_record_end returns 1 (a checkpoint packed into the
 * rest of a segment did not fit there: given up, the next try goes to the next segment). */
void __wsn_rt_checkpoint_begin(uint16_t anchor, uint16_t len);
/* Multi-level: start EFFECT site len; same protocol as a checkpoint (put..., record_end). */
void __wsn_rt_effect_begin(uint16_t site, uint16_t len);
/* Append n bytes to the record opened by a *_begin (bytes beyond its len are ignored). */
void __wsn_rt_put(const void *p, uint16_t n);
/* Close the open record (missing bytes are zero-filled) and restore interrupts. Returns 1
 * when a checkpoint was given up and must be written again (begin, puts, end), else 0; with
 * 1 interrupts stay disabled until the second attempt's record_end. */
uint8_t __wsn_rt_record_end(void);

/* LOG 5: INPUT site value (value already masked to the used bits). A value of at most 16
 * bits whose site lies within -8..7 of the segment's previous INPUT is written as INPUT_S
 * (spec/trace-format.md section 3.4). */
void __wsn_rt_input(uint16_t site, uint32_t value);
/* LOG 5: INPUT site value for values of at most 16 bits (the same record; smaller calls). */
void __wsn_rt_input16(uint16_t site, uint16_t value);
/* The same for a site id and a value below 256. */
void __wsn_rt_input8(uint8_t site, uint8_t value);
/* LOG 5: INPUT_BYTES site n bytes[n]. */
void __wsn_rt_input_bytes(uint16_t site, const void *p, uint16_t n);

/* LOG 6: SEND site seq dest (dest 0xFFFF = broadcast). */
void __wsn_rt_send(uint16_t site, uint16_t dest, uint16_t seq);
/* LOG 6: RECV site sender seq. */
void __wsn_rt_recv(uint16_t site, uint16_t sender, uint16_t seq);

/* Multi-level: SKIP_BEGIN site / SKIP_END site around a call to an uninstrumented callee. */
void __wsn_rt_skip_begin(uint16_t site);
void __wsn_rt_skip_end(uint16_t site);

/* Invariant check: checks += 1; CHECK or VIOLATION inv crc; calls __wsn_check_hook(inv). On
 * the first violation: sets flags bit 1 and `violation`, freezes the trace in black-box mode,
 * then calls __wsn_violation_hook(inv) (so a debugger stopping there sees the final trace);
 * the host build also writes the .wtr file then. */
void __wsn_rt_check(uint16_t inv, uint8_t ok, uint16_t crc);
/* CRC-16/CCITT-FALSE step: fold n bytes at p into crc (start with 0xFFFF). */
uint16_t __wsn_crc16(uint16_t crc, const void *p, uint16_t n);

/* Table-driven records: one call per site with a constant table `t` (its address) that
 * lists the record's length and variables as (address, size) pairs; the layouts are in
 * trace.c and spec/trace-format.md section 4. On AVR the table is in flash (program memory).
 * __wsn_rt_effect_t: EFFECT site len ret-bytes variables, in one atomic step; the table has no
 * site id, so that call sites with the same record layout share it. __wsn_rt_skip_effect_t:
 * the same, SKIP_END site first, in the same atomic step. __wsn_rt_check_t: CRC-16 over the
 * variables, then __wsn_rt_check, then #gv_reference += 1, with interrupts disabled
 * throughout. __wsn_rt_checkpoint_t: when the anchor flag is armed, CHECKPOINT id len
 * variables and #gv_reference = 0, atomically. __wsn_rt_put_t: the table's variables
 * appended to the record a *_begin opened (as __wsn_rt_put of each). */
void __wsn_rt_effect_t(uint16_t site, uintptr_t t, uint16_t ret);
void __wsn_rt_skip_effect_t(uint16_t site, uintptr_t t, uint16_t ret);
/* The same for return values of 3 or 4 bytes. */
void __wsn_rt_effect32_t(uint16_t site, uintptr_t t, uint32_t ret);
void __wsn_rt_skip_effect32_t(uint16_t site, uintptr_t t, uint32_t ret);
/* Effects of the bytes a skipped call changed (EFFECT_C, spec/trace-format.md section 3.3),
 * what __wsn_rt_skip_call does on the motes: __wsn_rt_snap(t, dst) returns the size of the
 * snapshot of effect table t's variables (its short form's when it has one; 0 above
 * WSN_TRACE_SNAP_MAX) and, with dst, takes it there (after SKIP_BEGIN, before the call),
 * and __wsn_rt_skip_effect_c(site, t, ret, snap) writes as __wsn_rt_skip_effect_t, but as
 * EFFECT_C, the bytes that differ from the snapshot (return bytes: from 0), when no handler
 * ran inside the span, no effect key applies and that is smaller. */
uint16_t __wsn_rt_snap(uintptr_t t, uint8_t *dst);
void __wsn_rt_skip_effect_c(uint16_t site, uintptr_t t, uint16_t ret, const uint8_t *snap);
void __wsn_rt_check_t(uintptr_t t, uint8_t ok);
void __wsn_rt_put_t(uintptr_t t);
void __wsn_rt_checkpoint_t(uintptr_t t);

/* Break-point hooks for simulators and debuggers: they do nothing, are never inlined and are
 * never merged with each other. */
void __wsn_check_hook(uint16_t inv);
void __wsn_violation_hook(uint16_t inv);

/* Send the raw trace object (header, ring and check values: WSN_TRACE_FILE_SIZE bytes, i.e. the
 * .wtr file) through a byte sink such as a polled UART, with interrupts disabled for a
 * consistent copy. */
void __wsn_rt_drain(void (*put)(uint8_t));

#if !defined(__AVR__) && !defined(__MSP430__)
/* Host only: write the trace object to `path`; returns 0 on success, -1 on error. A host
 * build writes it automatically at the first violation and at exit, to env WSN_TRACE_OUT
 * (default "trace.wtr"). */
int __wsn_rt_write_file(const char *path);
#endif

#ifdef __cplusplus
}
#endif

#endif /* WSN_TRACE_H */
