/* Deterministic mote program: recursion, a variable-length array, pointers to
   pointers, pointers to locals passed down and stored in globals, strings
   through the C library. Ends at done(). */
#include <stdint.h>
#include "mote_string.h"

char names[3][8];
char joined[24];
uint16_t lengths[3];
int16_t cmp_results[3];
uint16_t fib_memo[20];
uint32_t tree_sum;
uint16_t *cursor;          /* points into a global array */
int16_t **pp_target;       /* pointer to a global holding a pointer */
int16_t *pp_slot;
int16_t values[5] = {5, -4, 3, -2, 1};
uint8_t vla_result[10];

__attribute__((noinline)) void done(void) { __asm__ __volatile__("" ::: "memory"); }

__attribute__((noinline)) static uint16_t fib(uint8_t n) {
  if (n < 2)
    return n;
  if (fib_memo[n])
    return fib_memo[n];
  return fib_memo[n] = (uint16_t)(fib(n - 1) + fib(n - 2));
}

__attribute__((noinline)) static uint32_t sum_tree(uint8_t depth, uint32_t *acc) {
  uint32_t local = depth * 3u + 1u;
  if (depth) {
    sum_tree(depth - 1, &local);
    sum_tree(depth - 1, &local);
  }
  *acc += local;
  return local;
}

__attribute__((noinline)) static void fill_vla(uint8_t n) {
  uint8_t tmp[n];
  for (uint8_t i = 0; i < n; ++i)
    tmp[i] = (uint8_t)(i * i + n);
  for (uint8_t i = 0; i < n && i < sizeof vla_result; ++i)
    vla_result[i] = tmp[n - 1 - i];
}

__attribute__((noinline)) static void bump_all(int16_t **pp, uint8_t n) {
  for (uint8_t i = 0; i < n; ++i)
    (*pp)[i] = (int16_t)((*pp)[i] * 2 + i);
}

int main(void) {
  static const char *src[3] = {"alpha", "be", "gamma12"};
  for (uint8_t i = 0; i < 3; ++i) {
    strcpy(names[i], src[i]);
    lengths[i] = (uint16_t)strlen(names[i]);
  }
  cmp_results[0] = (int16_t)(strcmp(names[0], names[1]) > 0);
  cmp_results[1] = (int16_t)(memcmp(names[1], "be", 3) == 0);
  cmp_results[2] = (int16_t)(strncmp(names[2], "gamma", 5) == 0);
  strcpy(joined, names[0]);
  strcpy(joined + lengths[0], names[2]);

  fib(19);
  cursor = &fib_memo[10];
  *cursor += 1;

  uint32_t root = 0;
  sum_tree(4, &root);
  tree_sum = root;

  fill_vla(7);

  pp_slot = values;
  pp_target = &pp_slot;
  bump_all(pp_target, 5);
  done();
  for (;;) {
  }
}
