#include <stdint.h>
struct sense_state_t { uint16_t period, level, parent, seq; };
struct queue_t { uint8_t len, cap; };
struct beacon_t { uint8_t type; uint16_t seq; };
extern struct sense_state_t sense_state;
extern struct queue_t *queue_ptr;
extern struct beacon_t beacon_msg;
