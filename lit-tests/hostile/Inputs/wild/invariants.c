/* invariants.c - WildC's invariant: every sample handled is stored exactly once. */
#include <stdint.h>
#include <wsn/invariant.h>

extern uint16_t WildC$handled;
extern uint8_t WildC$next;

WSN_INVARIANT(wild_count) { return (uint8_t)WildC$handled == WildC$next; }
