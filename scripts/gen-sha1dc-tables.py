#!/usr/bin/env python3
"""Normalise sha1dc's generated ubc_check.c and sha1_dvs table into data.

Every unavoidable bit condition becomes (a, i, b, j, c, dvs): bit i of W[a]
xor bit j of W[b] must equal c for the DVs in `dvs` to survive. Each
normalised condition is found by probing the original C expression (bit
flips), then the whole normalised filter is checked against the original
expressions on random expanded messages.

Usage (the reference's lib/ubc_check.c, e.g. from a clone of
github.com/cr-marcstevens/sha1collisiondetection at b4a7b0b):

    python3 scripts/gen-sha1dc-tables.py path/to/ubc_check.c \
        | rustfmt --edition 2021 > crates/fastcrypt/src/sha1/dc/tables.rs

The optional second argument is how many random blocks to check (20000).
The library's tests check the tables again, end to end: the collision
files, and the filter on against the filter off.
"""
import random
import re
import sys

src = open(sys.argv[1]).read()

# ---- DV names -> bit
dvbit = {}
for m in re.finditer(r"static const uint32_t (DV_\w+_bit)\s*= \(uint32_t\)\(1\) << (\d+);", src):
    dvbit[m.group(1)] = int(m.group(2))
assert len(dvbit) == 32

# ---- DV table
dvs = []
for m in re.finditer(r"\{(\d+),(\d+),(\d+),(\d+),(\d+),(\d+), \{([^}]*)\}\s*\}", src):
    t, k, b, testt, maski, maskb = map(int, m.groups()[:6])
    dm = [int(x, 16) for x in m.group(7).replace("\n", "").split(",")]
    if t == 0:
        break
    assert len(dm) == 80 and maski == 0
    dvs.append((t, k, b, testt, maskb, dm))
assert len(dvs) == 32
for i, (t, k, b, testt, maskb, dm) in enumerate(dvs):
    name = "DV_%s_%d_%d_bit" % ("I" * t, k, b)
    assert dvbit[name] == maskb == i, name
    rotl = lambda x, n: ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF
    for s in range(16, 80):
        assert dm[s] == rotl(dm[s - 3] ^ dm[s - 8] ^ dm[s - 14] ^ dm[s - 16], 1), (name, s)

# ---- ubc_check body
body = src[src.index("void ubc_check"):]
body = body[: body.index("\n}\n")]


def cexpr_to_py(e):
    e = re.sub(r"DV_\w+_bit", lambda m: str(1 << dvbit[m.group(0)]), e)
    # !(X) -> (not (X)) with matching parentheses
    out = ""
    i = 0
    while i < len(e):
        if e[i] == "!" and e[i + 1] == "(":
            depth = 0
            j = i + 1
            while True:
                if e[j] == "(":
                    depth += 1
                elif e[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            out += "(not " + cexpr_to_py(e[i + 1 : j + 1]) + ")"
            i = j + 1
        else:
            out += e[i]
            i += 1
    return out


atoms = []  # (survive(W) -> bool, dv bit, source text)
lines = body.split("\n")
idx = 0
while idx < len(lines):
    ln = lines[idx].strip()
    idx += 1
    m = re.match(r"mask &= \((.*)\);$", ln)
    if m:
        expr = cexpr_to_py(m.group(1))
        f = eval("lambda W: (" + expr + ") & 0xFFFFFFFF")
        # which DV bits can this statement clear?
        m2 = re.search(r"\| ~\(?([\w|]+)\)?\)?$", m.group(1).strip())
        names = re.findall(r"DV_\w+_bit", m2.group(1))
        for n in names:
            d = dvbit[n]
            atoms.append((lambda W, f=f, d=d: (f(W) >> d) & 1 == 1, d, ln))
        continue
    m = re.match(r"if \(mask & (DV_\w+_bit)\)$", ln)
    if m and lines[idx].strip() == "if (":
        d = dvbit[m.group(1)]
        idx += 1
        while True:
            t = lines[idx].strip()
            idx += 1
            if t.startswith(")"):
                assert t.endswith("mask &= ~" + m.group(1) + ";"), t
                break
            t = t.lstrip("|").strip()
            g = eval("lambda W: bool(" + cexpr_to_py(t) + ")")
            atoms.append((lambda W, g=g: not g(W), d, t))
        continue

print("atoms:", len(atoms), file=sys.stderr)


def rand_w():
    return [random.getrandbits(32) for _ in range(80)]


# ---- probe each atom: find the bits it depends on, and its constant
norm = {}
for surv, d, text in atoms:
    words = sorted(set(int(x) for x in re.findall(r"W\[(\d+)\]", text)))
    W = rand_w()
    base = surv(W)
    deps = []
    for w in words:
        for bit in range(32):
            W2 = list(W)
            W2[w] ^= 1 << bit
            if surv(W2) != base:
                deps.append((w, bit))
    assert 1 <= len(deps) <= 2, (text, deps)
    # survive == (xor of dep bits == c)
    x = 0
    for w, bit in deps:
        x ^= (W[w] >> bit) & 1
    c = x if base else x ^ 1
    # check linearity on many random inputs
    for _ in range(200):
        W = rand_w()
        x = 0
        for w, bit in deps:
            x ^= (W[w] >> bit) & 1
        assert surv(W) == (x == c), text
    if len(deps) == 1:
        key = (deps[0][0], deps[0][1], deps[0][0], deps[0][1], c)  # never happens
        raise SystemExit("single-bit condition: " + text)
    (a, i), (b, j) = deps
    key = (a, i, b, j, c)
    norm[key] = norm.get(key, 0) | (1 << d)

print("normalised conditions:", len(norm), file=sys.stderr)


# ---- whole-filter check: original semantics vs normalised table
def orig(W):
    mask = 0xFFFFFFFF
    for surv, d, _ in atoms:
        if not surv(W):
            mask &= ~(1 << d)
    return mask


def normed(W):
    kill = 0
    for (a, i, b, j, c), dset in norm.items():
        if (((W[a] >> i) ^ (W[b] >> j)) & 1) != c:
            kill |= dset
    return 0xFFFFFFFF & ~kill


def expand(m16):
    W = list(m16)
    for t in range(16, 80):
        x = W[t - 3] ^ W[t - 8] ^ W[t - 14] ^ W[t - 16]
        W.append(((x << 1) | (x >> 31)) & 0xFFFFFFFF)
    return W


hits = 0
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
for _ in range(N):
    W = expand([random.getrandbits(32) for _ in range(16)])
    o = orig(W)
    assert o == normed(W)
    hits += o != 0
print("random expanded blocks with a surviving DV: %d / %d" % (hits, N), file=sys.stderr)

# ---- emit rust
out = []
out.append("""// @generated by scripts/gen-sha1dc-tables.py: do not edit by hand.
//
// Source: the sha1collisiondetection reference library (Marc Stevens and
// Dan Shumow, MIT licence), lib/ubc_check.c at commit b4a7b0b: its
// generated `ubc_check` and `sha1_dvs`, normalised into data. The script
// probes every condition of the original code bit by bit and checks the
// normalised table against the original expressions; see the script.
//
// Each unavoidable bit condition: bit `i` of W[a] xor bit `j` of W[b]
// must equal `c` for the disturbance vectors in `dvs` (bit n = DVS[n])
// to stay candidates. Each disturbance vector: type, K, b, the step its
// recompression starts from, and the first 16 words of its message
// difference (the other 64 follow from SHA-1's message expansion).

use super::{Dv, DvType, Ubc};
""")
out.append("pub(super) const UBC: [Ubc; %d] = [" % len(norm))
for (a, i, b, j, c), dset in sorted(norm.items()):
    out.append("    Ubc::new(%d, %d, %d, %d, %d, 0x%08x)," % (a, i, b, j, c, dset))
out.append("];")
out.append("")
out.append("pub(super) const DVS: [Dv; %d] = [" % len(dvs))
for t, k, b, testt, maskb, dm in dvs:
    out.append("    Dv::new(")
    out.append("        DvType::%s," % ("I" * t))
    out.append("        %d," % k)
    out.append("        %d," % b)
    out.append("        %d," % testt)
    out.append("        [")
    for x in dm[:16]:
        out.append("            0x%08x," % x)
    out.append("        ],")
    out.append("    ),")
out.append("];")
print("\n".join(out))
