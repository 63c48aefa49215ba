/* Latch registers (spec/instrumentation.md, "Latch registers"): main reads
 * PORTB (0x38) in a read-modify-write. The timer handler writes a port:
 * by default through a RAM buffer only (PORTB stays a deterministic latch);
 * with -DVIA_POINTER through a pointer taken from a table of ports, which may
 * be PORTB, so PORTB reads must be recorded inputs. */
#include <stdint.h>
#include <wsn/invariant.h>

#define PORTB (*(volatile uint8_t *)0x38)
#define PORTC (*(volatile uint8_t *)0x35)

uint8_t level;
uint8_t which;
uint8_t shadow[2];
#ifdef VIA_POINTER
volatile uint8_t *const ports[2] = {&PORTC, &PORTB};
#endif

WSN_INVARIANT(level_ok) { return level < 8; }

__attribute__((noinline)) void put(volatile uint8_t *p, uint8_t v) { *p = v; }

__attribute__((signal, used)) void __vector_15(void) {
  level = (level + 1) & 7;
#ifdef VIA_POINTER
  put(ports[which & 1], level);
#else
  put(&shadow[which & 1], level);
#endif
}

#ifdef RECURSIVE
/* Mutually recursive callees that main calls without tracing them: the
 * effect of each must carry PORTB, which only a() writes. */
__attribute__((noinline)) void b(uint8_t n);
__attribute__((noinline)) void a(uint8_t n) {
  if (n)
    b(n - 1);
  PORTB = 0x10 | n;
}
__attribute__((noinline)) void b(uint8_t n) {
  if (n)
    a(n - 1);
}
#endif

int main(void) {
  for (;;) {
#ifdef RECURSIVE
    a(which);
    PORTB = (PORTB & ~7) | level;
    b(which);
#endif
    PORTB = (PORTB & ~7) | level;
    WSN_CHECK(level_ok);
  }
}
