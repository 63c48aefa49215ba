/* nesC atomic sections in the anchor's loop, built at -O0 (wsn-cc -O0). __nesc_atomic_end is
 * always_inline, so its parameter becomes a stack slot of main, live in the loop: the
 * checkpoint carries it. It holds the SREG value read by __nesc_atomic_start: on the mote
 * 0x80 (I set) plus whatever condition flags were set then; replay's SREG cell differs (its I
 * bit after the start checkpoint, and it models no condition flags), so the next checkpoint
 * differs from replay memory in that local. */
#include <avr/io.h>
#include <stdint.h>
#include <wsn/invariant.h>

typedef uint8_t __nesc_atomic_t;
static inline __attribute__((always_inline)) __nesc_atomic_t __nesc_atomic_start(void) {
  __nesc_atomic_t result = SREG;
  __asm__ __volatile__("cli" ::: "memory");
  return result;
}
static inline __attribute__((always_inline)) void __nesc_atomic_end(__nesc_atomic_t s) {
  __asm__ __volatile__("" ::: "memory");
  SREG = s;
}

uint16_t SregC$loops;

WSN_INVARIANT(loops_ok) { return SregC$loops != 0xFFFFu; }

int main(void) {
  __asm__ __volatile__("sei" ::: "memory");
  for (;;) {
    __nesc_atomic_t a = __nesc_atomic_start();
    SregC$loops++;
    WSN_CHECK(loops_ok);
    __nesc_atomic_end(a);
  }
}
