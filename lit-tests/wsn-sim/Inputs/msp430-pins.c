/* msp430-pins.c - the program of telosb-pins.c and z1-pins.c, over their board's header
 * (telosb-cc2420.h, z1-cc2420.h: included first): drives every CC2420 pin from the MCU and
 * reads back what the radio drives. Results in globals, read from sram.bin. nesC-shaped:
 * component$variable names. */
volatile uint8_t PinsC$st_after_vreg;  /* status byte before SXOSCON */
volatile uint8_t PinsC$st_stable;
volatile uint16_t PinsC$manfidl;
volatile uint8_t PinsC$cca_xosc;       /* P1.4 with IOCFG1.CCAMUX = 24 (XOSC16M_STABLE) */
volatile uint8_t PinsC$fifop_before, PinsC$fifop_inverted, PinsC$p1_irqs;
volatile uint8_t PinsC$fifo_before, PinsC$fifo_inverted;
volatile uint8_t PinsC$cca_rx;         /* P1.4 in RX on a quiet channel */
volatile uint8_t PinsC$sfd_before, PinsC$sfd_during;
volatile uint16_t PinsC$tb_rise, PinsC$tb_fall;
volatile uint8_t PinsC$st_vreg_off;    /* SPI without supply */

void PinsC$port1(void) __attribute__((interrupt(PORT1_SLOT)));
void PinsC$port1(void) {
  if (P1IFG & FIFOP_MASK)
    ++PinsC$p1_irqs;
  P1IFG = 0;
}

int main(void) {
  watchdog_hold();
  /* VREG_EN and RESETn outputs: regulator on with the chip in reset; CSn idle high. */
  csn_idle_high();
  P4DIR |= (1u << 5) | (1u << 6);
  P4OUT &= ~(1u << 6);
  P4OUT |= 1u << 5;
  delay4(1000); /* > 600 us */
  P4OUT |= 1u << 6;
  spi_init();

  PinsC$st_after_vreg = strobe(0x01); /* SXOSCON */
  uint8_t st;
  do
    st = strobe(0x00);
  while (!(st & 0x40));
  PinsC$st_stable = st;
  PinsC$manfidl = reg_read(0x1E);

  reg_write(0x1D, 24); /* IOCFG1.CCAMUX = XOSC16M_STABLE */
  PinsC$cca_xosc = (P1IN >> 4) & 1;
  reg_write(0x1D, 0);

  /* FIFOP's interrupt on the rising edge (P1IES bit clear); then invert FIFOP's and FIFO's
   * polarity: FIFOP goes high, one interrupt. */
  P1IES &= ~FIFOP_MASK;
  P1IFG = 0;
  P1IE |= FIFOP_MASK;
  __asm__ __volatile__("eint\n\tnop");
  PinsC$fifop_before = (P1IN >> FIFOP_BIT) & 1;
  PinsC$fifo_before = (P1IN >> 3) & 1;
  reg_write(0x1C, 0x0040 | 0x0200 | 0x0400); /* IOCFG0: FIFOP_POL, FIFO_POL */
  PinsC$fifop_inverted = (P1IN >> FIFOP_BIT) & 1;
  PinsC$fifo_inverted = (P1IN >> 3) & 1;
  reg_write(0x1C, 0x0040);
  P1IE &= ~FIFOP_MASK;

  /* Receive on a quiet channel: CCA high once RSSI is valid (8 symbols). */
  strobe(0x03); /* SRXON */
  delay4(200);
  PinsC$cca_rx = (P1IN >> 4) & 1;

  /* Transmit: SFD on Timer_B CCI1A, Timer_B continuous on SMCLK, capture on both edges. */
  TBCTL = 0x0200 | 0x0020 | 0x0004;         /* TBSSEL_2 (SMCLK), MC_2, TBCLR */
  TBCCTL1 = 0xC000 | 0x0100 | 0x0800;        /* CM_3 (both edges), CAP, SCS; CCIS_0 = CCI1A */
  PinsC$sfd_before = (P4IN >> 1) & 1;
  send3(0x01, 0x02, 0x03);
  while (!(TBCCTL1 & 1u))
    ;
  PinsC$tb_rise = TBCCR1;
  PinsC$sfd_during = (P4IN >> 1) & 1;
  TBCCTL1 &= ~1u;
  while (!(TBCCTL1 & 1u))
    ;
  PinsC$tb_fall = TBCCR1;

  /* Regulator off: the SPI no longer answers. */
  P4OUT &= ~(1u << 5);
  PinsC$st_vreg_off = strobe(0x00);
  for (;;)
    ;
}
