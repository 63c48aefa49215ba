/* mspgcc.h - the mspgcc dialect for clang (spec/wsn-cc.md, "The mspgcc dialect").
 *
 * TinyOS's telosb and z1 output was written for mspgcc, whose intrinsics.h declares compiler
 * builtins (`void __nop(void);` ...). clang has none of them: wsn-cc force-includes this header
 * (-include) in front of such sources, so each builtin is a static inline function here, and
 * the source's own extern declaration that follows refers to it (C11 6.2.2p5: a later
 * declaration without a storage class keeps the internal linkage). Each body is one inline asm
 * statement that wsn-trace's asm parser knows (passes/MoteAsm.cpp), so replay handles it too.
 *
 * `wakeup` (clear the low-power bits of the saved SR when the handler returns) becomes
 * annotate("wsn.wakeup") through a -D on the command line; wsn-cc turns the annotation into a
 * wrapper around the handler after instrumentation (mote side only).
 */
#ifndef WSN_MSPGCC_H
#define WSN_MSPGCC_H

#if !defined(__MSP430__)
#error "wsn/mspgcc.h is for MSP430 targets"
#endif

static inline __attribute__((always_inline)) void __nop(void) { __asm__ __volatile__("nop"); }

/* dint takes effect after the next instruction: mspgcc's __dint emits dint alone, and TinyOS
 * adds the nop itself (__nesc_disable_interrupt). */
static inline __attribute__((always_inline)) void __dint(void) {
  __asm__ __volatile__("dint" ::: "memory");
}

static inline __attribute__((always_inline)) void __eint(void) {
  __asm__ __volatile__("eint" ::: "memory");
}

static inline __attribute__((always_inline)) unsigned int __read_status_register(void) {
  unsigned int sr;
  __asm__ __volatile__("mov r2, %0" : "=r"(sr));
  return sr;
}

static inline __attribute__((always_inline)) void __write_status_register(unsigned int sr) {
  __asm__ __volatile__("mov %0, r2" ::"r"(sr) : "memory");
}

static inline __attribute__((always_inline)) void __bis_status_register(unsigned int bits) {
  __asm__ __volatile__("bis %0, r2" ::"r"(bits) : "memory");
}

static inline __attribute__((always_inline)) void __bic_status_register(unsigned int bits) {
  __asm__ __volatile__("bic %0, r2" ::"r"(bits) : "memory");
}

typedef unsigned int __wsn_istate_t;

static inline __attribute__((always_inline)) __wsn_istate_t __get_interrupt_state(void) {
  return __read_status_register();
}

static inline __attribute__((always_inline)) void __set_interrupt_state(__wsn_istate_t s) {
  __write_status_register(s);
}

static inline __attribute__((always_inline)) unsigned int __swap_bytes(unsigned int v) {
  return (unsigned int)((v << 8) | (v >> 8));
}

#endif /* WSN_MSPGCC_H */
