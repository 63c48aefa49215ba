/* nesC-shaped reproduction (issue 17): TinyOS's atm128 McuSleepC keeps its power-state
 * table in program memory, declared through avr-libc's const_uint8_t typedef (which carries
 * __attribute__((__progmem__))), and reads it with pgm_read_byte, an `lpm` inline asm.
 * Written the way the nesC compiler emits it (attribute in a typedef, no const on the table,
 * the statement expression of pgm_read_byte expanded). A second table uses the attribute on
 * the variable itself (PROGMEM), a third is read as a 16-bit word with two Z+ reads. (A
 * plain C read of such a table reads the data space at the flash address, with avr-gcc as
 * here: a program bug, not exercised.) */
#include <stdint.h>

typedef uint8_t const_uint8_t __attribute((__progmem__));
typedef uint8_t mcu_power_t;

enum { ATM128_POWER_IDLE = 0, ATM128_POWER_ADC_NR = 1, ATM128_POWER_EXT_STANDBY = 2,
       ATM128_POWER_SAVE = 3, ATM128_POWER_STANDBY = 4, ATM128_POWER_DOWN = 5 };

const_uint8_t McuSleepC__atm128PowerBits[ATM128_POWER_DOWN + 1] = {
    0, 1 << 3, (1 << 4) | (1 << 3) | (1 << 2), (1 << 4) | (1 << 3), (1 << 4) | (1 << 2),
    1 << 4};
static const uint8_t AppC__crcTable[4] __attribute__((__progmem__)) = {0xA5, 0x5A, 0x3C, 0x81};
const_uint8_t AppC__words[4] = {0x34, 0x12, 0x78, 0x56};

uint8_t McuSleepC__mcucr;    /* what McuSleep.sleep would write into MCUCR */
uint8_t AppC__crc;
uint16_t AppC__word;

__attribute__((noinline)) void done(void) { __asm__ __volatile__("" ::: "memory"); }

static inline uint8_t pgm_byte(uint16_t a) {
  return __extension__({
    uint16_t __addr16 = (uint16_t)(uint16_t)(a);
    uint8_t __result;
    __asm__("lpm %0, Z"
            "\n\t"
            : "=r"(__result)
            : "z"(__addr16));
    __result;
  });
}

static inline uint16_t pgm_word_z(uint16_t a) {
  uint16_t r;
  __asm__("lpm %A0, Z+\n\tlpm %B0, Z" : "=r"(r) : "z"(a));
  return r;
}

__attribute__((noinline)) void McuSleepC__McuSleep__sleep(mcu_power_t powerState) {
  McuSleepC__mcucr = (uint8_t)((McuSleepC__mcucr & 0xe3) | (1 << 5) |
                               pgm_byte((uint16_t)&McuSleepC__atm128PowerBits[powerState]));
}

int main(void) {
  McuSleepC__McuSleep__sleep(ATM128_POWER_SAVE);
  for (uint8_t i = 0; i < 4; ++i)
    AppC__crc ^= pgm_byte((uint16_t)&AppC__crcTable[i]);
  AppC__word = pgm_word_z((uint16_t)&AppC__words[2]);
  done();
  for (;;)
    ;
}
