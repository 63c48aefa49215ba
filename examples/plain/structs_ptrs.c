/* Deterministic mote program: structs, arrays, pointers to globals and locals
   stored in memory, memcpy/memset, function pointers. Ends at done().
   wsn-replay-layout-dependent: buf
*/
#include <stdint.h>
#include "mote_string.h"

struct sample {
  uint8_t kind;
  uint16_t value;
  int32_t acc;
  struct sample *next;
};

struct sample pool[4];
struct sample *head;
uint16_t *last_local; /* address of a local in main's frame */
uint8_t buf[24];
const char greeting[] = "mote";
int16_t (*op)(int16_t, int16_t);
int16_t results[6];
uint32_t checksum = 0x12345678u;

__attribute__((noinline)) void done(void) { __asm__ __volatile__("" ::: "memory"); }

static int16_t add(int16_t a, int16_t b) { return a + b; }
static int16_t mul(int16_t a, int16_t b) { return a * b; }
__attribute__((noinline)) static int16_t apply(int16_t (*f)(int16_t, int16_t),
                                               int16_t a, int16_t b) {
  return f(a, b);
}

__attribute__((noinline)) static void link(struct sample *s, uint8_t n) {
  for (uint8_t i = 0; i < n; ++i) {
    s[i].kind = i + 1;
    s[i].value = 100 * i + 7;
    s[i].acc = -1000L * i;
    s[i].next = i + 1 < n ? &s[i + 1] : 0;
  }
  head = &s[0];
}

int main(void) {
  uint16_t local[3] = {11, 22, 33};
  last_local = &local[1];
  link(pool, 4);
  memset(buf, 0xA5, sizeof buf);
  memcpy(buf + 2, greeting, sizeof greeting);
  memcpy(buf + 10, &pool[2], sizeof(struct sample) - 2);
  op = add;
  for (int i = 0; i < 6; ++i) {
    results[i] = apply(op, i, local[i % 3]);
    op = op == add ? mul : add;
  }
  for (struct sample *p = head; p; p = p->next)
    checksum = checksum * 31 + p->value + (uint32_t)p->acc;
  *last_local += 5;
  results[5] += local[1];
  done();
  for (;;) {
  }
}
