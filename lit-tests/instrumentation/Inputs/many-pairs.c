/* A host program whose effect and checkpoint tables list 300 variables: more (address, size)
 * pairs than one table's count byte holds (spec/trace-format.md section 4). `show` writes
 * g100..g399 (g<n> = v + n, modulo 256) and main adds them up for the invariant, so the
 * effect of `show` carries all 300 and the main loop's checkpoint holds them. */
#include <stdint.h>
#include <stdlib.h>
#include <wsn/invariant.h>

#define X10(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7) M(p##8) M(p##9)
#define X100(M, p)                                                                              \
  X10(M, p##0) X10(M, p##1) X10(M, p##2) X10(M, p##3) X10(M, p##4) X10(M, p##5) X10(M, p##6)    \
  X10(M, p##7) X10(M, p##8) X10(M, p##9)
#define X300(M) X100(M, 1) X100(M, 2) X100(M, 3)

#define DECLARE(n) uint8_t g##n;
#define WRITE(n) g##n = (uint8_t)(v + n);
#define ADD(n) total += g##n;

X300(DECLARE)
uint32_t total;
uint8_t rounds;
volatile uint8_t sensor = 3;

WSN_INVARIANT(total_small) { return total < 100000; }

/* Not inlined, and main reads what it writes: a skipped call with an EFFECT of 300 bytes. */
__attribute__((noinline)) void show(uint8_t v) { X300(WRITE) }

/* The run ends after six rounds; main's loop itself has no exit, so it gets an anchor. */
__attribute__((noinline)) void next_round(void) {
  if (++rounds == 6)
    exit(0);
}

int main(void) {
  for (;;) {
    show((uint8_t)(sensor + rounds));
    total = 0;
    X300(ADD)
    WSN_CHECK(total_small);
    next_round();
  }
}
