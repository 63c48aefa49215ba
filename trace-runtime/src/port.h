/* port.h - the target layer of the trace runtime: interrupt save/disable/restore, the target
 * code of the header, and where the node id lives. Selected by __AVR__ / __MSP430__; anything
 * else is the host (single-threaded test and replay builds: interrupts are a no-op). */
#ifndef WSN_TRACE_PORT_H
#define WSN_TRACE_PORT_H

#include <stdint.h>

#if defined(__AVR__)
/* AVR: the I flag is bit 7 of SREG (I/O address 0x3F). Save SREG, cli; restore SREG. */
#define WSN_PORT_TARGET WSN_TRACE_TARGET_AVR
typedef uint8_t wsn_irq_state_t;
static inline __attribute__((always_inline)) wsn_irq_state_t wsn_port_irq_save(void) {
  uint8_t s;
  __asm__ __volatile__("in %0, 0x3f\n\tcli" : "=r"(s) : : "memory");
  return s;
}
static inline __attribute__((always_inline)) void wsn_port_irq_restore(wsn_irq_state_t s) {
  __asm__ __volatile__("out 0x3f, %0" : : "r"(s) : "memory");
}
#define WSN_PORT_NOINIT __attribute__((section(".noinit")))

#elif defined(__MSP430__)
/* MSP430: GIE is bit 3 of SR (r2). Read SR, dint + nop (dint takes effect one instruction
 * later); restore by setting GIE again only if it was set (nop around eint per the errata). */
#define WSN_PORT_TARGET WSN_TRACE_TARGET_MSP430
typedef uint16_t wsn_irq_state_t;
static inline __attribute__((always_inline)) wsn_irq_state_t wsn_port_irq_save(void) {
  uint16_t s;
  __asm__ __volatile__("mov r2, %0\n\tdint\n\tnop" : "=r"(s) : : "memory");
  return s;
}
static inline __attribute__((always_inline)) void wsn_port_irq_restore(wsn_irq_state_t s) {
  __asm__ __volatile__("nop\n\tbis %0, r2\n\tnop" : : "r"((uint16_t)(s & 8u)) : "memory");
}
#define WSN_PORT_NOINIT __attribute__((section(".noinit")))

#else
/* Host: no interrupts. */
#define WSN_PORT_TARGET WSN_TRACE_TARGET_HOST
#define WSN_PORT_HOST 1
typedef uint8_t wsn_irq_state_t;
static inline wsn_irq_state_t wsn_port_irq_save(void) { return 0; }
static inline void wsn_port_irq_restore(wsn_irq_state_t s) { (void)s; }
#define WSN_PORT_NOINIT
/* host.c: node id from env WSN_NODE_ID and the at-exit file writer (called once, from
 * __wsn_rt_init); the trace file written at the first violation. */
void __wsn_port_host_init(void);
void __wsn_port_host_violation(void);
#endif

#endif /* WSN_TRACE_PORT_H */
