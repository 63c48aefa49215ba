/* mspabi-divide-steps.c - 64 16-bit unsigned divisions and 64 remainders through the
 * __mspabi_divu/__mspabi_remu helpers (operands through volatile), then done = 1. The test
 * bounds the instructions this takes. */
volatile unsigned int num = 60000u, den = 7u, quot, rem, done;
int main(void) {
  for (unsigned int i = 0; i < 64; ++i) {
    quot += num / den;
    rem += num % den;
    num = (unsigned int)(num - 917u);
    den = (unsigned int)(den + 3u);
  }
  done = 1;
  for (;;) {
  }
}
