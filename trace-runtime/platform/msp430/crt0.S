; crt0.S - minimal reset code for MSP430 motes built by wsn-cc (no msp430 crt exists here).
;
; Reset: set the stack pointer to the top of RAM, let __wsn_watchdog_init decide about the
; watchdog (the default holds it), copy initialised data from flash to RAM, clear .bss, run
; the trace runtime's initialisation (section .init.wsn_rtinit, empty without it), call
; main, and if main ever returns, sleep in LPM4 forever with interrupts off.
; Symbols come from the family linker script (wsn-msp430.ld).

        .section .init.wsn_reset,"ax",@progbits
        .globl  __wsn_reset
        .type   __wsn_reset,@function
__wsn_reset:
        mov     #__wsn_stack_top, r1
        call    #__wsn_watchdog_init
        ; copy .data: r12 = load address, r13 = run address, r14 = end of run area
        mov     #__wsn_data_load, r12
        mov     #__wsn_data_start, r13
        mov     #__wsn_data_end, r14
.Lcopy:
        cmp     r14, r13
        jhs     .Lcopied
        mov.b   @r12+, r15
        mov.b   r15, 0(r13)
        inc     r13
        jmp     .Lcopy
.Lcopied:
        ; clear .bss
        mov     #__wsn_bss_start, r13
        mov     #__wsn_bss_end, r14
.Lclear:
        cmp     r14, r13
        jhs     .Lcleared
        clr.b   0(r13)
        inc     r13
        jmp     .Lclear
.Lcleared:
        ; falls through: .init.wsn_rtinit (the trace runtime's header set-up, when linked),
        ; then .init.wsn_main; the linker script keeps the three sections in this order.
        .size   __wsn_reset, .-__wsn_reset
        .section .init.wsn_main,"ax",@progbits
        call    #main
        .globl  __wsn_exit
__wsn_exit:
        dint
        nop
.Lhalt:
        bis     #0x00f0, r2             ; LPM4 (CPUOFF|OSCOFF|SCG0|SCG1), GIE clear
        jmp     .Lhalt

; Default watchdog policy: hold it (WDTCTL = WDTPW | WDTHOLD). A program that wants the
; watchdog defines its own __wsn_watchdog_init (it runs before .data/.bss are set up).
        .section .text.__wsn_watchdog_init,"ax",@progbits
        .weak   __wsn_watchdog_init
        .type   __wsn_watchdog_init,@function
__wsn_watchdog_init:
        mov     #0x5a80, &0x0120
        ret
        .size   __wsn_watchdog_init, .-__wsn_watchdog_init

; Handler of every vector slot the program leaves empty. The linker script places it at the
; very start of flash so that the vector table's fill value can be its (constant) address.
        .section .init.wsn_unexpected,"ax",@progbits
        .globl  __wsn_unexpected_irq
        .type   __wsn_unexpected_irq,@function
__wsn_unexpected_irq:
        reti
        .size   __wsn_unexpected_irq, .-__wsn_unexpected_irq

; The reset slot (63, address 0xFFFE) on every family.
        .section __interrupt_vector_63,"a",@progbits
        .short  __wsn_reset
