; tiny.s - an MSP430 image for the ELF loader test: code at 0x4000, initialised data at 0x1100,
; the reset vector. Built by unittests/Msp430/CMakeLists.txt with clang and ld.lld.
        .text
        .globl _start
_start:
        mov #0x5a80, &0x0120
        mov &value, r5
        add #1, r5
halt:
        jmp halt
        .data
value:
        .short 0x1233
        .section .vectors,"a",@progbits
        .short _start
