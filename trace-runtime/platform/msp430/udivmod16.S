; udivmod16.S - the 16-bit unsigned divide and remainder helpers in assembly.
;
; In C (mspabi.c) the restoring divide needs the dividend's top bit each step; llc 19 lowers
; that `n >> 15` to nine instructions, and a variable `n >> i` to a loop, so a 16-bit divide
; took 400 to 1,200 instructions. Here the dividend shifts into the remainder through the
; carry (rla, rlc) and the quotient bit goes into the bit the shift freed: 7 instructions a
; step, about 120 a divide. The trace runtime divides by its segment size on every record
; when the segment is not 256 bytes, and TinyOS's timers divide too.
;
; C convention: dividend in R12, divisor in R13; the result in R12. R14 and R15 are scratch.
; Division by zero gives quotient 0xFFFF and remainder = dividend, as the C loop did.

        .section .text.__wsn_udivmod16,"ax",@progbits
        .type   __wsn_udivmod16,@function
; R12 = dividend, R13 = divisor -> R12 = quotient, R14 = remainder.
__wsn_udivmod16:
        clr     r14
        mov     #16, r15
1:      rla     r12             ; the dividend's top bit into C, a free bit 0 for the quotient
        rlc     r14             ; ... and into the remainder
        cmp     r13, r14        ; C = (remainder >= divisor), unsigned
        jlo     2f
        sub     r13, r14
        bis     #1, r12
2:      dec     r15
        jnz     1b
        ret
        .size   __wsn_udivmod16, .-__wsn_udivmod16

        .section .text.__mspabi_divu,"ax",@progbits
        .globl  __mspabi_divu
        .type   __mspabi_divu,@function
__mspabi_divu:
        call    #__wsn_udivmod16
        ret
        .size   __mspabi_divu, .-__mspabi_divu

        .section .text.__mspabi_remu,"ax",@progbits
        .globl  __mspabi_remu
        .type   __mspabi_remu,@function
__mspabi_remu:
        call    #__wsn_udivmod16
        mov     r14, r12
        ret
        .size   __mspabi_remu, .-__mspabi_remu
