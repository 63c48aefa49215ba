/* A non-FIFO scheduler (it picks the highest pending task) and an annotated input
 * handler that exports a received byte into a buffer. */
#include <stdint.h>
#include <wsn/invariant.h>

uint8_t pending;      /* bit i: task i posted */
uint8_t rx_buf[4];    /* filled by the input handler */
uint8_t rx_len;
uint16_t processed;

WSN_INVARIANT(len_ok) { return rx_len <= 4 && processed < 1000; }

__attribute__((signal, used, annotate("wsn.input"))) void __vector_18(void) {
  uint8_t b = *(volatile uint8_t *)0x2C; /* UDR0 */
  if (rx_len < 4)
    rx_buf[rx_len++] = b;
  pending |= 2;
}

__attribute__((noinline)) void App$a$runTask(void) { processed++; }
__attribute__((noinline)) void App$b$runTask(void) { rx_len = 0; processed += 2; }

int main(void) {
  for (;;) {
    uint8_t p;
    __asm__ __volatile__("cli" ::: "memory");
    p = pending;
    pending = 0;
    __asm__ __volatile__("sei" ::: "memory");
    if (p & 2)
      App$b$runTask();
    else if (p & 1)
      App$a$runTask();
    WSN_CHECK(len_ok);
  }
}
