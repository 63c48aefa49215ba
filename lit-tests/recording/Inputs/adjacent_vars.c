/* Variables the record tables list, placed next to each other (spec/instrumentation.md
 * section 10, "Adjacent variables"): `step`, a skipped call (not in the invariant's slice),
 * writes variables of several sizes, zero-initialised and initialised, that main reads, and
 * one that no table lists (`spare`, only written) between them in the source. No interrupts and no register reads: the trace is the same bytes whatever the
 * timing, so the images with and without merged pairs must write identical traces. */
#include <stdint.h>
#include <wsn/invariant.h>

uint8_t a8;
uint16_t b16;
uint8_t spare;      /* only written: in no table, placed elsewhere */
uint8_t c8;
uint16_t d16;       /* MSP430: after c8 it needs an even address (a gap, not merged) */
uint8_t mac[4];     /* a byte array: word-aligned on MSP430, as the optimiser would make it */
uint32_t e32 = 7;   /* initialised: the data section */
uint8_t f8 = 1;
uint16_t rounds;

WSN_INVARIANT(rounds_small) { return rounds < 12; }

__attribute__((noinline)) void step(uint8_t v) {
  a8 += v;
  b16 += (uint16_t)(a8 * 3u);
  spare = v;
  c8 ^= (uint8_t)b16;
  d16 += c8;
  mac[v & 3] = (uint8_t)d16;
  e32 = e32 * 5u + d16;
  f8 = (uint8_t)(f8 + (uint8_t)e32);
}

int main(void) {
  uint8_t v = 1;
  for (;;) {
    step(v);
    v = (uint8_t)(v + a8 + b16 + c8 + d16 + (uint8_t)e32 + f8 + mac[0] + mac[3]);
    ++rounds;
    WSN_CHECK(rounds_small);
  }
}
