#!/usr/bin/env python3
"""Static constant-time listing of fastcrypt's x86 kernels (scripts/ct-static.sh
runs this on `objdump -d --no-show-raw-insn -M intel -C` output).

For each kernel (a `#[target_feature]` entry function, found by its
demangled symbol name; one symbol per monomorphised instance), it lists
every conditional branch with the instruction that set its flags, every
indirect jump or call, every call, and every memory access with its
addressing registers (grouped by address form on stdout, one line per
instruction in the full listing).

It then runs a taint filter: values enter scalar registers or flags from
vector registers (movd/movq/pextr*/pmovmskb/ptest...), or, for kernels whose
secrets are scalar (the AES key schedule), from every non-constant scalar
load. Taint follows register data flow (flow-insensitive, so it
over-approximates) and stack slots at fixed offsets from rsp/rbp (a
vector spilled and reloaded as a scalar). It does not follow values
through other memory or into callees. A conditional branch whose flags, or
a memory operand whose address, come from a tainted register is reported.
Every report must be explained in docs/constant-time.md and matched by an
entry of ALLOWED below, else the exit status is 1.

Exit status: 0 clean (or only allowed reports); 1 a kernel is missing or an
unexplained report; 2 usage error.
"""

import collections
import re
import subprocess
import sys

# (demangled symbol, what it is, "vector" or "scalar" taint sources)
KERNELS = [
    ("fastcrypt::sha1::x86_shani::compress_shani", "SHA-1, SHA-NI", "vector"),
    ("fastcrypt::sha1::x86_shani::hmac_finish_shani", "HMAC-SHA1 end, SHA-NI", "vector"),
    ("fastcrypt::sha1::x86_shani::pbkdf2_shani", "PBKDF2-HMAC-SHA1 chains, SHA-NI", "vector"),
    ("fastcrypt::sha1::x86_shani::pbkdf2_keyed_shani", "PBKDF2-HMAC-SHA1 batch chains, SHA-NI", "vector"),
    ("fastcrypt::sha1::many::x86_avx512::pbkdf2_16", "PBKDF2-HMAC-SHA1 batch, 16 zmm lanes", "vector"),
    ("fastcrypt::sha1::many::x86_avx2::pbkdf2_8", "PBKDF2-HMAC-SHA1 batch, 8 ymm lanes", "vector"),
    ("fastcrypt::ghash::x86_vpclmul::update_vpclmul", "GHASH, VPCLMULQDQ (ymm)", "vector"),
    ("fastcrypt::ghash::x86_vpclmul512::update_512", "GHASH, VPCLMULQDQ (zmm)", "vector"),
    ("fastcrypt::ghash::x86_pclmul::update_pclmul", "GHASH, PCLMULQDQ", "vector"),
    ("fastcrypt::ghash::x86_pclmul::expand", "GHASH key powers H^1..H^32", "vector"),
    ("fastcrypt::ghash::x86_sse2::update_sse2", "GHASH, SSE2 pmuludq with holes", "vector"),
    ("fastcrypt::ghash::x86_ssse3::update_ssse3", "GHASH, SSSE3 pshufb nibble tables", "vector"),
    ("fastcrypt::ghash::x86_avx2::update_avx2", "GHASH, AVX2 vpshufb nibble tables", "vector"),
    ("fastcrypt::aes::x86_aesni::expand_words", "AES key schedule, AESKEYGENASSIST", "scalar"),
    ("fastcrypt::aes_gcm::x86::encrypt_block_k", "AES one block (H, E(K,J0))", "vector"),
    ("fastcrypt::aes_gcm::x86_vaes_vpclmul::crypt_k", "AES-GCM seal and open, VAES+VPCLMULQDQ", "vector"),
    ("fastcrypt::aes_gcm::x86_vaes_avx512::crypt_k", "AES-GCM seal and open, VAES+VPCLMULQDQ (zmm)", "vector"),
    ("fastcrypt::aes_gcm::x86_vaes_avx512::absorb_long", "AES-GCM AAD of 512 B or more, VPCLMULQDQ (zmm)", "vector"),
    ("fastcrypt::aes_gcm::x86_aesni_pclmul::crypt_k", "AES-GCM seal and open, AES-NI+PCLMULQDQ", "vector"),
]
# The timing harness's deliberately leaky twins: the filter must report
# them (it shows the filter can see a secret index and a secret branch).
LEAKY = [
    ("ct_timing::harness::table_walk", "LEAKY TWIN: key-indexed 4 KiB table", "scalar"),
    ("ct_timing::harness::early_exit_eq", "LEAKY TWIN: early-exit compare", "scalar"),
]

# Reports that docs/constant-time.md explains: (kernel, kind, regex over the
# report's text). Keep each one narrow.
ALLOWED = [
    # counters16: `if low <= 0xf0` on the low byte of the counter block,
    # which comes from the nonce and the block index (public).
    ("fastcrypt::aes_gcm::x86_vaes_vpclmul::crypt_k", "branch", r"\bcmp\s+\w+,\s*0xf[01]\b"),
    # The 256-bit kernel's open instance: LLVM gives the stack slot that
    # holds the AAD/buffer pointer at entry (rsp+0xa0 in rustc 1.95's
    # build) to a ymm spill inside the 16-block loop, so the may-taint join
    # over the loop's back edge marks the pointer reloaded before the tail
    # as vector-derived. Reported: the load of the first tail block through
    # that pointer, and the tail's keystream XOR (`*c ^= k` in
    # `x86::crypt_tail`, vectorised to qword XORs at buffer pointer +
    # loop offset). Addresses from public pointers and lengths only.
    ("fastcrypt::aes_gcm::x86_vaes_vpclmul::crypt_k", "address", r"vmovdqu\s+xmm\d+,XMMWORD PTR \[r\w+\]$"),
    ("fastcrypt::aes_gcm::x86_vaes_vpclmul::crypt_k", "address", r"xor\s+QWORD PTR \[r\w+\+r\w+\*1(?:-0x[0-9a-f]+)?\],r\w+$"),
    # GHASH ssse3, the tail step (blocks from the first slot holding a tail
    # block, a public count, to the last): LLVM keeps the tail's slot
    # offsets and the pointer to its first key rows in stack slots where
    # vector registers were spilled elsewhere, and the filter does not
    # clear them. Reported: loads of the tail blocks from the zero-padded
    # buffer on the stack (the only unaligned xmm loads from rsp with an
    # index) and aligned loads of key rows through that pointer (rbp,
    # indexed by the row counter rdi). Addresses from public values only.
    ("fastcrypt::ghash::x86_ssse3::update_ssse3", "address", r"movdqu\s+xmm\d+,XMMWORD PTR \[rsp\+r\w+\*1\+0x[0-9a-f]+\]$"),
    ("fastcrypt::ghash::x86_ssse3::update_ssse3", "address", r"movdqa\s+xmm\d+,XMMWORD PTR \[rbp\+rdi\*1(?:[+-]0x[0-9a-f]+)?\]$"),
]

GPR64 = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp"] + [f"r{i}" for i in range(8, 16)]
ALIAS = {}
for r64, r32, r16, r8 in [
    ("rax", "eax", "ax", "al"), ("rbx", "ebx", "bx", "bl"), ("rcx", "ecx", "cx", "cl"),
    ("rdx", "edx", "dx", "dl"), ("rsi", "esi", "si", "sil"), ("rdi", "edi", "di", "dil"),
    ("rbp", "ebp", "bp", "bpl"), ("rsp", "esp", "sp", "spl"),
]:
    for n in (r64, r32, r16, r8):
        ALIAS[n] = r64
for r in ("ah", "bh", "ch", "dh"):
    ALIAS[r] = "r" + r[0] + "x"
for i in range(8, 16):
    for suf in ("", "d", "w", "b"):
        ALIAS[f"r{i}{suf}"] = f"r{i}"

SIZES = {"BYTE": 1, "WORD": 2, "DWORD": 4, "QWORD": 8, "XMMWORD": 16, "YMMWORD": 32, "ZMMWORD": 64}
PREFIXES = {"rep", "repz", "repe", "repnz", "repne", "lock", "notrack", "bnd", "data16", "cs", "ds"}
NO_WRITE = {"cmp", "test", "bt", "push", "jmp", "call", "nop"}
FLAG_WRITERS = re.compile(
    r"^(cmp|test|add|sub|and|or|xor|inc|dec|neg|shl|shr|sar|rol|ror|bt|bts|btr|adc|sbb|imul|"
    r"v?ptest|vtestp[sd]|v?u?comis[sd]|bsf|bsr|tzcnt|lzcnt|popcnt|blsr|andn)$"
)
# Vector -> scalar moves and vector-flag instructions: taint sources.
V2S = re.compile(r"^v?(movd|movq|pextr[bwdq]|pmovmskb|movmskp[sd]|extractps|cvt\w*2si)$")
VFLAGS = re.compile(r"^(v?ptest|vtestp[sd]|v?u?comis[sd])$")
VREG = re.compile(r"^[xyz]mm\d+$")


def split_operands(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class Mem:
    def __init__(self, text):
        self.text = text
        m = re.search(r"(\w+) PTR", text)
        self.size = SIZES.get(m.group(1), 0) if m else 0
        inner = re.search(r"\[(.*)\]", text).group(1)
        self.base, self.index, self.scale, self.disp, self.rip = None, None, 1, 0, False
        for tok in re.findall(r"[+-]?[^+-]+", inner):
            sign = -1 if tok.startswith("-") else 1
            tok = tok.lstrip("+-")
            if "*" in tok:
                r, s = tok.split("*")
                self.index, self.scale = ALIAS.get(r, r), int(s)
            elif tok == "rip":
                self.rip = True
            elif tok in ALIAS:
                self.base = ALIAS[tok]
            else:
                try:
                    self.disp += sign * int(tok, 16)
                except ValueError:
                    pass

    def regs(self):
        return {r for r in (self.base, self.index) if r}

    def form(self):
        if self.rip:
            return "[rip+const]"
        parts = []
        if self.base:
            parts.append(self.base)
        if self.index:
            parts.append(f"{self.index}*{self.scale}")
        if self.disp:
            parts.append("disp")
        return "[" + "+".join(parts) + "]"


class Insn:
    def __init__(self, addr, text):
        self.addr = addr
        c = re.search(r"#\s*([0-9a-f]+)(?:\s+<([^>]*)>)?\s*$", text)
        self.comment_addr = int(c.group(1), 16) if c else None
        self.comment_name = c.group(2) if c and c.group(2) else None
        text = re.sub(r"\s+#.*$", "", text)
        text = re.sub(r"\s+<[^>]*>", "", text).strip()
        self.text = text
        words = text.split(None, 1)
        mn = words[0] if words else ""
        rest = words[1] if len(words) > 1 else ""
        while mn in PREFIXES and rest:
            w = rest.split(None, 1)
            mn, rest = w[0], (w[1] if len(w) > 1 else "")
        self.mn = mn
        self.ops = split_operands(rest)
        self.mems = [Mem(o) for o in self.ops if "[" in o and mn not in ("lea", "nop") and not mn.startswith("nop")]

    def gprs(self, op):
        if "[" in op:
            return set()
        return {ALIAS[t] for t in re.findall(r"\b\w+\b", op) if t in ALIAS}

    def is_cond_branch(self):
        return self.mn.startswith("j") and self.mn != "jmp"

    def is_indirect(self):
        """A jump or call through a register or a non-constant memory
        operand (calls through the GOT, `[rip+X]`, are direct in effect)."""
        if self.mn not in ("jmp", "call") or not self.ops or re.match(r"^[0-9a-f]+$", self.ops[0]):
            return False
        return not (self.mems and self.mems[0].rip)

    def mem_dir(self, m):
        first = self.ops and "[" in self.ops[0] and self.ops[0] == m.text
        if first and self.mn not in ("cmp", "test", "bt", "push", "call", "jmp") and not self.mn.startswith("prefetch"):
            return "write"
        return "read"


def parse(path, wanted):
    funcs = collections.defaultdict(list)  # name -> [(start, [Insn])]
    cur = None
    head = re.compile(r"^([0-9a-f]+) <(.+)>:$")
    line_re = re.compile(r"^\s+([0-9a-f]+):\t(.*)$")
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = head.match(line)
            if m:
                name = m.group(2)
                if name in wanted:
                    cur = []
                    funcs[name].append((int(m.group(1), 16), cur))
                else:
                    cur = None
                continue
            if cur is None:
                continue
            m = line_re.match(line)
            if m:
                cur.append(Insn(int(m.group(1), 16), m.group(2)))
    # Identical code folding can give one address two names: count it once.
    for name, insts in funcs.items():
        seen, uniq = set(), []
        for start, body in insts:
            if start not in seen:
                seen.add(start)
                uniq.append((start, body))
        funcs[name] = uniq
    return funcs


def flag_setter(body, i):
    for j in range(i - 1, max(-1, i - 40), -1):
        if FLAG_WRITERS.match(body[j].mn):
            return body[j]
    return None


CALLER_SAVED = {"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"}
ARG_REGS = {"rdi", "rsi", "rdx", "rcx", "r8", "r9"}
OVERWRITE = re.compile(r"^(v?mov\w*|lea|pop|set\w+|v?pextr\w|v?pmovmskb|v?movmskp[sd]|extractps|cvt\w+|v?cvt\w+|imul)$")
SMALL = re.compile(r"^(al|bl|cl|dl|ah|bh|ch|dh|sil|dil|bpl|spl|ax|bx|cx|dx|si|di|bp|sp|r\d+[wb])$")


class Image:
    """Reads bytes at virtual addresses of an ELF64 little-endian file
    (jump tables)."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        phoff = int.from_bytes(d[0x20:0x28], "little")
        phentsize = int.from_bytes(d[0x36:0x38], "little")
        phnum = int.from_bytes(d[0x38:0x3A], "little")
        self.loads = []
        for k in range(phnum):
            h = d[phoff + k * phentsize : phoff + (k + 1) * phentsize]
            if int.from_bytes(h[0:4], "little") == 1:  # PT_LOAD
                off = int.from_bytes(h[8:16], "little")
                vaddr = int.from_bytes(h[16:24], "little")
                filesz = int.from_bytes(h[32:40], "little")
                self.loads.append((vaddr, off, filesz))

    def i32(self, vaddr):
        for base, off, size in self.loads:
            if base <= vaddr and vaddr + 4 <= base + size:
                o = off + vaddr - base
                return int.from_bytes(self.data[o : o + 4], "little", signed=True)
        return None


IMAGE = None


def jump_table(body, i):
    """Targets of `lea T,[rip+X]; movsxd R,[T+I*4]; add R,T; jmp R` bounded
    by an earlier `cmp I,N; ja`, read from the binary; None if the pattern
    is not there."""
    lea = bound = None
    for j in range(i - 1, max(-1, i - 8), -1):
        ins = body[j]
        if lea is None and ins.mn == "lea" and ins.comment_addr is not None and "rip" in ins.text:
            lea = ins.comment_addr
        if ins.mn == "cmp" and len(ins.ops) == 2 and re.match(r"^0x[0-9a-f]+$", ins.ops[1]):
            if j + 1 < len(body) and body[j + 1].mn == "ja":
                bound = int(ins.ops[1], 16)
                break
    if lea is None or bound is None or IMAGE is None or bound > 1024:
        return None
    targets = []
    for k in range(bound + 1):
        e = IMAGE.i32(lea + 4 * k)
        if e is None:
            return None
        targets.append(lea + e)
    return targets


def successors(body, i, pos):
    ins = body[i]
    nxt = [i + 1] if i + 1 < len(body) else []
    if ins.mn in ("ret", "ud2", "int3") or ins.mn.startswith("ret"):
        return []
    if ins.mn == "jmp":
        if ins.is_indirect():
            targets = jump_table(body, i)
            if targets is None or any(t not in pos for t in targets):
                return list(range(len(body)))  # unknown: anywhere
            return sorted({pos[t] for t in targets})
        t = int(ins.ops[0], 16)
        return [pos[t]] if t in pos else []  # tail call out of the function
    if ins.is_cond_branch():
        t = int(ins.ops[0], 16) if re.match(r"^[0-9a-f]+$", ins.ops[0]) else None
        return nxt + ([pos[t]] if t in pos else [])
    return nxt


def step(ins, state, mode):
    """Transfer function: the taint state after `ins`. State: frozenset of
    tainted registers, plus "flags"."""
    st = set(state)
    mn, ops = ins.mn, ins.ops

    def tainted_regs(regs):
        return bool(regs & st)

    addr_taint = any(tainted_regs(m.regs()) for m in ins.mems)
    if mn == "call":
        args = ARG_REGS & st
        st -= CALLER_SAVED
        st.discard("flags")
        if args:
            st |= {"rax", "rdx"}
        return frozenset(st)
    if mn.startswith("j") or mn in ("push", "nop") or mn.startswith("nop"):
        return frozenset(st)
    srcs = set()
    for o in ops[1:]:
        srcs |= ins.gprs(o)
    src_t = tainted_regs(srcs) or addr_taint
    loads = [m for m in ins.mems if ins.mem_dir(m) == "read"]
    for m in loads:
        if m.rip:
            continue
        if mode == "scalar":
            src_t = True
        if m.base in ("rsp", "rbp") and not m.index:
            lo, hi = m.disp, m.disp + (m.size or 8)
            if any(x[0] == "slot" and x[1] == m.base and lo < x[3] and x[2] < hi for x in st):
                src_t = True
    # Stores to fixed stack slots: a vector register (anything in one may be
    # secret) or a tainted scalar taints the slot; anything else clears it.
    for m in ins.mems:
        if m.base in ("rsp", "rbp") and not m.index and ins.mem_dir(m) == "write" and len(ops) > 1:
            lo, hi = m.disp, m.disp + (m.size or 8)
            val = ops[1]
            t = bool(VREG.match(val)) or tainted_regs(ins.gprs(val))
            if mn.startswith(("mov", "vmov")) and not t:
                # An untainted store clears the bytes it writes: a tainted
                # slot it overlaps keeps only the parts outside it (a
                # 64-byte vector slot later reused for an 8-byte scalar
                # spill must not taint that spill).
                hit = {x for x in st if x[0] == "slot" and x[1] == m.base and x[2] < hi and lo < x[3]}
                st -= hit
                for x in hit:
                    if x[2] < lo:
                        st.add(("slot", m.base, x[2], lo))
                    if hi < x[3]:
                        st.add(("slot", m.base, hi, x[3]))
            elif t or not mn.startswith(("mov", "vmov")):
                if t:
                    st.add(("slot", m.base, lo, hi))
    if V2S.match(mn) and ops and ins.gprs(ops[0]) and any(VREG.match(o) for o in ops[1:]):
        src_t = True
    if FLAG_WRITERS.match(mn):
        all_regs = set()
        for o in ops:
            all_regs |= ins.gprs(o)
        f = tainted_regs(all_regs) or src_t or bool(VFLAGS.match(mn))
        if mn in ("xor", "sub") and len(ops) == 2 and ops[0] == ops[1]:
            f = False
        st.discard("flags")
        if f:
            st.add("flags")
    if not ops or mn in NO_WRITE:
        return frozenset(st)
    dst = ins.gprs(ops[0])
    if mn in ("mul", "div", "idiv") or (mn == "imul" and len(ops) == 1):
        t = tainted_regs(dst | {"rax", "rdx"}) or addr_taint or src_t
        for r in ("rax", "rdx"):
            (st.add if t else st.discard)(r)
        return frozenset(st)
    if mn in ("cdq", "cqo", "cdqe"):
        (st.add if "rax" in st else st.discard)("rdx" if mn != "cdqe" else "rax")
        return frozenset(st)
    if not dst:
        return frozenset(st)
    if mn in ("xor", "sub") and len(ops) == 2 and ops[0] == ops[1]:
        st -= dst
        return frozenset(st)
    if mn == "xchg":
        a, b = ins.gprs(ops[0]), ins.gprs(ops[1]) if len(ops) > 1 else set()
        ta, tb = tainted_regs(a), tainted_regs(b)
        for r in a:
            (st.add if tb else st.discard)(r)
        for r in b:
            (st.add if ta else st.discard)(r)
        return frozenset(st)
    partial = bool(SMALL.match(ops[0]))
    overwrite = bool(OVERWRITE.match(mn)) and not mn.startswith("cmov") and not (mn == "imul" and len(ops) == 2)
    if mn.startswith("cmov"):
        t = src_t or tainted_regs(dst) or "flags" in st
    elif overwrite and not partial:
        t = src_t
    else:
        t = src_t or tainted_regs(dst)
    for r in dst:
        (st.add if t else st.discard)(r)
    return frozenset(st)


def taint(body, mode):
    """Forward may-taint over the function's control flow (registers, flags
    and fixed stack slots). Returns the state before each instruction."""
    pos = {ins.addr: i for i, ins in enumerate(body)}
    succ = [successors(body, i, pos) for i in range(len(body))]
    before = [None] * len(body)
    before[0] = frozenset()
    work = [0]
    while work:
        i = work.pop()
        out = step(body[i], before[i], mode)
        for j in succ[i]:
            new = out if before[j] is None else before[j] | out
            if new != before[j]:
                before[j] = new
                work.append(j)
    return [b or frozenset() for b in before]


def analyse(name, mode, start, body, full):
    before = taint(body, mode)
    branches, indirect, reports = [], [], []
    mem_forms = collections.Counter()
    examples = {}
    ever = set()
    for st in before:
        ever |= st
    ever = {r for r in ever if isinstance(r, str) and r != "flags"}
    for i, ins in enumerate(body):
        st = before[i]
        if ins.is_cond_branch():
            fs = flag_setter(body, i)
            why = fs.text if fs else "?"
            branches.append((ins, why))
            full.append(f"  {ins.addr:x}: branch {ins.text}  <- {why}")
            if "flags" in st:
                reports.append(("branch", f"{ins.addr:x}: {ins.text}  <- {why}"))
        elif ins.is_indirect() and not (ins.mn == "call" and ins.ops[0] in ALIAS):
            indirect.append(ins)
            regs = ins.gprs(ins.ops[0]) | {r for m in ins.mems for r in m.regs()}
            if regs & st:
                reports.append(("indirect", f"{ins.addr:x}: {ins.text}"))
        for m in ins.mems:
            key = (m.form(), ins.mem_dir(m))
            mem_forms[key] += 1
            examples.setdefault(key, ins.text)
            full.append(f"  {ins.addr:x}: {ins.mem_dir(m):5} {m.form():24} {ins.text}")
            if m.regs() & st:
                reports.append(("address", f"{ins.addr:x}: {ins.text}"))
    return branches, indirect, None, mem_forms, examples, reports, ever


def call_names(binary_dis, body):
    out = collections.Counter()
    for ins in body:
        if ins.mn == "call":
            out[ins.ops[0] if ins.ops else "?"] += 1
    return out


def main():
    global IMAGE
    if len(sys.argv) != 4:
        print("usage: ct-static.py BINARY DISASSEMBLY FULL-LISTING-OUT", file=sys.stderr)
        return 2
    IMAGE = Image(sys.argv[1])
    dis, full_path = sys.argv[2], sys.argv[3]
    # Call targets: objdump prints `call ADDR <name>`; keep the name.
    names = {}
    with open(dis) as f:
        for line in f:
            m = re.match(r"^\s+([0-9a-f]+):\tcall\s+([0-9a-f]+) <(.+)>", line)
            if m:
                names[int(m.group(2), 16)] = re.sub(r"\+0x[0-9a-f]+$", "", m.group(3))
    # Calls through the GOT (`call [rip+X]`): name the function the GOT
    # slot's relocation points at.
    got = {}
    try:
        syms = {}
        out = subprocess.run(["nm", "-C", "--defined-only", sys.argv[1]], capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.match(r"^([0-9a-f]+) [tTwW] (.+)$", line)
            if m:
                syms.setdefault(int(m.group(1), 16), m.group(2))
        out = subprocess.run(["objdump", "-R", sys.argv[1]], capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.match(r"^([0-9a-f]+) R_X86_64_(?:RELATIVE\s+\*ABS\*\+0x([0-9a-f]+)|\w+\s+(\S+))", line)
            if m:
                slot = int(m.group(1), 16)
                got[slot] = syms.get(int(m.group(2), 16), m.group(2)) if m.group(2) else m.group(3)
    except OSError:
        pass
    funcs = parse(dis, {k for k, _, _ in KERNELS + LEAKY})
    missing, unexplained, full = [], [], []
    not_caught = []
    for name, what, mode in KERNELS + LEAKY:
        leaky = (name, what, mode) in LEAKY
        insts = funcs.get(name, [])
        if not insts:
            print(f"== {name}: NOT FOUND (inlined away, renamed or not linked)")
            missing.append(name)
            continue
        print(f"== {name}  ({what}; {len(insts)} instance{'s' if len(insts) > 1 else ''})")
        full.append(f"== {name}")
        for start, body in insts:
            full.append(f" instance at {start:x}, {len(body)} instructions")
            br, ind, _, forms, ex, reports, tainted = analyse(name, mode, start, body, full)
            calls = collections.Counter()
            for ins in body:
                if ins.mn != "call" or not ins.ops:
                    continue
                if re.match(r"^[0-9a-f]+$", ins.ops[0]):
                    calls[names.get(int(ins.ops[0], 16), ins.ops[0])] += 1
                elif ins.ops[0] in ALIAS:
                    calls[f"through {ins.ops[0]} (a GOT entry loaded earlier)"] += 1
                else:
                    slot = ins.comment_addr
                    calls[got.get(slot, ins.comment_name or ins.text) + " (via GOT)"] += 1
            nmem = sum(forms.values())
            print(
                f"  instance at {start:x}: {len(body)} instructions, {len(br)} conditional branches, "
                f"{len(ind)} indirect jumps/calls, {sum(calls.values())} calls, {nmem} memory operands"
            )
            for ins, why in br:
                print(f"    branch  {ins.addr:x}: {ins.text:<12} <- {why}")
            for ins in ind:
                print(f"    indirect {ins.addr:x}: {ins.text}")
            for c, n in sorted(calls.items()):
                print(f"    call    {n}x {c}")
            for (form, d), n in sorted(forms.items()):
                print(f"    memory  {d:5} {form:24} {n:4}x  e.g. {ex[(form, d)]}")
            print(f"    taint sources reach: {', '.join(sorted(tainted)) or 'no scalar register'}")
            if leaky:
                for kind, text in reports:
                    print(f"    REPORT  {kind}: {text}   [expected: leaky twin]")
                if not reports:
                    print("    NO REPORT for a leaky twin: the filter missed it")
                    not_caught.append(name)
                continue
            for kind, text in reports:
                ok = any(
                    k == name and kk == kind and re.search(rx, text) for k, kk, rx in ALLOWED
                )
                tag = "explained" if ok else "UNEXPLAINED"
                print(f"    REPORT  {kind}: {text}   [{tag}]")
                if not ok:
                    unexplained.append((name, kind, text))
    with open(full_path, "w") as f:
        f.write("\n".join(full) + "\n")
    print()
    print(f"full per-instruction listing: {full_path}")
    if missing:
        print(f"ct-static: {len(missing)} kernel(s) not found: {', '.join(missing)}")
    if unexplained:
        print(f"ct-static: {len(unexplained)} unexplained report(s)")
    if not_caught:
        print(f"ct-static: leaky twin(s) not reported: {', '.join(not_caught)}")
    if missing or unexplained or not_caught:
        return 1
    print(
        "ct-static: every kernel found; no unexplained secret-derived branch or address; "
        "both leaky twins reported"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
