/* mspabi.c - the MSP430 EABI run-time helpers that LLVM's msp430 back end calls.
 *
 * There is no compiler-rt or libgcc for msp430 here, so wsn-cc links these. The set is what
 * llc 19 emits for C code at -O0..-Oz (16/32/64-bit multiply, divide, remainder and the
 * 32-bit variable shifts), plus the 16-bit shift helpers and the *_hw/_f5hw multiply names.
 * The "_hw" multiplies are implemented in software as well: the hardware multiplier is a
 * shared peripheral that an interrupt handler could use half-way through an operation, and
 * mspdebug's simulator does not model it. Results are identical, only slower.
 *
 * Calling conventions: every helper here uses the ordinary C convention (arguments in R12..R15
 * then the stack), except the 64-bit divide/remainder helpers and the software 64-bit
 * multiply __mspabi_mpyll, which LLVM calls with the "msp430_builtin" convention (first
 * operand in R8..R11, second in R12..R15; the *_hw multiplies keep the C convention). The
 * shims in mspabi_builtin.S adapt those to the C functions __wsn_{mul,udiv,urem,sdiv,srem}64.
 *
 * Compile with -ffreestanding -fno-builtin so the loops are not turned back into calls to
 * these very helpers.
 */
typedef unsigned int u16;
typedef int s16;
typedef unsigned long u32;
typedef long s32;
typedef unsigned long long u64;
typedef long long s64;

#define WSN_RT __attribute__((used))

/* ---- multiply: shift-and-add, LSB first ---- */
static u16 mul16(u16 a, u16 b) {
  u16 r = 0;
  while (b) {
    if (b & 1)
      r += a;
    a <<= 1;
    b >>= 1;
  }
  return r;
}
static u32 mul32(u32 a, u32 b) {
  u32 r = 0;
  while (b) {
    if (b & 1)
      r += a;
    a <<= 1;
    b >>= 1;
  }
  return r;
}
/* 64-bit product from 32-bit pieces: lo(a)*lo(b) in full by shift-and-add on a 64-bit
 * multiplicand held as two 32-bit words, plus the cross terms in the high word. */
static u64 mul64(u64 a, u64 b) {
  u32 alo = (u32)a, ahi = (u32)(a >> 32), blo = (u32)b, bhi = (u32)(b >> 32);
  u32 rlo = 0, rhi = 0, mlo = alo, mhi = 0;
  for (u32 m = blo; m; m >>= 1) {
    if (m & 1) {
      u32 t = rlo + mlo;
      rhi += mhi + (t < rlo);
      rlo = t;
    }
    mhi = (mhi << 1) | (mlo >> 31);
    mlo <<= 1;
  }
  rhi += mul32(alo, bhi) + mul32(ahi, blo);
  return ((u64)rhi << 32) | rlo;
}

WSN_RT s16 __mspabi_mpyi(s16 a, s16 b) { return (s16)mul16((u16)a, (u16)b); }
WSN_RT s16 __mspabi_mpyi_hw(s16 a, s16 b) { return (s16)mul16((u16)a, (u16)b); }
WSN_RT s16 __mspabi_mpyi_f5hw(s16 a, s16 b) { return (s16)mul16((u16)a, (u16)b); }
WSN_RT s32 __mspabi_mpyl(s32 a, s32 b) { return (s32)mul32((u32)a, (u32)b); }
WSN_RT s32 __mspabi_mpyl_hw(s32 a, s32 b) { return (s32)mul32((u32)a, (u32)b); }
WSN_RT s32 __mspabi_mpyl_hw32(s32 a, s32 b) { return (s32)mul32((u32)a, (u32)b); }
WSN_RT s32 __mspabi_mpyl_f5hw(s32 a, s32 b) { return (s32)mul32((u32)a, (u32)b); }
/* __mspabi_mpyll (software multiplier) uses the msp430_builtin convention: mspabi_builtin.S. */
WSN_RT u64 __wsn_mul64(u64 a, u64 b) { return mul64(a, b); }
WSN_RT s64 __mspabi_mpyll_hw(s64 a, s64 b) { return (s64)mul64((u64)a, (u64)b); }
WSN_RT s64 __mspabi_mpyll_hw32(s64 a, s64 b) { return (s64)mul64((u64)a, (u64)b); }
WSN_RT s64 __mspabi_mpyll_f5hw(s64 a, s64 b) { return (s64)mul64((u64)a, (u64)b); }
/* Widening 16x16->32 multiplies (signed and unsigned). */
WSN_RT s32 __mspabi_mpysl(s16 a, s16 b) { return (s32)mul32((u32)(s32)a, (u32)(s32)b); }
WSN_RT u32 __mspabi_mpyul(u16 a, u16 b) { return mul32(a, b); }

/* ---- divide: restoring shift-subtract; division by zero gives quotient all-ones and
 * remainder = dividend (what the loop naturally produces; C leaves it undefined). ---- */
/* The 16-bit unsigned divide and remainder are in assembly (udivmod16.S: llc's code for
 * this loop was 3 to 10 times slower); the signed ones use them. */
u16 __mspabi_divu(u16 a, u16 b);
u16 __mspabi_remu(u16 a, u16 b);
static u16 udivmod16(u16 n, u16 d, u16 *rem) {
  *rem = __mspabi_remu(n, d);
  return __mspabi_divu(n, d);
}
static u32 udivmod32(u32 n, u32 d, u32 *rem) {
  u32 q = 0, r = 0;
  for (int i = 0; i < 32; ++i) {
    r = (r << 1) | (n >> 31);
    n <<= 1;
    q <<= 1;
    if (r >= d) {
      r -= d;
      q |= 1;
    }
  }
  *rem = r;
  return q;
}
static u64 udivmod64(u64 n, u64 d, u64 *rem) {
  u64 q = 0, r = 0;
  for (int i = 0; i < 64; ++i) {
    r = (r << 1) | (n >> 63);
    n <<= 1;
    q <<= 1;
    if (r >= d) {
      r -= d;
      q |= 1;
    }
  }
  *rem = r;
  return q;
}

WSN_RT s16 __mspabi_divi(s16 a, s16 b) {
  u16 r, q = udivmod16(a < 0 ? -(u16)a : (u16)a, b < 0 ? -(u16)b : (u16)b, &r);
  return (s16)(((a < 0) != (b < 0)) ? -q : q);
}
WSN_RT s16 __mspabi_remi(s16 a, s16 b) {
  u16 r;
  udivmod16(a < 0 ? -(u16)a : (u16)a, b < 0 ? -(u16)b : (u16)b, &r);
  return (s16)(a < 0 ? -r : r); /* the remainder takes the dividend's sign */
}
WSN_RT u32 __mspabi_divul(u32 a, u32 b) { u32 r; return udivmod32(a, b, &r); }
WSN_RT u32 __mspabi_remul(u32 a, u32 b) { u32 r; udivmod32(a, b, &r); return r; }
WSN_RT s32 __mspabi_divli(s32 a, s32 b) {
  u32 r, q = udivmod32(a < 0 ? -(u32)a : (u32)a, b < 0 ? -(u32)b : (u32)b, &r);
  return (s32)(((a < 0) != (b < 0)) ? -q : q);
}
WSN_RT s32 __mspabi_remli(s32 a, s32 b) {
  u32 r;
  udivmod32(a < 0 ? -(u32)a : (u32)a, b < 0 ? -(u32)b : (u32)b, &r);
  return (s32)(a < 0 ? -r : r);
}
/* 64-bit: reached through the msp430_builtin-convention shims in mspabi_builtin.S. */
WSN_RT u64 __wsn_udiv64(u64 a, u64 b) { u64 r; return udivmod64(a, b, &r); }
WSN_RT u64 __wsn_urem64(u64 a, u64 b) { u64 r; udivmod64(a, b, &r); return r; }
WSN_RT s64 __wsn_sdiv64(s64 a, s64 b) {
  u64 r, q = udivmod64(a < 0 ? -(u64)a : (u64)a, b < 0 ? -(u64)b : (u64)b, &r);
  return (s64)(((a < 0) != (b < 0)) ? -q : q);
}
WSN_RT s64 __wsn_srem64(s64 a, s64 b) {
  u64 r;
  udivmod64(a < 0 ? -(u64)a : (u64)a, b < 0 ? -(u64)b : (u64)b, &r);
  return (s64)(a < 0 ? -r : r);
}

/* ---- shifts by a variable amount (count in the low 4/5 bits, as the ABI allows) ---- */
WSN_RT u16 __mspabi_slli(u16 a, s16 n) { n &= 15; while (n--) a <<= 1; return a; }
WSN_RT u16 __mspabi_srli(u16 a, s16 n) { n &= 15; while (n--) a >>= 1; return a; }
WSN_RT s16 __mspabi_srai(s16 a, s16 n) { n &= 15; while (n--) a >>= 1; return a; }
WSN_RT u32 __mspabi_slll(u32 a, s16 n) { n &= 31; while (n--) a <<= 1; return a; }
WSN_RT u32 __mspabi_srll(u32 a, s16 n) { n &= 31; while (n--) a >>= 1; return a; }
WSN_RT s32 __mspabi_sral(s32 a, s16 n) { n &= 31; while (n--) a >>= 1; return a; }

/* ---- the three libc memory functions that codegen may call (there is no msp430 libc) ---- */
WSN_RT void *memcpy(void *dst, const void *src, u16 n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  while (n--)
    *d++ = *s++;
  return dst;
}
WSN_RT void *memmove(void *dst, const void *src, u16 n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d < s) {
    while (n--)
      *d++ = *s++;
  } else {
    d += n;
    s += n;
    while (n--)
      *--d = *--s;
  }
  return dst;
}
WSN_RT void *memset(void *dst, int c, u16 n) {
  unsigned char *d = dst;
  while (n--)
    *d++ = (unsigned char)c;
  return dst;
}
WSN_RT int memcmp(const void *a, const void *b, u16 n) {
  const unsigned char *x = a, *y = b;
  for (; n; --n, ++x, ++y)
    if (*x != *y)
      return *x < *y ? -1 : 1;
  return 0;
}
