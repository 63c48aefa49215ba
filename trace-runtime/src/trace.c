/* trace.c - the trace runtime core: the ring writer and the record entry points.
 *
 * Format: spec/trace-format.md. Log types: Wang 2013 thesis section 4.1 (LOG types 1-5) and
 * section 5.1 (LOG type 6); segments and the anchor-armed rule: DESIGN-BRIEF section 4.
 *
 * Only <stdint.h>/<stddef.h> are used: there is no libc on the mote.
 *
 * Code size matters more than speed here (issue 4: a traced image should stay close to the
 * original's flash). Hence: every record goes through one writer (emit), the entry points are
 * thin tail calls into it, the header is written once at reset on the motes (not lazily by
 * every writer), and the table-driven entry points (__wsn_rt_effect_t, __wsn_rt_check_t,
 * __wsn_rt_checkpoint_t) replace the per-variable call chains the lowering used to emit. Each
 * entry point sits in its own section, so the linker's --gc-sections drops the ones a program
 * does not call.
 */
#include "wsn/trace.h"
#include "port.h"

#include <stddef.h>

/* Compile-time checks of the configuration (C99: a negative array size is an error). */
typedef char wsn_check_header_is_32_bytes[sizeof(struct __wsn_trace_header) == 32 ? 1 : -1];
typedef char wsn_check_buf_multiple_of_seg[(WSN_TRACE_BUF_SIZE % WSN_TRACE_SEG_SIZE) == 0 ? 1 : -1];
typedef char wsn_check_two_segments[WSN_TRACE_BUF_SIZE >= 2 * WSN_TRACE_SEG_SIZE ? 1 : -1];
/* The whole object (32 + ring) is walked with 16-bit indices, and the header's `open` field
 * keeps a head in 15 bits. */
typedef char wsn_check_buf_fits_u16[WSN_TRACE_BUF_SIZE <= 0x8000 ? 1 : -1];
typedef char wsn_check_seg_min[WSN_TRACE_SEG_SIZE >= 16 ? 1 : -1];
typedef char wsn_check_irq_depth[WSN_TRACE_IRQ_DEPTH >= 1 && WSN_TRACE_IRQ_DEPTH <= 255 ? 1 : -1];

/* The trace object: .bss, so it costs no flash; the header is written at reset. */
struct __wsn_trace_buffer __wsn_trace;
volatile uint16_t __wsn_node_id WSN_PORT_NOINIT;
volatile uint16_t __wsn_gv_reference;
/* Weak default so that programs without an instrumented module still link; the instrumented
 * module's strong definition wins. Weak definitions are not constant-folded. */
__attribute__((weak)) const uint32_t __wsn_module_hash = 0;

/* Runtime state (not part of the file). */
/* The AVR assembly core (below) shares these with the C code, hence reserved external names
 * kept by `used` (also through wsn-cc --whole-program's internalisation). */
#define rt_armed __wsn_rt_armed
#define rt_arg3 __wsn_rt_arg3
#define rt_rec __wsn_rt_rec
__attribute__((used)) uint8_t rt_armed; /* anchor flag: no checkpoint yet in this segment */
static uint8_t rt_irq_depth;     /* nesting of instrumented handlers */
/* Handlers inside skipped calls are recorded quietly (spec/trace-format.md section 2.1):
 * rt_skip_depth counts the open skip spans (a SKIP_BEGIN written, its SKIP_END not; the
 * SKIP_END merged into an effect call closes the span once the EFFECT is written too),
 * rt_quiet the handlers entered while a span (or a quiet handler) was open. wsn-sim --settle
 * reads __wsn_rt_skip_depth to let a node stopped inside a skipped call finish it. */
#define rt_skip_depth __wsn_rt_skip_depth
__attribute__((used)) uint8_t rt_skip_depth;
#define rt_quiet __wsn_rt_quiet /* read by the MSP430 input writer's assembly */
__attribute__((used)) uint8_t rt_quiet;
/* Short effects (spec/trace-format.md section 4): set when a handler is entered while a
 * skip span is open, cleared when a span opens; an effect table with a short form writes
 * the short form when it is clear (no handler wrote anything inside the skipped call). */
#define rt_span_irq __wsn_rt_span_irq /* shared with the assembly of __wsn_rt_skip_begin */
__attribute__((used)) uint8_t rt_span_irq;
static uint16_t rt_irq_saved[WSN_TRACE_IRQ_DEPTH]; /* interrupted contexts' #gv_reference */
static uint8_t *rt_cursor;       /* next byte of the open begin/put/end record */
static uint16_t rt_left;         /* bytes still owed to the open record */
static wsn_irq_state_t rt_open_irq; /* interrupt state saved by the open *_begin */
/* Effect keys (spec/trace-format.md section 3.1): full EFFECT records of the current segment
 * that a later effect of the same length may be written against as an EFFECT_DELTA. Bit i of
 * rt_keys_valid: slot i holds a key; entering a segment clears it (the writer core, also in
 * assembly), so a key is always a record of the segment being written, before the head. */
#define rt_keys_valid __wsn_rt_keys_valid
__attribute__((used)) uint8_t rt_keys_valid;
/* Short inputs (spec/trace-format.md section 3.4): the state INPUT_S records refer to belongs
 * to the segment being written; entering a segment clears this byte (the writer core, also in
 * assembly), and the next input starts the segment's state afresh (see "Short inputs" below). */
#define rt_in_valid __wsn_rt_in_valid
__attribute__((used)) uint8_t rt_in_valid;
/* An empty skip span is written as one SPAN_EFFECT record (section 3.5): the SKIP_BEGIN is
 * written before the call as always (a node stopped inside the call shows the open span), and
 * when the span's merged SKIP_END + EFFECT comes with nothing written since, the head goes
 * back over the SKIP_BEGIN and the one record is written in its place. rt_sb_end: the head
 * right after the last SKIP_BEGIN, 0 when there is none to take back (frozen, or it went to
 * the next segment after a PAD). Entering a segment clears it (the writer core, also in
 * assembly), so the head being rt_sb_end again proves that nothing was written since: within
 * a segment every record moves the head on. rt_sb_crc: the segment's check value before the
 * SKIP_BEGIN. RAM: 6 bytes. */
#define rt_sb_end __wsn_rt_sb_end
#define rt_sb_crc __wsn_rt_sb_crc
#define rt_sb_site __wsn_rt_sb_site
__attribute__((used)) uint16_t rt_sb_end, rt_sb_crc, rt_sb_site;

/* Format 9 (section 3.8): a periodic run of one-byte control records as a REPEAT record. The
 * state is valid while the head is rt_rep_at, the head right after the last control record
 * (or REPEAT) written; entering a segment clears it (the writer core, also in assembly), and
 * within a segment every record moves the head on, so any other record ends the run.
 * rt_rep_lit: control records written last in a row as their own byte (at most
 * WSN_REPEAT_BACK: a period is looked for that far back);
 * rt_rep_p: the candidate period (the last of them equals the record p before it; 0: none)
 * or the open REPEAT's; rt_rep_n: the open REPEAT's count (0: none open, the REPEAT is the
 * record before rt_rep_at); rt_rep_i: its source record the next one must equal;
 * rt_rep_crc: the segment's check value before its tag. RAM: 8 bytes. */
#ifndef WSN_TRACE_REPEAT
#define WSN_TRACE_REPEAT 1
#endif
/* Periods up to 4 are looked for, though the format has tags for 8: on the project's examples
 * the longer ones saved nothing (session 20's model over bench/tracesize's --full-trace
 * copies: sense-send 0.27-0.28 of the bytes either way, uart-cmd 0.85-0.92 with 4 against
 * 0.86-0.93 with 8), and each step back costs about 10 cycles on the MSP430. */
#define WSN_REPEAT_BACK 4
/* One object: the AVR assembly of ctl reaches the fields at fixed offsets (at +0, crc +2,
 * lit +4, p +5, n +6, i +7). */
struct wsn_rt_rep {
  uint16_t at, crc;
  uint8_t lit, p, n, i;
};
__attribute__((used)) struct wsn_rt_rep __wsn_rt_rep;
#define rt_rep_at __wsn_rt_rep.at
#define rt_rep_crc __wsn_rt_rep.crc
#define rt_rep_lit __wsn_rt_rep.lit
#define rt_rep_p __wsn_rt_rep.p
#define rt_rep_n __wsn_rt_rep.n
#define rt_rep_i __wsn_rt_rep.i

#ifndef WSN_TRACE_PACK
#define WSN_TRACE_PACK 1 /* checkpoints without their zero bytes (section 3.2) */
#endif
#if WSN_TRACE_PACK
/* Packed checkpoints (spec/trace-format.md section 3.2). The packer's state, shared with the
 * assembly: where the next packed byte goes, the open group's mask byte (reserved as soon as
 * the group before it is complete), and that mask being built behind a sentinel bit. */
#define rt_z_o __wsn_rt_z_o
#define rt_z_m __wsn_rt_z_m
#define rt_z_mask __wsn_rt_z_mask
__attribute__((used)) uint8_t *rt_z_o, *rt_z_m;
__attribute__((used)) uint8_t rt_z_mask;
/* A checkpoint written in pieces (an anchor with locals): its tag (NULL: none, or written
 * plain), its payload, the last byte a packed record may take (payload + len - 1), whether
 * no piece came yet, and the packed end once the last piece is in. */
static uint8_t *rt_ck_tag, *rt_ck_at, *rt_ck_end, *rt_ck_done;
static uint8_t rt_ck_first;
static uint16_t rt_ck_len; /* its payload's length (for the two-level groups, section 3.7) */
/* A checkpoint whose plain record does not fit in the rest of the segment is packed into the
 * rest (rt_ck_rest); when that fails too, __wsn_rt_record_end gives the attempt up and the
 * next __wsn_rt_checkpoint_begin (rt_ck_retry) reserves the plain record, after a PAD. */
static uint8_t rt_ck_rest, rt_ck_retry;
#if (defined(__AVR__) || defined(__MSP430__)) && !WSN_TRACE_NO_ASM
#define zwalk __wsn_rt_zwalk
#define zwalkn __wsn_rt_zwalkn
#define zrun __wsn_rt_zrun
uint8_t __wsn_rt_zwalk(uintptr_t t, const uint8_t *end);
uint8_t __wsn_rt_zwalkn(uintptr_t p, uint8_t n, const uint8_t *end);
uint8_t __wsn_rt_zrun(const uint8_t *src, uint16_t n, const uint8_t *end);
#define zend __wsn_rt_zend
uint8_t *__wsn_rt_zend(const uint8_t *end);
#else
static uint8_t zwalk(uintptr_t t, const uint8_t *end);
static uint8_t zwalkn(uintptr_t p, uint8_t n, const uint8_t *end);
static uint8_t zrun(const uint8_t *src, uint16_t n, const uint8_t *end);
static uint8_t *zend(const uint8_t *end);
#endif
#endif
#if WSN_TRACE_EFFECT_KEYS
typedef char wsn_check_effect_keys[WSN_TRACE_EFFECT_KEYS <= 8 ? 1 : -1];
static uint8_t rt_key_len[WSN_TRACE_EFFECT_KEYS];        /* payload length (keys: <= 255) */
static const uint8_t *rt_key_at[WSN_TRACE_EFFECT_KEYS]; /* the key's payload in the ring */
static uint8_t rt_key_next;                             /* round-robin replacement */
#endif
/* Third field of SEND/RECV (keeps emit at four arguments). */
__attribute__((used)) volatile uint16_t rt_arg3;

#define HDR (__wsn_trace.hdr)
/* All flags live in the low byte of the little-endian `flags` field: byte access is cheaper
 * on the 8-bit AVR. */
#define FLAGS (*(uint8_t *)&__wsn_trace.hdr.flags)

/* The header's `open` field (spec/trace-format.md section 1.1): a node may be stopped at any
 * instruction (a debugger, the simulator's cycle bound, a dead battery), also in the middle of
 * a record. Before a writer changes anything in the ring or the header it stores the head in
 * `open` (low byte first), and the store of the high byte with bit 15 set opens the record.
 * The single-byte store OPEN_HI = 0 closes it once
 * the record and the header fields it changes are complete. A decoder that finds bit 15 set
 * uses the saved head, so the incomplete record and half-updated header fields are ignored. */
#define OPEN_LO (((volatile uint8_t *)&__wsn_trace.hdr.open)[0])
#define OPEN_HI (((volatile uint8_t *)&__wsn_trace.hdr.open)[1])
/* Closing a record also seals it into its segment's check value (section 1.2, below). */
#define CLOSE() __wsn_rt_close()
void __wsn_rt_close(void);

#define NOINLINE __attribute__((noinline))
/* Helpers of one caller in practice (the other is garbage-collected when unused). */
#define INLINE inline __attribute__((always_inline))
#define SEG WSN_TRACE_SEG_SIZE

/* Write the header once (magic last, so a half-written header never looks valid). The object
 * is zero before (static storage, or __wsn_rt_reset), so only non-zero fields are stored. */
static NOINLINE void init_locked(void) {
  struct __wsn_trace_header *h = &HDR;
#if defined(__AVR__)
  /* A pointer the compiler cannot see through: base + displacement stores are half the size
   * of absolute ones on AVR. */
  __asm__("" : "+r"(h));
#endif
  if (h->magic[0] == 'W')
    return;
#ifdef WSN_PORT_HOST
  __wsn_port_host_init();
#endif
  h->version = WSN_TRACE_VERSION;
  h->target = WSN_PORT_TARGET;
  h->node_id = __wsn_node_id;
  /* Read through a volatile lvalue: a const weak definition may otherwise be folded to its
   * default even when the module overrides it. */
  h->module_hash = *(const volatile uint32_t *)&__wsn_module_hash;
  h->buf_size = WSN_TRACE_BUF_SIZE;
  h->seg_size = WSN_TRACE_SEG_SIZE;
  h->violation = WSN_TRACE_NO_VIOLATION;
  rt_armed = 1; /* segment 0 is a new segment */
  h->magic[1] = 'T';
  h->magic[2] = 'R';
  h->magic[3] = 'B';
  h->magic[0] = 'W';
}

/* used: the reset code calls it by name from assembly, which the optimiser does not see
 * (wsn-cc --whole-program internalises the runtime). */
__attribute__((used)) void __wsn_rt_init(void) {
  wsn_irq_state_t s = wsn_port_irq_save();
  init_locked();
  wsn_port_irq_restore(s);
}

/* On the motes the header is written once at reset, after .data/.bss are set up and before
 * main (so no writer needs to check for it): avr-libc runs section .init8 there, and the
 * project's MSP430 reset code (platform/msp430/crt0.S) runs .init.wsn_rtinit. The host keeps
 * the lazy initialisation (its first record also registers the at-exit trace file). */
#if defined(__AVR__)
__attribute__((naked, used, section(".init8"))) static void wsn_init_at_reset(void) {
  __asm__ __volatile__("call __wsn_rt_init");
}
#elif defined(__MSP430__)
__attribute__((naked, used, section(".init.wsn_rtinit"))) static void wsn_init_at_reset(void) {
  __asm__ __volatile__("call #__wsn_rt_init");
}
#endif

void __wsn_rt_reset(void) {
  wsn_irq_state_t s = wsn_port_irq_save();
  /* volatile: keeps the compiler from turning the loop into a memset call (no libc). */
  volatile uint8_t *p = (volatile uint8_t *)&__wsn_trace;
  uint16_t i;
  for (i = 0; i < (uint16_t)sizeof(__wsn_trace); ++i)
    p[i] = 0;
  rt_irq_depth = 0;
  rt_skip_depth = 0;
  rt_quiet = 0;
  rt_span_irq = 0;
  rt_left = 0;
  rt_keys_valid = 0;
  rt_in_valid = 0;
  rt_sb_end = 0;
  rt_rep_at = 0;
#if WSN_TRACE_PACK
  rt_ck_tag = NULL;
  rt_ck_retry = 0;
#endif
  __wsn_gv_reference = 0;
  init_locked();
  wsn_port_irq_restore(s);
}

/* On the motes, with segments of 256 bytes or a larger power of two (wsn-cc's 256 and 512),
 * the writer core (enter, reserve, put_varint and emit, the check-value fold, and walk below)
 * is hand-written assembly: clang's code for it is two to three times as large on AVR and
 * about twice on MSP430, and the fold a third slower. Same behaviour, same bytes:
 * lit-tests/recording/runtime-{avr,msp430}-matches-host.test run a seeded sequence of every
 * entry point on the simulators and compare with the host build (segments of 256, 512 and
 * 1024 bytes; 96 and 800 for the C path, which keeps the assembly walk and, on AVR, the CRC
 * loop). -DWSN_TRACE_NO_ASM=1 selects the C code everywhere. */
#if (defined(__AVR__) || defined(__MSP430__)) && WSN_TRACE_SEG_SIZE >= 256 &&                    \
    WSN_TRACE_SEG_SIZE <= 16384 && (WSN_TRACE_SEG_SIZE & (WSN_TRACE_SEG_SIZE - 1)) == 0 &&     \
    !WSN_TRACE_NO_ASM
#define WSN_ASM_CORE 1
#else
#define WSN_ASM_CORE 0
#endif
/* The table walk (below) does not depend on the geometry: in assembly on the motes whatever
 * the segment size (7 cycles a copied byte on AVR against about 23 for clang's code with its
 * table reads). */
#if (defined(__AVR__) || defined(__MSP430__)) && !WSN_TRACE_NO_ASM
#define WSN_ASM_WALK 1
#else
#define WSN_ASM_WALK 0
#endif
/* The SKIP_BEGIN's bookkeeping and its taking back (section 3.5) are assembly on the AVR for
 * the geometries whose ring arithmetic is cheap: the assembly core's powers of two, and the
 * segment sizes the C record path handles by subtraction (a ring of at most 8 segments). On
 * the MSP430 clang's code for them is as small as hand-written code. */
#if WSN_ASM_WALK && defined(__AVR__) &&                                                         \
    (WSN_ASM_CORE || ((WSN_TRACE_SEG_SIZE & (WSN_TRACE_SEG_SIZE - 1)) != 0 &&                  \
                      WSN_TRACE_BUF_SIZE / WSN_TRACE_SEG_SIZE <= 8))
#define WSN_ASM_SPAN 1
#else
#define WSN_ASM_SPAN 0
#endif
/* The C record path's ring arithmetic: a ring offset's segment and its offset in it. With a
 * segment size that is not a power of two, `%` and `/` are a library division on the AVR
 * (__udivmodhi4, about 200 cycles, five a record: on FtspSensorData's 800-byte segments an
 * eighth of the trace's added active cycles); a ring of a few segments needs at most a few
 * subtractions instead. */
#if (WSN_TRACE_SEG_SIZE & (WSN_TRACE_SEG_SIZE - 1)) == 0 ||                                      \
    WSN_TRACE_BUF_SIZE / WSN_TRACE_SEG_SIZE > 8
#define seg_index(x) ((uint16_t)((x) / WSN_TRACE_SEG_SIZE))
#define seg_offset(x) ((uint16_t)((x) % WSN_TRACE_SEG_SIZE))
#else
/* The empty asm keeps the optimiser from turning the loops back into a division. */
static inline __attribute__((always_inline)) uint16_t seg_index(uint16_t x) {
  uint16_t i = 0;
  while (x >= WSN_TRACE_SEG_SIZE) {
    x = (uint16_t)(x - WSN_TRACE_SEG_SIZE);
    __asm__("" : "+r"(x));
    ++i;
  }
  return i;
}
static inline __attribute__((always_inline)) uint16_t seg_offset(uint16_t x) {
  while (x >= WSN_TRACE_SEG_SIZE) {
    x = (uint16_t)(x - WSN_TRACE_SEG_SIZE);
    __asm__("" : "+r"(x));
  }
  return x;
}
#endif
/* For the assembly: a ring offset's high byte holds its segment's high bits above
 * WSN_SEG_SHIFT (log2 of seg/256) and its offset's high bits in WSN_SEG_HMASK; with 256-byte
 * segments both are 0 and the `.if WSN_SEG_HMASK` parts vanish (the 256 code is unchanged). */
#define WSN_SEG_HMASK ((WSN_TRACE_SEG_SIZE >> 8) - 1)
#if WSN_TRACE_SEG_SIZE <= 256
#define WSN_SEG_SHIFT 0
#elif WSN_TRACE_SEG_SIZE == 512
#define WSN_SEG_SHIFT 1
#elif WSN_TRACE_SEG_SIZE == 1024
#define WSN_SEG_SHIFT 2
#elif WSN_TRACE_SEG_SIZE == 2048
#define WSN_SEG_SHIFT 3
#elif WSN_TRACE_SEG_SIZE == 4096
#define WSN_SEG_SHIFT 4
#elif WSN_TRACE_SEG_SIZE == 8192
#define WSN_SEG_SHIFT 5
#else
#define WSN_SEG_SHIFT 6
#endif
#define S_SEG WSN_STR(WSN_TRACE_SEG_SIZE)
#define S_HMASK WSN_STR(WSN_SEG_HMASK)
/* The assembly routines: the body is the whole function (the asm is parsed for the
 * function's CPU, also when the runtime is compiled to bitcode for --whole-program). */
#define WSN_NAKED __attribute__((naked, noinline, used))
#define WSN_ARG __attribute__((unused)) /* the asm reads the argument registers */
/* AVR: the locked frame of the assembly entry points that save r15-r17 and Y and keep SREG
 * in r15 with interrupts disabled (__wsn_rt_skip_begin, __wsn_rt_in_write), and its end. */
#define WSN_AVR_LOCKED_ENTER                                                                    \
  "  push r15\n"                                                                                \
  "  push r16\n"                                                                                \
  "  push r17\n"                                                                                \
  "  push r28\n"                                                                                \
  "  push r29\n"                                                                                \
  "  in r15, 0x3f\n"                                                                            \
  "  cli\n"
#define WSN_AVR_LOCKED_LEAVE                                                                    \
  "  out 0x3f, r15\n"                                                                           \
  "  pop r29\n"                                                                                 \
  "  pop r28\n"                                                                                 \
  "  pop r17\n"                                                                                 \
  "  pop r16\n"                                                                                 \
  "  pop r15\n"                                                                                 \
  "  ret\n"
#define WSN_STR2(x) #x
#define WSN_STR(x) WSN_STR2(x)

#if !WSN_ASM_CORE
/* Writing entered the segment starting at `head`: wrap after the last one, arm the anchor
 * flag. Returns the (possibly wrapped) head, always < buf_size. */
static NOINLINE uint16_t enter(uint16_t head) {
  if (head == WSN_TRACE_BUF_SIZE) {
    head = 0;
    ++HDR.wraps;
    FLAGS |= WSN_TRACE_FLAG_WRAPPED;
  }
  rt_armed = 1;
  rt_keys_valid = 0; /* the keys were records of the segment left behind */
  rt_in_valid = 0;   /* and so were the inputs INPUT_S refers to */
  rt_sb_end = 0;     /* and the SKIP_BEGIN an empty span takes back */
  rt_rep_at = 0;     /* and the run of control records a REPEAT continues */
  return head;
}

/* Reserve a record of n bytes (tag included) in the ring, write its tag and return where the
 * rest goes. A record never straddles a segment: when it does not fit in what is left of the
 * current one, one PAD byte (0x00) ends that segment (the decoder ignores the rest of it) and
 * the record starts the next. Returns NULL when nothing may be written (frozen; a record
 * larger than a segment, which marks the trace DROPPED). Interrupts must be disabled. */
static NOINLINE uint8_t *reserve(uint8_t tag, uint16_t n) {
  uint16_t head, room;
  uint8_t *p;
#ifdef WSN_PORT_HOST
  init_locked();
#endif
  if (FLAGS & WSN_TRACE_FLAG_FROZEN)
    return NULL;
  if (n > SEG) {
    FLAGS |= WSN_TRACE_FLAG_DROPPED;
    return NULL;
  }
  head = HDR.head;
  room = (uint16_t)(SEG - seg_offset(head));
  OPEN_LO = (uint8_t)head;
  OPEN_HI = (uint8_t)((head >> 8) | 0x80u); /* the record is open from here */
  if (room < n) {
    __wsn_trace.data[head] = WSN_REC_PAD;
    head = enter((uint16_t)(head + room));
  }
  /* LOG type 4: the first anchor reached in a segment writes a checkpoint, which disarms the
   * flag; done before the head moves, so a record that fills the segment exactly re-arms. */
  if (tag == WSN_REC_CHECKPOINT)
    rt_armed = 0;
  p = &__wsn_trace.data[head];
  head = (uint16_t)(head + n);
  if (seg_offset(head) == 0)
    head = enter(head);
  HDR.head = head;
  *p = tag;
  return p + 1;
}

/* Unsigned LEB128 of a 16-bit value; returns the end. */
static NOINLINE uint8_t *put_varint(uint8_t *p, uint16_t v) {
  while (v >= 0x80u) {
    *p++ = (uint8_t)(v | 0x80u);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

#endif /* !WSN_ASM_CORE */

/* `kind` of emit: the tag plus which fields follow the first one. */
#define F_B 0x10u   /* a second field b */
#define F_C 0x20u   /* a third field (rt_arg3) */
#define F_RAW 0x40u /* b is the raw little-endian 16-bit checksum of CHECK/VIOLATION */
#define F_NOA 0x80u /* no field a (an INPUT_S: the tag, and the value when given, only) */
#define TAG(kind) ((uint8_t)((kind) & 0x0Fu))

/* The bytes of v as a varint (1-3). */
static NOINLINE uint8_t vsize(uint16_t v) {
  return (uint8_t)(1u + (v >= 0x80u) + (v >= 0x4000u));
}

/* The one record writer: tag, varint a, then b and c as `kind` says, then `extra` payload
 * bytes the caller writes through the returned pointer (NULL: nothing may be written).
 * The fields are assembled first, since the record's size decides where it starts; one static
 * scratch serves every writer because all of them run with interrupts disabled (and it saves
 * a stack frame on AVR). Interrupts must be disabled. */
/* (With WSN_TRACE_PACK it is also z2's bitmap, section 3.7: 16 bytes.) */
__attribute__((used)) uint8_t rt_rec[WSN_TRACE_PACK ? 16 : 3 * 3];
#if !WSN_ASM_CORE
static NOINLINE uint8_t *emit(uint16_t a, uint8_t kind, uint16_t b, uint16_t extra) {
  uint8_t *const rec = rt_rec;
  uint8_t *e = (kind & F_NOA) ? rec : put_varint(rec, a), *p, *q;
  if (kind & F_RAW) {
    e[0] = (uint8_t)b;
    e[1] = (uint8_t)(b >> 8);
    e += 2;
  } else if (kind & F_B) {
    e = put_varint(e, b);
  }
  if (kind & F_C)
    e = put_varint(e, rt_arg3);
  p = reserve(TAG(kind), (uint16_t)(1 + (e - rec) + extra));
  if (p) {
    /* volatile: a plain loop becomes a memcpy call, and there is no libc on the mote. */
    volatile uint8_t *d = p;
    for (q = rec; q != e;)
      *d++ = *q++;
    p = (uint8_t *)d;
  }
  return p;
}

#elif defined(__AVR__)
/* uint8_t *emit(uint16_t a r25:24, uint8_t kind r22, uint16_t b r21:20, uint16_t extra
 * r19:18), as the C version: fields into rt_rec (X), the record's size, then the ring (head
 * in Z; one PAD and the next segment when it does not fit; entering a segment wraps at
 * buf_size and arms the anchor flag), tag and fields copied, payload pointer returned (0:
 * frozen or too large, which sets DROPPED). Uses only call-clobbered registers; r1 stays 0. */
#define emit __wsn_rt_emit
WSN_NAKED uint8_t *__wsn_rt_emit(WSN_ARG uint16_t a, WSN_ARG uint8_t kind, WSN_ARG uint16_t b,
                                 WSN_ARG uint16_t extra) {
  __asm__ __volatile__(
      "  ldi r26, lo8(__wsn_rt_rec)\n"
      "  ldi r27, hi8(__wsn_rt_rec)\n"
      "  sbrs r22, 7\n"                /* F_NOA: no field a */
      "  rcall .Lwsn_vput\n"           /* a */
      "  sbrs r22, 6\n"                /* F_RAW: b as two raw bytes */
      "  rjmp 1f\n"
      "  st X+, r20\n"
      "  st X+, r21\n"
      "1:\n"
      "  movw r24, r20\n"
      "  sbrc r22, 4\n"                /* F_B: b as a varint */
      "  rcall .Lwsn_vput\n"
      "  sbrs r22, 5\n"                /* F_C: rt_arg3 as a varint */
      "  rjmp 2f\n"
      "  lds r24, __wsn_rt_arg3\n"
      "  lds r25, __wsn_rt_arg3+1\n"
      "  rcall .Lwsn_vput\n"
      "2:\n"
      "  mov r23, r26\n"               /* r23 = bytes of fields (1..9) */
      "  subi r23, lo8(__wsn_rt_rec)\n"
      "  lds r24, __wsn_trace+18\n"    /* flags */
      "  sec\n"                        /* n = extra + fields + 1 (the tag) */
      "  adc r18, r23\n"
      "  adc r19, r1\n"
      "  brcs 3f\n"
      "  sbrc r24, 2\n"                /* frozen: nothing */
      "  rjmp .Lwsn_null\n"
      "  cpi r18, lo8(" S_SEG "+1)\n"   /* n > seg: larger than a segment */
      "  ldi r25, hi8(" S_SEG "+1)\n"
      "  cpc r19, r25\n"
      "  brlo 4f\n"
      "3:\n"
      "  ori r24, 8\n"                 /* DROPPED */
      "  sts __wsn_trace+18, r24\n"
      ".Lwsn_null:\n"
      "  ldi r24, 0\n"
      "  ldi r25, 0\n"
      "  ret\n"
      "4:\n"
      "  lds r30, __wsn_trace+16\n"    /* Z = head */
      "  lds r31, __wsn_trace+17\n"
      "  mov r24, r30\n"               /* (head % seg) + n > seg: PAD, next segment */
      ".if " S_HMASK "\n"
      "  mov r25, r31\n"
      "  andi r25, " S_HMASK "\n"
      ".else\n"
      "  clr r25\n"
      ".endif\n"
      "  add r24, r18\n"
      "  adc r25, r19\n"
      "  ldi r20, hi8(" S_SEG "+1)\n"
      "  sts __wsn_trace+30, r30\n"   /* open: the head (low byte first), then bit 15 */
      "  mov r21, r31\n"
      "  ori r21, 0x80\n"
      "  sts __wsn_trace+31, r21\n"   /* the record is open from here */
      "  cpi r24, lo8(" S_SEG "+1)\n"
      "  cpc r25, r20\n"
      "  brlo 5f\n"
      "  movw r26, r30\n"
      "  subi r26, lo8(-(__wsn_trace+32))\n"
      "  sbci r27, hi8(-(__wsn_trace+32))\n"
      "  st X, r1\n"
      "  clr r30\n"
      ".if " S_HMASK "\n"
      "  ori r31, " S_HMASK "\n"
      ".endif\n"
      "  inc r31\n"
      "  rcall .Lwsn_enter\n"
      "5:\n"
      "  mov r24, r22\n"               /* the tag; a checkpoint disarms before head moves */
      "  andi r24, 15\n"
      "  cpi r24, 6\n"
      "  brne 6f\n"
      "  sts __wsn_rt_armed, r1\n"
      "6:\n"
      "  movw r26, r30\n"              /* X = &data[head] */
      "  subi r26, lo8(-(__wsn_trace+32))\n"
      "  sbci r27, hi8(-(__wsn_trace+32))\n"
      "  add r30, r18\n"               /* head += n; a full segment enters the next */
      "  adc r31, r19\n"
      "  tst r30\n"
      "  brne 7f\n"
      ".if " S_HMASK "\n"
      "  mov r20, r31\n"
      "  andi r20, " S_HMASK "\n"
      "  brne 7f\n"
      ".endif\n"
      "  rcall .Lwsn_enter\n"
      "7:\n"
      "  sts __wsn_trace+17, r31\n"
      "  sts __wsn_trace+16, r30\n"
      "  st X+, r24\n"                 /* tag, then the fields (F_NOA: maybe none) */
      "  tst r23\n"
      "  breq 9f\n"
      "  ldi r30, lo8(__wsn_rt_rec)\n"
      "  ldi r31, hi8(__wsn_rt_rec)\n"
      "8:\n"
      "  ld r0, Z+\n"
      "  st X+, r0\n"
      "  dec r23\n"
      "  brne 8b\n"
      "9:\n"
      "  movw r24, r26\n"
      "  ret\n"
      /* Z = the start of the segment writing enters: 0 after the last one (wraps += 1, flag
       * WRAPPED), and the anchor flag is armed. Clobbers r0, r20; keeps X, r18-r19, r22-r24. */
      ".Lwsn_enter:\n"
      "  cpi r30, lo8(" WSN_STR(WSN_TRACE_BUF_SIZE) ")\n"
      "  ldi r20, hi8(" WSN_STR(WSN_TRACE_BUF_SIZE) ")\n"
      "  cpc r31, r20\n"
      "  brne 2f\n"
      "  ldi r30, lo8(__wsn_trace+20)\n"
      "  ldi r31, hi8(__wsn_trace+20)\n"
      "1:\n"                           /* the 32-bit wraps counter, carry by carry */
      "  ld r0, Z\n"
      "  inc r0\n"
      "  st Z+, r0\n"
      "  brne 3f\n"
      "  cpi r30, lo8(__wsn_trace+24)\n"
      "  brne 1b\n"
      "3:\n"
      "  lds r20, __wsn_trace+18\n"
      "  ori r20, 1\n"
      "  sts __wsn_trace+18, r20\n"
      "  clr r30\n"
      "  clr r31\n"
      "2:\n"
      "  ldi r20, 1\n"
      "  sts __wsn_rt_armed, r20\n"
      "  sts __wsn_rt_keys_valid, r1\n" /* the effect keys were of the segment left */
      "  sts __wsn_rt_in_valid, r1\n"   /* and the inputs INPUT_S refers to */
      "  sts __wsn_rt_sb_end, r1\n"     /* and the SKIP_BEGIN an empty span takes back */
      "  sts __wsn_rt_sb_end+1, r1\n"
      "  sts __wsn_rt_rep, r1\n"       /* and the run a REPEAT continues */
      "  sts __wsn_rt_rep+1, r1\n"
      "  ret\n"
      /* Unsigned LEB128 of r25:24 at X+. Clobbers r0, r24, r25 and T. */
      ".Lwsn_vput:\n"
      "  cpi r24, 0x80\n"
      "  cpc r25, r1\n"
      "  brlo 1f\n"
      "  mov r0, r24\n"
      "  set\n"
      "  bld r0, 7\n"
      "  st X+, r0\n"
      "  lsl r24\n"                    /* r25:24 >>= 7 */
      "  rol r25\n"
      "  mov r24, r25\n"
      "  ldi r25, 0\n"
      "  rol r25\n"
      "  rjmp .Lwsn_vput\n"
      "1:\n"
      "  st X+, r24\n"
      "  ret\n");
}
#else /* MSP430 */
/* The same for MSP430: a r12, kind r13, b r14, extra r15, result r12; fields assembled at
 * r11, head in r14, the record pointer in r13. Only r11-r15 (call-clobbered) are used. */
#define emit __wsn_rt_emit
WSN_NAKED uint8_t *__wsn_rt_emit(WSN_ARG uint16_t a, WSN_ARG uint8_t kind, WSN_ARG uint16_t b,
                                 WSN_ARG uint16_t extra) {
  __asm__ __volatile__(
      "  mov #__wsn_rt_rec, r11\n"
      "  bit #0x80, r13\n"             /* F_NOA: no field a */
      "  jnz 11f\n"
      "  cmp #0x80, r12\n"             /* a; one byte inline, longer ones at 10 */
      "  jhs 10f\n"
      "  mov.b r12, 0(r11)\n"
      "  inc r11\n"
      "11:\n"
      "  bit #0x40, r13\n"              /* F_RAW */
      "  jz 1f\n"
      "  mov.b r14, 0(r11)\n"
      "  swpb r14\n"
      "  mov.b r14, 1(r11)\n"
      "  incd r11\n"
      "  jmp 2f\n"
      "1:\n"
      "  bit #0x10, r13\n"              /* F_B; one byte inline, longer ones at 12 */
      "  jz 2f\n"
      "  cmp #0x80, r14\n"
      "  jhs 12f\n"
      "  mov.b r14, 0(r11)\n"
      "  inc r11\n"
      "2:\n"
      "  bit #0x20, r13\n"              /* F_C */
      "  jz 3f\n"
      "  mov &__wsn_rt_arg3, r12\n"
      "  call #.Lwsn_vput\n"
      "3:\n"
      "  sub #__wsn_rt_rec, r11\n"      /* r11 = bytes of fields */
      "  add r11, r15\n"                /* n = extra + fields + 1 */
      "  jc .Lwsn_drop\n"
      "  inc r15\n"
      "  jc .Lwsn_drop\n"
      "  bit.b #4, &__wsn_trace+18\n"   /* frozen */
      "  jnz .Lwsn_null\n"
      "  cmp #" S_SEG "+1, r15\n"       /* larger than a segment */
      "  jlo 4f\n"
      ".Lwsn_drop:\n"
      "  bis.b #8, &__wsn_trace+18\n"
      ".Lwsn_null:\n"
      "  clr r12\n"
      "  ret\n"
      "4:\n"
      "  mov &__wsn_trace+16, r14\n"    /* head */
      "  mov r14, r12\n"               /* open: 0x8000 | head, one word store */
      "  bis #0x8000, r12\n"
      "  mov r12, &__wsn_trace+30\n"
      ".if " S_HMASK "\n"               /* (head % seg) + n > seg: PAD, next segment */
      "  mov r14, r12\n"
      "  and #" S_SEG "-1, r12\n"
      ".else\n"
      "  mov.b r14, r12\n"
      ".endif\n"
      "  add r15, r12\n"
      "  cmp #" S_SEG "+1, r12\n"
      "  jlo 5f\n"
      "  clr.b __wsn_trace+32(r14)\n"
      "  and #0x10000-" S_SEG ", r14\n"
      "  add #" S_SEG ", r14\n"
      "  call #.Lwsn_enter\n"
      "5:\n"
      "  mov.b r13, r12\n"              /* the tag; a checkpoint disarms before head moves */
      "  and #15, r12\n"
      "  cmp #6, r12\n"
      "  jne 6f\n"
      "  clr.b &__wsn_rt_armed\n"
      "6:\n"
      "  mov r14, r13\n"                /* r13 = &data[head] */
      "  add #__wsn_trace+32, r13\n"
      "  add r15, r14\n"                /* head += n; a full segment enters the next */
      ".if " S_HMASK "\n"
      "  bit #" S_SEG "-1, r14\n"
      ".else\n"
      "  tst.b r14\n"
      ".endif\n"
      "  jnz 7f\n"
      "  call #.Lwsn_enter\n"
      "7:\n"
      "  mov r14, &__wsn_trace+16\n"
      "  mov.b r12, 0(r13)\n"           /* tag, then the fields (F_NOA: maybe none) */
      "  inc r13\n"
      "  tst r11\n"
      "  jz 9f\n"
      "  mov #__wsn_rt_rec, r12\n"
      "8:\n"
      "  mov.b @r12+, r14\n"
      "  mov.b r14, 0(r13)\n"
      "  inc r13\n"
      "  dec r11\n"
      "  jnz 8b\n"
      "9:\n"
      "  mov r13, r12\n"
      "  ret\n"
      "10:\n"
      "  call #.Lwsn_vput\n"
      "  jmp 11b\n"
      "12:\n"
      "  mov r14, r12\n"
      "  call #.Lwsn_vput\n"
      "  jmp 2b\n"
      /* r14 = the start of the segment writing enters: 0 after the last one (wraps += 1, flag
       * WRAPPED); arms the anchor flag. */
      ".Lwsn_enter:\n"
      ".global __wsn_rt_enter\n"       /* also ctl's (r14 in and out, nothing else changed) */
      "__wsn_rt_enter:\n"
      "  cmp #" WSN_STR(WSN_TRACE_BUF_SIZE) ", r14\n"
      "  jne 1f\n"
      "  clr r14\n"
      "  inc &__wsn_trace+20\n"
      "  adc &__wsn_trace+22\n"
      "  bis.b #1, &__wsn_trace+18\n"
      "1:\n"
      "  mov.b #1, &__wsn_rt_armed\n"
      "  clr.b &__wsn_rt_keys_valid\n"  /* the effect keys were of the segment left */
      "  clr.b &__wsn_rt_in_valid\n"    /* and the inputs INPUT_S refers to */
      "  clr &__wsn_rt_sb_end\n"        /* and the SKIP_BEGIN an empty span takes back */
      "  clr &__wsn_rt_rep\n"           /* and the run a REPEAT continues */
      "  ret\n"
      /* Unsigned LEB128 of r12 at r11 (advanced). Clobbers r12. */
      ".Lwsn_vput:\n"
      "  cmp #0x80, r12\n"
      "  jlo 1f\n"
      "  mov.b r12, 0(r11)\n"
      "  bis.b #0x80, 0(r11)\n"
      "  inc r11\n"
      "  rla r12\n"                     /* r12 >>= 7: bits 7..14 via swpb, bit 15 from carry */
      "  swpb r12\n"
      "  mov.b r12, r12\n"
      "  jnc .Lwsn_vput\n"
      "  bis #0x100, r12\n"
      "  jmp .Lwsn_vput\n"
      "1:\n"
      "  mov.b r12, 0(r11)\n"
      "  inc r11\n"
      "  ret\n");
}
#endif /* !WSN_ASM_CORE */

/* Check values (spec/trace-format.md section 1.2): each segment has a CRC-16/CCITT-FALSE
 * (poly 0x1021, init 0xFFFF) of its bytes in this lap: from its first byte to the head while
 * it is being written, all of its bytes once writing has left it. The writer core does not
 * touch it: closing a record folds the record's bytes in, and the record's extent comes from
 * the header alone. It starts at the saved head in `open`, or, when the byte there is PAD (a
 * record's tag is never 0x00), that PAD ends the segment (the value of a segment left behind
 * covers all of it, so it never depends on where its records end: with two bytes or more
 * after the PAD they become the CRC through the PAD, high byte first, and zeros, which makes
 * the value 0 without reading stale bytes; one byte or none is folded) and the record starts
 * the next one; it ends at head. A record starting a
 * segment restarts that segment's value. The value is stored low byte first; a stop before
 * the store, between the two byte stores or after it leaves `open` set, and the decoder
 * accepts exactly those three values for the open segment. */

#if defined(__AVR__)
/* One byte of the CRC (hi in A, lo in B): X = byte ^ hi, X ^= X >> 4; then the new hi is
 * lo ^ (X << 4) ^ (X >> 3), built in B, and the new lo X ^ (X << 5), built in X; A is free
 * for the next byte, so three registers take turns and no state is moved (17 cycles). X << 4
 * and X >> 4 come from one nibble swap; shifting that pair left by one bit gives X << 5 and
 * X >> 3. */
#define WSN_AVR_CRC_STEP(A, B, X)                                                                 \
  "  ld " X ", Z+\n"                                                                              \
  "  eor " X ", " A "\n"                                                                          \
  "  mov r18, " X "\n"                                                                            \
  "  swap r18\n"                                                                                  \
  "  andi r18, 0x0f\n"                                                                            \
  "  eor " X ", r18\n"                                                                            \
  "  mov r18, " X "\n"                                                                            \
  "  swap r18\n"                                                                                  \
  "  mov r0, r18\n"                                                                               \
  "  andi r18, 0xf0\n"                  /* X << 4 */                                              \
  "  eor r0, r18\n"                     /* X >> 4 */                                              \
  "  eor " B ", r18\n"                                                                            \
  "  lsl r18\n"                         /* X << 5; carry: bit 3 of X */                           \
  "  rol r0\n"                          /* X >> 3 */                                              \
  "  eor " B ", r0\n"                                                                             \
  "  eor " X ", r18\n"
#if WSN_SEG_HMASK
#define WSN_AVR_CRC_COUNT "  subi r22, 1\n  sbci r23, 0\n" /* Z: both bytes 0 */
#else
#define WSN_AVR_CRC_COUNT "  dec r22\n"
#endif
#endif

#if !WSN_ASM_CORE
/* Fold n bytes at p (all in one segment) into that segment's check value: CRC-16/CCITT-FALSE
 * one byte at a time, without a table (the same result as eight steps of the bitwise form
 * in crc_byte below): x = byte ^ high byte, x ^= x >> 4, then crc = (crc << 8) ^ (x << 12) ^
 * (x << 5) ^ x, written with 8-bit operations (the motes' registers). */
#if defined(__AVR__) && !WSN_TRACE_NO_ASM
/* The CRC of n bytes at p continued from crc (the segment sizes the assembly core does not
 * take): the core's loop, 20 cycles a byte against about 27 for clang's code. */
#define crc_run __wsn_rt_crc_run
WSN_NAKED uint16_t __wsn_rt_crc_run(WSN_ARG const uint8_t *p, WSN_ARG uint16_t n,
                                    WSN_ARG uint16_t crc) {
  __asm__ __volatile__(
      "  movw r30, r24\n"
      "  cp r22, r1\n"
      "  cpc r23, r1\n"
      "  breq 6f\n"
      "2:\n"
      WSN_AVR_CRC_STEP("r21", "r20", "r19") "  subi r22, 1\n  sbci r23, 0\n  breq 4f\n"
      WSN_AVR_CRC_STEP("r20", "r19", "r21") "  subi r22, 1\n  sbci r23, 0\n  breq 5f\n"
      WSN_AVR_CRC_STEP("r19", "r21", "r20") "  subi r22, 1\n  sbci r23, 0\n  brne 2b\n"
      "  rjmp 6f\n"
      "4:\n"
      "  mov r21, r20\n"
      "  mov r20, r19\n"
      "  rjmp 6f\n"
      "5:\n"
      "  mov r20, r21\n"
      "  mov r21, r19\n"
      "6:\n"
      "  movw r24, r20\n"
      "  ret\n");
}
#endif

/* Fold n bytes at p (all in one segment) into that segment's check value, and store it (low
 * byte first, section 1.2) unless `keep`: then only return it (a PAD's value, which closing
 * stores after the bytes that follow the PAD). */
static NOINLINE uint16_t fold(const uint8_t *p, uint16_t n, uint8_t keep) {
  uint16_t off = (uint16_t)(p - __wsn_trace.data);
  volatile uint8_t *c = __wsn_trace.check[seg_index(off)];
  uint8_t lo = 0xFFu, hi = 0xFFu;
  if (seg_offset(off)) {
    lo = c[0];
    hi = c[1];
  }
#ifdef crc_run
  {
    uint16_t v = crc_run(p, n, (uint16_t)(lo | ((uint16_t)hi << 8)));
    lo = (uint8_t)v;
    hi = (uint8_t)(v >> 8);
  }
#else
  uint8_t x;
  while (n--) {
    x = (uint8_t)(hi ^ *p++);
    x ^= (uint8_t)(x >> 4);
    hi = (uint8_t)(lo ^ (uint8_t)(x << 4) ^ (uint8_t)(x >> 3));
    lo = (uint8_t)(x ^ (uint8_t)(x << 5));
  }
#endif
  if (!keep) {
    c[0] = lo;
    c[1] = hi;
  }
  return (uint16_t)(lo | ((uint16_t)hi << 8));
}

/* Seal and close the open record (no-op when emit opened none: frozen, too large).
 * Interrupts must be disabled. */
__attribute__((used)) NOINLINE void __wsn_rt_close(void) {
  uint8_t hi = OPEN_HI;
  uint16_t at, head, n;
  if (!(hi & 0x80u))
    return;
  at = (uint16_t)(OPEN_LO | ((uint16_t)(hi & 0x7Fu) << 8));
  if (__wsn_trace.data[at] == WSN_REC_PAD) {
    /* The segment is left: its value covers all of it. With two bytes or more after the
     * PAD, they become the CRC so far (high byte first) and zeros, which brings the value to
     * 0 and keeps it there: a few cycles a byte instead of folding stale bytes. */
    uint16_t rest = (uint16_t)(SEG - 1 - seg_offset(at));
    if (rest >= 2) {
      uint16_t v = fold(&__wsn_trace.data[at], 1, 1);
      volatile uint8_t *z = &__wsn_trace.data[at + 1];
      volatile uint8_t *c = __wsn_trace.check[seg_index(at)];
      z[0] = (uint8_t)(v >> 8);
      z[1] = (uint8_t)v;
      z += 2;
      rest = (uint16_t)(rest - 2);
      while (rest--)
        *z++ = 0;
      c[0] = 0;
      c[1] = 0;
    } else {
      fold(&__wsn_trace.data[at], (uint16_t)(rest + 1), 0);
    }
    at = (uint16_t)(at - seg_offset(at) + SEG);
    if (at == WSN_TRACE_BUF_SIZE)
      at = 0;
  }
  head = HDR.head;
  n = (uint16_t)(head - at);
  if (head < at)
    n = (uint16_t)(n + WSN_TRACE_BUF_SIZE);
  fold(&__wsn_trace.data[at], n, 0);
  OPEN_HI = 0;
}

#elif defined(__AVR__)
/* The same in AVR assembly (segments of 256 bytes or a larger power of two: a ring offset's
 * segment is its high byte shifted right by WSN_SEG_SHIFT). at = the saved head (r25:24), Z =
 * &data[at]; a PAD there ends its segment (the CRC through it and zeros after it, or the rest
 * folded when under two bytes) and moves at to the next segment start (0 after the last);
 * then n = head - at (mod seg, 1..seg; 0 stands for seg) bytes are folded. .Lwsn_fold: r22
 * bytes (256-byte segments: 0 is 256), or r23:22 bytes (larger ones), at Z into check[at /
 * seg] (restarted at 0xFFFF when at is a segment start; with T set the value is left in
 * r21:20 and not stored); the CRC state moves through r21, r20 and r19 (WSN_AVR_CRC_STEP),
 * 19 cycles a byte, 20 with the 16-bit count (23 and 24 with a fixed state register pair).
 * Uses only call-clobbered registers; r1 stays 0. */
WSN_NAKED void __wsn_rt_close(void) {
  __asm__ __volatile__(
      "  lds r25, __wsn_trace+31\n"
      "  sbrs r25, 7\n"                /* no record open: nothing */
      "  ret\n"
      "  andi r25, 0x7f\n"
      "  lds r24, __wsn_trace+30\n"
      "  movw r30, r24\n"
      "  subi r30, lo8(-(__wsn_trace+32))\n"
      "  sbci r31, hi8(-(__wsn_trace+32))\n"
      "  clt\n"                        /* T set: .Lwsn_fold leaves the value to us */
      "  ld r0, Z\n"
      "  tst r0\n"
      "  brne 1f\n"
      "  mov r22, r24\n"               /* PAD: rest = seg - 1 - (at % seg) bytes after it */
      "  com r22\n"
      ".if " S_HMASK "\n"
      "  mov r23, r25\n"
      "  com r23\n"
      "  andi r23, " S_HMASK "\n"
      "  cpi r22, 2\n"
      "  cpc r23, r1\n"
      ".else\n"
      "  cpi r22, 2\n"
      ".endif\n"
      "  brsh 3f\n"
      "  inc r22\n"                    /* 0 or 1 byte after it: fold them with the PAD */
      "  rcall .Lwsn_fold\n"
      "  rjmp 5f\n"
      "3:\n"                           /* the CRC through the PAD, then zeros: the value is 0 */
      "  ldi r22, 1\n"
      ".if " S_HMASK "\n"
      "  clr r23\n"
      ".endif\n"
      "  set\n"
      "  rcall .Lwsn_fold\n"
      "  clt\n"
      "  st Z+, r21\n"                 /* high byte first: CRC(segment) = 0 from here on */
      "  st Z+, r20\n"
      "  mov r22, r24\n"               /* rest - 2 zeros (0..seg-3) */
      "  com r22\n"
      ".if " S_HMASK "\n"
      "  mov r23, r25\n"
      "  com r23\n"
      "  andi r23, " S_HMASK "\n"
      "  subi r22, 2\n"
      "  sbci r23, 0\n"
      ".else\n"
      "  subi r22, 2\n"
      ".endif\n"
      "  rjmp 4f\n"
      "6:\n"
      "  st Z+, r1\n"
      "4:\n"
      "  subi r22, 1\n"
      ".if " S_HMASK "\n"
      "  sbci r23, 0\n"
      ".endif\n"
      "  brcc 6b\n"
      "  st X+, r1\n"                  /* the value 0, low byte first */
      "  st X, r1\n"
      "5:\n"
      "  clr r24\n"                    /* the next segment; Z is at its start */
      ".if " S_HMASK "\n"
      "  ori r25, " S_HMASK "\n"
      ".endif\n"
      "  inc r25\n"
      "  cpi r25, hi8(" WSN_STR(WSN_TRACE_BUF_SIZE) ")\n"
      "  brne 1f\n"
      "  clr r25\n"
      "  ldi r30, lo8(__wsn_trace+32)\n"
      "  ldi r31, hi8(__wsn_trace+32)\n"
      "1:\n"
      "  lds r22, __wsn_trace+16\n"    /* n = head - at, plus buf_size when it wrapped */
      "  lds r23, __wsn_trace+17\n"
      "  sub r22, r24\n"
      "  sbc r23, r25\n"
      ".if " S_HMASK "\n"
      "  andi r23, " S_HMASK "\n"      /* mod seg; 0 stands for seg (n is 1..seg) */
      "  cp r22, r1\n"
      "  cpc r23, r1\n"
      "  brne 2f\n"
      "  ldi r23, hi8(" S_SEG ")\n"
      "2:\n"
      ".endif\n"
      "  rcall .Lwsn_fold\n"           /* 256-byte segments: only r22 counts (n <= 256) */
      "  sts __wsn_trace+31, r1\n"     /* closed */
      "  ret\n"
      ".Lwsn_fold:\n"
      "  mov r26, r25\n"               /* X = &check[at / seg] */
      ".rept " WSN_STR(WSN_SEG_SHIFT) "\n"
      "  lsr r26\n"
      ".endr\n"
      "  lsl r26\n"
      "  clr r27\n"
      "  subi r26, lo8(-(__wsn_trace+32+" WSN_STR(WSN_TRACE_BUF_SIZE) "))\n"
      "  sbci r27, hi8(-(__wsn_trace+32+" WSN_STR(WSN_TRACE_BUF_SIZE) "))\n"
      "  ldi r20, 0xff\n"
      "  ldi r21, 0xff\n"
      ".if " S_HMASK "\n"
      "  mov r18, r25\n"               /* at % seg == 0: a segment start */
      "  andi r18, " S_HMASK "\n"
      "  or r18, r24\n"
      ".else\n"
      "  tst r24\n"
      ".endif\n"
      "  breq 2f\n"
      "  ld r20, X+\n"
      "  ld r21, X\n"
      "  sbiw r26, 1\n"
      "2:\n"                          /* three bytes a turn, the state moving on */
      WSN_AVR_CRC_STEP("r21", "r20", "r19") WSN_AVR_CRC_COUNT "  breq 4f\n"
      WSN_AVR_CRC_STEP("r20", "r19", "r21") WSN_AVR_CRC_COUNT "  breq 5f\n"
      WSN_AVR_CRC_STEP("r19", "r21", "r20") WSN_AVR_CRC_COUNT "  brne 2b\n"
      "  rjmp 6f\n"
      "4:\n"                          /* state in r20:19 */
      "  mov r21, r20\n"
      "  mov r20, r19\n"
      "  rjmp 6f\n"
      "5:\n"                          /* state in r19:21 */
      "  mov r20, r21\n"
      "  mov r21, r19\n"
      "6:\n"
      "  brts 3f\n"
      "  st X+, r20\n"                 /* low byte first */
      "  st X, r21\n"
      "3:\n"
      "  ret\n");
}
#else /* MSP430 */
/* The same for MSP430: at in r12, &data[at] in r13, count in r14 (1..seg), CRC in r15, the
 * check value's address in r11, x in r12 inside the fold. The check array is word aligned
 * (the trace object is), but the value is stored byte by byte, low byte first, as on AVR. */
WSN_NAKED void __wsn_rt_close(void) {
  __asm__ __volatile__(
      "  mov &__wsn_trace+30, r12\n"
      "  tst r12\n"                     /* bit 15 clear: no record open */
      "  jge 9f\n"
      "  and #0x7fff, r12\n"
      "  mov r12, r13\n"
      "  add #__wsn_trace+32, r13\n"
      "  tst.b 0(r13)\n"
      "  jnz 1f\n"
      "  mov r12, r14\n"               /* PAD: rest = seg - 1 - (at % seg) bytes after it */
      "  inv r14\n"
      "  and #" S_SEG "-1, r14\n"
      "  cmp #2, r14\n"
      "  jhs 3f\n"
      "  inc r14\n"                    /* 0 or 1 byte after it: fold them with the PAD */
      "  call #.Lwsn_fold\n"
      "  jmp 5f\n"
      "3:\n"                           /* the CRC through the PAD, then zeros: the value is 0 */
      "  mov #1, r14\n"
      "  bis #0x8000, r12\n"           /* bit 15: .Lwsn_fold leaves the value to us */
      "  call #.Lwsn_fold\n"
      "  bic #0x8000, r12\n"
      "  mov r15, r14\n"
      "  swpb r14\n"
      "  mov.b r14, 0(r13)\n"          /* high byte first: CRC(segment) = 0 from here on */
      "  mov.b r15, 1(r13)\n"
      "  incd r13\n"
      "  mov r12, r14\n"               /* rest - 2 zeros (0..seg-3) */
      "  inv r14\n"
      "  and #" S_SEG "-1, r14\n"
      "  decd r14\n"
      "  jz 7f\n"
      "6:\n"
      "  clr.b 0(r13)\n"
      "  inc r13\n"
      "  dec r14\n"
      "  jnz 6b\n"
      "7:\n"
      "  clr.b 0(r11)\n"               /* the value 0 */
      "  clr.b 1(r11)\n"
      "5:\n"
      "  and #0x10000-" S_SEG ", r12\n" /* the next segment; r13 is at its start */
      "  add #" S_SEG ", r12\n"
      "  cmp #" WSN_STR(WSN_TRACE_BUF_SIZE) ", r12\n"
      "  jne 1f\n"
      "  clr r12\n"
      "  mov #__wsn_trace+32, r13\n"
      "1:\n"
      "  mov &__wsn_trace+16, r14\n"    /* n = head - at, plus buf_size when it wrapped */
      "  sub r12, r14\n"
      "  jhs 2f\n"
      "  add #" WSN_STR(WSN_TRACE_BUF_SIZE) ", r14\n"
      "2:\n"
      "  call #.Lwsn_fold\n"
      "  clr.b &__wsn_trace+31\n"       /* closed */
      "9:\n"
      "  ret\n"
      ".Lwsn_fold:\n"
      "  push r12\n"
      "  push r10\n"
      "  mov r12, r11\n"                /* r11 = &check[at / seg] */
      "  swpb r11\n"
      "  and #0x7f, r11\n"
      ".rept " WSN_STR(WSN_SEG_SHIFT) "\n"
      "  rra r11\n"
      ".endr\n"
      "  rla r11\n"
      "  add #__wsn_trace+32+" WSN_STR(WSN_TRACE_BUF_SIZE) ", r11\n"
      "  mov #-1, r15\n"
      ".if " S_HMASK "\n"
      "  bit #" S_SEG "-1, r12\n"       /* at % seg == 0: a segment start */
      ".else\n"
      "  tst.b r12\n"
      ".endif\n"
      "  jz 3f\n"
      "  mov.b 0(r11), r15\n"
      "  mov.b 1(r11), r10\n"
      "  swpb r10\n"
      "  bis r10, r15\n"
      "3:\n"
      "  swpb r15\n"                    /* r12 = crc >> 8; r15 = crc << 8 (xor, 1 cycle) */
      "  mov.b r15, r12\n"
      "  xor r12, r15\n"
      "  xor.b @r13+, r12\n"            /* x = (crc >> 8) ^ byte; x ^= x >> 4 */
      "  mov r12, r10\n"
      "  rra r10\n"
      "  rra r10\n"
      "  rra r10\n"
      "  rra r10\n"
      "  xor r10, r12\n"
      "  xor r12, r15\n"                /* crc = (crc << 8) ^ x ^ (x << 5) ^ (x << 12) */
      "  rla r12\n"                     /* x << 4 (x < 256: at most 12 bits) */
      "  rla r12\n"
      "  rla r12\n"
      "  rla r12\n"
      "  mov r12, r10\n"
      "  rla r10\n"                     /* x << 5 */
      "  xor r10, r15\n"
      "  swpb r12\n"                    /* x << 12: the low nibble of x on top */
      "  and #0xf000, r12\n"
      "  xor r12, r15\n"
      "  dec r14\n"
      "  jnz 3b\n"
      "  pop r10\n"
      "  pop r12\n"
      "  tst r12\n"                     /* bit 15 of at: the caller stores the value */
      "  jn 8f\n"
      "  mov.b r15, 0(r11)\n"           /* low byte first */
      "  swpb r15\n"
      "  mov.b r15, 1(r11)\n"
      "8:\n"
      "  ret\n");
}
#endif /* !WSN_ASM_CORE */

/* ---- Compact control records (format 7, spec/trace-format.md section 3.5) ----
 * A record without payload, closed: with a one-byte tag t (not 0) the writer core reserves it
 * as its kind without fields (F_NOA; the core takes 4-bit tags) and t replaces the tag before
 * the record closes. */
#if WSN_TRACE_REPEAT && !WSN_ASM_CORE
/* A one-byte control record t (IRQ_S, IRQ_EXIT_S, ENTRY_S, EXIT_S: t >= 0x70), written as its
 * own byte or taken into a REPEAT (section 3.8). Interrupts must be disabled. */
static NOINLINE void ctl(uint8_t t) {
  uint16_t h = HDR.head;
  uint8_t *d = &__wsn_trace.data[h], *q;
  uint8_t lit = 0, p = 0, n = 0, k;
  volatile uint8_t *c;
  if (FLAGS & WSN_TRACE_FLAG_FROZEN)
    return;
  if (h == rt_rep_at && seg_offset(h)) {
    c = __wsn_trace.check[seg_index(h)];
    p = rt_rep_p;
    n = rt_rep_n;
    if (n) {
      /* The REPEAT before the head is open: t is the next record of its source? Then n
       * grows in place, the REPEAT reopened at its tag as span_take does (the check value
       * before the tag put back high byte first) and closed again. */
      q = d - 2;
      if (n != 255 && (q - p)[rt_rep_i] == t) {
        h -= 2;
        OPEN_LO = (uint8_t)h;
        OPEN_HI = (uint8_t)((h >> 8) | 0x80u);
        c[1] = (uint8_t)(rt_rep_crc >> 8);
        c[0] = (uint8_t)rt_rep_crc;
        q[1] = rt_rep_n = (uint8_t)(n + 1u);
        if (++rt_rep_i == p)
          rt_rep_i = 0;
        CLOSE();
        return;
      }
      p = n = 0; /* the run starts again from t */
    } else {
      lit = rt_rep_lit;
      if (p && *(d - p) == t) {
        /* The second record in a row equal to the one p before it: a REPEAT of period p
         * for it, when its two bytes fit in the rest of the segment. */
        if (seg_offset(h) <= SEG - 2u) {
          rt_rep_crc = (uint16_t)(c[0] | ((uint16_t)c[1] << 8));
          n = 1;
        }
      } else {
        p = 0;
        for (k = 1, q = d; k <= lit; ++k)
          if (*--q == t) {
            p = k;
            break;
          }
      }
    }
  }
  q = emit(0, WSN_REC_ENTRY | F_NOA, 0, n);
  if (n) {
    t = (uint8_t)(WSN_REC_REPEAT - 1u + p);
    *q = 1;
    rt_rep_i = p != 1;
  } else {
    rt_rep_p = p;
    rt_rep_lit = lit < WSN_REPEAT_BACK ? (uint8_t)(lit + 1u) : WSN_REPEAT_BACK;
  }
  q[-1] = t;
  CLOSE();
  rt_rep_n = n;
  rt_rep_at = HDR.head;
}
#elif WSN_TRACE_REPEAT && defined(__AVR__)
/* ctl in AVR assembly (the C version, above; 256-byte segments or a larger power of two):
 * t in r17 (then the byte the record's tag gets), n in r16, p in r23, lit in r22, h in
 * r25:24, Z = &data[h]. __wsn_rt_rep: at +0, crc +2, lit +4, p +5, n +6, i +7. emit and close
 * use only call-clobbered registers. */
#define ctl __wsn_rt_ctl
void __wsn_rt_ctl(uint8_t t);
WSN_NAKED void __wsn_rt_ctl(WSN_ARG uint8_t t) {
  __asm__ __volatile__(
      "  lds r18, __wsn_trace+18\n"
      "  sbrc r18, 2\n"                /* frozen: nothing */
      "  ret\n"
      "  push r16\n"
      "  push r17\n"
      "  mov r17, r24\n"
      "  clr r16\n"
      "  clr r22\n"
      "  clr r23\n"
      "  lds r24, __wsn_trace+16\n"    /* h */
      "  lds r25, __wsn_trace+17\n"
      "  lds r18, __wsn_rt_rep\n"      /* the head after the last control record? */
      "  lds r19, __wsn_rt_rep+1\n"
      "  cp r24, r18\n"
      "  cpc r25, r19\n"
      "  brne 10f\n"
      ".if " S_HMASK "\n"              /* and not a segment start */
      "  mov r18, r25\n"
      "  andi r18, " S_HMASK "\n"
      "  or r18, r24\n"
      ".else\n"
      "  tst r24\n"
      ".endif\n"
      "  brne 11f\n"
      "10:\n"
      "  rjmp 5f\n"
      "11:\n"
      "  movw r30, r24\n"
      "  subi r30, lo8(-(__wsn_trace+32))\n"
      "  sbci r31, hi8(-(__wsn_trace+32))\n"
      "  lds r23, __wsn_rt_rep+5\n"    /* p */
      "  lds r16, __wsn_rt_rep+6\n"    /* n: a REPEAT open before the head? */
      "  tst r16\n"
      "  breq 3f\n"
      "  cpi r16, 255\n"
      "  breq 2f\n"
      "  lds r18, __wsn_rt_rep+7\n"    /* t the source's record i (at h - 2 - p + i)? */
      "  movw r26, r30\n"
      "  sbiw r26, 2\n"
      "  sub r26, r23\n"
      "  sbc r27, r1\n"
      "  add r26, r18\n"
      "  adc r27, r1\n"
      "  ld r19, X\n"
      "  cp r19, r17\n"
      "  brne 2f\n"
      "  sbiw r24, 2\n"                /* n grows: open at the tag */
      "  sts __wsn_trace+30, r24\n"
      "  mov r19, r25\n"
      "  ori r19, 0x80\n"
      "  sts __wsn_trace+31, r19\n"
      "  mov r26, r25\n"               /* the check value before the tag, high byte first */
      ".rept " WSN_STR(WSN_SEG_SHIFT) "\n"
      "  lsr r26\n"
      ".endr\n"
      "  lsl r26\n"
      "  clr r27\n"
      "  subi r26, lo8(-(__wsn_trace+32+" WSN_STR(WSN_TRACE_BUF_SIZE) "+1))\n"
      "  sbci r27, hi8(-(__wsn_trace+32+" WSN_STR(WSN_TRACE_BUF_SIZE) "+1))\n"
      "  lds r19, __wsn_rt_rep+3\n"
      "  st X, r19\n"
      "  lds r19, __wsn_rt_rep+2\n"
      "  st -X, r19\n"
      "  inc r16\n"                    /* n + 1 */
      "  st -Z, r16\n"
      "  sts __wsn_rt_rep+6, r16\n"
      "  inc r18\n"                    /* the next source record */
      "  cp r18, r23\n"
      "  brne 1f\n"
      "  clr r18\n"
      "1:\n"
      "  sts __wsn_rt_rep+7, r18\n"
      "  pop r17\n"
      "  pop r16\n"
      "  jmp __wsn_rt_close\n"
      "2:\n"                           /* the run starts again from t */
      "  clr r16\n"
      "  clr r23\n"
      "  rjmp 5f\n"
      "3:\n"                           /* no REPEAT open */
      "  lds r22, __wsn_rt_rep+4\n"    /* lit */
      "  tst r23\n"
      "  breq 4f\n"
      "  movw r26, r30\n"              /* t the record p before it? */
      "  sub r26, r23\n"
      "  sbc r27, r1\n"
      "  ld r19, X\n"
      "  cp r19, r17\n"
      "  brne 4f\n"
      "  cpi r24, 0xff\n"              /* a REPEAT, unless h is the segment's last byte */
      "  brne 6f\n"
      ".if " S_HMASK "\n"
      "  mov r19, r25\n"
      "  andi r19, " S_HMASK "\n"
      "  cpi r19, " S_HMASK "\n"
      "  brne 6f\n"
      ".endif\n"
      "  rjmp 5f\n"
      "6:\n"
      "  mov r26, r25\n"               /* the check value before it */
      ".rept " WSN_STR(WSN_SEG_SHIFT) "\n"
      "  lsr r26\n"
      ".endr\n"
      "  lsl r26\n"
      "  clr r27\n"
      "  subi r26, lo8(-(__wsn_trace+32+" WSN_STR(WSN_TRACE_BUF_SIZE) "))\n"
      "  sbci r27, hi8(-(__wsn_trace+32+" WSN_STR(WSN_TRACE_BUF_SIZE) "))\n"
      "  ld r18, X+\n"
      "  ld r19, X\n"
      "  sts __wsn_rt_rep+2, r18\n"
      "  sts __wsn_rt_rep+3, r19\n"
      "  ldi r16, 1\n"
      "  mov r17, r23\n"               /* tag 0x98 + p - 1 */
      "  subi r17, 0x69\n"            /* + 0x97 */
      "  ldi r18, 1\n"                 /* i = p != 1 */
      "  cpi r23, 1\n"
      "  brne 7f\n"
      "  clr r18\n"
      "7:\n"
      "  sts __wsn_rt_rep+7, r18\n"
      "  rjmp 8f\n"
      "4:\n"                           /* p: the first of the lit records back equal to t */
      "  clr r23\n"
      "  tst r22\n"
      "  breq 5f\n"
      "  movw r26, r30\n"
      "9:\n"
      "  inc r23\n"
      "  ld r19, -X\n"
      "  cp r19, r17\n"
      "  breq 5f\n"
      "  cp r23, r22\n"
      "  brlo 9b\n"
      "  clr r23\n"
      "5:\n"                           /* t as its own byte */
      "  sts __wsn_rt_rep+5, r23\n"
      "  cpi r22, " WSN_STR(WSN_REPEAT_BACK) "\n"
      "  brsh 1f\n"
      "  inc r22\n"
      "1:\n"
      "  sts __wsn_rt_rep+4, r22\n"
      "8:\n"
      "  ldi r22, 0x81\n"              /* emit(0, ENTRY | F_NOA, 0, n) */
      "  mov r18, r16\n"
      "  clr r19\n"
      "  call __wsn_rt_emit\n"
      "  movw r30, r24\n"
      "  tst r16\n"
      "  breq 1f\n"
      "  st Z, r16\n"                  /* n = 1 */
      "1:\n"
      "  st -Z, r17\n"
      "  call __wsn_rt_close\n"
      "  sts __wsn_rt_rep+6, r16\n"
      "  lds r24, __wsn_trace+16\n"
      "  lds r25, __wsn_trace+17\n"
      "  sts __wsn_rt_rep, r24\n"
      "  sts __wsn_rt_rep+1, r25\n"
      "  pop r17\n"
      "  pop r16\n"
      "  ret\n");
}
#elif WSN_TRACE_REPEAT
/* ctl in MSP430 assembly (the C version, above): t in r12, h in r14, p in r13, lit in r11,
 * r15 = &data[h]; the state in __wsn_rt_rep (at +0, crc +2, lit +4, p +5, n +6, i +7). A
 * one-byte record never needs a PAD, so the record is written here rather than through emit:
 * open at h, its bytes, the head moved on (entering the next segment when it is full, which
 * clears the state's head), then close, tail-called. Only r11-r15 are used. */
#define ctl __wsn_rt_ctl
void __wsn_rt_ctl(uint8_t t);
WSN_NAKED void __wsn_rt_ctl(WSN_ARG uint8_t t) {
  __asm__ __volatile__(
      "  bit.b #4, &__wsn_trace+18\n"   /* frozen: nothing */
      "  jz 1f\n"
      "  ret\n"
      "1:\n"
      "  mov &__wsn_trace+16, r14\n"    /* h: the head after the last control record? */
      "  clr r13\n"
      "  clr r11\n"
      "  cmp &__wsn_rt_rep, r14\n"
      "  jne 5f\n"
      "  bit #" S_SEG "-1, r14\n"       /* and not a segment start */
      "  jz 5f\n"
      "  mov r14, r15\n"
      "  add #__wsn_trace+32, r15\n"
      "  mov.b &__wsn_rt_rep+5, r13\n"  /* p */
      "  tst.b &__wsn_rt_rep+6\n"       /* n: a REPEAT open before the head? */
      "  jz 3f\n"
      "  cmp.b #255, &__wsn_rt_rep+6\n"
      "  jeq 2f\n"
      "  mov.b &__wsn_rt_rep+7, r11\n"  /* t the source's record i (at h - 2 - p + i)? */
      "  add r15, r11\n"
      "  sub r13, r11\n"
      "  cmp.b -2(r11), r12\n"
      "  jne 2f\n"
      "  decd r14\n"                    /* n grows: open at the tag, one word store */
      "  mov r14, r11\n"
      "  bis #0x8000, r11\n"
      "  mov r11, &__wsn_trace+30\n"
      "  swpb r14\n"                    /* the check value before the tag, high byte first */
      "  and #0xff, r14\n"
      ".rept " WSN_STR(WSN_SEG_SHIFT) "\n"
      "  rra r14\n"
      ".endr\n"
      "  rla r14\n"
      "  mov &__wsn_rt_rep+2, r11\n"
      "  swpb r11\n"
      "  mov.b r11, __wsn_trace+33+" WSN_STR(WSN_TRACE_BUF_SIZE) "(r14)\n"
      "  swpb r11\n"
      "  mov.b r11, __wsn_trace+32+" WSN_STR(WSN_TRACE_BUF_SIZE) "(r14)\n"
      "  inc.b &__wsn_rt_rep+6\n"       /* n + 1 */
      "  mov.b &__wsn_rt_rep+6, -1(r15)\n"
      "  inc.b &__wsn_rt_rep+7\n"       /* the next source record */
      "  cmp.b r13, &__wsn_rt_rep+7\n"
      "  jne 4f\n"
      "  clr.b &__wsn_rt_rep+7\n"
      "4:\n"
      "  br #__wsn_rt_close\n"
      "2:\n"                            /* the run starts again from t */
      "  clr r13\n"
      "  clr r11\n"
      "  jmp 5f\n"
      "3:\n"                            /* no REPEAT open */
      "  mov.b &__wsn_rt_rep+4, r11\n"  /* lit */
      "  tst.b r13\n"
      "  jz 6f\n"
      "  sub r13, r15\n"                /* t the record p before it? */
      "  cmp.b @r15, r12\n"
      "  jne 7f\n"
      "  mov r14, r11\n"                /* a REPEAT, unless h is the segment's last byte */
      "  and #" S_SEG "-1, r11\n"
      "  cmp #" S_SEG "-1, r11\n"
      "  jeq 8f\n"
      "  mov r14, r11\n"                /* the check value before it */
      "  swpb r11\n"
      "  and #0xff, r11\n"
      ".rept " WSN_STR(WSN_SEG_SHIFT) "\n"
      "  rra r11\n"
      ".endr\n"
      "  rla r11\n"
      "  add #__wsn_trace+32+" WSN_STR(WSN_TRACE_BUF_SIZE) ", r11\n"
      "  mov.b @r11+, r12\n"
      "  mov.b @r11, r11\n"
      "  swpb r11\n"
      "  bis r12, r11\n"
      "  mov r11, &__wsn_rt_rep+2\n"
      "  mov.b #1, &__wsn_rt_rep+6\n"   /* n = 1, i = p != 1 */
      "  mov.b #1, &__wsn_rt_rep+7\n"
      "  cmp.b #1, r13\n"
      "  jne 9f\n"
      "  clr.b &__wsn_rt_rep+7\n"
      "9:\n"
      "  mov r14, r11\n"                /* the REPEAT: tag 0x98 + p - 1, then n */
      "  bis #0x8000, r11\n"
      "  mov r11, &__wsn_trace+30\n"
      "  add.b #0x97, r13\n"
      "  mov.b r13, __wsn_trace+32(r14)\n"
      "  mov.b #1, __wsn_trace+33(r14)\n"
      "  incd r14\n"
      "  jmp 10f\n"
      "8:\n"                            /* no room: as its own byte, p kept */
      "  mov.b &__wsn_rt_rep+4, r11\n"
      "  jmp 5f\n"
      "7:\n"
      "  add r13, r15\n"
      "6:\n"                            /* p: the first of the lit records back equal to t */
      "  clr r13\n"
      "  tst.b r11\n"
      "  jz 5f\n"
      "11:\n"
      "  inc r13\n"
      "  dec r15\n"
      "  cmp.b @r15, r12\n"
      "  jeq 5f\n"
      "  cmp.b r11, r13\n"
      "  jlo 11b\n"
      "  clr r13\n"
      "5:\n"                            /* t as its own byte */
      "  mov.b r13, &__wsn_rt_rep+5\n"
      "  cmp.b #" WSN_STR(WSN_REPEAT_BACK) ", r11\n"
      "  jhs 1f\n"
      "  inc.b r11\n"
      "1:\n"
      "  mov.b r11, &__wsn_rt_rep+4\n"
      "  clr.b &__wsn_rt_rep+6\n"
      "  mov r14, r11\n"                /* open at h, one word store */
      "  bis #0x8000, r11\n"
      "  mov r11, &__wsn_trace+30\n"
      "  mov.b r12, __wsn_trace+32(r14)\n"
      "  inc r14\n"
      "10:\n"                           /* the head after it; a full segment enters the next */
      "  mov r14, &__wsn_rt_rep\n"
      "  bit #" S_SEG "-1, r14\n"
      "  jnz 1f\n"
      "  call #__wsn_rt_enter\n"
      "1:\n"
      "  mov r14, &__wsn_trace+16\n"
      "  br #__wsn_rt_close\n");
}
#endif

#define rec1 __wsn_rt_rec1 /* `used`: also called from the assembly of __wsn_rt_skip_begin */
__attribute__((used)) NOINLINE void rec1(uint16_t a, uint8_t kind, uint16_t b, uint8_t t) {
  uint8_t *p;
#if WSN_TRACE_REPEAT
  if (t >= WSN_REC_IRQ_S) {
    ctl(t);
    return;
  }
#endif
  p = emit(a, t ? (uint8_t)(TAG(kind) | F_NOA) : kind, b, 0);
  if (p && t)
    p[-1] = t;
  CLOSE();
}

/* A locked record without payload; ENTRY/EXIT also reset #gv_reference in the same atomic
 * step (thesis 4.1, LOG type 2: reset at every instrumented entry and exit). ENTRY/EXIT of
 * fids 0..46 are one byte (ENTRY_S, EXIT_S). */
static NOINLINE void record(uint16_t a, uint8_t kind, uint16_t b) {
  wsn_irq_state_t s = wsn_port_irq_save();
  if (!rt_quiet) {
    uint8_t t = 0, k = TAG(kind);
    if (k <= WSN_REC_EXIT && a < WSN_TRACE_FID_SHORT)
      t = (uint8_t)((k == WSN_REC_ENTRY ? WSN_REC_ENTRY_S : WSN_REC_EXIT_S) + a);
    rec1(a, kind, b, t);
    if (k == WSN_REC_SKIP_END && rt_skip_depth)
      --rt_skip_depth;
  }
  if (TAG(kind) <= WSN_REC_EXIT)
    __wsn_gv_reference = 0;
  wsn_port_irq_restore(s);
}

void __wsn_rt_entry(uint16_t fid) { record(fid, WSN_REC_ENTRY, 0); }
void __wsn_rt_exit(uint16_t fid) { record(fid, WSN_REC_EXIT, 0); }
void __wsn_rt_sched(uint16_t task) { record(task, WSN_REC_SCHED, 0); }
/* SKIP_BEGIN, and what section 3.5 needs to take it back when its span stays empty: the
 * check value before it (a record at a segment start restarts it), its site, and the head
 * after it when it was written at h (not after a PAD; frozen: not written at all). One that
 * ended its segment exactly leaves a segment start (0 after a wrap), behind which no span
 * record fits. Entering a segment clears rt_sb_end. `used`: also called from the MSP430
 * assembly of __wsn_rt_skip_call (below). */
#if !WSN_ASM_SPAN
__attribute__((used)) void __wsn_rt_skip_begin(uint16_t site) {
  wsn_irq_state_t s = wsn_port_irq_save();
  if (!rt_quiet) {
    uint16_t h = HDR.head;
    const volatile uint8_t *c = __wsn_trace.check[seg_index(h)];
    rt_sb_crc = seg_offset(h) ? (uint16_t)(c[0] | (c[1] << 8)) : 0xFFFFu;
    rt_sb_site = site;
    ++rt_skip_depth;
    rt_span_irq = 0;
    rec1(site, WSN_REC_SKIP_BEGIN, 0, 0);
    h = (uint16_t)(h + 1u + vsize(site));
    rt_sb_end = HDR.head == h ? h : 0;
  }
  wsn_port_irq_restore(s);
}
#else
/* The ring arithmetic of the span assembly: a ring offset's segment and its offset in it.
 * Offset in r19:r18 (from the offset there), segment * 2 in r30 (r31 0); r20 clobbered. */
#if WSN_ASM_CORE
#define WSN_AVR_SEGOF(HI)                                                                       \
  "  mov r30, " HI "\n"                                                                       \
  ".rept " WSN_STR(WSN_SEG_SHIFT) "\n"                                                        \
  "  lsr r30\n"                                                                               \
  ".endr\n"                                                                                   \
  "  lsl r30\n"                                                                               \
  "  clr r31\n"                                                                               \
  "  andi r19, " S_HMASK "\n"
#else
#define WSN_AVR_SEGOF(HI)                                                                       \
  "  clr r30\n"                                                                               \
  "  clr r31\n"                                                                               \
  "1:\n"                                                                                      \
  "  cpi r18, lo8(" S_SEG ")\n"                                                               \
  "  ldi r20, hi8(" S_SEG ")\n"                                                               \
  "  cpc r19, r20\n"                                                                          \
  "  brlo 2f\n"                                                                               \
  "  subi r18, lo8(" S_SEG ")\n"                                                              \
  "  sbci r19, hi8(" S_SEG ")\n"                                                              \
  "  subi r30, -2\n"                                                                          \
  "  rjmp 1b\n"                                                                               \
  "2:\n"
#endif
#define S_CHECKS "__wsn_trace+32+" WSN_STR(WSN_TRACE_BUF_SIZE)
/* The C version (WSN_ASM_SPAN 0) in AVR assembly: site r17:16, h in Y, the check value before
 * it r21:20. */
WSN_NAKED void __wsn_rt_skip_begin(WSN_ARG uint16_t site) {
  __asm__ __volatile__(
      WSN_AVR_LOCKED_ENTER
      "  lds r18, __wsn_rt_quiet\n"
      "  tst r18\n"
      "  breq 6f\n"
      "  rjmp 9f\n"
      "6:\n"
      "  movw r16, r24\n"
      "  lds r28, __wsn_trace+16\n"   /* h */
      "  lds r29, __wsn_trace+17\n"
      "  movw r18, r28\n"
      WSN_AVR_SEGOF("r29")
      "  ldi r20, 0xff\n"             /* a segment start: 0xFFFF */
      "  ldi r21, 0xff\n"
      "  or r18, r19\n"
      "  breq 3f\n"
      "  subi r30, lo8(-(" S_CHECKS "))\n"
      "  sbci r31, hi8(-(" S_CHECKS "))\n"
      "  ld r20, Z\n"
      "  ldd r21, Z+1\n"
      "3:\n"
      "  sts __wsn_rt_sb_crc, r20\n"
      "  sts __wsn_rt_sb_crc+1, r21\n"
      "  sts __wsn_rt_sb_site, r16\n"
      "  sts __wsn_rt_sb_site+1, r17\n"
      "  sts __wsn_rt_span_irq, r1\n"
      "  lds r18, __wsn_rt_skip_depth\n"
      "  inc r18\n"
      "  sts __wsn_rt_skip_depth, r18\n"
      "  movw r24, r16\n"             /* rec1(site, SKIP_BEGIN, 0, 0) */
      "  ldi r22, 12\n"
      "  ldi r20, 0\n"
      "  ldi r21, 0\n"
      "  ldi r18, 0\n"
      "  call __wsn_rt_rec1\n"
      "  adiw r28, 2\n"               /* written at h: the head is h + 1 + vsize(site) */
      "  cpi r16, 0x80\n"
      "  cpc r17, r1\n"
      "  brlo 4f\n"
      "  adiw r28, 1\n"
      "  cpi r17, 0x40\n"
      "  brlo 4f\n"
      "  adiw r28, 1\n"
      "4:\n"
      "  lds r24, __wsn_trace+16\n"
      "  lds r25, __wsn_trace+17\n"
      "  cp r24, r28\n"
      "  cpc r25, r29\n"
      "  breq 5f\n"
      "  ldi r24, 0\n"
      "  ldi r25, 0\n"
      "5:\n"
      "  sts __wsn_rt_sb_end, r24\n"
      "  sts __wsn_rt_sb_end+1, r25\n"
      "9:\n"
      WSN_AVR_LOCKED_LEAVE);
}
#endif
void __wsn_rt_skip_end(uint16_t site) { record(site, WSN_REC_SKIP_END, 0); }
void __wsn_rt_send(uint16_t site, uint16_t dest, uint16_t seq) {
  wsn_irq_state_t s = wsn_port_irq_save();
  rt_arg3 = dest;
  emit(site, WSN_REC_SEND | F_B | F_C, seq, 0);
  CLOSE();
  wsn_port_irq_restore(s);
}
void __wsn_rt_recv(uint16_t site, uint16_t sender, uint16_t seq) {
  wsn_irq_state_t s = wsn_port_irq_save();
  rt_arg3 = seq;
  emit(site, WSN_REC_RECV | F_B | F_C, sender, 0);
  CLOSE();
  wsn_port_irq_restore(s);
}
/* ---- Short inputs (format 6, spec/trace-format.md section 3.4) ----
 * An INPUT costs its tag, a site of two varint bytes (real applications have 100-400 sites)
 * and the value; consecutive inputs are mostly sites a few ids apart (one function's register
 * reads) and values read shortly before (status and control registers). So an input is
 * written as INPUT_S, one tag byte 0x20 + 16k + (d & 15), when its site is d = -8..7 from
 * the previous INPUT of the segment being written; with k = 1..4 its value is the one in slot
 * k - 1 of the segment's four recent values, with k = 0 the value follows as a varint. The
 * state is the segment's: entering a segment clears rt_in_valid (writer core), and the first
 * input after that starts it afresh (no previous site; four slots of 0, the next slot 0), so
 * every segment decodes on its own. Every INPUT written (plain or short) makes its site the
 * previous one and puts a value of at most 16 bits that is in no slot into the next slot
 * (round robin); records of quiet handlers are not written and change nothing.
 * rt_in_valid: bit 0 the slots are this segment's, bit 1 rt_in_site is too. RAM: 12 bytes. */
#define WSN_IN_SLOTS 4 /* in_fresh clears four */
#define rt_in_site __wsn_rt_in_site /* shared with the MSP430 assembly below */
#define rt_in_slot __wsn_rt_in_slot
#define rt_in_next __wsn_rt_in_next
__attribute__((used)) uint16_t rt_in_site;
__attribute__((used)) uint16_t rt_in_slot[WSN_IN_SLOTS];
__attribute__((used)) uint8_t rt_in_next;

/* The segment's state afresh, unless it is already the segment being written's. */
static NOINLINE void in_fresh(void) {
  if (!(rt_in_valid & 1)) {
    rt_in_slot[0] = rt_in_slot[1] = rt_in_slot[2] = rt_in_slot[3] = 0;
    rt_in_next = 0;
    rt_in_valid = 1;
  }
}

/* LOG 5 with a value of at most 16 / 8 bits (the lowering calls them when the mask fits):
 * INPUT_S when the site is near the segment's previous input and the short record fits in
 * the rest of the segment (else the record would open the next segment, where there is no
 * previous input: written plain, after the PAD), else INPUT. Then the state takes the input,
 * unless the record ended exactly at its segment's end (writing has entered the next segment,
 * whose state starts afresh); a record that went on to the next segment after a PAD is that
 * segment's first input. */
#if defined(__MSP430__) && WSN_ASM_CORE
/* The same in MSP430 assembly (the TelosB reads a register about every 2000 cycles): site in
 * r12, value in r13; r9 site, r10 value, r8 the saved SR. After a short record the state's
 * updates need no test of where the head went: a short record never goes to the next segment,
 * and when it ends exactly at its segment's end entering the next one has cleared
 * rt_in_valid, so the next input starts afresh whatever was stored (the host's C stores the
 * same state, only not those unused values). */
#define in_write __wsn_rt_in_write
void __wsn_rt_in_write(uint16_t site, uint16_t value);
WSN_NAKED void __wsn_rt_in_write(WSN_ARG uint16_t site, WSN_ARG uint16_t value) {
  __asm__ __volatile__(
      "  push r8\n"
      "  push r9\n"
      "  push r10\n"
      "  mov r2, r8\n"
      "  dint\n"
      "  nop\n"
      "  tst.b &__wsn_rt_quiet\n"      /* a quiet handler writes nothing */
      "  jnz 9f\n"
      "  mov r12, r9\n"
      "  mov r13, r10\n"
      "  bit.b #2, &__wsn_rt_in_valid\n" /* no earlier INPUT in the segment: plain */
      "  jz 5f\n"
      "  sub &__wsn_rt_in_site, r12\n"  /* d + 8 = site - previous + 8, 0..15 when near */
      "  add #8, r12\n"
      "  cmp #16, r12\n"
      "  jhs 5f\n"
      "  add #8, r12\n"                 /* the tag: 0x20 + (d & 15) + 16k */
      "  and #15, r12\n"
      "  add #0x20, r12\n"
      "  cmp &__wsn_rt_in_slot, r10\n"
      "  jeq 13f\n"
      "  cmp &__wsn_rt_in_slot+2, r10\n"
      "  jeq 12f\n"
      "  cmp &__wsn_rt_in_slot+4, r10\n"
      "  jeq 11f\n"
      "  cmp &__wsn_rt_in_slot+6, r10\n"
      "  jeq 10f\n"
      "  mov #2, r14\n"                 /* in no slot: the value follows, n = 2, 3 or 4 */
      "  cmp #0x80, r10\n"
      "  jlo 4f\n"
      "  inc r14\n"
      "  cmp #0x4000, r10\n"
      "  jlo 4f\n"
      "  inc r14\n"
      "4:\n"
      "  mov &__wsn_trace+16, r15\n"    /* fits in the rest of the segment? else plain */
      "  and #" S_SEG "-1, r15\n"
      "  add r14, r15\n"
      "  cmp #" S_SEG "+1, r15\n"
      "  jhs 5f\n"
      "  push r14\n"
      "  push r12\n"
      "  mov r10, r12\n"
      "  mov #7, r13\n"                 /* INPUT: the core writes a = the value */
      "  clr r15\n"
      "  call #__wsn_rt_emit\n"
      "  pop r14\n"                     /* the tag */
      "  pop r15\n"                     /* n */
      "  tst r12\n"
      "  jz 8f\n"
      "  sub r15, r12\n"                /* the core wrote INPUT's 4-bit tag there */
      "  mov.b r14, 0(r12)\n"
      "  mov r9, &__wsn_rt_in_site\n"
      "  call #.Lwsn_in_put\n"
      "  jmp 8f\n"
      "10:\n"                           /* in slot k: one byte, + 16 (k + 1) */
      "  add #16, r12\n"
      "11:\n"
      "  add #16, r12\n"
      "12:\n"
      "  add #16, r12\n"
      "13:\n"
      "  add #16, r12\n"
      "  mov r12, r10\n"                /* the value is no longer needed */
      "  mov #0x87, r13\n"              /* INPUT | F_NOA: the tag alone (it always fits) */
      "  clr r15\n"
      "  call #__wsn_rt_emit\n"
      "  tst r12\n"
      "  jz 8f\n"
      "  mov.b r10, -1(r12)\n"
      "  mov r9, &__wsn_rt_in_site\n"
      "  jmp 8f\n"
      "5:\n"                            /* plain: INPUT site value */
      "  mov r9, r12\n"
      "  mov #0x17, r13\n"              /* INPUT | F_B */
      "  mov r10, r14\n"
      "  clr r15\n"
      "  call #__wsn_rt_emit\n"
      "  tst r12\n"
      "  jz 8f\n"
      "  bit #" S_SEG "-1, &__wsn_trace+16\n" /* the segment was left: the next starts afresh */
      "  jz 8f\n"
      "  bit.b #1, &__wsn_rt_in_valid\n" /* else the slots are this segment's, or afresh */
      "  jnz 6f\n"
      "  clr &__wsn_rt_in_slot\n"
      "  clr &__wsn_rt_in_slot+2\n"
      "  clr &__wsn_rt_in_slot+4\n"
      "  clr &__wsn_rt_in_slot+6\n"
      "  clr.b &__wsn_rt_in_next\n"
      "6:\n"
      "  mov.b #3, &__wsn_rt_in_valid\n"
      "  mov r9, &__wsn_rt_in_site\n"
      "  cmp &__wsn_rt_in_slot, r10\n"  /* a value in no slot goes into the next one */
      "  jeq 8f\n"
      "  cmp &__wsn_rt_in_slot+2, r10\n"
      "  jeq 8f\n"
      "  cmp &__wsn_rt_in_slot+4, r10\n"
      "  jeq 8f\n"
      "  cmp &__wsn_rt_in_slot+6, r10\n"
      "  jeq 8f\n"
      "  call #.Lwsn_in_put\n"
      "8:\n"
      "  call #__wsn_rt_close\n"
      "9:\n"
      "  and #8, r8\n"
      "  nop\n"
      "  bis r8, r2\n"
      "  nop\n"
      "  pop r10\n"
      "  pop r9\n"
      "  pop r8\n"
      "  ret\n"
      /* r10 into the next slot, which moves on. */
      ".Lwsn_in_put:\n"
      "  mov.b &__wsn_rt_in_next, r12\n"
      "  rla r12\n"
      "  mov r10, __wsn_rt_in_slot(r12)\n"
      "  incd r12\n"
      "  and #6, r12\n"
      "  rra r12\n"
      "  mov.b r12, &__wsn_rt_in_next\n"
      "  ret\n");
}
#elif defined(__AVR__) && WSN_ASM_CORE
/* The same in AVR assembly (in C it took about 240 cycles an input and 444 bytes with its
 * helper; MicaZ RadioCountToLeds spent 7% of its traced steady-state cycles there): site in
 * r25:24, value in r23:22. Kept across the core's calls in call-saved registers: r29:28 the
 * site, r17:16 the value, r15 the saved SREG. The state after a short record is stored
 * without testing where the head went, as in the MSP430 version above. */
#define in_write __wsn_rt_in_write
void __wsn_rt_in_write(uint16_t site, uint16_t value);
WSN_NAKED void __wsn_rt_in_write(WSN_ARG uint16_t site, WSN_ARG uint16_t value) {
  __asm__ __volatile__(
      WSN_AVR_LOCKED_ENTER
      "  lds r18, __wsn_rt_quiet\n"    /* a quiet handler writes nothing */
      "  cpse r18, r1\n"
      "  rjmp 9f\n"
      "  movw r28, r24\n"
      "  movw r16, r22\n"
      "  lds r18, __wsn_rt_in_valid\n" /* no earlier INPUT in the segment: plain */
      "  sbrs r18, 1\n"
      "  rjmp 5f\n"
      "  lds r20, __wsn_rt_in_site\n"  /* d + 8 = site - previous + 8, 0..15 when near */
      "  lds r21, __wsn_rt_in_site+1\n"
      "  sub r24, r20\n"
      "  sbc r25, r21\n"
      "  adiw r24, 8\n"
      "  cpi r24, 16\n"
      "  cpc r25, r1\n"
      "  brlo 2f\n"
      "  rjmp 5f\n"
      "2:\n"
      "  subi r24, 8\n"                /* the tag: 0x20 + (d & 15), + 16k below */
      "  andi r24, 15\n"
      "  ori r24, 0x20\n"
      "  ldi r30, lo8(__wsn_rt_in_slot)\n"
      "  ldi r31, hi8(__wsn_rt_in_slot)\n"
      "1:\n"                           /* slot k - 1 holds the value: + 16k */
      "  subi r24, -16\n"
      "  ld r20, Z+\n"
      "  ld r21, Z+\n"
      "  cp r20, r16\n"
      "  cpc r21, r17\n"
      "  breq 3f\n"
      "  cpi r24, 0x60\n"
      "  brlo 1b\n"
      "  subi r24, 0x40\n"             /* in no slot: k = 0, the value follows */
      "  ldi r18, 2\n"                 /* n = 2, 3 or 4 */
      "  cpi r16, 0x80\n"
      "  cpc r17, r1\n"
      "  brlo 4f\n"
      "  inc r18\n"
      "  ldi r19, 0x40\n"
      "  cpi r16, 0\n"
      "  cpc r17, r19\n"
      "  brlo 4f\n"
      "  inc r18\n"
      "4:\n"                           /* fits in the rest of the segment? else plain */
      "  lds r20, __wsn_trace+16\n"
      ".if " S_HMASK "\n"
      "  lds r21, __wsn_trace+17\n"
      "  andi r21, " S_HMASK "\n"
      ".else\n"
      "  clr r21\n"
      ".endif\n"
      "  add r20, r18\n"
      "  adc r21, r1\n"
      "  cpi r20, lo8(" S_SEG "+1)\n"
      "  ldi r19, hi8(" S_SEG "+1)\n"
      "  cpc r21, r19\n"
      "  brlo 2f\n"
      "  rjmp 5f\n"
      "2:\n"
      "  push r24\n"
      "  push r18\n"
      "  movw r24, r16\n"
      "  ldi r22, 7\n"                 /* INPUT: the core writes a = the value */
      "  clr r18\n"
      "  clr r19\n"
      "  call __wsn_rt_emit\n"
      "  pop r18\n"                    /* n */
      "  pop r19\n"                    /* the tag */
      "  sbiw r24, 0\n"
      "  brne 2f\n"
      "  rjmp 8f\n"
      "2:\n"
      "  sub r24, r18\n"               /* the core wrote INPUT's 4-bit tag there */
      "  sbc r25, r1\n"
      "  movw r30, r24\n"
      "  st Z, r19\n"
      "  sts __wsn_rt_in_site+1, r29\n"
      "  sts __wsn_rt_in_site, r28\n"
      "  rcall .Lwsn_in_put\n"
      "  rjmp 8f\n"
      "3:\n"                           /* in a slot: the tag alone (it always fits) */
      "  push r24\n"
      "  ldi r22, 0x87\n"              /* INPUT | F_NOA */
      "  clr r18\n"
      "  clr r19\n"
      "  call __wsn_rt_emit\n"
      "  pop r19\n"
      "  sbiw r24, 0\n"
      "  brne 2f\n"
      "  rjmp 8f\n"
      "2:\n"
      "  movw r30, r24\n"
      "  st -Z, r19\n"
      "  sts __wsn_rt_in_site+1, r29\n"
      "  sts __wsn_rt_in_site, r28\n"
      "  rjmp 8f\n"
      "5:\n"                           /* plain: INPUT site value */
      "  movw r24, r28\n"
      "  ldi r22, 0x17\n"              /* INPUT | F_B */
      "  movw r20, r16\n"
      "  clr r18\n"
      "  clr r19\n"
      "  call __wsn_rt_emit\n"
      "  sbiw r24, 0\n"
      "  breq 8f\n"
      "  lds r20, __wsn_trace+16\n"    /* the segment was left: the next starts afresh */
      ".if " S_HMASK "\n"
      "  lds r21, __wsn_trace+17\n"
      "  andi r21, " S_HMASK "\n"
      "  or r20, r21\n"
      ".else\n"
      "  tst r20\n"
      ".endif\n"
      "  breq 8f\n"
      "  ldi r30, lo8(__wsn_rt_in_slot)\n"
      "  ldi r31, hi8(__wsn_rt_in_slot)\n"
      "  lds r18, __wsn_rt_in_valid\n" /* else the slots are this segment's, or afresh */
      "  sbrc r18, 0\n"
      "  rjmp 6f\n"
      "  ldi r18, 8\n"
      "7:\n"
      "  st Z+, r1\n"
      "  dec r18\n"
      "  brne 7b\n"
      "  sts __wsn_rt_in_next, r1\n"
      "  sbiw r30, 8\n"
      "6:\n"
      "  ldi r18, 3\n"
      "  sts __wsn_rt_in_valid, r18\n"
      "  sts __wsn_rt_in_site+1, r29\n"
      "  sts __wsn_rt_in_site, r28\n"
      "  ldi r18, 4\n"                 /* a value in no slot goes into the next one */
      "7:\n"
      "  ld r20, Z+\n"
      "  ld r21, Z+\n"
      "  cp r20, r16\n"
      "  cpc r21, r17\n"
      "  breq 8f\n"
      "  dec r18\n"
      "  brne 7b\n"
      "  rcall .Lwsn_in_put\n"
      "8:\n"
      "  call __wsn_rt_close\n"
      "9:\n"
      WSN_AVR_LOCKED_LEAVE
      /* r17:16 into the next slot, which moves on. */
      ".Lwsn_in_put:\n"
      "  lds r18, __wsn_rt_in_next\n"
      "  mov r30, r18\n"
      "  lsl r30\n"
      "  clr r31\n"
      "  subi r30, lo8(-(__wsn_rt_in_slot))\n"
      "  sbci r31, hi8(-(__wsn_rt_in_slot))\n"
      "  st Z+, r16\n"
      "  st Z, r17\n"
      "  inc r18\n"
      "  andi r18, 3\n"
      "  sts __wsn_rt_in_next, r18\n"
      "  ret\n");
}
#else
static NOINLINE void in_write(uint16_t site, uint16_t value) {
  wsn_irq_state_t s = wsn_port_irq_save();
  if (!rt_quiet) {
    uint8_t *p, tag = 0, n = 1, k = 0, kind = WSN_REC_INPUT | F_B;
    uint16_t a = site, b = value;
    in_fresh();
    while (k < WSN_IN_SLOTS && rt_in_slot[k] != value)
      ++k;
    if (rt_in_valid & 2) {
      uint8_t d = (uint8_t)(site - rt_in_site + 8u);
      if ((uint16_t)(site - rt_in_site + 8u) < 16) {
        if (k == WSN_IN_SLOTS)
          n = (uint8_t)(value < 0x80u ? 2 : value < 0x4000u ? 3 : 4);
        if (n <= (uint16_t)(SEG - seg_offset(HDR.head))) {
          tag = (uint8_t)(WSN_REC_INPUT_S + ((d - 8u) & 15u));
          kind = WSN_REC_INPUT;
          a = value;
          if (n == 1) {
            tag = (uint8_t)(tag + ((k + 1) << 4));
            kind = WSN_REC_INPUT | F_NOA;
          }
        }
      }
    }
    p = emit(a, kind, b, 0); /* INPUT_S: the core writes the 4-bit tag of INPUT, and no b */
    if (p) {
      if (tag)
        p[-(int)n] = tag;
      if (seg_offset(HDR.head) != 0) {
        if (!(rt_in_valid & 1)) { /* after a PAD: the next segment's slots, all 0 */
          in_fresh();
          k = value ? WSN_IN_SLOTS : 0;
        }
        rt_in_valid = 3;
        rt_in_site = site;
        if (k == WSN_IN_SLOTS) {
          rt_in_slot[rt_in_next] = value;
          rt_in_next = (uint8_t)((rt_in_next + 1) & (WSN_IN_SLOTS - 1));
        }
      }
    }
    CLOSE();
  }
  wsn_port_irq_restore(s);
}
#endif

/* `used`: __wsn_rt_in_at (below) calls it from assembly, which --whole-program's optimiser
 * does not see. */
__attribute__((used)) void __wsn_rt_input16(uint16_t site, uint16_t value) {
  in_write(site, value);
}
void __wsn_rt_input8(uint8_t site, uint8_t value) { in_write(site, value); }

/* IRQ irq count: one byte (IRQ_S) for irq 1..8 and count 0..3; IRQ_EXIT irq: one byte
 * (IRQ_EXIT_S) for irq 1..8 (section 3.5). */
static NOINLINE void irq_rec(uint16_t irq, uint8_t kind, uint16_t count) {
  uint8_t t = 0;
  if ((uint16_t)(irq - 1u) < WSN_TRACE_IRQ_SHORT) {
    if (kind != WSN_REC_IRQ_EXIT)
      t = count < 4 ? (uint8_t)(WSN_REC_IRQ_S + 4u * (irq - 1u) + count) : 0;
    else
      t = (uint8_t)(WSN_REC_IRQ_EXIT_S + irq - 1u);
  }
  rec1(irq, kind, count, t);
}

/* LOG type 2 at a handler: the interrupted context's count goes into the record, is saved
 * and the handler starts counting from 0; IRQ_EXIT restores it. Deeper nesting than
 * WSN_TRACE_IRQ_DEPTH cannot be restored exactly and marks the trace DROPPED. */
void __wsn_rt_irq_entry(uint16_t irq) {
  wsn_irq_state_t s = wsn_port_irq_save();
  uint16_t count = __wsn_gv_reference;
  uint8_t d = rt_irq_depth;
  if (rt_quiet || rt_skip_depth) {
    ++rt_quiet;
    rt_span_irq = 1;
  } else {
    irq_rec(irq, WSN_REC_IRQ | F_B, count);
  }
  if (d < WSN_TRACE_IRQ_DEPTH)
    rt_irq_saved[d] = count;
  else
    FLAGS |= WSN_TRACE_FLAG_DROPPED;
  rt_irq_depth = (uint8_t)(d + 1);
  __wsn_gv_reference = 0;
  wsn_port_irq_restore(s);
}

void __wsn_rt_irq_exit(uint16_t irq) {
  wsn_irq_state_t s = wsn_port_irq_save();
  uint8_t d = rt_irq_depth;
  if (rt_quiet) {
    --rt_quiet;
  } else {
    irq_rec(irq, WSN_REC_IRQ_EXIT, 0);
  }
  if (d) {
    rt_irq_depth = --d;
    __wsn_gv_reference = d < WSN_TRACE_IRQ_DEPTH ? rt_irq_saved[d] : 0;
  }
  wsn_port_irq_restore(s);
}

/* The same records for handlers that keep the interrupted count themselves (what the
 * lowering emits: the count lives in the handler's frame from entry to exit, so nesting has
 * no depth limit and the runtime keeps no stack of counts). */
uint16_t __wsn_rt_irq_enter(uint16_t irq) {
  wsn_irq_state_t s = wsn_port_irq_save();
  uint16_t count = __wsn_gv_reference;
  if (rt_quiet || rt_skip_depth) {
    ++rt_quiet;
    rt_span_irq = 1;
  } else {
    irq_rec(irq, WSN_REC_IRQ | F_B, count);
  }
  __wsn_gv_reference = 0;
  wsn_port_irq_restore(s);
  return count;
}

void __wsn_rt_irq_leave(uint16_t irq, uint16_t count) {
  wsn_irq_state_t s = wsn_port_irq_save();
  if (rt_quiet) {
    --rt_quiet;
  } else {
    irq_rec(irq, WSN_REC_IRQ_EXIT, 0);
  }
  __wsn_gv_reference = count;
  wsn_port_irq_restore(s);
}

void __wsn_rt_input(uint16_t site, uint32_t value) {
  if (value <= 0xFFFFu) {
    __wsn_rt_input16(site, (uint16_t)value);
  } else {
    /* Over 16 bits: the value's varint is assembled here (at most 5 bytes). */
    uint8_t v[5], n = 0, *p;
    wsn_irq_state_t s = wsn_port_irq_save();
    while (value >= 0x80u) {
      v[n++] = (uint8_t)(value | 0x80u);
      value >>= 7;
    }
    v[n++] = (uint8_t)value;
    p = rt_quiet ? NULL : emit(site, WSN_REC_INPUT, 0, n);
    if (p) {
      volatile uint8_t *d = p;
      uint8_t i;
      for (i = 0; i < n; ++i)
        d[i] = v[i];
    }
    if (p && seg_offset(HDR.head) != 0) { /* the site only: the value is over 16 bits */
      in_fresh();
      rt_in_valid = 3;
      rt_in_site = site;
    }
    CLOSE();
    wsn_port_irq_restore(s);
  }
}

/* Effect keys (spec/trace-format.md section 3.1). key_find returns the slot of the segment's
 * key of this length, or WSN_TRACE_EFFECT_KEYS. key_put remembers the full EFFECT whose payload
 * starts at p, when its length is at most 255 and the record lies in the segment being written
 * (a record that ended exactly at a segment's end has already entered the next one). A newer
 * key of a length replaces the older one, so a key is always the segment's most recent full
 * EFFECT of its length: the base the decoder takes. Interrupts must be disabled. */
#if WSN_TRACE_EFFECT_KEYS
static NOINLINE uint8_t key_find(uint16_t len) {
  uint8_t i;
  for (i = 0; i < WSN_TRACE_EFFECT_KEYS; ++i)
    if ((rt_keys_valid >> i & 1) && rt_key_len[i] == len)
      break;
  return i;
}

static NOINLINE void key_put(uint16_t len, const uint8_t *p) {
  uint8_t i;
  if (len > 255 || seg_index((uint16_t)(p - __wsn_trace.data)) != seg_index(HDR.head))
    return;
  i = key_find(len);
  if (i == WSN_TRACE_EFFECT_KEYS) {
    i = rt_key_next;
    rt_key_next = (uint8_t)((i + 1) % WSN_TRACE_EFFECT_KEYS);
  }
  rt_key_len[i] = (uint8_t)len;
  rt_key_at[i] = p;
  rt_keys_valid |= (uint8_t)(1u << i);
}
#else
#define key_put(len, p) ((void)0)
#define key_find(len) ((uint8_t)0) /* no keys: WSN_TRACE_EFFECT_KEYS is 0 */
#endif

/* Open a payload record `tag id len bytes[len]` and leave interrupts disabled until
 * __wsn_rt_record_end. The record is reserved (and head moved past it) here: its fields and
 * `extra` payload bytes (len, or 0 for a checkpoint packed into the rest of the segment). */
static NOINLINE void open_payload(uint8_t tag, uint16_t id, uint16_t len, uint16_t extra) {
  rt_open_irq = wsn_port_irq_save();
  rt_cursor = rt_quiet ? NULL : emit(id, tag | F_B, len, extra);
  rt_left = rt_cursor ? len : 0;
  /* An EFFECT written this way is a key too: the decoder takes the most recent full one. */
  if (tag == WSN_REC_EFFECT && rt_cursor)
    key_put(len, rt_cursor);
}

uint8_t __wsn_rt_anchor_armed(void) {
  uint8_t armed;
  wsn_irq_state_t s = wsn_port_irq_save();
#ifdef WSN_PORT_HOST
  init_locked();
#endif
  armed = rt_armed && !rt_quiet && !(FLAGS & WSN_TRACE_FLAG_FROZEN);
  wsn_port_irq_restore(s);
  return armed;
}

#if WSN_TRACE_PACK
/* The packer (spec/trace-format.md section 3.2): payload bytes go in one at a time; a
 * non-zero one is stored at rt_z_o, and every byte shifts its "not zero" bit into the mask
 * from the top; the sentinel bit, put in at bit 7 when the group's mask byte was reserved,
 * falls out at the eighth byte, leaving byte i's bit at bit i: the mask is stored and the
 * next group's mask byte reserved. */

/* The packer's last group: the missing bytes of a partial one are 0 (shifted in until the
 * sentinel falls out) and its mask is stored; a mask byte reserved with no byte after it is
 * given back. Returns the packed end, NULL when the mask would be stored at or past end.
 * (In assembly with the packer's walk on the motes.) */
#if !(defined(__AVR__) || defined(__MSP430__)) || WSN_TRACE_NO_ASM
static NOINLINE uint8_t *zend(const uint8_t *end) {
  uint8_t mask = rt_z_mask, out;
  if (mask == 0x80u)
    return rt_z_m;
  do {
    out = (uint8_t)(mask & 1u);
    mask >>= 1;
  } while (!out);
  if (rt_z_m >= end)
    return NULL;
  *rt_z_m = mask;
  return rt_z_o;
}
#endif

/* A piece of n payload bytes of the checkpoint being packed (rt_left: the bytes owed after
 * it), from the (n, pairs) table t, else from p (NULL: zeros). The first piece of a record
 * packed over its plain reservation may take only what leaves room for the rest at its
 * largest (rt_left + ceil(rt_left / 8) bytes: every byte and a mask per 8), so no later piece
 * can fail. The last one (rt_left 0) also finishes the last group (zend). Returns 1 when
 * the piece is in; 0 when the record is written plain from this piece on (the caller copies
 * it to its plain place: only a first piece can fail there, so nothing before it was
 * packed). In the rest of a segment there is no plain place: a piece that does not fit gives
 * the attempt up (rt_ck_end NULL, the later pieces are dropped, __wsn_rt_record_end says
 * "again"), and 1 is returned. */
static NOINLINE uint8_t zpiece(uintptr_t t, const uint8_t *p, uint16_t n) {
  const uint8_t *end = rt_ck_end;
  uint8_t ok;
  if (rt_ck_first) {
    uint16_t w = (uint16_t)(rt_left + ((rt_left + 7u) >> 3));
    rt_ck_first = 0;
    end = w < (uint16_t)(end - rt_ck_at) ? end - w : NULL;
  }
  ok = end && (t ? zwalk(t, end) : zrun(p, n, end));
  if (ok && !rt_left)
    ok = (rt_ck_done = zend(end)) != NULL;
  if (!ok) {
    if (!rt_ck_rest) {
      rt_ck_tag = NULL;
      return 0;
    }
    rt_ck_end = NULL;
    rt_left = 0;
  }
  rt_cursor += n;
  return 1;
}
#endif

void __wsn_rt_checkpoint_begin(uint16_t anchor, uint16_t len) {
#if WSN_TRACE_PACK
  /* tag and fields */
  uint8_t h = (uint8_t)(1u + vsize(anchor) + vsize(len));
  uint16_t room;
  /* Interrupts off before the head is read: a handler taken between reading it and
   * reserving the record would move the head, and the rest computed from the old one would
   * let the packer store past the segment's end (progfuzz program 1324: three bytes past the
   * ring, over the check values). A second attempt continues the first one's atomic section:
   * __wsn_rt_record_end left interrupts disabled when it said "again", and the state to
   * restore at the end is the one the first attempt saved. (The lowered code resets
   * #gv_reference before __wsn_rt_record_end; a handler taken between the attempts would
   * record a count the trace never shows reset: replay diverged on the same program.) */
  wsn_irq_state_t s = wsn_port_irq_save();
  if (rt_ck_retry)
    s = rt_open_irq;
#ifdef WSN_PORT_HOST
  init_locked();
#endif
  room = (uint16_t)(SEG - seg_offset(HDR.head));
  /* The plain record would reach the segment's end (or not fit): packed, it may still fit in
   * the rest with a byte to spare, when its masks alone do. Only the fields are reserved;
   * the head moves at the end. Not again right after such an attempt failed. */
  rt_ck_rest = len && !rt_ck_retry && len <= (uint16_t)(SEG - h) &&
               (uint16_t)(len + h) >= room && (uint16_t)(h + ((len + 7u) >> 3)) < room;
  rt_ck_retry = 0;
  open_payload(WSN_REC_CHECKPOINT, anchor, len, rt_ck_rest ? 0 : len);
  rt_open_irq = s;
  /* Packed as its pieces come, unless its plain record ended exactly at the segment's end
   * (writing has then entered the next segment, which is not undone); in the rest, every
   * piece within the rest, its last byte left over. */
  if (rt_cursor && len && (rt_ck_rest || seg_offset(HDR.head))) {
    rt_ck_tag = rt_cursor - h;
    rt_ck_at = rt_z_m = rt_cursor;
    rt_ck_len = len;
    rt_z_o = rt_cursor + 1;
    rt_z_mask = 0x80u;
    rt_ck_first = !rt_ck_rest;
    rt_ck_end = rt_cursor + (rt_ck_rest ? (uint16_t)(room - h - 1u) : (uint16_t)(len - 1u));
  }
#else
  open_payload(WSN_REC_CHECKPOINT, anchor, len, len);
#endif
}

void __wsn_rt_effect_begin(uint16_t site, uint16_t len) {
  open_payload(WSN_REC_EFFECT, site, len, len);
}

#if WSN_TRACE_PACK
/* Two-level groups (spec/trace-format.md section 3.7), in place: g holds the one-level groups
 * of a len-byte payload (a mask byte per 8 payload bytes, then the bytes it marks). When more
 * masks are 0x00 than the bitmap has bytes, they become the bitmap (bit j of byte k: group
 * 8k + j is written) followed by the written groups only, and the two-level size is returned;
 * otherwise nothing changes and 0 is returned. Three walks: the masks (count the empty ones,
 * build the bitmap), the written groups moved down over the empty masks, then moved up behind
 * the bitmap (last byte first). The bitmap is built in rt_rec (emit's scratch, free here), so
 * payloads up to 8 * 8 * WSN_Z2_MAP bytes (1024) are converted: larger ones stay one-level.
 * volatile: plain loops would become memmove calls, and there is no libc on the mote.
 * Interrupts must be disabled. */
#define WSN_Z2_MAP 16u
#if !WSN_ASM_WALK
/* The bytes of a group whose mask is m: the mask and the bytes it marks. */
static INLINE uint8_t z2_size(uint8_t m) {
  uint8_t k = 1;
  for (; m; m >>= 1)
    k = (uint8_t)(k + (m & 1u));
  return k;
}

static NOINLINE uint16_t z2(uint8_t *g, uint16_t len) {
  uint8_t *const map = rt_rec, *mp = map - 1, ng, nb, i, m, k, e = 0, bit = 0;
  volatile uint8_t *r = g, *w = g, *q;
  uint16_t n;
  if (len > 8u * 8u * WSN_Z2_MAP)
    return 0;
  ng = (uint8_t)((len + 7u) >> 3);
  nb = (uint8_t)((ng + 7u) >> 3);
  for (i = ng; i; --i) { /* the masks: the bitmap, and how many are empty */
    if (!bit) {
      *++mp = 0;
      bit = 1;
    }
    m = *r;
    if (m)
      *mp |= bit;
    else
      ++e;
    r += z2_size(m);
    bit = (uint8_t)(bit << 1);
  }
  if (e <= nb)
    return 0;
  for (i = ng, r = g; i; --i) { /* the written groups down over the empty masks */
    m = *r;
    if (!m) {
      ++r;
      continue;
    }
    for (k = z2_size(m); k; --k)
      *w++ = *r++;
  }
  n = (uint16_t)(w - g + nb);
  for (q = w + nb; w != g;) /* up behind the bitmap, last byte first */
    *--q = *--w;
  for (mp = map; nb; --nb)
    *w++ = *mp++;
  return n;
}
#elif defined(__AVR__)
/* z2 in AVR assembly (the C version above, store for store: the same stale bytes after the
 * new end). g r25:24, len r23:22; returns r25:24. Pass 1: X walks the masks, r20 groups left,
 * r21 empty ones, r19 the group's bitmap bit, r18 the bitmap byte being built, stored at Z
 * (rt_rec) when complete; pass 2: X reads, Z writes; pass 3: X and Z down, then the bitmap.
 * About a third of clang's code for the C version. */
#define z2 __wsn_rt_z2
uint16_t __wsn_rt_z2(uint8_t *g, uint16_t len);
WSN_NAKED uint16_t __wsn_rt_z2(WSN_ARG uint8_t *g, WSN_ARG uint16_t len) {
  __asm__ __volatile__(
      "  cpi r22, 0x01\n"            /* len > 1024: one-level */
      "  ldi r18, 0x04\n"
      "  cpc r23, r18\n"
      "  brlo 0f\n"
      "9:\n"                         /* not converted: 0 */
      "  ldi r24, 0\n"
      "  ldi r25, 0\n"
      "  ret\n"
      "0:\n"
      "  subi r22, 0xf9\n"           /* ng = (len + 7) >> 3 */
      "  sbci r23, 0xff\n"
      "  lsr r23\n"
      "  ror r22\n"
      "  lsr r23\n"
      "  ror r22\n"
      "  lsr r23\n"
      "  ror r22\n"
      "  tst r22\n"
      "  breq 9b\n"
      "  movw r26, r24\n"
      "  ldi r30, lo8(__wsn_rt_rec)\n"
      "  ldi r31, hi8(__wsn_rt_rec)\n"
      "  mov r20, r22\n"
      "  clr r21\n"
      "  ldi r19, 1\n"
      "  clr r18\n"
      "1:\n"                         /* pass 1 */
      "  ld r23, X+\n"
      "  tst r23\n"
      "  brne 2f\n"
      "  inc r21\n"                  /* an empty mask */
      "  rjmp 3f\n"
      "2:\n"
      "  or r18, r19\n"
      "4:\n"                         /* past the bytes it marks */
      "  lsr r23\n"
      "  brcc 5f\n"
      "  adiw r26, 1\n"
      "5:\n"
      "  tst r23\n"
      "  brne 4b\n"
      "3:\n"
      "  lsl r19\n"
      "  brne 6f\n"
      "  st Z+, r18\n"               /* a bitmap byte complete */
      "  clr r18\n"
      "  ldi r19, 1\n"
      "6:\n"
      "  dec r20\n"
      "  brne 1b\n"
      "  cpi r19, 1\n"
      "  breq 7f\n"
      "  st Z+, r18\n"               /* the last one, in part */
      "7:\n"
      "  subi r30, lo8(__wsn_rt_rec)\n" /* nb */
      "  mov r19, r30\n"
      "  cp r19, r21\n"              /* smaller only with more empty masks than nb */
      "  brsh 9b\n"
      "  movw r26, r24\n"            /* pass 2: X reads, Z writes */
      "  movw r30, r24\n"
      "  mov r20, r22\n"
      "1:\n"
      "  ld r23, X\n"
      "  tst r23\n"
      "  brne 2f\n"
      "  adiw r26, 1\n"              /* an empty mask: dropped */
      "  rjmp 3f\n"
      "2:\n"
      "  ld r0, X+\n"                /* the mask, then the bytes it marks */
      "  st Z+, r0\n"
      "4:\n"
      "  lsr r23\n"
      "  brcc 5f\n"
      "  ld r0, X+\n"
      "  st Z+, r0\n"
      "5:\n"
      "  tst r23\n"
      "  brne 4b\n"
      "3:\n"
      "  dec r20\n"
      "  brne 1b\n"
      "  movw r26, r30\n"            /* pass 3: up by nb, last byte first */
      "  add r30, r19\n"
      "  adc r31, r1\n"
      "  movw r22, r30\n"            /* the new end */
      "8:\n"
      "  cp r26, r24\n"
      "  cpc r27, r25\n"
      "  breq 1f\n"
      "  ld r0, -X\n"
      "  st -Z, r0\n"
      "  rjmp 8b\n"
      "1:\n"
      "  ldi r30, lo8(__wsn_rt_rec)\n" /* the bitmap in front */
      "  ldi r31, hi8(__wsn_rt_rec)\n"
      "2:\n"
      "  ld r0, Z+\n"
      "  st X+, r0\n"
      "  dec r19\n"
      "  brne 2b\n"
      "  sub r22, r24\n"
      "  sbc r23, r25\n"
      "  movw r24, r22\n"
      "  ret\n");
}
#else
/* z2 in MSP430 assembly (the C version above, store for store). g r12, len r13; returns r12.
 * Pass 1: r14 walks the masks, r13 groups left (ng kept on the stack), r10 empty ones, r9
 * the group's bitmap bit, r8 the bitmap byte being built, stored at r15 (rt_rec), r7 a group's
 * byte count; pass 2: r14 reads, r11 writes (through r8), r10 the mask, r7 the group's bytes;
 * pass 3: r11 and r14 down, then the bitmap. */
#define z2 __wsn_rt_z2
uint16_t __wsn_rt_z2(uint8_t *g, uint16_t len);
/* The bits set in each 4-bit value: a mask's bytes in two table reads instead of a loop over
 * its bits (16 cycles against up to 54). */
__attribute__((used)) const uint8_t __wsn_rt_pop4[16] = {0, 1, 1, 2, 1, 2, 2, 3,
                                                         1, 2, 2, 3, 2, 3, 3, 4};
WSN_NAKED uint16_t __wsn_rt_z2(WSN_ARG uint8_t *g, WSN_ARG uint16_t len) {
  __asm__ __volatile__(
      "  cmp #1025, r13\n"           /* len > 1024: one-level */
      "  jlo 0f\n"
      "9:\n"
      "  clr r12\n"
      "  ret\n"
      "0:\n"
      "  add #7, r13\n"              /* ng = (len + 7) >> 3 */
      "  rra r13\n"
      "  rra r13\n"
      "  rra r13\n"
      "  tst r13\n"
      "  jz 9b\n"
      "  push r10\n"
      "  push r9\n"
      "  push r8\n"
      "  push r7\n"
      "  push r13\n"
      "  mov r12, r14\n"
      "  mov #__wsn_rt_rec, r15\n"
      "  clr r10\n"
      "  mov #1, r9\n"
      "  clr r8\n"
      "1:\n"                         /* pass 1 */
      "  mov.b @r14+, r11\n"
      "  tst r11\n"
      "  jnz 2f\n"
      "  inc r10\n"                  /* an empty mask */
      "  jmp 3f\n"
      "2:\n"
      "  bis r9, r8\n"
      "  mov r11, r7\n"              /* past the bytes it marks */
      "  and #15, r7\n"
      "  mov.b __wsn_rt_pop4(r7), r7\n"
      "  add r7, r14\n"
      "  rra r11\n"
      "  rra r11\n"
      "  rra r11\n"
      "  rra r11\n"
      "  mov.b __wsn_rt_pop4(r11), r7\n"
      "  add r7, r14\n"
      "3:\n"
      "  rla.b r9\n"
      "  jnz 6f\n"
      "  mov.b r8, 0(r15)\n"         /* a bitmap byte complete */
      "  inc r15\n"
      "  clr r8\n"
      "  mov #1, r9\n"
      "6:\n"
      "  dec r13\n"
      "  jnz 1b\n"
      "  cmp #1, r9\n"
      "  jeq 7f\n"
      "  mov.b r8, 0(r15)\n"         /* the last one, in part */
      "  inc r15\n"
      "7:\n"
      "  sub #__wsn_rt_rec, r15\n"   /* nb */
      "  pop r13\n"
      "  cmp r10, r15\n"             /* smaller only with more empty masks than nb */
      "  jhs 8f\n"
      "  mov r12, r14\n"             /* pass 2: r14 reads, r11 writes */
      "  mov r12, r11\n"
      "1:\n"
      "  mov.b @r14, r10\n"
      "  tst r10\n"
      "  jnz 2f\n"
      "  inc r14\n"                  /* an empty mask: dropped */
      "  jmp 3f\n"
      "2:\n"
      "  mov r10, r7\n"              /* 1 + its bytes: the mask, then the bytes it marks */
      "  and #15, r7\n"
      "  mov.b __wsn_rt_pop4(r7), r7\n"
      "  rra r10\n"
      "  rra r10\n"
      "  rra r10\n"
      "  rra r10\n"
      "  mov.b __wsn_rt_pop4(r10), r10\n"
      "  add r10, r7\n"
      "  inc r7\n"
      "4:\n"
      "  mov.b @r14+, r8\n"
      "  mov.b r8, 0(r11)\n"
      "  inc r11\n"
      "  dec r7\n"
      "  jnz 4b\n"
      "3:\n"
      "  dec r13\n"
      "  jnz 1b\n"
      "  mov r11, r14\n"             /* pass 3: up by nb, last byte first */
      "  add r15, r14\n"
      "  mov r14, r13\n"             /* the new end */
      "1:\n"
      "  cmp r12, r11\n"
      "  jeq 2f\n"
      "  dec r11\n"
      "  dec r14\n"
      "  mov.b @r11, 0(r14)\n"
      "  jmp 1b\n"
      "2:\n"
      "  mov #__wsn_rt_rec, r14\n"   /* the bitmap in front */
      "3:\n"
      "  mov.b @r14+, r8\n"
      "  mov.b r8, 0(r11)\n"
      "  inc r11\n"
      "  dec r15\n"
      "  jnz 3b\n"
      "  sub r12, r13\n"
      "  mov r13, r12\n"
      "  jmp 1f\n"
      "8:\n"
      "  clr r12\n"
      "1:\n"
      "  pop r7\n"
      "  pop r8\n"
      "  pop r9\n"
      "  pop r10\n"
      "  ret\n");
}
#endif

#endif

NOINLINE void __wsn_rt_put(const void *p, uint16_t n) {
  const uint8_t *b = (const uint8_t *)p;
  volatile uint8_t *d; /* volatile: no memcpy call (no libc on the mote) */
  if (n > rt_left)
    n = rt_left;
  rt_left = (uint16_t)(rt_left - n);
#if WSN_TRACE_PACK
  if (rt_ck_tag && zpiece(0, b, n))
    return;
#endif
  d = rt_cursor;
  while (n--)
    *d++ = *b++;
  rt_cursor = (uint8_t *)d;
}

NOINLINE uint8_t __wsn_rt_record_end(void) {
  uint8_t again = 0;
  if (rt_left) {
    /* Fewer bytes than announced: zero-filled (volatile: no memset call, there is no libc),
     * or packed as a last piece of zeros. */
    uint16_t n = rt_left, i;
    volatile uint8_t *p = rt_cursor;
    FLAGS |= WSN_TRACE_FLAG_DROPPED;
    rt_left = 0;
#if WSN_TRACE_PACK
    if (rt_ck_tag && rt_ck_rest) /* no plain place in the rest: given up */
      rt_ck_end = NULL;
    else
#endif
    {
      for (i = n; i; --i)
        *p++ = 0;
#if WSN_TRACE_PACK
      /* Packed, the zeros go in as a last piece from their plain place, which the packed
       * bytes never reach (the first-piece rule keeps room for them ahead of it). */
      if (rt_ck_tag)
        zpiece(0, rt_cursor, n);
#endif
    }
  }
#if WSN_TRACE_PACK
  if (rt_ck_tag) {
    if (rt_ck_end) { /* packed: the tag, and the head moves to the packed end */
      uint16_t k = z2(rt_ck_at, rt_ck_len);
      *rt_ck_tag = WSN_REC_CHECKPOINT_Z;
      if (k) { /* two-level when smaller (section 3.7) */
        *rt_ck_tag = WSN_REC_CHECKPOINT_Z2;
        rt_ck_done = rt_ck_at + k;
      }
      HDR.head = (uint16_t)(rt_ck_done - __wsn_trace.data);
    } else {
      /* It did not fit in the rest either: given up, the head back at its start (what it
       * wrote is stale) and the anchor flag armed again; the record is closed with nothing
       * in it. The caller begins again, and the plain reservation goes after a PAD. */
      HDR.head = (uint16_t)(rt_ck_tag - __wsn_trace.data);
      rt_armed = 1;
      rt_ck_retry = 1;
      again = 1;
    }
    rt_ck_tag = NULL;
  }
#endif
  if (again) {
    OPEN_HI = 0;
    return again; /* interrupts stay disabled until the second attempt's end */
  }
  CLOSE();
  wsn_port_irq_restore(rt_open_irq);
  return again;
}

void __wsn_rt_input_bytes(uint16_t site, const void *p, uint16_t n) {
  open_payload(WSN_REC_INPUT_BYTES, site, n, n);
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

/* The CHECK or VIOLATION record, left open. A passing check of inv 1..3 is a CHECK_S (format
 * 10, section 3.9): the writer core reserves a CHECK without field a (F_NOA: the tag and the
 * raw checksum, 3 bytes) and the tag is replaced before the record closes, as rec1 and INPUT_S
 * do. One copy for both check entry points. Interrupts must be disabled. */
static NOINLINE void check_rec(uint16_t inv, uint8_t ok, uint16_t crc) {
  uint8_t kind = WSN_REC_VIOLATION | F_RAW, *p;
  if (ok) {
    kind = WSN_REC_CHECK | F_RAW;
    if ((uint16_t)(inv - 1u) < WSN_TRACE_INV_SHORT)
      kind |= F_NOA;
  }
  p = emit(inv, kind, crc, 0);
  if (p && (kind & F_NOA))
    p[-3] = (uint8_t)(WSN_REC_CHECK_S - 2u + 2u * inv);
}

/* CHECK / VIOLATION and the header's check counter and violation fields; returns 1 at the
 * first violation. Interrupts must be disabled. */
static INLINE uint8_t check_locked(uint16_t inv, uint8_t ok, uint16_t crc) {
  struct __wsn_trace_header *h = &HDR;
  check_rec(inv, ok, crc);
#if defined(__AVR__)
  __asm__("" : "+r"(h)); /* base + displacement accesses: smaller on AVR */
#endif
  ++h->checks;
  if (ok || (h->flags & WSN_TRACE_FLAG_VIOLATION)) {
    CLOSE();
    return 0;
  }
  h->violation = inv;
#if WSN_TRACE_BLACKBOX
  h->flags |= WSN_TRACE_FLAG_VIOLATION | WSN_TRACE_FLAG_FROZEN;
#else
  h->flags |= WSN_TRACE_FLAG_VIOLATION;
#endif
  CLOSE();
  return 1;
}

/* The hooks after a check: the check hook always, the violation hook at the first one. */
static INLINE void check_hooks(uint16_t inv, uint8_t first_violation) {
  __wsn_check_hook(inv);
  if (first_violation) {
#ifdef WSN_PORT_HOST
    __wsn_port_host_violation();
#endif
    __wsn_violation_hook(inv);
  }
}

void __wsn_rt_check(uint16_t inv, uint8_t ok, uint16_t crc) {
  uint8_t first_violation;
  wsn_irq_state_t s = wsn_port_irq_save();
  first_violation = check_locked(inv, ok, crc);
  wsn_port_irq_restore(s);
  check_hooks(inv, first_violation);
}

/* CRC-16/CCITT-FALSE of one byte (poly 0x1021, MSB first). */
static NOINLINE uint16_t crc_byte(uint16_t crc, uint8_t b) {
  uint8_t i;
  crc ^= (uint16_t)((uint16_t)b << 8);
  for (i = 0; i < 8; ++i)
    crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
  return crc;
}

/* CRC-16/CCITT-FALSE (init 0xFFFF by the caller, no final xor). */
uint16_t __wsn_crc16(uint16_t crc, const void *p, uint16_t n) {
  const uint8_t *b = (const uint8_t *)p;
  while (n--)
    crc = crc_byte(crc, *b++);
  return crc;
}

/* The entry points N = 8 down to 2 of the region-end helpers below (N = 1 has its own):
 * each is ENTRY(N), a few instructions that load or add N and branch to the shared tail. */
#define WSN_REGION_END_ENTRIES(ENTRY)                                                          \
  ENTRY(8) ENTRY(7) ENTRY(6) ENTRY(5) ENTRY(4) ENTRY(3) ENTRY(2)

#if defined(__AVR__)
/* Region ends on AVR (spec/instrumentation.md section 10): the lowering emits
 * `call __wsn_rt_countN` (N = 1..8) with interrupts disabled; it adds N to #gv_reference and
 * preserves every register but SREG and r0 (the caller restores SREG right after, or
 * declares it clobbered; r0 is the compilers' scratch register, never live across an
 * instruction they emit). 4 bytes at each region end instead of an 18-byte
 * lds/lds/adiw/sts/sts. */
WSN_NAKED void __wsn_rt_count(void) {
  __asm__ __volatile__(
#define WSN_COUNT_ENTRY(n)                                                                    \
  ".global __wsn_rt_count" #n "\n"                                                             \
  "__wsn_rt_count" #n ":\n"                                                                    \
  "  push r24\n"                                                                               \
  "  ldi r24, " #n "\n"                                                                        \
  "  rjmp 1f\n"
      WSN_REGION_END_ENTRIES(WSN_COUNT_ENTRY)
#undef WSN_COUNT_ENTRY
      "1:\n"
      "  push r25\n"
      "  lds r25, __wsn_gv_reference\n"
      "  add r25, r24\n"
      "  sts __wsn_gv_reference, r25\n"
      "  brcc 2f\n"
      "  lds r25, __wsn_gv_reference+1\n"
      "  inc r25\n"
      "  sts __wsn_gv_reference+1, r25\n"
      "2:\n"
      "  pop r25\n"
      "  pop r24\n"
      "  ret\n"
      /* n = 1, the usual region: with r0, the scratch register no compiled code keeps a
       * value in, so nothing is saved (15 cycles with the call, against 10 for the inline
       * update and 24 for the path above). */
      ".global __wsn_rt_count1\n"
      "__wsn_rt_count1:\n"
      "  lds r0, __wsn_gv_reference\n"
      "  inc r0\n"
      "  sts __wsn_gv_reference, r0\n"
      "  brne 3f\n"
      "  lds r0, __wsn_gv_reference+1\n"
      "  inc r0\n"
      "  sts __wsn_gv_reference+1, r0\n"
      "3:\n"
      "  ret\n");
}
#endif

#if defined(__MSP430__)
/* Region ends on MSP430 (spec/instrumentation.md section 10): the lowering emits
 * `call #__wsn_rt_endN` (N = 1..8) with the SR saved at the region's start in r15 and
 * interrupts disabled; it adds N to #gv_reference and sets GIE again if it was set (the same
 * `nop; bis; nop` as the inline form), changing only r15 and the flags. 4 bytes at each
 * region end instead of 12. */
WSN_NAKED void __wsn_rt_end(void) {
  __asm__ __volatile__(
#define WSN_END_ENTRY(n)                                                                      \
  ".global __wsn_rt_end" #n "\n"                                                               \
  "__wsn_rt_end" #n ":\n"                                                                      \
  "  add #" #n ", &__wsn_gv_reference\n"                                                       \
  "  jmp 1f\n"
      WSN_REGION_END_ENTRIES(WSN_END_ENTRY)
#undef WSN_END_ENTRY
      ".global __wsn_rt_end1\n"
      "__wsn_rt_end1:\n"
      "  inc &__wsn_gv_reference\n"
      "1:\n"
      "  and #8, r15\n"
      "  nop\n"
      "  bis r15, r2\n"
      "  nop\n"
      "  ret\n");
}
#endif

#if defined(__MSP430__)
/* Input sites on MSP430 (spec/instrumentation.md section 10): for an input that is a volatile
 * read of a constant address, the lowering emits `call #__wsn_rt_in8_at` followed by two words,
 * site and (mask << 8 | address), for a byte register (all sit below 0x100), or
 * `call #__wsn_rt_in16_at` followed by three, site, address and mask, for a word register.
 * The helper reads the register, records INPUT site (value & mask) through __wsn_rt_input16
 * (the same record as every input writer) and returns the unmasked value in r12, past the
 * words. It preserves every other register (only r12 and the flags change), so the site
 * keeps its values in registers: 8 or 10 bytes where the inline read, the masking, the
 * argument moves and the call took 14-22. */
WSN_NAKED void __wsn_rt_in_at(void) {
  __asm__ __volatile__(
      ".global __wsn_rt_in8_at\n"
      "__wsn_rt_in8_at:\n"
      "  push r15\n"
      "  push r14\n"
      "  push r13\n"
      "  push r11\n"
      "  mov 8(r1), r15\n"         /* r15 -> site, address | mask << 8 */
      "  mov.b 2(r15), r14\n"      /* address (below 0x100: the byte peripherals) */
      "  mov.b @r14, r14\n"        /* the register's byte, zero-extended */
      "  mov.b 3(r15), r13\n"      /* mask */
      "  add #4, 8(r1)\n"          /* return past the two words */
      "  jmp 1f\n"
      ".global __wsn_rt_in16_at\n"
      "__wsn_rt_in16_at:\n"
      "  push r15\n"
      "  push r14\n"
      "  push r13\n"
      "  push r11\n"
      "  mov 8(r1), r15\n"         /* r15 -> site, address, mask */
      "  mov 2(r15), r14\n"
      "  mov @r14, r14\n"          /* the register's word */
      "  mov 4(r15), r13\n"        /* mask */
      "  add #6, 8(r1)\n"          /* return past the three words */
      "1:\n"
      "  push r14\n"
      "  mov @r15, r12\n"          /* site */
      "  and r14, r13\n"           /* the bits the program uses */
      "  call #__wsn_rt_input16\n"
      "  pop r12\n"
      "  pop r11\n"
      "  pop r13\n"
      "  pop r14\n"
      "  pop r15\n"
      "  ret\n");
}
#endif

#if defined(__AVR__)
/* Skipped calls on AVR (spec/instrumentation.md section 10), as on MSP430 below: with the
 * callee's (at most four, 1-2 byte) arguments in r24, r22, r20, r18 as for the call itself,
 * `call __wsn_rt_skip_call` is followed by three words in flash: site, effect table (its
 * flash byte address, as the table argument of __wsn_rt_skip_effect_t) and the callee's byte
 * address. The helper records SKIP_BEGIN, takes the snapshot of the effect's variables on the
 * stack (__wsn_rt_snap's size, spec/trace-format.md section 3.3), calls the callee with the
 * arguments, records SKIP_END and the EFFECT (or EFFECT_C) through __wsn_rt_skip_effect_c,
 * and returns the callee's value in r24-r25, past the words; it may change what a call may
 * (r18-r27, r30-r31, r0, SREG) and RAMPZ. Y (saved) holds the frame: Y+1..2 site, Y+3..4
 * table, Y+5..6 callee (high byte first), Y+7..14 the arguments; the snapshot lies below
 * it, from SP+1. 10 bytes at a site where the two record calls took about 22. */
WSN_NAKED void __wsn_rt_skip_call(void) {
  __asm__ __volatile__(
      "  push r29\n"
      "  push r28\n"
      "  push r25\n"              /* the callee's arguments */
      "  push r24\n"
      "  push r23\n"
      "  push r22\n"
      "  push r21\n"
      "  push r20\n"
      "  push r19\n"
      "  push r18\n"
      "  in r30, 0x3d\n"          /* Z = SP */
      "  in r31, 0x3e\n"
      "  ldd r27, Z+11\n"         /* the return address (a word address): the words */
      "  ldd r26, Z+12\n"
      "  adiw r26, 3\n"           /* return past them */
      "  std Z+11, r27\n"
      "  std Z+12, r26\n"
      "  sbiw r26, 3\n"
      "  movw r30, r26\n"
      "  lsl r30\n"               /* their byte address, bit 16 into RAMPZ */
      "  rol r31\n"
      "  clr r26\n"
      "  rol r26\n"
      "  out 0x3b, r26\n"
      "  elpm r24, Z+\n"          /* site */
      "  elpm r25, Z+\n"
      "  elpm r22, Z+\n"          /* table */
      "  elpm r23, Z+\n"
      "  elpm r20, Z+\n"          /* callee */
      "  elpm r21, Z+\n"
      "  push r20\n"
      "  push r21\n"
      "  push r22\n"
      "  push r23\n"
      "  push r24\n"
      "  push r25\n"
      "  in r28, 0x3d\n"          /* Y = the frame */
      "  in r29, 0x3e\n"
      "  call __wsn_rt_skip_begin\n"
      "  ldd r24, Y+4\n"          /* table */
      "  ldd r25, Y+3\n"
      "  clr r22\n"               /* no destination: its size */
      "  clr r23\n"
      "  call __wsn_rt_snap\n"
      "  movw r26, r28\n"         /* SP = Y - snapshot size */
      "  sub r26, r24\n"
      "  sbc r27, r25\n"
      "  in r0, 0x3f\n"
      "  cli\n"
      "  out 0x3e, r27\n"
      "  out 0x3f, r0\n"
      "  out 0x3d, r26\n"
      "  movw r22, r26\n"         /* the snapshot at SP+1 */
      "  subi r22, 0xff\n"
      "  sbci r23, 0xff\n"
      "  ldd r24, Y+4\n"
      "  ldd r25, Y+3\n"
      "  call __wsn_rt_snap\n"
      "  ldd r26, Y+6\n"          /* callee: byte address -> word address */
      "  ldd r27, Y+5\n"
      "  ldd r18, Y+7\n"
      "  ldd r19, Y+8\n"
      "  ldd r20, Y+9\n"
      "  ldd r21, Y+10\n"
      "  ldd r22, Y+11\n"
      "  ldd r23, Y+12\n"
      "  ldd r24, Y+13\n"
      "  ldd r25, Y+14\n"
      "  movw r30, r26\n"
      "  lsr r31\n"
      "  ror r30\n"
      "  icall\n"                 /* the callee */
      "  movw r20, r24\n"         /* its return value, also kept in the frame */
      "  std Y+7, r24\n"
      "  std Y+8, r25\n"
      "  ldd r24, Y+2\n"          /* site */
      "  ldd r25, Y+1\n"
      "  ldd r22, Y+4\n"          /* table */
      "  ldd r23, Y+3\n"
      "  in r18, 0x3d\n"          /* the snapshot */
      "  in r19, 0x3e\n"
      "  subi r18, 0xff\n"
      "  sbci r19, 0xff\n"
      "  call __wsn_rt_skip_effect_c\n"
      "  ldd r24, Y+7\n"
      "  ldd r25, Y+8\n"
      "  movw r30, r28\n"         /* SP = Y + 14: drop the snapshot, the words, the arguments */
      "  adiw r30, 14\n"
      "  in r0, 0x3f\n"
      "  cli\n"
      "  out 0x3e, r31\n"
      "  out 0x3f, r0\n"
      "  out 0x3d, r30\n"
      "  pop r28\n"
      "  pop r29\n"
      "  ret\n");
}
#endif

#if defined(__MSP430__)
/* Skipped calls on MSP430 (spec/instrumentation.md section 10): the lowering emits, with the
 * callee's arguments in r12-r15 as for the call itself, `call #__wsn_rt_skip_call` followed by
 * three words: site, effect table, callee. The helper records SKIP_BEGIN site, takes the
 * snapshot of the effect's variables on the stack (__wsn_rt_snap's size rounded up to a
 * word, spec/trace-format.md section 3.3), calls the callee with the arguments, and records
 * SKIP_END and the EFFECT (or EFFECT_C) through __wsn_rt_skip_effect_c; it returns the callee's
 * return value (at most 16 bits) in r12, past the words, and may change r11-r15 and the flags
 * like any call. r10 (saved) holds the frame: 0..7(r10) the arguments, 10(r10) the return
 * address; the snapshot lies below it, from SP. 10 bytes at a site where the two record calls
 * took about 20. */
WSN_NAKED void __wsn_rt_skip_call(void) {
  __asm__ __volatile__(
      "  push r10\n"
      "  push r15\n"              /* the callee's arguments */
      "  push r14\n"
      "  push r13\n"
      "  push r12\n"
      "  mov r1, r10\n"           /* the frame */
      "  mov 10(r10), r12\n"      /* -> site, table, callee */
      "  mov @r12, r12\n"
      "  call #__wsn_rt_skip_begin\n"
      "  mov 10(r10), r12\n"
      "  mov 2(r12), r12\n"       /* table */
      "  clr r13\n"               /* no destination: its size */
      "  call #__wsn_rt_snap\n"
      "  inc r12\n"               /* a whole number of words */
      "  bic #1, r12\n"
      "  sub r12, r1\n"
      "  mov 10(r10), r12\n"
      "  mov 2(r12), r12\n"
      "  mov r1, r13\n"           /* the snapshot at SP */
      "  call #__wsn_rt_snap\n"
      "  mov 0(r10), r12\n"
      "  mov 2(r10), r13\n"
      "  mov 4(r10), r14\n"
      "  mov 6(r10), r15\n"
      "  mov 10(r10), r11\n"
      "  call 4(r11)\n"           /* the callee */
      "  mov r12, 0(r10)\n"       /* its return value */
      "  mov r12, r14\n"
      "  mov 10(r10), r11\n"
      "  mov @r11, r12\n"         /* site */
      "  mov 2(r11), r13\n"       /* table */
      "  mov r1, r15\n"           /* the snapshot */
      "  call #__wsn_rt_skip_effect_c\n"
      "  mov 0(r10), r12\n"
      "  mov r10, r1\n"           /* drop the snapshot and the arguments */
      "  add #8, r1\n"
      "  pop r10\n"
      "  add #6, 0(r1)\n"         /* return past the three words */
      "  ret\n");
}
#endif

/*---------------------------------------------------------------------------------------------
 * Table-driven records (spec/trace-format.md section 4). The lowering describes an effect,
 * a check or a checkpoint by one constant table, so that a site costs one call:
 *
 *   effect      len u16, ret-bytes u8, n u8, n x (addr, size u8)   (site id: an argument)
 *   check       id u16, n u8, n x (addr, size u8)
 *   checkpoint  id u16, len u16, n u8, n x (addr, size u8)
 *   variables   bytes u16, n u8, n x (addr, size u8)                 (__wsn_rt_put_t)
 *
 * All little-endian; addr is pointer-sized (2 bytes on AVR and MSP430, 8 on a 64-bit host);
 * a variable larger than 255 bytes takes several pairs. A pair of size 0 is a link: the walk
 * goes on with the (n, pairs) table at its address (effect tables share the variables that
 * interrupt handlers may write this way); on AVR the link is the table's word address, as
 * clang and avr-gcc write a program-memory address in data (pm()), so linked tables are
 * 2-byte aligned.
 *
 * An effect table has no site id: every call site whose record has the same layout shares
 * it, and passes its site to __wsn_rt_effect_t, or to __wsn_rt_skip_effect_t, which writes
 * SKIP_END site first (the skip span's end and the effect in one atomic step); the *32_t
 * entries take a return value of up to 4 bytes. ret-bytes (0-4) of the return value `ret`
 * come first in the payload, little-endian. The (addr, size)
 * pairs list the variables in trace-map order;
 * `len` is the payload length. On AVR the table lives in flash (read with lpm); elsewhere it
 * is ordinary constant data.
 *-------------------------------------------------------------------------------------------*/
#if defined(__AVR__)
static inline __attribute__((always_inline)) uint8_t tbl8(uintptr_t a) {
  uint8_t r;
  __asm__("lpm %0, Z" : "=r"(r) : "z"(a));
  return r;
}
#else
#define tbl8(a) (*(const uint8_t *)(a))
#endif

static NOINLINE uint16_t tbl16(uintptr_t a) {
  return (uint16_t)(tbl8(a) | ((uint16_t)tbl8(a + 1) << 8));
}

/* A variable's address in a table: pointer-sized, little-endian (2 bytes on the motes). */
#define ASZ ((uint8_t)sizeof(uintptr_t))
/* The table a link pair (size 0) names: on AVR a word address (pm()), as compilers write a
 * program-memory address in data. */
#if defined(__AVR__)
#define LINKED(a) ((uintptr_t)(a) << 1)
#else
#define LINKED(a) ((uintptr_t)(a))
#endif
#if UINTPTR_MAX == 0xFFFFu
#define tbladdr(a) ((uintptr_t)tbl16(a))
#else
static uintptr_t tbladdr(uintptr_t a) {
  uintptr_t v = 0;
  uint8_t i = ASZ;
  while (i--)
    v = (v << 8) | tbl8(a + i);
  return v;
}
#endif

/* Walk the (n, pairs) table at t: copy the bytes to dst, or, with dst NULL, fold them into
 * the CRC. Returns the CRC. Interrupts must be disabled. walkn: the n pairs at p (a table's
 * first pairs without their count: an effect's second part, spec/trace-format.md section 4). */
#if !WSN_ASM_WALK
static NOINLINE uint16_t walkn(uintptr_t p, uint8_t *dst, uint8_t n) {
  uint16_t crc = 0xFFFFu;
  volatile uint8_t *d = dst; /* volatile: no memcpy call */
  while (n--) {
    const uint8_t *src = (const uint8_t *)tbladdr(p);
    uint8_t size = tbl8(p + ASZ);
    p += 1 + ASZ;
    if (!size) { /* a link: go on with the (n, pairs) table at that address */
      p = LINKED(src);
      n = tbl8(p++);
      continue;
    }
    while (size--) {
      uint8_t b = *src++;
      if (d)
        *d++ = b;
      else
        crc = crc_byte(crc, b);
    }
  }
  return crc;
}
#define walk(t, dst) walkn((t) + 1, (dst), tbl8(t))
#elif defined(__AVR__)
/* The head of the AVR table walks (walk, zwalk): r23 pairs left, the table in Z (flash, lpm);
 * at 2: a variable of r22 (1..255) bytes at Y; at 5: no pair left. A pair of size 0 links to
 * the (n, pairs) table at its word address (pm()). RUN: code before the next pair is read. */
#define WSN_AVR_PAIRS(RUN)                                                                      \
  "1:\n"                                                                                       \
  "  subi r23, 1\n"                                                                            \
  "  brcs 5f\n" RUN "  lpm r28, Z+\n" /* Y = address */                                       \
  "  lpm r29, Z+\n"                                                                           \
  "  lpm r22, Z+\n" /* size */                                                                 \
  "  cpi r22, 0\n"                                                                             \
  "  brne 2f\n"                                                                                \
  "  movw r30, r28\n"                                                                          \
  "  lsl r30\n" /* Z = 2 * link */                                                             \
  "  rol r31\n"                                                                                \
  "  lpm r23, Z+\n"                                                                            \
  "  rjmp 1b\n"                                                                                \
  "2:\n"
/* The same in AVR assembly: table in Z (flash, lpm), variable in Y, destination in X; the
 * CRC-16/CCITT-FALSE step inline (crc ^= b << 8, then 8 x shift left, ^ 0x1021 on carry). */
#define walk __wsn_rt_walk
WSN_NAKED uint16_t __wsn_rt_walk(WSN_ARG uintptr_t t, WSN_ARG uint8_t *dst) {
  __asm__ __volatile__(
      "  push r28\n"
      "  push r29\n"
      "  movw r30, r24\n"
      "  movw r26, r22\n"
      "  ldi r24, 0xff\n"
      "  ldi r25, 0xff\n"
      "  lpm r23, Z+\n"               /* number of pairs */
      WSN_AVR_PAIRS("")
      "  adiw r26, 0\n"               /* no destination: CRC */
      "  breq 3f\n"
      "7:\n"
      "  ld r0, Y+\n"                 /* copy, 7 cycles a byte */
      "  st X+, r0\n"
      "  dec r22\n"
      "  brne 7b\n"
      "  rjmp 1b\n"
      "3:\n"
      "  ld r0, Y+\n"
      "  eor r25, r0\n"
      "  ldi r21, 8\n"
      "4:\n"
      "  lsl r24\n"
      "  rol r25\n"
      "  brcc 6f\n"
      "  ldi r20, 0x21\n"
      "  eor r24, r20\n"
      "  ldi r20, 0x10\n"
      "  eor r25, r20\n"
      "6:\n"
      "  dec r21\n"
      "  brne 4b\n"
      "  dec r22\n"
      "  brne 3b\n"
      "  rjmp 1b\n"
      "5:\n"
      "  pop r29\n"
      "  pop r28\n"
      "  ret\n"
      /* __wsn_rt_walkn(p, dst, n): the n pairs at p, without a count byte before them */
      "  .global __wsn_rt_walkn\n"
      "  .type __wsn_rt_walkn, @function\n"
      "__wsn_rt_walkn:\n"
      "  push r28\n"
      "  push r29\n"
      "  movw r30, r24\n"
      "  movw r26, r22\n"
      "  ldi r24, 0xff\n"
      "  ldi r25, 0xff\n"
      "  mov r23, r20\n"
      "  rjmp 1b\n");
}
#define walkn __wsn_rt_walkn
uint16_t __wsn_rt_walkn(uintptr_t p, uint8_t *dst, uint8_t n);
#else /* MSP430 */
/* The same for MSP430: table r15 (read bytewise: the pairs are not word aligned), variable
 * r11, destination r13, CRC r12, pairs r14, size r10, bit count r9. */
#define walk __wsn_rt_walk
WSN_NAKED uint16_t __wsn_rt_walk(WSN_ARG uintptr_t t, WSN_ARG uint8_t *dst) {
  __asm__ __volatile__(
      "  push r10\n"
      "  push r9\n"
      "  mov r12, r15\n"
      "  mov #-1, r12\n"
      "  mov.b @r15+, r14\n"
      "1:\n"
      "  dec r14\n"                     /* borrow (C clear): no pair left */
      "  jnc 5f\n"
      "  mov.b @r15+, r11\n"
      "  mov.b @r15+, r10\n"
      "  swpb r10\n"
      "  bis r10, r11\n"
      "  mov.b @r15+, r10\n"
      "  tst r10\n"                    /* size 0: a link to another (n, pairs) table */
      "  jnz 2f\n"
      "  mov r11, r15\n"
      "  mov.b @r15+, r14\n"
      "  jmp 1b\n"
      "2:\n"                            /* size 1..255 */
      "  tst r13\n"
      "  jz 3f\n"
      "7:\n"
      "  mov.b @r11+, r9\n"             /* copy, 10 cycles a byte */
      "  mov.b r9, 0(r13)\n"
      "  inc r13\n"
      "  dec r10\n"
      "  jnz 7b\n"
      "  jmp 1b\n"
      "3:\n"
      "  mov.b @r11+, r9\n"
      "  swpb r9\n"
      "  xor r9, r12\n"
      "  mov #8, r9\n"
      "4:\n"
      "  rla r12\n"
      "  jnc 6f\n"
      "  xor #0x1021, r12\n"
      "6:\n"
      "  dec r9\n"
      "  jnz 4b\n"
      "  dec r10\n"
      "  jnz 3b\n"
      "  jmp 1b\n"
      "5:\n"
      "  pop r9\n"
      "  pop r10\n"
      "  ret\n"
      /* __wsn_rt_walkn(p, dst, n): the n pairs at p, without a count byte before them */
      "  .global __wsn_rt_walkn\n"
      "  .type __wsn_rt_walkn, @function\n"
      "__wsn_rt_walkn:\n"
      "  push r10\n"
      "  push r9\n"
      "  mov r12, r15\n"
      "  mov #-1, r12\n"
      "  mov.b r14, r14\n"
      "  jmp 1b\n");
}
#define walkn __wsn_rt_walkn
uint16_t __wsn_rt_walkn(uintptr_t p, uint8_t *dst, uint8_t n);
#endif

#if WSN_TRACE_EFFECT_KEYS
/* The changes of an effect against its key (spec/trace-format.md section 3.1), written at out:
 * the payload's bytes (ret's rbytes low bytes, then the variables of the (n, pairs) table at
 * t, as walk reads it) are compared with the key's, and every stretch of changed bytes
 * becomes a run `u8 skip, u8 n, bytes[n]` (skip: unchanged bytes since the previous run; the
 * payload has at most 255 bytes, so both fit). Returns the runs' size, or 0xFF as soon as they would exceed `limit`
 * bytes (nothing is written past out + limit). */
static NOINLINE uint8_t delta(const uint8_t *key, uintptr_t t, uint8_t rbytes, uint32_t ret,
                              uint8_t *out, uint8_t limit) {
  uint8_t *o = out, *np = 0; /* np: the count of the open run */
  uint8_t gap = 0, vsize = rbytes, n = tbl8(t), b;
  const uint8_t *src = (const uint8_t *)&ret; /* little-endian on every target */
  for (;;) {
    if (!vsize) { /* the next pair (or link) */
      if (!n)
        break;
      --n;
      src = (const uint8_t *)tbladdr(t + 1);
      vsize = tbl8(t + 1 + ASZ);
      t += 1 + ASZ;
      if (!vsize) { /* a link: the walk goes on with the table at that address */
        t = LINKED(src);
        n = tbl8(t);
      }
      continue;
    }
    --vsize;
    b = *src++;
    if (b == *key++) {
      np = 0;
      ++gap;
      continue;
    }
    if ((uint8_t)(o - out) + (np ? 1 : 3) > limit)
      return 0xFF;
    if (!np) {
      *o++ = gap;
      np = o++;
      *np = 0;
      gap = 0;
    }
    *o++ = b;
    ++*np;
  }
  return (uint8_t)(o - out);
}
#endif

/* The return bytes of the effect being written, for changes (shared with its assembly). */
#define rt_c_rbytes __wsn_rt_c_rbytes
__attribute__((used)) uint8_t rt_c_rbytes;
#if !WSN_ASM_WALK
/* Effects of changes (spec/trace-format.md section 3.3). The payload's bytes (ret's rbytes
 * low bytes, then the variables of the (n, pairs) table at t, as walk reads them) against
 * their values before the call: 0 for the return bytes, the snapshot `snap` for the
 * variables. With out NULL, returns how many differ; else writes the groups at out (per 8
 * payload bytes a mask byte, bit i: byte 8g + i differs, then those bytes) and returns their
 * size. Interrupts must be disabled. */
static NOINLINE uint16_t changes(uintptr_t t, const uint8_t *ret, const uint8_t *snap,
                                 uint8_t *out) {
  uint8_t *o = out, *m = out, bit = 0, n = tbl8(t), vsize = rt_c_rbytes, inret = vsize, b, was;
  const uint8_t *src = ret; /* little-endian on every target */
  uint16_t c = 0;
  for (;;) {
    if (!vsize) { /* the next pair (or link) */
      if (!n)
        break;
      --n;
      src = (const uint8_t *)tbladdr(t + 1);
      vsize = tbl8(t + 1 + ASZ);
      t += 1 + ASZ;
      if (!vsize) { /* a link: the walk goes on with the table at that address */
        t = LINKED(src);
        n = tbl8(t);
      }
      continue;
    }
    --vsize;
    b = *src++;
    if (inret) {
      --inret;
      was = 0;
    } else {
      was = *snap++;
    }
    if (out) {
      if (!bit) { /* a group starts: its mask byte */
        m = o++;
        *m = 0;
      }
      if (b != was) {
        *m |= (uint8_t)(1u << bit);
        *o++ = b;
      }
      bit = (uint8_t)((bit + 1) & 7u);
    } else if (b != was) {
      ++c;
    }
  }
  return out ? (uint16_t)(o - out) : c;
}
#elif defined(__AVR__)
/* The same in AVR assembly: table r15:r14 (in Z, lpm, while a pair is read), the return
 * value's bytes and then each variable in Y, the snapshot in Z, the groups (or the count) in
 * X, the open group's mask byte at r25:r24 and its bits in r17, the byte's bit r18, the return
 * bytes left r19, the variable's bytes left r22, pairs left r23; T: writing (out != NULL). */
#define changes __wsn_rt_changes
WSN_NAKED uint16_t __wsn_rt_changes(WSN_ARG uintptr_t t, WSN_ARG const uint8_t *ret,
                                    WSN_ARG const uint8_t *snap, WSN_ARG uint8_t *out) {
  __asm__ __volatile__(
      "  push r28\n"
      "  push r29\n"
      "  push r14\n"
      "  push r15\n"
      "  push r16\n"
      "  push r17\n"
      "  movw r28, r22\n"             /* Y = the return value's bytes */
      "  movw r26, r18\n"             /* X = out */
      "  clt\n"
      "  cp r18, r1\n"
      "  cpc r19, r1\n"
      "  breq 1f\n"
      "  set\n"
      "1:\n"
      "  movw r30, r24\n"
      "  lpm r23, Z+\n"               /* number of pairs */
      "  movw r14, r30\n"
      "  movw r30, r20\n"             /* Z = snapshot */
      "  lds r22, __wsn_rt_c_rbytes\n"
      "  mov r19, r22\n"
      "  ldi r18, 1\n"
      "  clr r17\n"
      "  rjmp 8f\n"
      "2:\n"                          /* a payload byte */
      "  ld r0, Y+\n"
      "  clr r16\n"                   /* a return byte: against 0 */
      "  tst r19\n"
      "  breq 3f\n"
      "  dec r19\n"
      "  rjmp 4f\n"
      "3:\n"
      "  ld r16, Z+\n"                /* a variable byte: against the snapshot */
      "4:\n"
      "  brtc 5f\n"
      "  cpi r18, 1\n"                /* a group starts: its mask byte */
      "  brne 5f\n"
      "  movw r24, r26\n"
      "  adiw r26, 1\n"
      "5:\n"
      "  cp r0, r16\n"
      "  breq 6f\n"
      "  or r17, r18\n"
      "  brtc 9f\n"
      "  st X+, r0\n"
      "  rjmp 6f\n"
      "9:\n"
      "  adiw r26, 1\n"               /* counting */
      "6:\n"
      "  lsl r18\n"
      "  brne 7f\n"
      "  ldi r18, 1\n"                /* a complete group: its mask */
      "  brtc 10f\n"
      "  movw r20, r30\n"
      "  movw r30, r24\n"
      "  st Z, r17\n"
      "  movw r30, r20\n"
      "10:\n"
      "  clr r17\n"
      "7:\n"
      "  dec r22\n"
      "8:\n"
      "  tst r22\n"
      "  brne 2b\n"
      "11:\n"                         /* the next pair */
      "  subi r23, 1\n"
      "  brcs 12f\n"
      "  movw r20, r30\n"
      "  movw r30, r14\n"
      "  lpm r28, Z+\n"               /* Y = address */
      "  lpm r29, Z+\n"
      "  lpm r22, Z+\n"               /* size */
      "  movw r14, r30\n"
      "  movw r30, r20\n"
      "  cpi r22, 0\n"                /* size 0: a link to another (n, pairs) table */
      "  brne 2b\n"
      "  movw r30, r28\n"
      "  lsl r30\n"                   /* a word address (pm()): Z = 2 * link */
      "  rol r31\n"
      "  lpm r23, Z+\n"
      "  movw r14, r30\n"
      "  movw r30, r20\n"
      "  rjmp 11b\n"
      "12:\n"
      "  brtc 13f\n"                  /* a partial last group's mask */
      "  cpi r18, 1\n"
      "  breq 13f\n"
      "  movw r30, r24\n"
      "  st Z, r17\n"
      "13:\n"
      "  movw r24, r26\n"             /* the count (writing: unused) */
      "  pop r17\n"
      "  pop r16\n"
      "  pop r15\n"
      "  pop r14\n"
      "  pop r29\n"
      "  pop r28\n"
      "  ret\n");
}
#else /* MSP430 */
/* The same for MSP430: table r12 (read bytewise), the return value's bytes and then each
 * variable r13, the snapshot r14, the groups (or the count) r15, the open group's mask byte at
 * r8 and its bits in r9, the byte's bit r10, the byte r11, the return bytes left r5, the
 * variable's bytes left r7, pairs left r6; r4: writing (out != NULL). */
#define changes __wsn_rt_changes
WSN_NAKED uint16_t __wsn_rt_changes(WSN_ARG uintptr_t t, WSN_ARG const uint8_t *ret,
                                    WSN_ARG const uint8_t *snap, WSN_ARG uint8_t *out) {
  __asm__ __volatile__(
      "  push r10\n"
      "  push r9\n"
      "  push r8\n"
      "  push r7\n"
      "  push r6\n"
      "  push r5\n"
      "  push r4\n"
      "  mov r15, r4\n"
      "  mov.b &__wsn_rt_c_rbytes, r7\n"
      "  mov r7, r5\n"
      "  mov.b @r12+, r6\n"           /* number of pairs */
      "  mov #1, r10\n"
      "  clr r9\n"
      "  jmp 8f\n"
      "2:\n"                           /* a payload byte */
      "  tst r4\n"
      "  jz 5f\n"
      "  cmp #1, r10\n"                /* a group starts: its mask byte */
      "  jne 5f\n"
      "  mov r15, r8\n"
      "  inc r15\n"
      "5:\n"
      "  mov.b @r13+, r11\n"
      "  tst r5\n"
      "  jz 3f\n"
      "  dec r5\n"
      "  tst.b r11\n"                  /* a return byte: against 0 */
      "  jmp 4f\n"
      "3:\n"
      "  cmp.b @r14+, r11\n"           /* a variable byte: against the snapshot */
      "4:\n"
      "  jz 6f\n"
      "  bis.b r10, r9\n"
      "  tst r4\n"
      "  jz 9f\n"
      "  mov.b r11, 0(r15)\n"
      "9:\n"
      "  inc r15\n"
      "6:\n"
      "  rla.b r10\n"
      "  jnz 7f\n"
      "  mov #1, r10\n"                /* a complete group: its mask */
      "  tst r4\n"
      "  jz 10f\n"
      "  mov.b r9, 0(r8)\n"
      "10:\n"
      "  clr r9\n"
      "7:\n"
      "  dec r7\n"
      "8:\n"
      "  tst r7\n"
      "  jnz 2b\n"
      "11:\n"                          /* the next pair */
      "  dec r6\n"                     /* borrow (C clear): no pair left */
      "  jnc 12f\n"
      "  mov.b @r12+, r13\n"
      "  mov.b @r12+, r11\n"
      "  swpb r11\n"
      "  bis r11, r13\n"
      "  mov.b @r12+, r7\n"
      "  tst r7\n"                     /* size 0: a link to another (n, pairs) table */
      "  jnz 2b\n"
      "  mov r13, r12\n"
      "  mov.b @r12+, r6\n"
      "  jmp 11b\n"
      "12:\n"
      "  tst r4\n"                     /* a partial last group's mask */
      "  jz 13f\n"
      "  cmp #1, r10\n"
      "  jeq 13f\n"
      "  mov.b r9, 0(r8)\n"
      "13:\n"
      "  mov r15, r12\n"               /* the count (writing: unused) */
      "  pop r4\n"
      "  pop r5\n"
      "  pop r6\n"
      "  pop r7\n"
      "  pop r8\n"
      "  pop r9\n"
      "  pop r10\n"
      "  ret\n");
}
#endif

/* The (n, pairs) table of effect table t: after `u16 len, u8 rbytes`, and with rbytes' 0x40 (a
 * short form whose whole form has a part of its own) after `u16 whole len, u8 m` too. */
static NOINLINE uintptr_t effect_pairs(uintptr_t t) {
  return t + ((tbl8(t + 2) & 0x40u) ? 6u : 3u);
}

/* The snapshot of effect table t's variables (section 3.3): those of the form written when no
 * handler runs inside the skipped call (the short form when the table has one, section 2.1).
 * Returns its size, 0 above WSN_TRACE_SNAP_MAX; with dst, copies them there. Interrupts may
 * be enabled: a handler that changes a variable meanwhile sets rt_span_irq (the span is open),
 * and the effect is then written whole. `used`: called from __wsn_rt_skip_call's assembly. */
__attribute__((used)) uint16_t __wsn_rt_snap(uintptr_t t, uint8_t *dst) {
  uint16_t n = (uint16_t)(tbl16(t) - (tbl8(t + 2) & 0x3Fu));
  if (n > WSN_TRACE_SNAP_MAX)
    return 0;
  if (dst && n)
    walk(effect_pairs(t), dst);
  return n;
}

/* One effect table serves every call site with the same record layout (callee return size
 * and variables), so the site id comes as an argument; `skip` writes SKIP_END site first.
 * When the segment holds a key of the same length, the changes against it are written
 * straight into the ring after the head (the record is opened first), where an EFFECT_DELTA's
 * runs go; if they stay smaller than the payload and within the segment, the record becomes
 * that EFFECT_DELTA, else the full EFFECT is written over them. */
static const uint8_t *rt_snap; /* the snapshot of __wsn_rt_skip_effect_c (section 3.3) */
/* What interrupt handlers may write, the whole form's last part of every effect with a
 * short form (`u16 bytes, u8 n, n pairs`; in flash on AVR): defined by the lowering when the
 * program has such effects. This weak empty one serves images without them, which never
 * read it (a weak reference would do, but LLVM 19's AVR backend emits it as undefined). */
#if defined(__AVR__)
__attribute__((weak, section(".progmem.data.__wsn_effect_handlers")))
#else
__attribute__((weak))
#endif
const uint8_t __wsn_effect_handlers[3] = {0, 0, 0};
/* The span of `site` is empty (section 3.5) when its SKIP_BEGIN was written last, in the
 * segment being written (the head is still right after it, in the same lap): returns where
 * that SKIP_BEGIN starts, else WSN_NO_SPAN (the ring's last byte, where no SKIP_BEGIN starts:
 * it does not fit there, and no record fits from there either). Either way the SKIP_BEGIN
 * cannot be taken back any more. Interrupts must be disabled. */
#define WSN_NO_SPAN ((uint16_t)(WSN_TRACE_BUF_SIZE - 1))
#if !WSN_ASM_SPAN
static NOINLINE uint16_t span_at(uint16_t site) {
  uint16_t e = rt_sb_end;
  rt_sb_end = 0;
  if (!e || e != HDR.head || site != rt_sb_site)
    return WSN_NO_SPAN;
  return (uint16_t)(e - 1u - vsize(site));
}

/* When a record of n bytes fits where the SKIP_BEGIN at `at` starts (span_at), the SKIP_BEGIN
 * is taken back: the record is opened at its start (the decoder then keeps the bytes before
 * it, and the stored value, which still covers the SKIP_BEGIN, is its C1 of section 1.2), the
 * value before it is put back (high byte first: a stop between the two stores leaves C0's
 * high byte with C1's low byte, which the decoder accepts) and the head moved there. Returns
 * where the record's tag goes, or NULL (nothing changed). Interrupts must be disabled. */
static NOINLINE uint8_t *span_take(uint16_t at, uint16_t n) {
  volatile uint8_t *c;
  if (n > (uint16_t)(SEG - seg_offset(at)))
    return NULL;
  c = __wsn_trace.check[seg_index(at)];
  OPEN_LO = (uint8_t)at;
  OPEN_HI = (uint8_t)((at >> 8) | 0x80u);
  c[1] = (uint8_t)(rt_sb_crc >> 8);
  c[0] = (uint8_t)rt_sb_crc;
  HDR.head = at;
  return &__wsn_trace.data[at];
}
#elif defined(__AVR__)
/* span_at and span_take in AVR assembly (the C versions, above). */
#define span_at __wsn_rt_span_at
#define span_take __wsn_rt_span_take
uint16_t __wsn_rt_span_at(uint16_t site);
uint8_t *__wsn_rt_span_take(uint16_t at, uint16_t n);
WSN_NAKED uint16_t __wsn_rt_span_at(WSN_ARG uint16_t site) {
  __asm__ __volatile__(
      "  lds r18, __wsn_rt_sb_end\n"
      "  lds r19, __wsn_rt_sb_end+1\n"
      "  sts __wsn_rt_sb_end, r1\n"
      "  sts __wsn_rt_sb_end+1, r1\n"
      "  cp r18, r1\n"
      "  cpc r19, r1\n"
      "  breq 9f\n"
      "  lds r20, __wsn_trace+16\n"
      "  lds r21, __wsn_trace+17\n"
      "  cp r18, r20\n"
      "  cpc r19, r21\n"
      "  brne 9f\n"
      "  lds r20, __wsn_rt_sb_site\n"
      "  lds r21, __wsn_rt_sb_site+1\n"
      "  cp r24, r20\n"
      "  cpc r25, r21\n"
      "  brne 9f\n"
      "  subi r18, 2\n"               /* e - 1 - vsize(site) */
      "  sbci r19, 0\n"
      "  cpi r24, 0x80\n"
      "  cpc r25, r1\n"
      "  brlo 1f\n"
      "  subi r18, 1\n"
      "  sbci r19, 0\n"
      "  cpi r25, 0x40\n"
      "  brlo 1f\n"
      "  subi r18, 1\n"
      "  sbci r19, 0\n"
      "1:\n"
      "  movw r24, r18\n"
      "  ret\n"
      "9:\n"
      "  ldi r24, lo8(" WSN_STR(WSN_TRACE_BUF_SIZE) "-1)\n"
      "  ldi r25, hi8(" WSN_STR(WSN_TRACE_BUF_SIZE) "-1)\n"
      "  ret\n");
}
WSN_NAKED uint8_t *__wsn_rt_span_take(WSN_ARG uint16_t at, WSN_ARG uint16_t n) {
  __asm__ __volatile__(
      "  movw r18, r24\n"
      WSN_AVR_SEGOF("r25")
      "  add r18, r22\n"              /* at % seg + n > seg: NULL */
      "  adc r19, r23\n"
      "  cpi r18, lo8(" S_SEG "+1)\n"
      "  ldi r20, hi8(" S_SEG "+1)\n"
      "  cpc r19, r20\n"
      "  brsh 9f\n"
      "  sts __wsn_trace+30, r24\n"   /* open at `at` */
      "  mov r18, r25\n"
      "  ori r18, 0x80\n"
      "  sts __wsn_trace+31, r18\n"
      "  subi r30, lo8(-(" S_CHECKS "))\n"
      "  sbci r31, hi8(-(" S_CHECKS "))\n"
      "  lds r18, __wsn_rt_sb_crc\n"  /* the value before the SKIP_BEGIN, high byte first */
      "  lds r19, __wsn_rt_sb_crc+1\n"
      "  std Z+1, r19\n"
      "  st Z, r18\n"
      "  sts __wsn_trace+16, r24\n"   /* head = at */
      "  sts __wsn_trace+17, r25\n"
      "  subi r24, lo8(-(__wsn_trace+32))\n"
      "  sbci r25, hi8(-(__wsn_trace+32))\n"
      "  ret\n"
      "9:\n"
      "  ldi r24, 0\n"
      "  ldi r25, 0\n"
      "  ret\n");
}
#endif

/* The effect record being written: its payload (ret's rbytes low bytes, the m pairs at x,
 * then the (n, pairs) table t), the bytes of its tag and fields (h), and what is written:
 * tag and payload size (len plain, or the groups of an EFFECT_C or EFFECT_Z). */
struct effect_rec {
  const uint8_t *ret;
  uintptr_t x, t;
  uint16_t len, n;
  uint8_t rbytes, m, h, tag;
};

#if WSN_TRACE_PACK && !WSN_TRACE_EFFECT_KEYS
#define WSN_EFFECT_Z 1
/* EFFECT_Z in one pass (spec/trace-format.md section 3.6): the payload is packed as
 * CHECKPOINT_Z's groups straight into the ring, at data[at + h] for a record whose tag would
 * be at ring offset `at` (the head, or the start of the span's SKIP_BEGIN), within the rest of
 * that segment and below len bytes. Those bytes lie after the head (stale: nothing the decoder
 * reads changes, so a stop meanwhile sees the trace as it was); the record is then reserved at
 * its exact size where its groups already are. Returns 0 when decided: packed (tag EFFECT_Z, n
 * the groups' size), or not smaller than len (plain, as set; the plain record is then written
 * over what was packed, or goes to the next segment after a PAD that fills the rest); 1 when
 * the groups are smaller than len but may not fit in the rest (the packer stopped at its end):
 * neither record fits there. Interrupts must be disabled. */
#if WSN_ASM_WALK
/* In assembly with the packer's walk (below); the offsets it reads: */
typedef char wsn_check_effect_rec[offsetof(struct effect_rec, x) == 2 &&
                                          offsetof(struct effect_rec, t) == 4 &&
                                          offsetof(struct effect_rec, len) == 6 &&
                                          offsetof(struct effect_rec, n) == 8 &&
                                          offsetof(struct effect_rec, rbytes) == 10 &&
                                          offsetof(struct effect_rec, m) == 11 &&
                                          offsetof(struct effect_rec, h) == 12 &&
                                          offsetof(struct effect_rec, tag) == 13
                                      ? 1
                                      : -1];
#define zfit __wsn_rt_zfit
uint8_t __wsn_rt_zfit(struct effect_rec *r, uint16_t at);
#else
static NOINLINE uint8_t zfit(struct effect_rec *r, uint16_t at) {
  uint16_t room = (uint16_t)(SEG - seg_offset(at)), lim = (uint16_t)(r->len - 1u);
  uint8_t *o, *end;
  if (room <= r->h)
    return 1;
  room = (uint16_t)(room - r->h);
  if (room < lim)
    lim = room;
  o = &__wsn_trace.data[at + r->h];
  end = o + lim;
  rt_z_m = o;
  rt_z_o = o + 1;
  rt_z_mask = 0x80u;
  if (zrun(r->ret, r->rbytes, end) && zwalkn(r->x, r->m, end) && zwalk(r->t, end) &&
      (end = zend(end)) != NULL) {
    r->n = (uint16_t)(end - o);
    r->tag = WSN_REC_EFFECT_Z;
    return 0;
  }
  return lim != (uint16_t)(r->len - 1u);
}
#endif
#else
#define WSN_EFFECT_Z 0
#endif

/* One effect table serves every call site with the same record layout (callee return size
 * and variables), so the site id comes as an argument; `skip` writes SKIP_END site first.
 * When the segment holds a key of the same length, the changes against it are written
 * straight into the ring after the head (the record is opened first), where an EFFECT_DELTA's
 * runs go; if they stay smaller than the payload and within the segment, the record becomes
 * that EFFECT_DELTA, else the full EFFECT is written over them. */
static NOINLINE void effect_t(uint16_t site, uintptr_t t, uint32_t ret, uint8_t skip) {
  const uint8_t *snap = rt_snap;
  wsn_irq_state_t s = wsn_port_irq_save();
  struct effect_rec r;
  uint16_t own = 0, len; /* own: the bytes of the whole form's first part (its m pairs) */
  uint8_t *p, *span = NULL; /* span: the tag of the SPAN_EFFECT being written (section 3.5) */
#if WSN_EFFECT_Z
  uint8_t z; /* an EFFECT_Z not yet ruled in or out */
#endif
  rt_snap = NULL;
  if (rt_quiet) { /* a handler inside a skipped call (spec/trace-format.md 2.1) */
    wsn_port_irq_restore(s);
    return;
  }
  r.ret = (const uint8_t *)&ret; /* little-endian on every target */
  r.rbytes = tbl8(t + 2);
  r.len = len = tbl16(t);
  r.x = t + 7;
  r.t = effect_pairs(t); /* the (n, pairs) table walk and delta read */
  r.m = 0;
  if (r.rbytes & 0x80u) {
    /* The table is the short form (the callee's own writes); the whole form is, with 0x40,
     * the first m pairs of the short form's (the callee's writes handlers do not write; the
     * head's `u16 whole len, u8 m` after rbytes), then what handlers may write. The short
     * form alone when no handler ran inside the skipped call; only with the span's SKIP_END
     * merged into this call (otherwise a handler between the two could have opened, and
     * cleared the flag of, a span of its own). */
    uint8_t more = r.rbytes & 0x40u;
    r.rbytes &= 0x3Fu;
    if (!skip || rt_span_irq) {
      if (more) {
        own = tbl16(t + 3);
        r.m = tbl8(t + 5);
      }
      r.len = len = (uint16_t)(r.rbytes + own + tbl16((uintptr_t)__wsn_effect_handlers));
      r.t = (uintptr_t)__wsn_effect_handlers + 2;
    }
  }
  r.h = (uint8_t)(1u + vsize(site) + vsize(len));
  r.n = len;
  r.tag = WSN_REC_EFFECT;
  /* The changes against the snapshot (section 3.3): only when no handler ran inside the span
   * (the short form is then the chosen one, whose variables the snapshot holds) and no key
   * applies; counted first, so the record is reserved at its exact size. */
  if (WSN_TRACE_SNAP_MAX > 0 && snap && skip && !rt_span_irq && len >= 2 &&
      len - r.rbytes <= WSN_TRACE_SNAP_MAX
#if WSN_TRACE_EFFECT_KEYS
      && key_find(len) == WSN_TRACE_EFFECT_KEYS
#endif
  ) {
    uint16_t g;
    rt_c_rbytes = r.rbytes;
    g = (uint16_t)(((len + 7u) >> 3) + changes(r.t, r.ret, snap, NULL));
    if (g < len) {
      r.n = g;
      r.tag = WSN_REC_EFFECT_C;
    }
  }
#if WSN_EFFECT_Z
  /* Not the changes: the full payload without its zero bytes when that is smaller (section
   * 3.6), packed where the record goes (zfit) before it is reserved, so at its exact size. */
  z = r.tag == WSN_REC_EFFECT && len >= 2 && !(FLAGS & WSN_TRACE_FLAG_FROZEN);
#endif
  if (skip) {
    /* An empty span (section 3.5): the record at its largest (the EFFECT_C's or EFFECT_Z's
     * size, else the full EFFECT's, which bounds the delta's) where the SKIP_BEGIN starts.
     * (Whether a key applies was asked in the segment being written; a SKIP_END written now
     * may enter the next one, where the record is then plain or a delta.) */
    uint16_t at = span_at(site);
#if WSN_EFFECT_Z
    /* The segment's last byte: packing there for a span record not taken would leave it
     * changed behind a PAD two bytes before the end (one byte after a PAD is folded as it is,
     * section 1.2), so it is put back. Elsewhere what the packer wrote is overwritten by the
     * SKIP_END and the PAD's rest, as such a record fits after neither. */
    uint8_t *last = &__wsn_trace.data[at + (uint16_t)(SEG - 1u - seg_offset(at))], keep = *last;
    if (z)
      z = zfit(&r, at);
#endif
    span = span_take(at, (uint16_t)(r.h + r.n));
    if (!span) {
#if WSN_EFFECT_Z
      *last = keep;
#endif
      emit(site, WSN_REC_SKIP_END, 0, 0);
      CLOSE(); /* complete; the EFFECT opens its own record */
    }
  }
#if WSN_EFFECT_Z
  if (z && zfit(&r, HDR.head) && (uint16_t)(r.h + len) <= SEG) {
    /* Neither record fits in the rest of the segment: it goes to the next one, after a PAD.
     * The PAD is written first (the record opened at it, section 1.1: the next segment is
     * then no longer part of the retained tail), so that the groups can be packed at the
     * next segment's start; the writer core then finds the PAD there, and enters that
     * segment as for any record that does not fit. (A record whose plain form is larger
     * than a segment, which wsn-cc's geometry never builds, is not tried there: it is
     * dropped, DROPPED, also when its groups would have fitted.) */
    uint16_t at = HDR.head;
    OPEN_LO = (uint8_t)at;
    OPEN_HI = (uint8_t)((at >> 8) | 0x80u);
    __wsn_trace.data[at] = WSN_REC_PAD;
    at = (uint16_t)(at - seg_offset(at) + SEG);
    zfit(&r, at == WSN_TRACE_BUF_SIZE ? 0 : at);
  }
#endif
#if WSN_TRACE_EFFECT_KEYS
  if (r.tag == WSN_REC_EFFECT) {
    uint8_t k = key_find(len);
    uint16_t head = HDR.head;
    /* The header: tag, site, len (< 256: at most 2 bytes), a 1-byte dlen (runs < 128). */
    uint8_t hdr = (uint8_t)(r.h + 1u);
    uint16_t room = (uint16_t)(SEG - seg_offset(head));
    /* not a whole form in two parts: delta walks one table */
    if (k < WSN_TRACE_EFFECT_KEYS && len >= 2 && !r.m && !(FLAGS & WSN_TRACE_FLAG_FROZEN) &&
        hdr <= room) {
      uint8_t d, limit = (uint8_t)(len - 2); /* runs + 1-byte dlen < len */
      if (limit > 127)
        limit = 127;
      if (room - hdr < limit)
        limit = (uint8_t)(room - hdr);
      OPEN_LO = (uint8_t)head; /* the ring changes after head: the record is open */
      OPEN_HI = (uint8_t)((head >> 8) | 0x80u);
      d = delta(rt_key_at[k], r.t, r.rbytes, ret, &__wsn_trace.data[head + hdr], limit);
      if (d != 0xFF) {
        /* emit takes a tag of 4 bits: the record is reserved as an EFFECT with three fields
         * (it fits: no PAD, it starts at head, its fields end where the runs begin), and its
         * tag changed before it closes. */
        rt_arg3 = d;
        emit(site, WSN_REC_EFFECT | F_B | F_C, len, d);
        __wsn_trace.data[head] = WSN_REC_EFFECT_DELTA;
        goto close;
      }
    }
  }
#endif
  p = emit(site, WSN_REC_EFFECT | F_B, len, r.n);
  if (p) {
    /* the tag, before the fields site and len (varints) */
    p[-(int16_t)r.h] = r.tag;
    if (r.tag == WSN_REC_EFFECT_C) {
      changes(r.t, r.ret, snap, p);
    } else if (r.tag == WSN_REC_EFFECT) {
      const uint8_t *b = r.ret;
      volatile uint8_t *d = p; /* volatile: no memcpy call (no libc on the mote) */
      uint8_t i = r.rbytes;
      key_put(len, p);
      while (i--)
        *d++ = *b++;
      walkn(r.x, (uint8_t *)d, r.m);
      walk(r.t, (uint8_t *)d + own);
    }
#if WSN_TRACE_PACK
    /* An EFFECT_C or EFFECT_Z (its groups written, or packed there before) is made two-level
     * when smaller (section 3.7), unless the record ended exactly at its segment's end (the
     * writer has entered the next one): the head moves back. Tag 0x12 -> 0x16, 0x14 -> 0x17. */
    if (r.tag != WSN_REC_EFFECT && seg_offset(HDR.head)) {
      uint16_t k = z2(p, len);
      if (k) {
        p[-(int16_t)r.h] = (uint8_t)((r.tag >> 1) + 0x0Du);
        HDR.head = (uint16_t)(HDR.head - (r.n - k));
      }
    }
#endif
  }
#if WSN_TRACE_EFFECT_KEYS
close:
#endif
  if (span) /* the record fits where the SKIP_BEGIN was (no PAD moved it): tag + 8 */
    *span = (uint8_t)(*span + (WSN_REC_SPAN_EFFECT - WSN_REC_EFFECT));
  CLOSE();
  if (skip && rt_skip_depth) /* the merged SKIP_END: the span ends with its EFFECT */
    --rt_skip_depth;
  wsn_port_irq_restore(s);
}

void __wsn_rt_effect_t(uint16_t site, uintptr_t t, uint16_t ret) {
  effect_t(site, t, ret, 0);
}

__attribute__((used)) void __wsn_rt_skip_effect_t(uint16_t site, uintptr_t t, uint16_t ret) {
  effect_t(site, t, ret, 1);
}

/* `used`: called from the assembly of __wsn_rt_skip_call (below). */
__attribute__((used)) void __wsn_rt_skip_effect_c(uint16_t site, uintptr_t t, uint16_t ret,
                                                  const uint8_t *snap) {
  rt_snap = snap; /* interrupts: a handler's effect_t would clear it, and set rt_span_irq */
  effect_t(site, t, ret, 1);
}

void __wsn_rt_effect32_t(uint16_t site, uintptr_t t, uint32_t ret) {
  effect_t(site, t, ret, 0);
}

void __wsn_rt_skip_effect32_t(uint16_t site, uintptr_t t, uint32_t ret) {
  effect_t(site, t, ret, 1);
}

/* The variables of a table `bytes u16, n u8, n pairs` appended to the record a *_begin
 * opened (a checkpoint with locals: its globals by table, then the locals by __wsn_rt_put). */
void __wsn_rt_put_t(uintptr_t t) {
  uint16_t b = tbl16(t);
  if (rt_cursor && b <= rt_left) {
    rt_left = (uint16_t)(rt_left - b);
#if WSN_TRACE_PACK
    if (rt_ck_tag && zpiece(t + 2, NULL, b)) /* a checkpoint being packed (section 3.2) */
      return;
#endif
    walk(t + 2, rt_cursor);
    rt_cursor += b;
  }
}

void __wsn_rt_check_t(uintptr_t t, uint8_t ok) {
  wsn_irq_state_t s = wsn_port_irq_save();
  uint16_t inv = tbl16(t);
  uint8_t first_violation = check_locked(inv, ok, walk(t + 2, NULL));
  /* The hooks run before interrupts come back, as when the lowering wrapped the call; then
   * the check counts as one reference (a count point, spec/instrumentation.md section 8). */
  check_hooks(inv, first_violation);
  ++__wsn_gv_reference;
  wsn_port_irq_restore(s);
}

#if WSN_TRACE_PACK
/* Packed checkpoints (spec/trace-format.md section 3.2): the variables of the (n, pairs)
 * table at t, as walk reads them, into the packer (its state in rt_z_*; zrun: one run of
 * bytes, a local of a checkpoint written in pieces).
 * Returns 0 as soon as a byte would be stored at or past `end`. Interrupts must be disabled. */
#if !WSN_ASM_WALK
/* n bytes from src into the packer; 0 as soon as a byte would be stored at or past `end`
 * (the packed record would not be smaller than allowed). */
static NOINLINE uint8_t zrun(const uint8_t *src, uint16_t n, const uint8_t *end) {
  uint8_t *o = rt_z_o, *m = rt_z_m, mask = rt_z_mask, b, out;
  while (n--) {
    b = *src++;
    if (b) {
      if (o >= end)
        return 0;
      *o++ = b;
    }
    out = (uint8_t)(mask & 1u);
    mask = (uint8_t)((mask >> 1) | (b ? 0x80u : 0u));
    if (out) { /* the eighth byte of the group */
      if (m >= end)
        return 0;
      *m = mask;
      m = o++;
      mask = 0x80u;
    }
  }
  rt_z_o = o;
  rt_z_m = m;
  rt_z_mask = mask;
  return 1;
}

/* zwalkn: the n pairs at p (zwalk: the (n, pairs) table at t). */
static NOINLINE uint8_t zwalkn(uintptr_t p, uint8_t n, const uint8_t *end) {
  while (n--) {
    const uint8_t *src = (const uint8_t *)tbladdr(p);
    uint8_t size = tbl8(p + ASZ);
    p += 1 + ASZ;
    if (!size) { /* a link: the walk goes on with the table at that address */
      p = LINKED(src);
      n = tbl8(p++);
      continue;
    }
    if (!zrun(src, size, end))
      return 0;
  }
  return 1;
}

static NOINLINE uint8_t zwalk(uintptr_t t, const uint8_t *end) {
  return zwalkn(t + 1, tbl8(t), end);
}
#elif defined(__AVR__)
/* The same in AVR assembly (11 cycles a zero byte, 15 a non-zero one, about 14 more a group):
 * table in Z (flash, lpm), variable in Y, packed bytes in X, end r21:r20, the open group's
 * mask byte at r25:r24, the mask with its sentinel in r19 (rotated right: the byte's "not
 * zero" comes in at bit 7 from carry, the sentinel falls out into carry at the eighth). */
WSN_NAKED uint8_t __wsn_rt_zwalk(WSN_ARG uintptr_t t, WSN_ARG const uint8_t *end) {
  __asm__ __volatile__(
      "  movw r20, r22\n"             /* end */
      "  movw r30, r24\n"
      "  lpm r23, Z+\n"               /* number of pairs */
      "9:\n"
      "  push r28\n"
      "  push r29\n"
      "  clt\n"
      "  rjmp 8f\n"
      /* __wsn_rt_zwalkn(p, n, end): the n pairs at p, without a count byte before them (the
       * first part of a whole effect, spec/trace-format.md section 4); end in r21:r20 */
      "  .global __wsn_rt_zwalkn\n"
      "  .type __wsn_rt_zwalkn, @function\n"
      "__wsn_rt_zwalkn:\n"
      "  movw r30, r24\n"
      "  mov r23, r22\n"
      "  rjmp 9b\n"
      /* __wsn_rt_zrun(src, n, end): n bytes at src (RAM) into the packer, with the table
       * walk's loop (T set: a run, no table): Y = src, r22 the bytes of n mod 256 first,
       * then r23 more runs of 256 (r22 is 0 then: 256 turns), end in r21:r20. */
      "  .global __wsn_rt_zrun\n"
      "  .type __wsn_rt_zrun, @function\n"
      "__wsn_rt_zrun:\n"
      "  push r28\n"
      "  push r29\n"
      "  movw r28, r24\n"
      "  set\n"
      "8:\n"
      "  lds r26, __wsn_rt_z_o\n"
      "  lds r27, __wsn_rt_z_o+1\n"
      "  lds r24, __wsn_rt_z_m\n"
      "  lds r25, __wsn_rt_z_m+1\n"
      "  lds r19, __wsn_rt_z_mask\n"
      "  brtc 1f\n"
      "  cpse r22, r1\n"             /* n mod 256 bytes first, unless 0 */
      "  rjmp 2f\n"
      WSN_AVR_PAIRS("  brts 2f\n") /* a run: 256 more */
      "  ld r0, Y+\n"
      "  cp r1, r0\n"                 /* carry: the byte is not 0 */
      "  brcc 3f\n"
      "  cp r26, r20\n"               /* no room for it */
      "  cpc r27, r21\n"
      "  brsh 6f\n"
      "  st X+, r0\n"                 /* carry is set (X < end) */
      "3:\n"
      "  ror r19\n"
      "  brcc 4f\n"                   /* the group goes on */
      "  cp r24, r20\n"               /* a complete group: its mask at r25:r24 */
      "  cpc r25, r21\n"
      "  brsh 6f\n"
      "  mov r18, r30\n"
      "  mov r0, r31\n"
      "  movw r30, r24\n"
      "  st Z, r19\n"
      "  mov r30, r18\n"
      "  mov r31, r0\n"
      "  movw r24, r26\n"             /* the next group's mask */
      "  adiw r26, 1\n"
      "  ldi r19, 0x80\n"
      "4:\n"
      "  dec r22\n"
      "  brne 2b\n"
      "  rjmp 1b\n"
      "5:\n"
      "  sts __wsn_rt_z_o, r26\n"
      "  sts __wsn_rt_z_o+1, r27\n"
      "  sts __wsn_rt_z_m, r24\n"
      "  sts __wsn_rt_z_m+1, r25\n"
      "  sts __wsn_rt_z_mask, r19\n"
      "  ldi r24, 1\n"
      "  pop r29\n"
      "  pop r28\n"
      "  ret\n"
      "6:\n"
      "  ldi r24, 0\n"
      "  pop r29\n"
      "  pop r28\n"
      "  ret\n");
}

/* zend (the C version's comment, above): end in r25:24, the packer's mask byte in Z. Keeps
 * r20-r23 (zfit's end). */
WSN_NAKED uint8_t *__wsn_rt_zend(WSN_ARG const uint8_t *end) {
  __asm__ __volatile__(
      "  lds r30, __wsn_rt_z_m\n"
      "  lds r31, __wsn_rt_z_m+1\n"
      "  lds r18, __wsn_rt_z_mask\n"
      "  cpi r18, 0x80\n"            /* no byte in the group: its mask byte given back */
      "  breq 2f\n"
      "1:\n"
      "  lsr r18\n"                  /* zeros in until the sentinel falls out */
      "  brcc 1b\n"
      "  cp r30, r24\n"
      "  cpc r31, r25\n"
      "  brsh 3f\n"
      "  st Z, r18\n"
      "  lds r30, __wsn_rt_z_o\n"
      "  lds r31, __wsn_rt_z_o+1\n"
      "2:\n"
      "  movw r24, r30\n"
      "  ret\n"
      "3:\n"
      "  ldi r24, 0\n"
      "  ldi r25, 0\n"
      "  ret\n");
}

#if WSN_EFFECT_Z
/* zfit (the C version's comment, above) in AVR assembly: r = struct effect_rec in Y, at r23:22;
 * the payload's start o in r17:16, the packer's end in r21:20 (which the walks and zend keep). */
#if (WSN_TRACE_SEG_SIZE & (WSN_TRACE_SEG_SIZE - 1)) == 0
#define WSN_AVR_SEG_OFFSET                                                                      \
  "  andi r18, lo8(" S_SEG "-1)\n"                                                            \
  "  andi r19, hi8(" S_SEG "-1)\n"
#else /* by subtraction, as the C record path's seg_offset (a ring of at most 8 segments) */
#define WSN_AVR_SEG_OFFSET                                                                      \
  "1:\n"                                                                                      \
  "  cpi r18, lo8(" S_SEG ")\n"                                                               \
  "  ldi r20, hi8(" S_SEG ")\n"                                                               \
  "  cpc r19, r20\n"                                                                          \
  "  brlo 2f\n"                                                                               \
  "  subi r18, lo8(" S_SEG ")\n"                                                              \
  "  sbci r19, hi8(" S_SEG ")\n"                                                              \
  "  rjmp 1b\n"                                                                               \
  "2:\n"
#endif
WSN_NAKED uint8_t __wsn_rt_zfit(WSN_ARG struct effect_rec *r, WSN_ARG uint16_t at) {
  __asm__ __volatile__(
      "  push r16\n"
      "  push r17\n"
      "  push r28\n"
      "  push r29\n"
      "  movw r28, r24\n"
      "  movw r18, r22\n"            /* at % seg */
      WSN_AVR_SEG_OFFSET
      "  ldd r20, Y+12\n"            /* h */
      "  add r18, r20\n"
      "  adc r19, r1\n"
      "  ldi r24, lo8(" S_SEG ")\n"  /* room for the payload: seg - at % seg - h */
      "  ldi r25, hi8(" S_SEG ")\n"
      "  sub r24, r18\n"
      "  sbc r25, r19\n"
      "  breq 6f\n"                  /* none: too big for the rest */
      "  brcc 5f\n"
      "6:\n"
      "  rjmp 8f\n"
      "5:\n"
      "  ldd r18, Y+6\n"             /* lim = min(len - 1, room) */
      "  ldd r19, Y+7\n"
      "  subi r18, 1\n"
      "  sbci r19, 0\n"
      "  cp r24, r18\n"
      "  cpc r25, r19\n"
      "  brsh 1f\n"
      "  movw r18, r24\n"
      "1:\n"
      "  add r22, r20\n"             /* o = &data[at + h] */
      "  adc r23, r1\n"
      "  subi r22, lo8(-(__wsn_trace+32))\n"
      "  sbci r23, hi8(-(__wsn_trace+32))\n"
      "  movw r16, r22\n"
      "  movw r20, r22\n"            /* end = o + lim */
      "  add r20, r18\n"
      "  adc r21, r19\n"
      "  sts __wsn_rt_z_m, r22\n"    /* the packer: mask byte at o, bytes from o + 1 */
      "  sts __wsn_rt_z_m+1, r23\n"
      "  subi r22, 0xff\n"
      "  sbci r23, 0xff\n"
      "  sts __wsn_rt_z_o, r22\n"
      "  sts __wsn_rt_z_o+1, r23\n"
      "  ldi r24, 0x80\n"
      "  sts __wsn_rt_z_mask, r24\n"
      "  ld r24, Y\n"                /* ret's rbytes bytes */
      "  ldd r25, Y+1\n"
      "  ldd r22, Y+10\n"
      "  clr r23\n"
      "  call __wsn_rt_zrun\n"
      "  tst r24\n"
      "  breq 7f\n"
      "  ldd r24, Y+2\n"             /* the m pairs at x */
      "  ldd r25, Y+3\n"
      "  ldd r22, Y+11\n"
      "  call __wsn_rt_zwalkn\n"
      "  tst r24\n"
      "  breq 7f\n"
      "  ldd r24, Y+4\n"             /* the table t */
      "  ldd r25, Y+5\n"
      "  movw r22, r20\n"
      "  call __wsn_rt_zwalk\n"
      "  tst r24\n"
      "  breq 7f\n"
      "  movw r24, r20\n"
      "  call __wsn_rt_zend\n"
      "  adiw r24, 0\n"
      "  breq 7f\n"
      "  sub r24, r16\n"             /* packed: n, tag EFFECT_Z */
      "  sbc r25, r17\n"
      "  std Y+8, r24\n"
      "  std Y+9, r25\n"
      "  ldi r24, 0x14\n"
      "  std Y+13, r24\n"
      "  ldi r24, 0\n"
      "  rjmp 9f\n"
      "7:\n"                         /* not packed: decided (plain) when lim was len - 1 */
      "  sub r20, r16\n"
      "  sbc r21, r17\n"
      "  ldd r18, Y+6\n"
      "  ldd r19, Y+7\n"
      "  subi r18, 1\n"
      "  sbci r19, 0\n"
      "  ldi r24, 0\n"
      "  cp r20, r18\n"
      "  cpc r21, r19\n"
      "  breq 9f\n"
      "8:\n"
      "  ldi r24, 1\n"
      "9:\n"
      "  pop r29\n"
      "  pop r28\n"
      "  pop r17\n"
      "  pop r16\n"
      "  ret\n");
}
#endif
#else /* MSP430 */
/* The same for MSP430: table r15 (read bytewise), variable r11, packed bytes r13, end r14,
 * the open group's mask byte at r10, mask with its sentinel in r9, pairs r8, size r7, byte
 * r12. */
WSN_NAKED uint8_t __wsn_rt_zwalk(WSN_ARG uintptr_t t, WSN_ARG const uint8_t *end) {
  __asm__ __volatile__(
      "  mov r13, r14\n"                /* end */
      "  mov.b @r12+, r13\n"            /* number of pairs: as zwalkn with them */
      /* __wsn_rt_zwalkn(p, n, end): the n pairs at p, without a count byte before them (the
       * first part of a whole effect, spec/trace-format.md section 4) */
      "  .global __wsn_rt_zwalkn\n"
      "  .type __wsn_rt_zwalkn, @function\n"
      "__wsn_rt_zwalkn:\n"
      "  push r10\n"
      "  push r9\n"
      "  push r8\n"
      "  push r7\n"
      "  mov r12, r15\n"
      "  mov.b r13, r8\n"
      "  clr r7\n"                      /* no run: the table's pairs */
      "  jmp 8f\n"
      /* __wsn_rt_zrun(src, n, end): n bytes at src into the packer, as if they were the
       * last pair of a table: variable r11 = src, size r7 = n (0: none), no pair after. */
      "  .global __wsn_rt_zrun\n"
      "  .type __wsn_rt_zrun, @function\n"
      "__wsn_rt_zrun:\n"
      "  push r10\n"
      "  push r9\n"
      "  push r8\n"
      "  push r7\n"
      "  mov r12, r11\n"
      "  mov r13, r7\n"
      "  clr r8\n"
      "8:\n"
      "  mov &__wsn_rt_z_o, r13\n"
      "  mov &__wsn_rt_z_m, r10\n"
      "  mov.b &__wsn_rt_z_mask, r9\n"
      "  tst r7\n"
      "  jnz 2f\n"
      "1:\n"
      "  dec r8\n"                      /* borrow (C clear): no pair left */
      "  jnc 5f\n"
      "  mov.b @r15+, r11\n"
      "  mov.b @r15+, r7\n"
      "  swpb r7\n"
      "  bis r7, r11\n"
      "  mov.b @r15+, r7\n"
      "  tst r7\n"                      /* size 0: a link to another (n, pairs) table */
      "  jnz 2f\n"
      "  mov r11, r15\n"
      "  mov.b @r15+, r8\n"
      "  jmp 1b\n"
      "2:\n"
      "  mov.b @r11+, r12\n"
      "  cmp.b #1, r12\n"               /* C: the byte is not 0 */
      "  jnc 3f\n"
      "  cmp r14, r13\n"                /* no room for it */
      "  jc 6f\n"
      "  mov.b r12, 0(r13)\n"
      "  inc r13\n"
      "  bis #1, r2\n"                  /* C: not 0 */
      "3:\n"
      "  rrc.b r9\n"
      "  jnc 4f\n"                      /* the group goes on */
      "  cmp r14, r10\n"                /* a complete group: its mask at r10 */
      "  jc 6f\n"
      "  mov.b r9, 0(r10)\n"
      "  mov r13, r10\n"                /* the next group's mask */
      "  inc r13\n"
      "  mov #0x80, r9\n"
      "4:\n"
      "  dec r7\n"
      "  jnz 2b\n"
      "  jmp 1b\n"
      "5:\n"
      "  mov r13, &__wsn_rt_z_o\n"
      "  mov r10, &__wsn_rt_z_m\n"
      "  mov.b r9, &__wsn_rt_z_mask\n"
      "  mov #1, r12\n"
      "  jmp 7f\n"
      "6:\n"
      "  clr r12\n"
      "7:\n"
      "  pop r7\n"
      "  pop r8\n"
      "  pop r9\n"
      "  pop r10\n"
      "  ret\n");
}

/* zend (the C version's comment, above): end in r12, the packer's mask byte in r15, its mask
 * in r13. Keeps r14 (zfit's end). */
WSN_NAKED uint8_t *__wsn_rt_zend(WSN_ARG const uint8_t *end) {
  __asm__ __volatile__(
      "  mov &__wsn_rt_z_m, r15\n"
      "  mov.b &__wsn_rt_z_mask, r13\n"
      "  cmp.b #0x80, r13\n"          /* no byte in the group: its mask byte given back */
      "  jeq 2f\n"
      "1:\n"
      "  clrc\n"                      /* zeros in until the sentinel falls out */
      "  rrc.b r13\n"
      "  jnc 1b\n"
      "  cmp r12, r15\n"
      "  jc 3f\n"
      "  mov.b r13, 0(r15)\n"
      "  mov &__wsn_rt_z_o, r15\n"
      "2:\n"
      "  mov r15, r12\n"
      "  ret\n"
      "3:\n"
      "  clr r12\n"
      "  ret\n");
}

#if WSN_EFFECT_Z
/* zfit (the C version's comment, above) in MSP430 assembly: r = struct effect_rec in r10, at
 * r13; the payload's start o in r9, the packer's end in r14 (which the walks and zend keep). */
#if (WSN_TRACE_SEG_SIZE & (WSN_TRACE_SEG_SIZE - 1)) == 0
#define WSN_MSP_SEG_OFFSET "  and #" S_SEG "-1, r15\n"
#else /* by subtraction, as the C record path's seg_offset (a ring of at most 8 segments) */
#define WSN_MSP_SEG_OFFSET                                                                      \
  "1:\n"                                                                                      \
  "  cmp #" S_SEG ", r15\n"                                                                   \
  "  jlo 2f\n"                                                                                \
  "  sub #" S_SEG ", r15\n"                                                                   \
  "  jmp 1b\n"                                                                                \
  "2:\n"
#endif
WSN_NAKED uint8_t __wsn_rt_zfit(WSN_ARG struct effect_rec *r, WSN_ARG uint16_t at) {
  __asm__ __volatile__(
      "  push r10\n"
      "  push r9\n"
      "  mov r12, r10\n"
      "  mov r13, r15\n"              /* at % seg */
      WSN_MSP_SEG_OFFSET
      "  mov.b 12(r10), r14\n"        /* h */
      "  add r14, r15\n"
      "  mov #" S_SEG ", r12\n"       /* room for the payload: seg - at % seg - h */
      "  sub r15, r12\n"
      "  jz 8f\n"                     /* none: too big for the rest */
      "  jnc 8f\n"
      "  mov 6(r10), r15\n"           /* lim = min(len - 1, room) */
      "  dec r15\n"
      "  cmp r15, r12\n"
      "  jc 1f\n"
      "  mov r12, r15\n"
      "1:\n"
      "  add r14, r13\n"              /* o = &data[at + h] */
      "  add #__wsn_trace+32, r13\n"
      "  mov r13, r9\n"
      "  mov r13, &__wsn_rt_z_m\n"    /* the packer: mask byte at o, bytes from o + 1 */
      "  mov r13, r14\n"
      "  inc r14\n"
      "  mov r14, &__wsn_rt_z_o\n"
      "  mov.b #0x80, &__wsn_rt_z_mask\n"
      "  mov r13, r14\n"              /* end = o + lim */
      "  add r15, r14\n"
      "  mov @r10, r12\n"             /* ret's rbytes bytes */
      "  mov.b 10(r10), r13\n"
      "  call #__wsn_rt_zrun\n"
      "  tst.b r12\n"
      "  jz 7f\n"
      "  mov 2(r10), r12\n"           /* the m pairs at x */
      "  mov.b 11(r10), r13\n"
      "  call #__wsn_rt_zwalkn\n"
      "  tst.b r12\n"
      "  jz 7f\n"
      "  mov 4(r10), r12\n"           /* the table t */
      "  mov r14, r13\n"
      "  call #__wsn_rt_zwalk\n"
      "  tst.b r12\n"
      "  jz 7f\n"
      "  mov r14, r12\n"
      "  call #__wsn_rt_zend\n"
      "  tst r12\n"
      "  jz 7f\n"
      "  sub r9, r12\n"               /* packed: n, tag EFFECT_Z */
      "  mov r12, 8(r10)\n"
      "  mov.b #0x14, 13(r10)\n"
      "  clr r12\n"
      "  jmp 9f\n"
      "7:\n"                          /* not packed: decided (plain) when lim was len - 1 */
      "  sub r9, r14\n"
      "  mov 6(r10), r15\n"
      "  dec r15\n"
      "  clr r12\n"
      "  cmp r15, r14\n"
      "  jeq 9f\n"
      "8:\n"
      "  mov #1, r12\n"
      "9:\n"
      "  pop r9\n"
      "  pop r10\n"
      "  ret\n");
}
#endif
#endif

#endif

void __wsn_rt_checkpoint_t(uintptr_t t) {
  wsn_irq_state_t s = wsn_port_irq_save();
#ifdef WSN_PORT_HOST
  init_locked();
#endif
  if (rt_armed && !rt_quiet && !(FLAGS & WSN_TRACE_FLAG_FROZEN)) {
    /* The pieces' entries with one piece: the table from `len` on is a put table. */
    do {
      __wsn_rt_checkpoint_begin(tbl16(t), tbl16(t + 2));
      __wsn_rt_put_t(t + 2);
    } while (__wsn_rt_record_end());
    /* Replay starts at a checkpoint with the count 0 (spec/instrumentation.md section 5), as
     * the lowered pieces do once __wsn_rt_anchor_armed() said 1. (Testing the flag again here
     * missed a checkpoint that ended exactly at its segment's end, which arms the next
     * segment: the count went on, and replay, which resets it at every checkpoint, waited
     * for an interrupt's count that never came.) */
    __wsn_gv_reference = 0;
  }
  wsn_port_irq_restore(s);
}

void __wsn_rt_drain(void (*put)(uint8_t)) {
  wsn_irq_state_t s = wsn_port_irq_save();
  const uint8_t *p = (const uint8_t *)&__wsn_trace;
  uint16_t i;
  init_locked();
  for (i = 0; i < (uint16_t)WSN_TRACE_FILE_SIZE; ++i)
    put(p[i]);
  wsn_port_irq_restore(s);
}
