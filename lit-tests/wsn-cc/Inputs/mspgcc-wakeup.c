/* A TelosB (msp430f1611) program in the mspgcc dialect, the way nesC writes telosb output:
 * interrupt(X) with X the vector's byte offset from 0xFFE0 (0x000C: Timer_A CCR0 at 0xFFEC),
 * `wakeup` on the handler, mspgcc's intrinsics declared as builtins, registers reached through
 * asm labels (the msp430mcu symbols and one numeric address, as TinyOS's msp430hardware.h does).
 * main sleeps in LPM0; each timer interrupt must wake it (wakeup), so woken follows ticks. */
#include <stdint.h>
void __nop(void);
void __dint(void);
void __eint(void);
unsigned int __read_status_register(void);
extern volatile unsigned int TACTL __asm("__""TACTL");
extern volatile unsigned int TACCTL0 __asm("__""TACCTL0");
extern volatile unsigned int TACCR0 __asm("__""TACCR0");
extern volatile unsigned int WDTCTL __asm("__""WDTCTL");
static volatile uint8_t P1OUTnr __asm("0x0021");

#ifndef NO_WAKEUP
#define WAKEUP __attribute((wakeup))
#else
#define WAKEUP
#endif

uint16_t WakeC$ticks;
uint16_t WakeC$woken;
uint16_t WakeC$gieAfterDint;
uint16_t WakeC$gieAfterEint;

void sig_TIMERA0_VECTOR(void) WAKEUP __attribute((interrupt(0x000C)));
void sig_TIMERA0_VECTOR(void) {
  WakeC$ticks++;
  P1OUTnr = (uint8_t)WakeC$ticks;
}

int main(void) {
  WDTCTL = 0x5A80;          /* watchdog held */
  TACCR0 = 200;
  TACCTL0 = 0x0010;         /* CCIE */
  TACTL = 0x0200 | 0x0010;  /* TASSEL_2 (SMCLK), MC_1 (up mode) */
  for (;;) {
    __dint();
    __nop();
    if (__read_status_register() & 0x0008)
      WakeC$gieAfterDint++;
    __eint();
    if (__read_status_register() & 0x0008)
      WakeC$gieAfterEint++;
    __dint();
    __nop();
    __asm__ __volatile__("bis %0, r2" : : "r"((unsigned int)0x0018)); /* LPM0 + GIE */
    WakeC$woken++;
  }
}
