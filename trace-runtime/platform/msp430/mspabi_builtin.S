; mspabi_builtin.S - 64-bit helpers LLVM calls in the msp430_builtin convention.
;
; LLVM calls __mspabi_{mpyll,divull,divlli,remull,remlli} with the first operand in
; R8..R11 (low word first) and the second in R12..R15, and expects the result in R12..R15.
; The C versions in mspabi.c take the first operand in R12..R15 and the second on the stack,
; so each shim pushes the second operand (high word first, leaving the low word at the lowest
; address), moves the first into R12..R15, calls the C routine and drops the 8 argument
; bytes. R8..R10 are callee-saved in the C convention, so they survive the call untouched.

        .macro  WSN_SHIM name, target
        .section .text.\name,"ax",@progbits
        .globl  \name
        .type   \name,@function
\name:
        push    r15
        push    r14
        push    r13
        push    r12
        mov     r8, r12
        mov     r9, r13
        mov     r10, r14
        mov     r11, r15
        call    #\target
        add     #8, r1
        ret
        .size   \name, .-\name
        .endm

        WSN_SHIM __mspabi_mpyll, __wsn_mul64
        WSN_SHIM __mspabi_divull, __wsn_udiv64
        WSN_SHIM __mspabi_remull, __wsn_urem64
        WSN_SHIM __mspabi_divlli, __wsn_sdiv64
        WSN_SHIM __mspabi_remlli, __wsn_srem64
