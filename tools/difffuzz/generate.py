#!/usr/bin/env python3
"""Random PyTorch programs for Kiln's differential fuzzer.

generate(seed) -> str returns one program, the same for the same seed. The program builds
deterministic inputs (no RNG), compiles one or two functions or nn.Modules with torch.compile,
calls them several times (same shapes, another first dimension, other int/bool arguments,
aliased and non-contiguous arguments) and stores what they return, and the
inputs after in-place updates, in module-level variables out, out_1, out_2, ...

Every tensor local has a tracked shape for each call configuration (the first dimension and the
int argument differ from call to call), so each generated op is valid for every call, and an
upper bound on its magnitude, so values stay small (the comparison is float32 with rtol 1e-4).
Only ops that Kiln's eager mode supports are generated, and only continuous ones (no sign,
floor, argmax or comparisons turned into values) so that rounding cannot flip a result.

    python3 generate.py SEED          # prints the program
"""
import math
import random
import sys

LIMIT = 12.0          # magnitudes above this are scaled down
MAX_RANK = 4


# ----------------------------------------------------------------------------- shapes

def bcast1(a, b):
    r = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x == y or y == 1:
            r.append(x)
        elif x == 1:
            r.append(y)
        else:
            return None
    return tuple(reversed(r))


def bcast(sa, sb):
    out = []
    for a, b in zip(sa, sb):
        r = bcast1(a, b)
        if r is None:
            return None
        out.append(r)
    return tuple(out)


def numel(s):
    n = 1
    for d in s:
        n *= d
    return n


class T:
    """A tensor local: its name, shape per call configuration, magnitude bound."""

    def __init__(self, name, shapes, bound, inplace_ok=True, is_input=False):
        self.name = name
        self.shapes = tuple(tuple(s) for s in shapes)
        self.bound = float(bound)
        self.inplace_ok = inplace_ok
        self.is_input = is_input

    @property
    def rank(self):
        return len(self.shapes[0])

    def maxdim(self, d):
        return max(s[d] for s in self.shapes)

    def mindim(self, d):
        return min(s[d] for s in self.shapes)

    def maxnumel(self):
        return max(numel(s) for s in self.shapes)

    def copy(self, name=None):
        return T(name or self.name, self.shapes, self.bound, self.inplace_ok, self.is_input)


def fmt(c):
    s = repr(float(c))
    return s


# ----------------------------------------------------------------------------- body generation

class Body:
    """Generates the statements of one compiled function (or forward) body."""

    def __init__(self, prog, rng, cfgs, tensors, n_name, flag_name, self_mod=None, in_helper=False):
        self.prog = prog
        self.rng = rng
        self.cfgs = cfgs                    # list of dicts: B, n, flag
        self.env = list(tensors)            # live tensor locals (T)
        self.floats = []                    # python floats: (name, bound)
        self.ints = []                      # python ints: (name, per-config values)
        self.n_name = n_name
        self.flag_name = flag_name
        self.lines = []
        self.indent = 1
        self.depth = 0
        self.loop_depth = 0
        self.has_break = False
        self.inplace_count = 0
        self.mutates_inputs = False
        self.mod = self_mod                 # dict with lin_in, lin_out, ln, buf info for modules
        self.in_helper = in_helper
        if n_name:
            self.ints.append((n_name, [c["n"] for c in cfgs]))

    # -- helpers
    def emit(self, line):
        self.lines.append("    " * self.indent + line)

    def fresh(self, prefix="t"):
        return self.prog.fresh(prefix)

    def pick(self, pred=None, recent=True):
        cands = [t for t in self.env if pred is None or pred(t)]
        if not cands:
            return None
        if recent and self.rng.random() < 0.6:
            return cands[-1 - min(len(cands) - 1, int(self.rng.expovariate(0.7)))]
        return self.rng.choice(cands)

    def partners(self, a, same=False, into=False):
        """Locals b that broadcast with a (same: equal shapes; into: the result has a's shape)."""
        out = []
        for b in self.env:
            if same:
                if b.shapes == a.shapes:
                    out.append(b)
                continue
            r = bcast(a.shapes, b.shapes)
            if r is None:
                continue
            if into and r != a.shapes:
                continue
            if r is not None and len(r[0]) <= MAX_RANK:
                out.append(b)
        return out

    def int_scalar(self):
        """A Python int expression (an argument, a shape, a literal) and its largest value."""
        r = self.rng.random()
        if self.ints and r < 0.5:
            name, vals = self.rng.choice(self.ints)
            return name, max(abs(v) for v in vals)
        if r < 0.7:
            a = self.pick(lambda t: t.rank >= 1)
            if a is not None:
                d = self.rng.randrange(a.rank)
                return "%s.shape[%d]" % (a.name, d), a.maxdim(d)
        v = self.rng.choice([1, 2, 3])
        return str(v), v

    def scalar(self):
        """A scalar operand: float literal, int argument, shape, or a Python float from .item()."""
        r = self.rng.random()
        if self.floats and r < 0.25:
            name, b = self.rng.choice(self.floats)
            return name, b
        if r < 0.5:
            return self.int_scalar()
        c = self.rng.choice([0.5, 1.5, 2.0, 0.25, -1.0, 3.0, 0.1])
        return fmt(c), abs(c)

    def add_var(self, expr, shapes, bound, inplace_ok=True, prefix="t"):
        """Assign expr to a new local, scaling it down when its bound is too large."""
        if bound > LIMIT:
            if self.rng.random() < 0.7:
                c = 10.0 ** -math.ceil(math.log10(bound / (LIMIT / 2)))
                expr, bound = "(%s) * %s" % (expr, fmt(c)), bound * c
            else:
                expr, bound = "torch.tanh(%s)" % expr, 1.0
        name = self.fresh(prefix)
        self.emit("%s = %s" % (name, expr))
        t = T(name, shapes, bound, inplace_ok)
        self.env.append(t)
        return t

    # -- expressions: each returns (expr, shapes, bound, inplace_ok) or None

    def e_unary(self, a):
        rng = self.rng
        b = a.bound
        F = self.prog.use_F
        choices = [
            (lambda: "torch.relu(%s)" % a.name, b),
            (lambda: "%s.relu()" % a.name, b),
            (lambda: F() + ".relu(%s)" % a.name, b),
            (lambda: "torch.sigmoid(%s)" % a.name, 1.0),
            (lambda: "%s.sigmoid()" % a.name, 1.0),
            (lambda: "torch.tanh(%s)" % a.name, 1.0),
            (lambda: "%s.tanh()" % a.name, 1.0),
            (lambda: "%s.abs()" % a.name, b),
            (lambda: "torch.abs(%s)" % a.name, b),
            (lambda: "-%s" % a.name, b),
            (lambda: "%s.neg()" % a.name, b),
            (lambda: "torch.sin(%s)" % a.name, 1.0),
            (lambda: "%s.cos()" % a.name, 1.0),
            (lambda: "torch.exp(torch.tanh(%s))" % a.name, 2.72),
            (lambda: "torch.exp(%s.sigmoid())" % a.name, 2.72),
            (lambda: "torch.sqrt(%s.abs() + 1)" % a.name, math.sqrt(b + 1)),
            (lambda: "torch.log(%s.abs() + 1)" % a.name, math.log(b + 1)),
            (lambda: "torch.log1p(%s.abs())" % a.name, math.log(b + 1)),
            (lambda: "torch.rsqrt(%s * %s + 1)" % (a.name, a.name), 1.0),
            (lambda: F() + ".gelu(%s)" % a.name, b),
            (lambda: F() + ".silu(%s)" % a.name, b),
            (lambda: "%s.clamp(-1.0, 1.0)" % a.name, min(b, 1.0)),
            (lambda: "torch.clamp(%s, min=-0.5)" % a.name, b),
            (lambda: "%s.clamp(max=0.5)" % a.name, b),
            (lambda: "%s * %s" % (a.name, a.name), b * b),
            (lambda: "%s.square()" % a.name, b * b),
            (lambda: "%s ** 2" % a.name, b * b),
            (lambda: "torch.where(%s > 0, %s, %s * 0.1)" % (a.name, a.name, a.name), b),
            (lambda: "%s.masked_fill(%s < 0, 0.0)" % (a.name, a.name), b),
            (lambda: "torch.erf(%s)" % a.name, 1.0),
            (lambda: "torch.atan(%s)" % a.name, 1.6),
            (lambda: "torch.expm1(torch.tanh(%s))" % a.name, 1.8),
            (lambda: "%s.reciprocal()" % ("(%s.abs() + 1)" % a.name), 1.0),
            (lambda: "1.0 / (%s * %s + 1)" % (a.name, a.name), 1.0),
        ]
        f, bound = rng.choice(choices)
        return f(), a.shapes, bound, True

    def e_binary(self, a, into=False):
        rng = self.rng
        ps = self.partners(a, into=into)
        b = rng.choice(ps) if ps else a
        shapes = bcast(a.shapes, b.shapes)
        ba, bb = a.bound, b.bound
        x, y = a.name, b.name
        if rng.random() < 0.3 and not into:
            x, y, ba, bb = y, x, bb, ba
        choices = [
            ("%s + %s" % (x, y), ba + bb),
            ("%s - %s" % (x, y), ba + bb),
            ("%s * %s" % (x, y), ba * bb),
            ("%s / (%s.abs() + 1)" % (x, y), ba),
            ("%s / (%s * %s + 1)" % (x, y, y), ba),
            ("torch.maximum(%s, %s)" % (x, y), max(ba, bb)),
            ("torch.minimum(%s, %s)" % (x, y), max(ba, bb)),
            ("torch.where(%s > %s, %s, %s)" % (x, y, x, y), max(ba, bb)),
            ("torch.add(%s, %s, alpha=0.5)" % (x, y), ba + 0.5 * bb),
            ("%s.mul(%s)" % (x, y), ba * bb),
            ("torch.sub(%s, %s)" % (x, y), ba + bb),
            ("torch.mul(%s, %s.sigmoid())" % (x, y), ba),
            ("%s * 0.5 + %s.tanh()" % (x, y), 0.5 * ba + 1),
            ("torch.max(%s, %s)" % (x, y), max(ba, bb)),
        ]
        e, bound = rng.choice(choices)
        return e, shapes, bound, True

    def e_scalar_mix(self, a):
        rng = self.rng
        s, sb = self.scalar()
        c = rng.choice([2.5, 0.5, -1.5, 0.25, 1.0, 3.0])
        forms = [
            ("%s * %s + %s" % (a.name, fmt(c), s), a.bound * abs(c) + sb),
            ("%s * %s" % (a.name, s), a.bound * sb),
            ("(%s + %s) * %s" % (a.name, s, fmt(c)), (a.bound + sb) * abs(c)),
            ("%s - %s" % (s, a.name), a.bound + sb),
            ("%s / %s" % (a.name, fmt(c)), a.bound / abs(c)),
            ("%s * %s - %s" % (a.name, s, fmt(c)), a.bound * sb + abs(c)),
            ("%s.mul(%s).add(%s)" % (a.name, fmt(c), s), a.bound * abs(c) + sb),
        ]
        e, bound = rng.choice(forms)
        return e, a.shapes, bound, True

    def e_reduce(self, a):
        rng = self.rng
        if a.rank == 0:
            return None
        d = rng.randrange(a.rank)
        dc = d if rng.random() < 0.6 else d - a.rank
        keep = rng.random() < 0.4
        kd = ", keepdim=True" if keep else ""
        kdp = ", True" if keep else ""

        def rshape(s):
            return s[:d] + ((1,) if keep else ()) + s[d + 1:]
        shapes = tuple(rshape(s) for s in a.shapes)
        size = a.maxdim(d)
        b = a.bound
        choices = [
            ("%s.sum(dim=%d%s)" % (a.name, dc, kd), b * size),
            ("%s.sum(%d%s)" % (a.name, dc, kdp), b * size),
            ("torch.sum(%s, dim=%d%s)" % (a.name, dc, kd), b * size),
            ("%s.mean(dim=%d%s)" % (a.name, dc, kd), b),
            ("torch.mean(%s, %d%s)" % (a.name, dc, kdp), b),
            ("%s.amax(dim=%d%s)" % (a.name, dc, kd), b),
            ("torch.amax(%s, %d%s)" % (a.name, dc, kdp), b),
            ("%s.amin(dim=%d%s)" % (a.name, dc, kd), b),
            ("%s.max(dim=%d%s)[0]" % (a.name, dc, kd), b),
            ("torch.min(%s, %d%s)[0]" % (a.name, dc, kdp), b),
            ("torch.logsumexp(%s, dim=%d%s)" % (a.name, dc, kd), b + math.log(size + 1)),
            ("%s.norm(dim=%d%s)" % (a.name, dc, kd), b * math.sqrt(size)),
        ]
        if a.mindim(d) >= 2:
            choices.append(("%s.var(dim=%d%s)" % (a.name, dc, kd), 2 * b * b))
            choices.append(("%s.std(dim=%d%s)" % (a.name, dc, kd), 1.5 * b))
        if rng.random() < 0.25:
            full = [
                ("%s.sum()" % a.name, b * a.maxnumel()),
                ("%s.mean()" % a.name, b),
                ("%s.amax()" % a.name, b),
                ("torch.sum(%s)" % a.name, b * a.maxnumel()),
                ("%s.abs().max()" % a.name, b),
            ]
            e, bound = rng.choice(full)
            return e, tuple(() for _ in a.shapes), bound, True
        if a.rank >= 2 and rng.random() < 0.2:
            # two dims at once
            d2 = rng.choice([i for i in range(a.rank) if i != d])
            lo, hi = sorted((d, d2))
            shapes = tuple(tuple(x for i, x in enumerate(s) if i not in (lo, hi)) for s in a.shapes)
            return ("%s.sum(dim=(%d, %d))" % (a.name, lo, hi), shapes,
                    b * a.maxdim(lo) * a.maxdim(hi), True)
        e, bound = rng.choice(choices)
        return e, shapes, bound, True

    def e_shape(self, a):
        rng = self.rng
        r = a.rank
        opts = []
        if r >= 2:
            i, j = rng.sample(range(r), 2)
            opts.append(("%s.transpose(%d, %d)" % (a.name, i, j - r if rng.random() < 0.3 else j),
                         tuple(self._swap(s, i, j) for s in a.shapes)))
            perm = list(range(r))
            rng.shuffle(perm)
            opts.append(("%s.permute(%s)" % (a.name, ", ".join(map(str, perm))),
                         tuple(tuple(s[p] for p in perm) for s in a.shapes)))
            opts.append(("%s.reshape(%s.shape[0], -1)" % (a.name, a.name),
                         tuple((s[0], numel(s[1:])) for s in a.shapes)))
            opts.append(("torch.flatten(%s, 1)" % a.name, tuple((s[0], numel(s[1:])) for s in a.shapes)))
            opts.append(("%s.mT" % a.name, tuple(self._swap(s, r - 2, r - 1) for s in a.shapes)))
        if r == 2:
            opts.append(("%s.t()" % a.name, tuple((s[1], s[0]) for s in a.shapes)))
        if r < MAX_RANK:
            d = rng.randrange(r + 1)
            dc = d if rng.random() < 0.7 else d - r - 1
            opts.append(("%s.unsqueeze(%d)" % (a.name, dc), tuple(s[:d] + (1,) + s[d:] for s in a.shapes)))
            opts.append(("%s[None]" % a.name, tuple((1,) + s for s in a.shapes)))
        ones = [d for d in range(r) if all(s[d] == 1 for s in a.shapes)]
        if ones:
            d = rng.choice(ones)
            opts.append(("%s.squeeze(%d)" % (a.name, d), tuple(s[:d] + s[d + 1:] for s in a.shapes)))
        if r >= 1:
            opts.append(("%s.reshape(-1)" % a.name, tuple((numel(s),) for s in a.shapes)))
            opts.append(("%s.flatten()" % a.name, tuple((numel(s),) for s in a.shapes)))
            opts.append(("%s.contiguous().view(-1)" % a.name, tuple((numel(s),) for s in a.shapes)))
            d = rng.randrange(r)
            pre = ":, " * d
            mn, mx = a.mindim(d), a.maxdim(d)
            if mx >= 2:
                k = rng.randint(1, mx - 1)
                opts.append(("%s[%s:%d]" % (a.name, pre, k), tuple(self._setd(s, d, min(k, s[d])) for s in a.shapes)))
                opts.append(("%s.narrow(%d, 0, %d)" % (a.name, d, min(k, mn)),
                             tuple(self._setd(s, d, min(k, mn)) for s in a.shapes)))
                opts.append(("%s[%s::2]" % (a.name, pre), tuple(self._setd(s, d, (s[d] + 1) // 2) for s in a.shapes)))
            if mn >= 2:
                opts.append(("%s[%s1:]" % (a.name, pre), tuple(self._setd(s, d, s[d] - 1) for s in a.shapes)))
                opts.append(("%s[%s:-1]" % (a.name, pre), tuple(self._setd(s, d, s[d] - 1) for s in a.shapes)))
            if self.n_name:
                opts.append(("%s[%s:%s]" % (a.name, pre, self.n_name),
                             tuple(self._setd(s, d, min(c["n"], s[d])) for s, c in zip(a.shapes, self.cfgs))))
            if d == r - 1 and mx >= 2:
                k = rng.randint(1, mx - 1)
                opts.append(("%s[..., :%d]" % (a.name, k), tuple(self._setd(s, d, min(k, s[d])) for s in a.shapes)))
            idx = rng.choice([0, -1])
            opts.append(("%s[%s%d]" % (a.name, pre, idx), tuple(s[:d] + s[d + 1:] for s in a.shapes)))
            opts.append(("%s.select(%d, 0)" % (a.name, d), tuple(s[:d] + s[d + 1:] for s in a.shapes)))
            ch = "%s.chunk(2, dim=%d)[0]" % (a.name, d)
            opts.append((ch, tuple(self._setd(s, d, (s[d] + 1) // 2) for s in a.shapes)))
            k = rng.randint(1, 3)
            opts.append(("%s.split(%d, dim=%d)[0]" % (a.name, k, d), tuple(self._setd(s, d, min(k, s[d])) for s in a.shapes)))
        if not opts:
            return None
        e, shapes = rng.choice(opts)
        return e, shapes, a.bound, a.inplace_ok

    def e_expand(self, a):
        if a.rank >= MAX_RANK:
            return None
        k = self.rng.randint(2, 3)
        e = "%s.unsqueeze(0).expand(%d%s)" % (a.name, k, ", -1" * a.rank)
        return e, tuple((k,) + s for s in a.shapes), a.bound, False

    def e_cat(self, a):
        rng = self.rng
        if a.rank == 0:
            return None
        d = rng.randrange(a.rank)
        ps = [b for b in self.env if b.rank == a.rank and all(
            sa[:d] == sb[:d] and sa[d + 1:] == sb[d + 1:] for sa, sb in zip(a.shapes, b.shapes))]
        b = rng.choice(ps)
        items = [a, b] if rng.random() < 0.8 else [a, b, a]
        dc = d if rng.random() < 0.7 else d - a.rank
        lst = ", ".join(t.name for t in items)
        form = rng.random()
        if form < 0.4:
            e = "torch.cat([%s], dim=%d)" % (lst, dc)
        elif form < 0.7:
            e = "torch.cat((%s), %d)" % (lst, dc)
        else:
            e = "torch.cat([%s], %d)" % (lst, dc)
        shapes = tuple(self._setd(s, d, sum(t.shapes[i][d] for t in items)) for i, s in enumerate(a.shapes))
        return e, shapes, max(t.bound for t in items), True

    def e_stack(self, a):
        if a.rank >= MAX_RANK:
            return None
        ps = self.partners(a, same=True)
        b = self.rng.choice(ps)
        d = self.rng.randrange(a.rank + 1)
        e = "torch.stack([%s, %s], dim=%d)" % (a.name, b.name, d)
        return e, tuple(s[:d] + (2,) + s[d:] for s in a.shapes), max(a.bound, b.bound), True

    def e_matmul(self, a):
        rng = self.rng
        ps = self.partners(a, same=True)
        b = rng.choice(ps)
        if a.rank == 1:
            return "%s @ %s" % (a.name, b.name), tuple(() for _ in a.shapes), a.bound * b.bound * a.maxdim(0), True
        if a.rank < 2:
            return None
        if rng.random() < 0.5:
            forms = ["%s @ %s.transpose(-1, -2)", "torch.matmul(%s, %s.mT)"]
            if a.rank == 2:
                forms += ["torch.mm(%s, %s.t())", "%s @ %s.t()"]
            if a.rank == 3:
                forms.append("torch.bmm(%s, %s.transpose(1, 2))")
            e = rng.choice(forms) % (a.name, b.name)
            shapes = tuple(s[:-1] + (s[-2],) for s in a.shapes)
            k = a.maxdim(-1)
        else:
            e = "%s.transpose(-1, -2) @ %s" % (a.name, b.name)
            shapes = tuple(s[:-2] + (s[-1], s[-1]) for s in a.shapes)
            k = a.maxdim(-2)
        return e, shapes, a.bound * b.bound * k, True

    def e_softmax(self, a):
        rng = self.rng
        if a.rank == 0:
            return None
        d = rng.randrange(a.rank)
        dc = d if rng.random() < 0.5 else d - a.rank
        forms = [
            (lambda: "torch.softmax(%s, dim=%d)" % (a.name, dc), 1.0),
            (lambda: "%s.softmax(%d)" % (a.name, dc), 1.0),
            (lambda: self.prog.use_F() + ".softmax(%s, dim=%d)" % (a.name, dc), 1.0),
            (lambda: "torch.log_softmax(%s, dim=%d)" % (a.name, dc), 2 * a.bound + math.log(a.maxdim(d) + 1)),
            (lambda: self.prog.use_F() + ".normalize(%s, dim=%d)" % (a.name, dc), 1.0),
        ]
        if a.mindim(-1) >= 2:
            forms.append((lambda: self.prog.use_F() + ".layer_norm(%s, (%s.shape[-1],))" % (a.name, a.name),
                          math.sqrt(a.maxdim(-1)) + 0.1))
        f, bound = rng.choice(forms)
        return f(), a.shapes, bound, True

    def e_factory(self, a):
        rng = self.rng
        forms = [
            ("torch.zeros_like(%s) + %s" % (a.name, fmt(rng.choice([0.5, 1.0, -0.25]))), a.shapes, 1.0),
            ("torch.ones_like(%s) * %s" % (a.name, fmt(rng.choice([0.5, 2.0]))), a.shapes, 2.0),
            ("torch.ones(%s.shape) * 0.5" % a.name, a.shapes, 0.5),
        ]
        if a.rank >= 1:
            forms.append(("torch.arange(%s.shape[-1], dtype=torch.float32) * 0.1" % a.name,
                          tuple((s[-1],) for s in a.shapes), 0.1 * a.maxdim(-1)))
            k = rng.randint(1, 4)
            forms.append(("torch.zeros(%s.shape[0], %d) + 1" % (a.name, k), tuple((s[0], k) for s in a.shapes), 1.0))
        e, shapes, bound = rng.choice(forms)
        return e, shapes, bound, True

    @staticmethod
    def _swap(s, i, j):
        s = list(s)
        s[i], s[j] = s[j], s[i]
        return tuple(s)

    @staticmethod
    def _setd(s, d, v):
        s = list(s)
        s[d] = v
        return tuple(s)

    def e_module(self, a):
        m = self.mod
        if m is None:
            return None
        opts = []
        if a.rank >= 1 and all(s[-1] == m["din"] for s in a.shapes):
            opts.append(("self.lin(%s)" % a.name, tuple(s[:-1] + (m["dout"],) for s in a.shapes),
                         a.bound * m["din"] * 0.5 + 0.1))
        if a.rank >= 1 and all(s[-1] == m["dout"] for s in a.shapes):
            opts.append(("self.ln(%s)" % a.name, a.shapes, math.sqrt(m["dout"]) + 0.1))
            if m.get("buf"):
                opts.append(("%s + self.buf" % a.name, a.shapes, a.bound + 2.0))
        if m.get("scale"):
            opts.append(("%s * self.scale" % a.name, a.shapes, a.bound * 2.0))
        if m.get("seq") and a.rank >= 1 and all(s[-1] == m["dout"] for s in a.shapes):
            opts.append(("self.seq(%s)" % a.name, a.shapes, 1.0))
        if not opts:
            return None
        return self.rng.choice(opts) + (True,)

    # -- statements

    def s_assign(self):
        """t = <random expression over live locals>"""
        rng = self.rng
        kinds = [
            (self.e_unary, 20), (self.e_binary, 22), (self.e_scalar_mix, 10), (self.e_reduce, 10),
            (self.e_shape, 12), (self.e_cat, 4), (self.e_stack, 2), (self.e_matmul, 5),
            (self.e_softmax, 5), (self.e_factory, 2), (self.e_expand, 1), (self.e_module, 8 if self.mod else 0),
        ]
        for _ in range(8):
            f = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
            a = self.pick()
            if a is None:
                return False
            if f in (self.e_reduce, self.e_shape, self.e_softmax) and a.rank == 0:
                continue
            if f is self.e_module and self.mod is not None:
                # prefer a local the module layers apply to
                m = self.mod
                good = [t for t in self.env if t.rank >= 1 and all(s[-1] in (m["din"], m["dout"]) for s in t.shapes)]
                if good and rng.random() < 0.7:
                    a = rng.choice(good)
            r = f(a)
            if r is None:
                continue
            e, shapes, bound, ok = r
            if any(len(s) > MAX_RANK for s in shapes) or any(numel(s) > 400 for s in shapes):
                continue
            if any(0 in s for s in shapes):
                continue
            self.add_var(e, shapes, bound, ok)
            return True
        return False

    def preserving_expr(self, t):
        """An expression with exactly t's shape (for updates inside branches and loops)."""
        rng = self.rng
        r = rng.random()
        if r < 0.35:
            e, shapes, b, _ = self.e_unary(t)
        elif r < 0.8:
            e, shapes, b, _ = self.e_binary(t, into=True)
        else:
            e, shapes, b, _ = self.e_scalar_mix(t)
        assert shapes == t.shapes
        return e, b

    def update(self, t, in_loop=False):
        """Rebind an existing local to a same-shaped value; returns the new bound."""
        rng = self.rng
        e, b = self.preserving_expr(t)
        if in_loop or self.loop_depth > 0:
            # a contraction keeps repeated updates bounded
            c = rng.choice([0.5, 0.25])
            self.emit("%s = %s * %s + torch.tanh(%s)" % (t.name, t.name, fmt(c), e))
            return max(t.bound, 1.0 / (1 - c))
        if b > LIMIT:
            e, b = "torch.tanh(%s)" % e, 1.0
        self.emit("%s = %s" % (t.name, e))
        return b

    def s_inplace(self, in_loop=False):
        """In-place updates of a local, a slice of a local, or an input."""
        rng = self.rng
        in_loop = in_loop or self.loop_depth > 0
        if self.inplace_count >= 5:
            return False
        a = self.pick(lambda t: t.inplace_ok)
        if a is None:
            return False
        # (form, how much it can raise the magnitude)
        scalar_forms = [
            ("{t}.mul_(0.5)", 0.0), ("{t}.clamp_(-1.0, 1.0)", 0.0), ("{t}.tanh_()", 0.0),
            ("{t}.sigmoid_()", 0.0), ("{t}.relu_()", 0.0), ("{t} *= 0.75", 0.0),
        ]
        if not in_loop:
            scalar_forms += [("{t}.add_(1)", 1.0), ("{t}.add_(0.5)", 0.5), ("{t}.sub_(0.25)", 0.25),
                             ("{t} += 1", 1.0), ("{t} -= 0.5", 0.5), ("{t}.abs_()", 0.0), ("{t}.neg_()", 0.0)]
        tensor_forms = []
        ps = self.partners(a, into=True)
        if ps and not in_loop:
            b = rng.choice(ps).name
            tensor_forms = [("{t}.add_(torch.tanh(%s))" % b, 1.0), ("{t}.sub_(%s.sigmoid())" % b, 1.0),
                            ("{t} += torch.sin(%s)" % b, 1.0), ("{t}.mul_(torch.tanh(%s))" % b, 0.0),
                            ("{t}.copy_(torch.tanh(%s))" % b, 1.0)]
        target = a.name
        forms = scalar_forms + tensor_forms
        if a.rank >= 1 and rng.random() < 0.35:
            d = rng.randrange(a.rank)
            pre = ":, " * d
            if a.mindim(d) >= 2 and rng.random() < 0.5:
                target = "%s[%s1:]" % (a.name, pre)
            elif a.maxdim(d) >= 2:
                target = "%s[%s:%d]" % (a.name, pre, rng.randint(1, a.maxdim(d) - 1))
            else:
                target = "%s[%s0]" % (a.name, pre)
            forms = list(scalar_forms)      # a tensor operand would need the slice's shape
            if not in_loop:
                forms.append(("{t} = " + rng.choice(["0.0", "1.0", "-0.5"]), 1.0))
        f, inc = rng.choice(forms)
        self.emit(f.format(t=target))
        a.bound += inc
        self.inplace_count += 1
        if a.is_input:
            self.mutates_inputs = True
        return True

    def s_if(self):
        rng = self.rng
        if self.depth >= 2:
            return False
        conds = []
        if self.flag_name:
            conds += ["%s" % self.flag_name, "not %s" % self.flag_name]
        if self.n_name:
            vals = sorted(set(c["n"] for c in self.cfgs))
            k = vals[len(vals) // 2] if len(vals) > 1 else vals[0]
            conds += ["%s >= %d" % (self.n_name, k), "%s == %d" % (self.n_name, vals[0])]
        a0 = self.pick(lambda t: t.rank >= 1)
        if a0 is not None:
            vals = sorted(set(s[0] for s in a0.shapes))
            k = vals[len(vals) // 2] if len(vals) > 1 else vals[0]
            conds += ["%s.shape[0] >= %d" % (a0.name, k), "%s.shape[0] %% 2 == 0" % a0.name]
        data_dep = False
        if rng.random() < 0.35:
            a = self.pick()
            data_dep = True
            conds = ["%s.sum() > 0" % a.name, "%s.mean() < 0.1" % a.name, "%s.amax() > 0.5" % a.name]
            if self.floats:
                conds.append("%s > 0" % self.rng.choice(self.floats)[0])
        cond = rng.choice(conds)
        if data_dep:
            self.has_break = True
        self.emit("if %s:" % cond)
        before = {t.name: t for t in self.env}
        bounds1 = self._branch_body()
        if rng.random() < 0.6:
            self.emit("else:")
            bounds2 = self._branch_body()
        else:
            bounds2 = {}
        for name in set(bounds1) | set(bounds2):
            t = before[name]
            t.bound = max(t.bound, bounds1.get(name, 0), bounds2.get(name, 0))
        return True

    def _branch_body(self, in_loop=False):
        """Statements of one branch; returns {outer local: bound} for the locals it rebinds."""
        rng = self.rng
        self.indent += 1
        self.depth += 1
        saved_env = list(self.env)
        saved_floats = list(self.floats)
        saved_ints = list(self.ints)
        outer = {t.name: t for t in saved_env}
        n = rng.randint(1, 3)
        for _ in range(n - 1):
            r = rng.random()
            if r < 0.5:
                self.s_assign()
            elif r < 0.65 and not in_loop:
                self.s_inplace(in_loop)
            elif r < 0.8:
                self.s_break(allow_vars=False)
            elif r < 0.9:
                self.s_if()
            else:
                self.s_assign()
        # the last statement rebinds an outer local to a same-shaped value
        tgt_cands = [t for t in saved_env if not t.name.startswith("self.")]
        t = rng.choice(tgt_cands[-4:]) if tgt_cands else None
        rebound = {}
        if t is not None:
            b = self.update(t, in_loop=in_loop)
            rebound[t.name] = b
        else:
            self.emit("pass")
        # locals defined only in this branch go out of scope (for the generator)
        self.env = [outer[x.name] if x.name in outer else x for x in self.env if x.name in outer]
        for x in self.env:
            if x.name in rebound:
                x.inplace_ok = x.inplace_ok  # same shape, maybe a fresh tensor
        self.floats = saved_floats
        self.ints = saved_ints
        self.indent -= 1
        self.depth -= 1
        return rebound

    def s_for(self):
        rng = self.rng
        if self.depth >= 2 or self.loop_depth >= 1:
            return False
        r = rng.random()
        i = self.fresh("i")
        if self.n_name and r < 0.5:
            self.emit("for %s in range(%s):" % (i, self.n_name))
        elif r < 0.75:
            self.emit("for %s in range(%d):" % (i, rng.randint(1, 3)))
        else:
            # iterate over a list of locals that broadcast into the accumulator
            acc = self.pick()
            ps = self.partners(acc, into=True)
            items = rng.sample(ps, min(len(ps), rng.randint(1, 3)))
            if not items:
                items = [acc]
            v = self.fresh("u")
            self.emit("for %s in [%s]:" % (v, ", ".join(t.name for t in items)))
            c = rng.choice([0.5, 0.25])
            self.emit("    %s = %s * %s + torch.tanh(%s)" % (acc.name, acc.name, fmt(c), v))
            acc.bound = max(acc.bound, 1.0 / (1 - c))
            return True
        self.loop_depth += 1
        self.ints.append((i, [3]))
        # the loop index is usable as an int inside the body
        before = {t.name: t for t in self.env}
        rebound = self._branch_body(in_loop=True)
        self.ints = [x for x in self.ints if x[0] != i]
        self.loop_depth -= 1
        for name, b in rebound.items():
            before[name].bound = max(before[name].bound, b)
        return True

    def s_break(self, allow_vars=True):
        """Graph-break triggers."""
        rng = self.rng
        r = rng.random()
        self.has_break = True
        if r < 0.3:
            k = self.prog.fresh_id()
            forms = ['print("difffuzz: step %d")' % k]
            if self.n_name:
                forms.append('print("difffuzz: n =", %s)' % self.n_name)
            a = self.pick(lambda t: t.rank >= 1)
            if a is not None:
                forms.append('print("difffuzz: rows", %s.shape[0])' % a.name)
            self.emit(rng.choice(forms))
            return True
        if r < 0.5 or not allow_vars:
            self.emit("torch._dynamo.graph_break()")
            return True
        a = self.pick()
        if r < 0.8:
            s = self.fresh("s")
            forms = [("torch.tanh(%s.mean()).item()" % a.name, 1.0), ("%s.abs().amax().item()" % a.name, a.bound),
                     ("float(%s.sum() * 0.1)" % a.name, 0.1 * a.bound * a.maxnumel()), ("%s.mean().item()" % a.name, a.bound)]
            e, b = rng.choice(forms)
            if b > LIMIT:
                e, b = "torch.tanh(%s.mean()).item()" % a.name, 1.0
            self.emit("%s = %s" % (s, e))
            self.floats.append((s, b))
            # use it right away in Python arithmetic
            if rng.random() < 0.7:
                t = self.pick()
                self.add_var("%s * (%s * 0.5 + 1)" % (t.name, s), t.shapes, t.bound * (0.5 * b + 1))
            return True
        # .tolist()
        v = self.fresh("vals")
        if a.rank == 0:
            self.emit("%s = [%s.item()]" % (v, a.name))
        else:
            self.emit("%s = torch.tanh(%s).reshape(-1).tolist()" % (v, a.name))
        s = self.fresh("s")
        forms = ["%s[0]" % v, "sum(%s) / len(%s)" % (v, v), "max(%s)" % v, "%s[-1] * 2" % v]
        self.emit("%s = %s" % (s, rng.choice(forms)))
        self.floats.append((s, 2.0))
        return True

    def s_container(self):
        rng = self.rng
        a = self.pick()
        ps = self.partners(a)
        b = rng.choice(ps)
        r = rng.random()
        shapes = bcast(a.shapes, b.shapes)
        if r < 0.25:
            L = self.fresh("parts")
            self.emit("%s = [%s, %s]" % (L, a.name, b.name))
            e = rng.choice(["%s[0] * 0.5 + %s[1]" % (L, L), "%s[-1] - %s[0]" % (L, L),
                            "sum(%s)" % L, "torch.maximum(%s[0], %s[1])" % (L, L)])
            self.add_var(e, shapes, a.bound + b.bound)
        elif r < 0.45:
            D = self.fresh("d")
            self.emit('%s = {"p": %s, "q": %s}' % (D, a.name, b.name))
            e = rng.choice(['%s["p"] - %s["q"]' % (D, D), '%s["q"] * %s["p"]' % (D, D),
                            'torch.where(%s["p"] > %s["q"], %s["p"], %s["q"])' % (D, D, D, D)])
            bd = a.bound * b.bound if "*" in e else a.bound + b.bound
            self.add_var(e, shapes, bd)
        elif r < 0.6:
            p, q = self.fresh("p"), self.fresh("q")
            self.emit("%s, %s = %s, %s" % (p, q, a.name, b.name))
            # p and q alias a and b
            self.env.append(a.copy(p))
            self.env.append(b.copy(q))
            for t in self.env[-2:]:
                t.is_input = False
        elif r < 0.75 and a.shapes == b.shapes and a.rank < MAX_RANK:
            e = "torch.stack([t.sigmoid() for t in (%s, %s)])" % (a.name, b.name)
            self.add_var(e, tuple((2,) + s for s in a.shapes), 1.0)
        elif r < 0.9:
            L = self.fresh("parts")
            self.emit("%s = []" % L)
            u = self.fresh("u")
            self.emit("for %s in (%s, %s):" % (u, a.name, b.name))
            self.emit("    %s.append(%s * 0.5)" % (L, u))
            self.add_var("%s[0] + %s[1]" % (L, L), shapes, 0.5 * (a.bound + b.bound))
        else:
            pr = self.fresh("pair")
            if a.rank >= 1:
                self.emit("%s = (%s.sum(dim=-1), %s.amax(dim=-1))" % (pr, a.name, a.name))
                self.add_var("%s[0] - %s[1]" % (pr, pr), tuple(s[:-1] for s in a.shapes),
                             a.bound * (a.maxdim(-1) + 1))
            else:
                self.emit("%s = (%s, %s * 2)" % (pr, a.name, a.name))
                self.add_var("%s[1] - %s[0]" % (pr, pr), a.shapes, 3 * a.bound)
        return True

    def s_helper(self):
        rng = self.rng
        a = self.pick()
        ps = self.partners(a)
        b = rng.choice(ps)
        h = self.prog.helper()
        if h["breaks"]:
            self.has_break = True
        if h["two"]:
            e = "%s(%s, %s)" % (h["name"], a.name, b.name)
            shapes = bcast(a.shapes, b.shapes)
        else:
            e = "%s(%s)" % (h["name"], a.name)
            shapes = a.shapes
        self.add_var(e, shapes, h["bound"])
        return True

    def s_self_state(self):
        m = self.mod
        if m is None:
            return False
        if m.get("counter") and self.rng.random() < 0.5 and not m.get("counter_used"):
            self.emit("self.calls += 1")
            m["counter_used"] = True
            return True
        if m.get("buf") and not m.get("buf_mut") and self.depth == 0:
            self.emit("self.buf.mul_(0.9)")
            m["buf_mut"] = True
            return True
        return False

    def statement(self):
        rng = self.rng
        kinds = [
            (self.s_assign, 55), (self.s_inplace, 8), (self.s_if, 7), (self.s_for, 5),
            (self.s_break, 6), (self.s_container, 6), (self.s_helper, 4),
            (self.s_self_state, 3 if self.mod else 0),
        ]
        for _ in range(5):
            f = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
            if f():
                return

    # -- return

    def ret(self):
        rng = self.rng
        cands = [t for t in self.env if not t.is_input] or self.env
        last = cands[-1]
        others = [t for t in self.env if t is not last]
        picks = [last] + rng.sample(others, min(len(others), rng.randint(0, 2)))
        items = [t.name for t in picks]
        extra = []
        if self.floats and rng.random() < 0.4:
            extra.append(rng.choice(self.floats)[0])
        if rng.random() < 0.2:
            a = self.pick(lambda t: t.rank >= 1)
            if a is not None:
                extra.append("%s.shape[0]" % a.name)
        if self.n_name and rng.random() < 0.15:
            extra.append(self.n_name)
        allv = items + extra
        r = rng.random()
        if len(allv) == 1 and r < 0.6:
            self.emit("return %s" % allv[0])
            return ("one",)
        if r < 0.35:
            self.emit("return %s" % ", ".join(allv) + ("," if len(allv) == 1 else ""))
            return ("tuple",)
        if r < 0.6:
            self.emit("return [%s]" % ", ".join(allv))
            return ("list",)
        if r < 0.8:
            keys = ["k%d" % i for i in range(len(allv))]
            self.emit("return {%s}" % ", ".join('"%s": %s' % (k, v) for k, v in zip(keys, allv)))
            return ("dict", keys)
        head, tail = allv[0], allv[1:]
        self.emit("return (%s, [%s])" % (head, ", ".join(tail)))
        return ("nested",)


# ----------------------------------------------------------------------------- program

class Program:
    def __init__(self, seed):
        self.seed = seed
        self.rng = random.Random(seed)
        self.names = 0
        self.ids = 0
        self.F_used = False
        self.nn_used = False
        self.helpers = []
        self.helper_lines = []
        self.top = []
        self.defs = []
        self.outs = 0
        self.maybe_mutates = False

    def fresh(self, prefix):
        self.names += 1
        return "%s%d" % (prefix, self.names)

    def fresh_id(self):
        self.ids += 1
        return self.ids

    def use_F(self):
        self.F_used = True
        return "F"

    def out(self, expr):
        name = "out" if self.outs == 0 else "out_%d" % self.outs
        self.outs += 1
        self.top.append("%s = %s" % (name, expr))
        return name

    def helper(self):
        rng = self.rng
        if self.helpers and rng.random() < 0.5:
            return rng.choice(self.helpers)
        name = "helper%d" % (len(self.helpers) + 1)
        two = rng.random() < 0.6
        params = "a, b" if two else "a"
        lines = ["def %s(%s):" % (name, params)]
        bounded = ["torch.tanh(%s)", "torch.sigmoid(%s)", "torch.sin(%s)", "%s.clamp(-1.0, 1.0)", "torch.erf(%s)",
                   "torch.cos(%s)"]
        lines.append("    h = %s * %s" % (rng.choice(bounded) % "a", fmt(rng.choice([0.5, 1.5, 2.0]))))
        bound = 2.0
        breaks = False
        if two:
            op = rng.choice(["+", "-", "*"])
            lines.append("    h = h %s %s" % (op, rng.choice(bounded) % "b"))
            bound = bound * 1 if op == "*" else bound + 1
        if rng.random() < 0.3:
            breaks = True
            if rng.random() < 0.5:
                lines.append('    print("difffuzz: in %s")' % name)
            else:
                lines.append("    torch._dynamo.graph_break()")
        if self.helpers and rng.random() < 0.3:
            inner = rng.choice([h for h in self.helpers if not h["two"]] or [None])
            if inner is not None:
                lines.append("    h = h + %s(h)" % inner["name"])
                bound += inner["bound"]
                breaks = breaks or inner["breaks"]
        if rng.random() < 0.4:
            lines.append("    return h * 0.5 + 0.25")
            bound = bound * 0.5 + 0.25
        else:
            lines.append("    return h")
        h = {"name": name, "two": two, "bound": bound, "breaks": breaks}
        self.helpers.append(h)
        self.helper_lines += lines + ["", ""]
        return h

    # -- inputs

    def det_call(self, shape, seed, strided=False):
        if strided and len(shape) >= 2:
            rev = tuple(reversed(shape))
            perm = ", ".join(str(i) for i in reversed(range(len(shape))))
            return "det(%s, %d).permute(%s)" % (self.tup(rev), seed, perm)
        return "det(%s, %d)" % (self.tup(shape), seed)

    @staticmethod
    def tup(shape):
        if len(shape) == 1:
            return "(%d,)" % shape[0]
        return "(%s)" % ", ".join(str(d) for d in shape)

    def unit(self, idx):
        """One compiled function or module, with its calls."""
        rng = self.rng
        is_module = rng.random() < 0.25
        fname = "f%d" % idx if idx else "f"
        # argument templates: 'B' is the first dimension that varies between calls
        rank = rng.choices([1, 2, 3, 4], [2, 5, 3, 1])[0]
        dims = [rng.randint(1, 6) for _ in range(rank - 1)]
        if is_module:
            rank = max(rank, 2)
            dims = [rng.randint(1, 5) for _ in range(rank - 2)] + [rng.randint(2, 6)]
        base = ("B",) + tuple(dims)
        ntensor = rng.choices([1, 2, 3], [3, 5, 2])[0]
        templates = [base]
        for _ in range(ntensor - 1):
            r = rng.random()
            if r < 0.6 or rank == 1:
                templates.append(base)
            elif r < 0.8:
                templates.append(tuple(dims[-1:]) if dims else (1,))      # broadcasts over rows
            else:
                templates.append(("B",) + tuple(dims[:-1]) + (1,))
        has_n = rng.random() < 0.6
        has_flag = rng.random() < 0.45
        names = ["x", "y", "z"][:ntensor]
        # call configurations: first dim, int, bool
        B0 = rng.randint(2, 5)
        B1 = rng.choice([b for b in range(1, 7) if b != B0])
        n0, n1 = rng.randint(1, 3), rng.randint(1, 4)
        f0 = rng.random() < 0.5
        cfgs = [{"B": B0, "n": n0, "flag": f0}, {"B": B1, "n": n0, "flag": f0},
                {"B": B1 if rng.random() < 0.5 else B0, "n": n1, "flag": not f0}]
        if rng.random() < 0.35:
            cfgs.append({"B": rng.choice([b for b in range(1, 7) if b not in (B0, B1)]), "n": n0, "flag": f0})

        def shape_of(tmpl, cfg):
            return tuple(cfg["B"] if d == "B" else d for d in tmpl)

        params = []
        for nm, tm in zip(names, templates):
            params.append(T(nm, [shape_of(tm, c) for c in cfgs], 1.0, True, is_input=True))
        mod = None
        if is_module:
            din = dims[-1]
            dout = rng.choice([din, din, rng.randint(2, 6)])
            mod = {"din": din, "dout": dout, "buf": rng.random() < 0.4, "scale": rng.random() < 0.4,
                   "counter": rng.random() < 0.3, "seq": rng.random() < 0.3}
        body = Body(self, rng, cfgs, params, "n" if has_n else None, "flag" if has_flag else None, self_mod=mod)
        if is_module:
            # start from the layers so the module is used
            x = params[0]
            body.add_var("self.lin(%s)" % x.name, tuple(s[:-1] + (mod["dout"],) for s in x.shapes),
                         din * 0.5 + 0.1)
        for _ in range(rng.randint(3, 12)):
            body.statement()
        ret = body.ret()
        sig = list(names)
        if has_n:
            sig.append("n=1" if rng.random() < 0.2 else "n")
        if has_flag:
            sig.append("flag=False" if (has_n and sig[-1] == "n=1") or rng.random() < 0.3 else "flag")
        lines = []
        ctor = None
        if is_module:
            self.nn_used = True
            cname = "M%d" % idx if idx else "M"
            lines.append("class %s(nn.Module):" % cname)
            lines.append("    def __init__(self):")
            lines.append("        super().__init__()")
            lines.append("        self.lin = nn.Linear(%d, %d)" % (mod["din"], mod["dout"]))
            lines.append("        self.ln = nn.LayerNorm(%d)" % mod["dout"])
            if mod["seq"]:
                lines.append("        self.seq = nn.Sequential(nn.Linear(%d, %d), nn.ReLU(), nn.Tanh())" % (mod["dout"], mod["dout"]))
            if mod["buf"]:
                lines.append('        self.register_buffer("buf", det((%d,), %d) * 0.5)' % (mod["dout"], rng.randint(0, 20)))
            if mod["scale"]:
                lines.append("        self.scale = %s" % fmt(rng.choice([0.5, 2.0, -1.0])))
            if mod["counter"]:
                lines.append("        self.calls = 0")
            lines.append("        with torch.no_grad():")
            lines.append("            self.lin.weight.copy_(det((%d, %d), %d) * 0.5)" % (mod["dout"], mod["din"], rng.randint(0, 30)))
            lines.append("            self.lin.bias.copy_(det((%d,), %d) * 0.1)" % (mod["dout"], rng.randint(0, 30)))
            if mod["seq"]:
                lines.append("            self.seq[0].weight.copy_(det((%d, %d), %d) * 0.5)" % (mod["dout"], mod["dout"], rng.randint(0, 30)))
                lines.append("            self.seq[0].bias.fill_(0.1)")
            lines.append("")
            lines.append("    def forward(self, %s):" % ", ".join(sig))
            for ln in body.lines:
                lines.append("    " + ln)
            lines += ["", ""]
            inst = "m%d" % idx if idx else "m"
            callee = "cm%d" % idx if idx else "cm"
            self.defs += lines
            ctor = (cname, inst, callee)
        else:
            mode = rng.random()
            compile_expr = None
            if mode < 0.35:
                deco = "@torch.compile"
            elif mode < 0.5:
                deco = "@torch.compile(dynamic=True)"
            elif mode < 0.6 and not body.has_break:
                deco = "@torch.compile(fullgraph=True)"
            else:
                deco = None
                opts = ["dynamic=True", "fullgraph=False", "dynamic=False", None]
                if not body.has_break:
                    opts.append("fullgraph=True")
                o = rng.choice(opts)
                compile_expr = "torch.compile(%s_impl%s)" % (fname, ", " + o if o else "")
            if deco:
                lines.append(deco)
                lines.append("def %s(%s):" % (fname, ", ".join(sig)))
            else:
                lines.append("def %s_impl(%s):" % (fname, ", ".join(sig)))
            lines += body.lines
            lines += ["", ""]
            if compile_expr:
                lines.append("%s = %s" % (fname, compile_expr))
                lines += ["", ""]
            self.defs += lines
            callee = fname

        # ---- calls
        top = self.top
        top.append("")
        top.append("# %s" % ("module " + ctor[0] if ctor else "function " + fname))
        if ctor:
            top.append("%s = %s()" % (ctor[1], ctor[0]))
            top.append("%s = torch.compile(%s)" % (ctor[2], ctor[1]))
        mutates = body.mutates_inputs or self.maybe_mutates or body.inplace_count > 0
        made = {}

        def inputs_for(ci, fresh_tag, strided=False):
            key = (ci, fresh_tag, strided)
            if key in made:
                return made[key]
            vs = []
            for p, tm in zip(names, templates):
                shape = shape_of(tm, cfgs[ci])
                v = "%s_%d" % (p, self.fresh_id())
                top.append("%s = %s" % (v, self.det_call(shape, rng.randint(0, 40), strided)))
                vs.append(v)
            made[key] = vs
            return vs

        def call(ci, vs, note, kw=False):
            c = cfgs[ci]
            args = list(vs)
            if has_n:
                args.append(("n=%d" if kw else "%d") % c["n"])
            if has_flag:
                args.append(("flag=%s" if kw or rng.random() < 0.3 else "%s") % c["flag"])
            ce = "%s(%s)" % (callee, ", ".join(args))
            if ret[0] == "dict":
                r = "r%d" % self.fresh_id()
                top.append("%s = %s  # %s" % (r, ce, note))
                self.out("[%s]" % ", ".join('%s["%s"]' % (r, k) for k in ret[1]))
            else:
                top.append("%s = %s  # %s" % ("out" if self.outs == 0 else "out_%d" % self.outs, ce, note))
                self.outs += 1

        v0 = inputs_for(0, 0)
        call(0, v0, "first call")
        if mutates:
            self.out("[%s]" % ", ".join("%s.clone()" % v for v in v0))
        call(0, v0 if rng.random() < 0.6 else inputs_for(0, 1), "same shapes again")
        v1 = inputs_for(1, 0)
        call(1, v1, "another first dimension")
        kw = rng.random() < 0.3
        call(2, inputs_for(2, 0) if cfgs[2]["B"] != cfgs[1]["B"] else v1, "other int/bool arguments", kw=kw)
        if len(cfgs) > 3:
            call(3, inputs_for(3, 0), "a third first dimension")
        if ntensor >= 2 and templates[1] == templates[0] and rng.random() < 0.5:
            va = inputs_for(0, 2)
            call(0, [va[0], va[0]] + va[2:], "aliased arguments")
        if rank >= 2 and rng.random() < 0.4:
            call(1, inputs_for(1, 3, strided=True), "non-contiguous arguments")
        if ctor and mod.get("buf"):
            self.out("%s.buf.clone()" % ctor[1])
        if ctor and mod.get("counter"):
            self.out("%s.calls" % ctor[1])
        if mutates:
            allv = [v for vs in made.values() for v in vs]
            self.out("[%s]" % ", ".join(allv))

    def build(self):
        rng = self.rng
        nunits = 1 if rng.random() < 0.8 else 2
        for i in range(nunits):
            self.unit(i)
        head = ["# difffuzz seed %d" % self.seed, "import torch"]
        if self.nn_used:
            head.append("import torch.nn as nn")
        if self.F_used:
            head.append("import torch.nn.functional as F")
        head += ["", "",
                 "def det(shape, seed):",
                 "    n = 1",
                 "    for s in shape:",
                 "        n *= s",
                 "    return (torch.sin(torch.arange(n, dtype=torch.float32) * 0.37 + seed)).reshape(shape)",
                 "", ""]
        src = head + self.helper_lines + self.defs + self.top
        return "\n".join(src).rstrip() + "\n"


def generate(seed):
    return Program(seed).build()


if __name__ == "__main__":
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0), end="")
