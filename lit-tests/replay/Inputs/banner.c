/* A string literal is a private global in IR; the traced build must still give it an
   ELF symbol so the replay lowering can place it (spec/replay.md section 1). */
#include <stdint.h>
#include <wsn/invariant.h>

char line[16];
volatile uint8_t which;

WSN_INVARIANT(line_set) { return line[0] == 'b'; }

static void fill(const char *s) {
  for (uint8_t i = 0; i < 15 && s[i]; ++i)
    line[i] = s[i];
}

int main(void) {
  for (;;) {
    fill(which ? "blink-banner" : "banner-two");
    WSN_CHECK(line_set);
  }
}
