"""Random MSP430 instruction sequences for the differential test (bench/msp430-diff/run.py).

A program is an endless loop over a generated body: every format I opcode, every format II
opcode and every jump, in every addressing mode the instruction allows (register, indexed,
symbolic, absolute, indirect, indirect autoincrement, immediate, the constant generators),
byte and word, with flag corner cases (0x7FFF/0x8000/0xFFFF/0x7F/0x80/0xFF operands, DADD on
BCD values, RRC/RRA/SXT/SWPB). Registers have roles so that every access stays inside a RAM
window the comparison reads back:
  r4-r7   pointers into the data window, tracked exactly (changed only by @Rn+ and reloads)
  r8-r15  data registers, any value
  r1      stack pointer, reset each iteration; pushes and pops are balanced by the generator
Constructs where mspdebug 0.22 departs from the user's guide in ways msp430-diff does not
correct are never generated (see msp430-diff.cpp): @SP+ in byte mode, PUSH.B, word
accesses at odd addresses, writes to R3, interrupts.
"""

import random

DATA = 0x1100          # data window [DATA, DATA + WINDOW)
WINDOW = 0x100
STACK_TOP = 0x1300     # stack [0x1200, 0x1300)
COMPARE = (DATA, 0x200)  # what msp430-diff reads back: data window and stack
IRQ_SLOT = 5           # msp430-diff --irq requests this vector (0xFFEA); its handler counts at 0x1200
IRQ_COUNTER = 0x1200   # below the deepest stack use

POINTERS = ["r4", "r5", "r6", "r7"]
DATA_REGS = ["r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
FORMAT_I = ["mov", "add", "addc", "subc", "sub", "cmp", "dadd", "bit", "bic", "bis", "xor", "and"]
SHIFTS = ["rrc", "rra", "swpb", "sxt"]
JUMPS = ["jne", "jeq", "jnc", "jc", "jn", "jge", "jl", "jmp"]
CORNERS = [0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0xFFFE, 0x007F, 0x0080, 0x00FF,
           0x0100, 0x5555, 0xAAAA]
CONSTANTS = [0, 1, 2, 4, 8, -1]  # the assembler encodes these with R2/R3


class Body:
    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.ptr = {}           # pointer register -> value
        self.depth = 0          # words pushed in this iteration
        self.labels = 0
        self.pending = []       # [instructions left, label] for forward jumps
        self.subs = []          # subroutine bodies

    # -- helpers ---------------------------------------------------------------------------
    def label(self):
        self.labels += 1
        return ".L%d" % self.labels

    def emit(self, text):
        self.lines.append("        " + text)

    def emit_raw(self, word, ext, comment):
        """An instruction clang's assembler cannot encode: its words as data. A symbolic
        operand's offset is relative to the extension word's address; .text starts at 0x4000
        with _start (gen.LINKER_SCRIPT), so it is computed from a label here."""
        here = self.label()
        self.lines.append(here + ":")
        self.emit(".short 0x%04x%s ; %s" % (word, ", " + ext.format(here=here) if ext else "", comment))

    def end_snippet(self):
        """Jump targets go only between snippets (a snippet's instructions depend on each
        other). Where paths join, the pointers' values depend on the path: reload before use."""
        for p in self.pending:
            p[0] -= 1
        for p in [p for p in self.pending if p[0] <= 0]:
            self.lines.append(p[1] + ":")
            self.pending.remove(p)
            for reg in POINTERS:
                self.ptr[reg] = None

    def flush_labels(self):
        for p in self.pending:
            self.lines.append(p[1] + ":")
        self.pending = []

    def load_pointer(self, reg):
        value = DATA + 16 + 2 * self.rng.randrange((WINDOW - 48) // 2)
        self.ptr[reg] = value
        self.emit("mov #0x%04x, %s" % (value, reg))

    def pointer(self, byte, advance):
        """A pointer register usable for an access of this width (reloaded when needed)."""
        reg = self.rng.choice(POINTERS)
        v = self.ptr[reg]
        if v is None or (not byte and v % 2) or v + advance + 8 > DATA + WINDOW:
            self.load_pointer(reg)
        return reg

    def imm(self):
        r = self.rng.random()
        if r < 0.3:
            return "#0x%04x" % self.rng.choice(CORNERS)
        if r < 0.45:
            return "#%d" % self.rng.choice(CONSTANTS)
        return "#0x%04x" % self.rng.randrange(0x10000)

    def mem_offset(self, byte):
        off = self.rng.randrange(WINDOW)
        return off if byte else off & ~1

    def src(self, byte):
        """A source operand in one of the seven modes (text)."""
        kind = self.rng.choice(["reg", "reg", "idx", "sym", "abs", "ind", "inc", "imm", "cg", "sr"])
        self.src_enc = None  # (As, register number, extension word expression) of memory modes
        if kind == "reg":
            return self.rng.choice(DATA_REGS)
        if kind == "sr":
            return "r2"
        if kind == "idx":
            reg = self.pointer(byte, 0)
            lo = DATA - self.ptr[reg]
            off = self.rng.randrange(lo, lo + WINDOW)
            if not byte:
                off &= ~1
            self.src_enc = (1, int(reg[1:]), "%d" % off)
            return "%d(%s)" % (off, reg)
        if kind == "sym":
            off = self.mem_offset(byte)
            self.src_enc = (1, 0, "0x%04x-(0x4000+{here}+2-_start)" % (DATA + off))
            return "data+%d" % off
        if kind == "abs":
            addr = DATA + self.mem_offset(byte)
            self.src_enc = (1, 2, "0x%04x" % addr)
            return "&0x%04x" % addr
        if kind == "ind":
            reg = self.pointer(byte, 0)
            self.src_enc = (2, int(reg[1:]), None)
            return "@%s" % reg
        if kind == "inc":
            reg = self.pointer(byte, 2)
            self.ptr[reg] += 1 if byte else 2
            self.src_enc = (3, int(reg[1:]), None)
            return "@%s+" % reg
        if kind == "cg":
            return "#%d" % self.rng.choice(CONSTANTS)
        return self.imm()

    def dst(self, byte):
        kind = self.rng.choice(["reg", "reg", "reg", "idx", "sym", "abs"])
        self.dst_enc = None  # (register number, extension word expression) of memory modes
        if kind == "reg":
            return self.rng.choice(DATA_REGS)
        if kind == "idx":
            reg = self.pointer(byte, 0)
            lo = DATA - self.ptr[reg]
            off = self.rng.randrange(lo, lo + WINDOW)
            if not byte:
                off &= ~1
            self.dst_enc = (int(reg[1:]), "%d" % off)
            return "%d(%s)" % (off, reg)
        if kind == "sym":
            off = self.mem_offset(byte)
            self.dst_enc = (0, "0x%04x-(0x4000+{here}+2-_start)" % (DATA + off))
            return "data+%d" % off
        addr = DATA + self.mem_offset(byte)
        self.dst_enc = (2, "0x%04x" % addr)
        return "&0x%04x" % addr

    # -- instruction kinds -----------------------------------------------------------------
    def format_i(self):
        op = self.rng.choice(FORMAT_I)
        if op == "dadd":
            return self.dadd()
        byte = self.rng.random() < 0.4
        s = self.src(byte)
        senc = self.src_enc
        d = self.dst(byte)
        if op == "mov" and senc and senc[0] == 3 and self.dst_enc:
            # clang's assembler has no MOV @Rn+,dst-in-memory: encode it (SLAU144 §3.4.2).
            word = 0x4000 | senc[1] << 8 | 0x80 | (0x40 if byte else 0) | 0x30 | self.dst_enc[0]
            self.emit_raw(word, self.dst_enc[1], "mov%s %s, %s" % (".b" if byte else "", s, d))
            return
        self.emit("%s%s %s, %s" % (op, ".b" if byte else "", s, d))

    def dadd(self):
        """DADD in every mode, on BCD operands only (the guide leaves other digits undefined):
        a memory operand gets a BCD value stored just before."""
        byte = self.rng.random() < 0.4
        digits = 2 if byte else 4
        sfx = ".b" if byte else ""
        bcd = lambda: "#0x%04x" % int("".join(str(self.rng.randrange(10)) for _ in range(digits)), 16)
        s = self.src(byte)
        senc = self.src_enc
        if senc:  # memory source: put a BCD value there (for @Rn+ at the pointer, before the increment)
            if senc[0] in (2, 3):  # the register still holds the address before the increment
                self.emit("mov%s %s, 0(r%d)" % (sfx, bcd(), senc[1]))
            else:
                self.emit("mov%s %s, %s" % (sfx, bcd(), s))
        elif s in DATA_REGS:
            self.emit("mov %s, %s" % (bcd(), s))
        elif s not in ("#0", "#1", "#2", "#4", "#8"):  # SR, #-1, other immediates
            s = bcd()
        d = self.dst(byte)
        self.emit("mov%s %s, %s" % (sfx, bcd(), d))
        self.emit(self.rng.choice(["setc", "clrc"]))
        if senc and senc[0] == 3 and self.dst_enc:
            word = 0xA000 | senc[1] << 8 | 0x80 | (0x40 if byte else 0) | 0x30 | self.dst_enc[0]
            self.emit_raw(word, self.dst_enc[1], "dadd%s %s, %s" % (sfx, s, d))
        else:
            self.emit("dadd%s %s, %s" % (sfx, s, d))

    def corner(self):
        byte = self.rng.random() < 0.4
        reg = self.rng.choice(DATA_REGS)
        self.emit("mov #0x%04x, %s" % (self.rng.choice(CORNERS), reg))
        op = self.rng.choice(["add", "addc", "sub", "subc", "cmp", "xor", "and", "bit"])
        self.emit("%s%s #0x%04x, %s" % (op, ".b" if byte else "", self.rng.choice(CORNERS), reg))

    def shift(self):
        op = self.rng.choice(SHIFTS)
        byte = op in ("rrc", "rra") and self.rng.random() < 0.4
        kind = self.rng.choice(["reg", "reg", "idx", "sym", "abs", "ind", "inc"])
        if kind == "reg":
            operand = self.rng.choice(DATA_REGS)
        elif kind == "inc":
            reg = self.pointer(byte, 2)
            self.ptr[reg] += 1 if byte else 2
            operand = "@%s+" % reg
        elif kind == "ind":
            operand = "@%s" % self.pointer(byte, 0)
        elif kind == "idx":
            reg = self.pointer(byte, 0)
            off = DATA + self.mem_offset(byte) - self.ptr[reg]
            operand = "%d(%s)" % (off, reg)
        elif kind == "sym":
            operand = "data+%d" % self.mem_offset(byte)
        else:
            operand = "&0x%04x" % (DATA + self.mem_offset(byte))
        if op in ("rrc",) and self.rng.random() < 0.5:
            self.emit(self.rng.choice(["setc", "clrc"]))
        self.emit("%s%s %s" % (op, ".b" if byte else "", operand))
        if op == "rrc":
            # RRC's V differs by design (msp430-diff D2): clear it before a JGE/JL can read it.
            self.emit("bic #0x0100, r2")

    def push_pop(self):
        if self.depth > 0 and self.rng.random() < 0.45:
            r = self.rng.random()
            if r < 0.6:
                self.emit("pop %s" % self.rng.choice(DATA_REGS))  # mov @sp+, rN
                self.depth -= 1
            elif r < 0.8 and self.depth >= 2:
                self.emit("mov %d(r1), %s" % (2 * self.rng.randrange(self.depth), self.rng.choice(DATA_REGS)))
            else:
                self.emit("add #2, r1")
                self.depth -= 1
            return
        if self.depth >= 32:
            return
        s = self.src(False)
        if self.src_enc:
            # clang's assembler has no PUSH with a memory operand: encode it (format II).
            As, reg, ext = self.src_enc
            word = 0x1200 | As << 4 | reg
            self.emit_raw(word, ext, "push %s" % s)
        else:
            self.emit("push %s" % s)
        self.depth += 1

    def jump(self):
        op = self.rng.choice(JUMPS)
        target = self.label()
        form = self.rng.random()
        if op == "jmp" and form < 0.3:
            self.emit("br #%s" % target)        # mov #label, pc
        elif op == "jmp" and form < 0.5:
            reg = self.rng.choice(DATA_REGS)
            self.emit("mov #%s, %s" % (target, reg))
            self.emit("mov %s, pc" % reg)
        else:
            self.emit("%s %s" % (op, target))
        self.pending.append([self.rng.randrange(1, 4), target])

    def flags(self):
        r = self.rng.random()
        gie = 0x8 if self.rng.random() < 0.5 else 0
        if r < 0.4:
            self.emit(self.rng.choice(["setc", "clrc", "setz", "clrz", "setn", "clrn"]))
        elif r < 0.55:
            self.emit(self.rng.choice(["eint", "dint"]))
        elif r < 0.75:
            self.emit("mov #0x%04x, r2" % (self.rng.randrange(16) & 0x7 | gie | (0x100 if self.rng.random() < 0.5 else 0)))
        else:
            self.emit("%s #0x%04x, r2" % (self.rng.choice(["bis", "bic"]), self.rng.choice([1, 2, 4, 0x100, 0x107])))

    def call(self):
        """CALL in every mode: the target address is stored where the operand reads it."""
        name = "sub%d" % len(self.subs)
        sub = []
        for _ in range(self.rng.randrange(1, 4)):
            op = self.rng.choice(["add", "sub", "xor", "and", "bis", "mov"])
            sub.append("        %s %s, %s" % (op, self.rng.choice(DATA_REGS + ["#0x1234", "#1"]),
                                              self.rng.choice(DATA_REGS)))
        sub.append("        ret")
        self.subs.append((name, sub))
        kind = self.rng.choice(["imm", "reg", "idx", "sym", "abs", "ind", "inc"])
        if kind == "imm":
            self.emit("call #%s" % name)
        elif kind == "reg":
            reg = self.rng.choice(DATA_REGS)
            self.emit("mov #%s, %s" % (name, reg))
            self.emit("call %s" % reg)
        elif kind in ("ind", "inc"):
            reg = self.pointer(False, 2)
            self.emit("mov #%s, 0(%s)" % (name, reg))
            if kind == "inc":
                self.ptr[reg] += 2
                self.emit("call @%s+" % reg)
            else:
                self.emit("call @%s" % reg)
        else:
            off = self.mem_offset(False)
            if kind == "idx":
                reg = self.pointer(False, 0)
                operand = "%d(%s)" % (DATA + off - self.ptr[reg], reg)
            elif kind == "sym":
                operand = "data+%d" % off
            else:
                operand = "&0x%04x" % (DATA + off)
            self.emit("mov #%s, %s" % (name, operand))
            self.emit("call %s" % operand)

    def reti(self):
        back = self.label()
        self.emit("push #%s" % back)
        self.emit("push #0x%04x" % (self.rng.randrange(16) & 0xF | (0x100 if self.rng.random() < 0.5 else 0)))
        self.emit("reti")
        self.lines.append(back + ":")

    def multiplier(self):
        mode = self.rng.choice([0x130, 0x132, 0x134, 0x136])
        self.emit("mov %s, &0x%04x" % (self.rng.choice(DATA_REGS + ["#0x%04x" % self.rng.choice(CORNERS)]), mode))
        self.emit("mov %s, &0x0138" % self.rng.choice(DATA_REGS + ["#0x%04x" % self.rng.choice(CORNERS)]))
        for reg in (0x13A, 0x13C, 0x13E):
            self.emit("mov &0x%04x, %s" % (reg, self.rng.choice(DATA_REGS)))

    def one(self, hwmult):
        kinds = [(self.format_i, 40), (self.corner, 6), (self.shift, 12), (self.push_pop, 8),
                 (self.jump, 10), (self.flags, 4), (self.call, 3), (self.reti, 2)]
        if hwmult:
            kinds.append((self.multiplier, 3))
        total = sum(w for _, w in kinds)
        r = self.rng.randrange(total)
        for fn, w in kinds:
            if r < w:
                fn()
                self.end_snippet()
                return
            r -= w


def program(seed, length=400, hwmult=True):
    """Assembly text of one generated program."""
    rng = random.Random(seed)
    b = Body(rng)
    out = ["; generated by bench/msp430-diff/gen.py, seed %d" % seed,
           "        .text", "        .globl _start", "_start:",
           "        mov #0x5a80, &0x0120        ; watchdog hold"]
    for reg in DATA_REGS:
        out.append("        mov #0x%04x, %s" % (rng.randrange(0x10000), reg))
    out.append("        mov #0, &0x%04x" % IRQ_COUNTER)
    out.append("        mov #0, &0x%04x" % (IRQ_COUNTER + 2))
    out.append("loop:")
    b.lines = []
    b.emit("mov #0x%04x, r1" % STACK_TOP)
    for reg in POINTERS:
        b.load_pointer(reg)
    while len(b.lines) < length:
        b.one(hwmult)
    b.flush_labels()
    out += b.lines
    out.append("        br #loop")
    for name, sub in b.subs:
        out.append(name + ":")
        out += sub
    # The handler of the requested interrupt: SR cleared first (entry differs, msp430-diff D7),
    # then memory only (the interrupted code's registers, pointers and operands stay valid).
    out += ["isr:", "        clr r2", "        add #1, &0x%04x" % IRQ_COUNTER,
            "        xor r2, &0x%04x" % (IRQ_COUNTER + 2), "        reti"]
    out.append("        .data")
    out.append("data:")
    data = [rng.randrange(256) for _ in range(WINDOW)]
    for i in range(0, WINDOW, 16):
        out.append("        .byte " + ", ".join("0x%02x" % x for x in data[i:i + 16]))
    out.append('        .section .vectors,"a",@progbits')
    for slot in range(15):
        out.append("        .short %s" % ("isr" if slot == IRQ_SLOT else "0xffff"))
    out.append("        .short _start")
    return "\n".join(out) + "\n"


LINKER_SCRIPT = """ENTRY(_start)
SECTIONS {
  .text 0x4000 : { *(.text*) }
  .data 0x%04x : { *(.data*) }
  .vectors 0xFFE0 : { KEEP(*(.vectors*)) }
}
""" % DATA
