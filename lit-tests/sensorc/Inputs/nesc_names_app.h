/* The globals nesc_names.sg aliases, named as nescc writes them. */
#include <stdint.h>
extern uint16_t SenseC$reading;
extern uint16_t SenseC__limit;
