/* mspabi-check.c - run-time results of the __mspabi_* helpers against constant folding.
 * Operands go through volatile variables so the arithmetic happens at run time (in the
 * helpers); the expected value is the same expression on constants, folded by clang. */
typedef unsigned int u16;
typedef int s16;
typedef unsigned long u32;
typedef long s32;
typedef unsigned long long u64;
typedef long long s64;

volatile u16 checks, failures, first_failure, done;

#define CHECK(T, a, op, b)                                                                \
  do {                                                                                    \
    volatile T va_ = (T)(a), vb_ = (T)(b);                                                \
    T got_ = (T)(va_ op vb_);                                                             \
    T want_ = (T)((T)(a) op (T)(b));                                                      \
    ++checks;                                                                             \
    if (got_ != want_) {                                                                  \
      ++failures;                                                                         \
      if (!first_failure)                                                                 \
        first_failure = checks;                                                           \
    }                                                                                     \
  } while (0)

#define ARITH(T, a, b)                                                                    \
  CHECK(T, a, *, b);                                                                      \
  CHECK(T, a, /, b);                                                                      \
  CHECK(T, a, %, b)

/* Signed values: right shifts only (left shifts of negatives are undefined). */
#define SRA(T, a, n)                                                                      \
  do {                                                                                    \
    volatile T va_ = (T)(a);                                                              \
    volatile u16 vn_ = (n);                                                               \
    ++checks;                                                                             \
    if ((T)(va_ >> vn_) != (T)((T)(a) >> (n))) {                                          \
      ++failures;                                                                         \
      if (!first_failure)                                                                 \
        first_failure = checks;                                                           \
    }                                                                                     \
  } while (0)

#define SHIFTS(T, a, n)                                                                   \
  do {                                                                                    \
    volatile T va_ = (T)(a);                                                              \
    volatile u16 vn_ = (n);                                                               \
    T l_ = (T)(va_ << vn_), r_ = (T)(va_ >> vn_);                                         \
    checks += 2;                                                                          \
    if (l_ != (T)((T)(a) << (n)) || r_ != (T)((T)(a) >> (n))) {                           \
      ++failures;                                                                         \
      if (!first_failure)                                                                 \
        first_failure = checks;                                                           \
    }                                                                                     \
  } while (0)

int main(void) {
  ARITH(u16, 60000u, 7u);
  ARITH(u16, 65535u, 255u);
  ARITH(u16, 5u, 9u);
  ARITH(s16, 1234, 7);
  ARITH(s16, -1234, 7);
  ARITH(s16, 1234, -7);
  CHECK(s16, -30000, /, -3000);
  CHECK(s16, -30000, %, 7);
  ARITH(s16, -3000, -3);
  ARITH(u32, 4000000000ul, 12345ul);
  ARITH(u32, 123456789ul, 65536ul);
  ARITH(u32, 99ul, 100000ul);
  ARITH(s32, -200000000l, 7l);
  ARITH(s32, -1000000l, -1999l);
  CHECK(s32, 2000000000l, /, -65537l);
  CHECK(s32, 2000000000l, %, -65537l);
  ARITH(s32, -123456l, -321l);
  ARITH(u64, 18000000000000000000ull, 1234567ull);
  ARITH(u64, 0x123456789abcdefull, 0x1000000001ull);
  ARITH(s64, -900000000000000000ll, 3ll);
  ARITH(s64, 12345678901ll, -98765ll);
  CHECK(s64, 123456789012345678ll, /, -98765ll);
  CHECK(s64, 123456789012345678ll, %, -98765ll);
  ARITH(s64, -5ll, -7ll);
  SHIFTS(u16, 0xBEEFu, 0);
  SHIFTS(u16, 0xBEEFu, 5);
  SHIFTS(u16, 0xBEEFu, 15);
  SRA(s16, -12345, 3);
  SHIFTS(u32, 0xDEADBEEFul, 0);
  SHIFTS(u32, 0xDEADBEEFul, 1);
  SHIFTS(u32, 0xDEADBEEFul, 13);
  SHIFTS(u32, 0xDEADBEEFul, 31);
  SRA(s32, -123456789l, 9);
  SRA(s32, -1l, 31);
  SHIFTS(u64, 0xDEADBEEFCAFEF00Dull, 37);
  SRA(s64, -1234567890123ll, 21);
  done = 1;
  for (;;)
    ;
}
