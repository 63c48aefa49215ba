/* Node-id variables the way TinyOS images have them (spec/micaz.md, "Node
 * ids"): initialised globals in .data, one in .noinit (the trace runtime's
 * __wsn_node_id), one zero-initialised (.bss, which wsn-sim cannot set).
 * main copies each into seen_* first thing, so the values the C startup left
 * are visible in sram.bin even if the program changed them later. Built with
 * wsn-cc --no-trace (clang takes '$' in identifiers, avr-gcc does not): no
 * trace runtime. */
#include <avr/io.h>
#include <stdint.h>

uint16_t TOS_NODE_ID = 1;
uint16_t ActiveMessageAddressC$addr = 1; /* nesC's default '$' separator */
uint16_t ActiveMessageAddressC__addr = 1;
uint16_t __wsn_node_id __attribute__((section(".noinit")));
uint16_t other_data = 0x1234; /* a neighbour in .data stays as it was */

volatile uint16_t seen_tos, seen_am, seen_am2, seen_wsn, seen_other;

int main(void) {
  seen_tos = TOS_NODE_ID;
  seen_am = ActiveMessageAddressC$addr;
  seen_am2 = ActiveMessageAddressC__addr;
  seen_wsn = __wsn_node_id;
  seen_other = other_data;
  TOS_NODE_ID += 100; /* the program owns the variable from here on */
  for (;;)
    ;
}
