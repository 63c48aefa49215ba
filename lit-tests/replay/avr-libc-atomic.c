// avr-libc and nesC idioms replay: cli()/sei(), sleep_cpu(), wdt_reset(),
// ATOMIC_BLOCK (SREG saved and restored through its data address 0x5F) and a
// nesC-style __nesc_atomic_start/end. SREG.I ends up set (sei at the end).
// REQUIRES: avr-gcc
// RUN: %clang --target=avr -mmcu=atmega128 -O1 -g -emit-llvm -c %s -o %t.bc
// RUN: wsn-replay %t.bc --stop-at done --dump-mem %t.mem | FileCheck %s
// RUN: %python -c "import sys; m=open(sys.argv[1],'rb').read(); print('sreg', hex(m[0x5F]), 'counter', m[0x100] | (m[0x101] << 8), 'saved', hex(m[0x102]))" %t.mem | FileCheck %s --check-prefix=MEM
// CHECK: replay: reached the stop marker
// MEM: sreg 0x80 counter 3 saved 0x0
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <util/atomic.h>
#include <stdint.h>

uint16_t counter;
uint8_t saved;

typedef uint8_t __nesc_atomic_t;
static inline __nesc_atomic_t __nesc_atomic_start(void) {
  __nesc_atomic_t result = SREG;
  cli();
  __asm__ __volatile__("" ::: "memory");
  return result;
}
static inline void __nesc_atomic_end(__nesc_atomic_t s) {
  __asm__ __volatile__("" ::: "memory");
  SREG = s;
}

__attribute__((noinline)) void done(void) { __asm__ __volatile__("" ::: "memory"); }

int main(void) {
  cli();
  ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { counter++; }
  __nesc_atomic_t s = __nesc_atomic_start();
  counter++;
  saved = s;
  __nesc_atomic_end(s);
  wdt_reset();
  sei();
  sleep_cpu();
  ATOMIC_BLOCK(ATOMIC_FORCEON) { counter++; }
  done();
  for (;;) {}
}
