/* Deterministic mote program: arrays, insertion sort through pointers,
   binary search, 32/64-bit arithmetic, division, switch. Ends at done(). */
#include <stdint.h>

#define N 24
int16_t data[N];
uint16_t found_at[6];
int32_t stats[4]; /* min, max, sum, sum of squares / 16 */
uint64_t mix = 0x0123456789ABCDEFull;
uint8_t classes[N];
uint16_t seed = 0xACE1u;

__attribute__((noinline)) void done(void) { __asm__ __volatile__("" ::: "memory"); }

static uint16_t lfsr(void) {
  uint16_t bit = ((seed >> 0) ^ (seed >> 2) ^ (seed >> 3) ^ (seed >> 5)) & 1u;
  seed = (seed >> 1) | (uint16_t)(bit << 15);
  return seed;
}

__attribute__((noinline)) static void isort(int16_t *a, uint8_t n) {
  for (uint8_t i = 1; i < n; ++i) {
    int16_t v = a[i];
    int16_t *p = a + i;
    while (p > a && p[-1] > v) {
      *p = p[-1];
      --p;
    }
    *p = v;
  }
}

__attribute__((noinline)) static int bsearch16(const int16_t *a, uint8_t n, int16_t key) {
  uint8_t lo = 0, hi = n;
  while (lo < hi) {
    uint8_t mid = (uint8_t)((lo + hi) / 2);
    if (a[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && a[lo] == key ? lo : -1;
}

static uint8_t classify(int16_t v) {
  switch ((uint16_t)v % 7u) {
  case 0: return 10;
  case 1: return 21;
  case 2: return 32;
  case 3: return 43;
  case 5: return 65;
  default: return (uint8_t)(v & 0x7F);
  }
}

int main(void) {
  for (uint8_t i = 0; i < N; ++i)
    data[i] = (int16_t)(lfsr() % 2000u) - 1000;
  isort(data, N);
  int16_t keys[6] = {data[0], data[5], data[N - 1], 1234, -1001, data[11]};
  for (uint8_t k = 0; k < 6; ++k)
    found_at[k] = (uint16_t)bsearch16(data, N, keys[k]);
  stats[0] = data[0];
  stats[1] = data[N - 1];
  for (uint8_t i = 0; i < N; ++i) {
    stats[2] += data[i];
    stats[3] += ((int32_t)data[i] * data[i]) / 16;
    classes[i] = classify(data[i]);
    mix = mix * 6364136223846793005ull + (uint64_t)(uint16_t)data[i];
    mix ^= mix >> 29;
  }
  stats[2] /= -3;
  stats[3] %= 100003;
  done();
  for (;;) {
  }
}
