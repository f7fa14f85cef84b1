"""``numpy.random.default_rng(words).permutation(n)`` compiled: the same draws, without building a
SeedSequence, a PCG64 and a Generator per instance (which costs more than the search of an easy
puzzle).

:func:`permutation` follows numpy's published algorithms step for step: ``SeedSequence`` (the
entropy words hashed into a pool of four, ``generate_state(4, uint64)``), ``PCG64`` seeded from
those words (XSL-RR output of a 128-bit LCG, 32-bit draws taken from each 64-bit output, low
half first), and ``Generator.shuffle`` of ``arange(n)`` (Fisher-Yates from the top, each index
drawn by masked rejection). Tests compare it with numpy on many seeds; a numpy that changed its
stream would fail them.

Private machinery of :mod:`puzzlekit.verifiers.search`; used once numba is loaded (the compiled
backends load it), numpy's own generator otherwise.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

_M32 = uint64(0xFFFFFFFF)
_INIT_A, _MULT_A = uint64(0x43B0D7E5), uint64(0x931E8875)
_INIT_B, _MULT_B = uint64(0x8B51F9DD), uint64(0x58F38DED)
_MIX_L, _MIX_R = uint64(0xCA01F9DD), uint64(0x4973F715)
_MUL_HI, _MUL_LO = uint64(0x2360ED051FC65DA4), uint64(0x4385DF649FCCF645)


@njit(cache=True, inline="always")
def _mul64(a, b):  # pragma: no cover - compiled
    """The 128-bit product of two 64-bit words, as (high, low)."""
    a_lo, a_hi = a & _M32, a >> uint64(32)
    b_lo, b_hi = b & _M32, b >> uint64(32)
    ll = a_lo * b_lo
    lh = a_lo * b_hi
    hl = a_hi * b_lo
    hh = a_hi * b_hi
    mid = (ll >> uint64(32)) + (lh & _M32) + (hl & _M32)
    lo = (ll & _M32) | ((mid & _M32) << uint64(32))
    hi = hh + (lh >> uint64(32)) + (hl >> uint64(32)) + (mid >> uint64(32))
    return hi, lo


@njit(cache=True, inline="always")
def _step(s_hi, s_lo, i_hi, i_lo):  # pragma: no cover - compiled
    """One LCG step: state * multiplier + increment (mod 2**128)."""
    hi, lo = _mul64(s_lo, _MUL_LO)
    hi = hi + s_lo * _MUL_HI + s_hi * _MUL_LO
    lo2 = lo + i_lo
    carry = uint64(1) if lo2 < lo else uint64(0)
    return hi + i_hi + carry, lo2


@njit(cache=True, inline="always")
def _hashmix(value, hash_const):  # pragma: no cover - compiled
    value = (value ^ hash_const) & _M32
    hash_const = (hash_const * _MULT_A) & _M32
    value = (value * hash_const) & _M32
    value ^= value >> uint64(16)
    return value, hash_const


@njit(cache=True, inline="always")
def _mix(x, y):  # pragma: no cover - compiled
    result = ((_MIX_L * x) - (_MIX_R * y)) & _M32
    result ^= result >> uint64(16)
    return result


@njit(cache=True)
def _seed_words(entropy):  # pragma: no cover - compiled
    """SeedSequence(entropy).generate_state(4, uint64), as 8 words of 32 bits (little first)."""
    pool = np.zeros(4, np.uint64)
    hash_const = _INIT_A
    n = entropy.shape[0]
    for i in range(4):
        word = uint64(entropy[i]) if i < n else uint64(0)
        pool[i], hash_const = _hashmix(word, hash_const)
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                h, hash_const = _hashmix(pool[i_src], hash_const)
                pool[i_dst] = _mix(pool[i_dst], h)
    for i_src in range(4, n):
        for i_dst in range(4):
            h, hash_const = _hashmix(uint64(entropy[i_src]), hash_const)
            pool[i_dst] = _mix(pool[i_dst], h)
    out = np.zeros(8, np.uint64)
    hash_b = _INIT_B
    for i in range(8):
        value = (pool[i % 4] ^ hash_b) & _M32
        hash_b = (hash_b * _MULT_B) & _M32
        value = (value * hash_b) & _M32
        value ^= value >> uint64(16)
        out[i] = value
    return out


@njit(cache=True)
def digest_permutation(raw, stream, n):  # pragma: no cover - compiled
    """``np.random.default_rng([int.from_bytes(raw, "big"), stream]).permutation(n)`` for the
    bytes ``raw`` of a digest (a uint8 array, a multiple of 4 long): the integer's 32-bit words
    from the lowest, high zero words dropped (one kept), then ``stream`` (below 2**32)."""
    count = raw.shape[0] // 4
    words = np.zeros(count + 1, np.uint32)
    used = 1
    for k in range(count):
        at = raw.shape[0] - 4 * k - 4
        word = (
            uint64(raw[at + 3])
            | (uint64(raw[at + 2]) << uint64(8))
            | (uint64(raw[at + 1]) << uint64(16))
            | (uint64(raw[at]) << uint64(24))
        )
        words[k] = word
        if word != 0:
            used = k + 1
    words[used] = stream
    return permutation(words[: used + 1], n)


@njit(cache=True)
def permutation(entropy, n):  # pragma: no cover - compiled
    """``np.random.default_rng(np.asarray(entropy, np.uint32)).permutation(n)``."""
    w = _seed_words(entropy)
    seed_hi, seed_lo = w[0] | (w[1] << uint64(32)), w[2] | (w[3] << uint64(32))
    inc_hi, inc_lo = w[4] | (w[5] << uint64(32)), w[6] | (w[7] << uint64(32))
    # inc = (initseq << 1) | 1; state = 0 -> step -> + initstate -> step
    i_hi = (inc_hi << uint64(1)) | (inc_lo >> uint64(63))
    i_lo = (inc_lo << uint64(1)) | uint64(1)
    s_hi, s_lo = _step(uint64(0), uint64(0), i_hi, i_lo)
    lo = s_lo + seed_lo
    carry = uint64(1) if lo < s_lo else uint64(0)
    s_hi, s_lo = _step(s_hi + seed_hi + carry, lo, i_hi, i_lo)
    out = np.arange(n)
    has_half = False
    half = uint64(0)
    for i in range(n - 1, 0, -1):
        top = uint64(i)
        mask = top
        mask |= mask >> uint64(1)
        mask |= mask >> uint64(2)
        mask |= mask >> uint64(4)
        mask |= mask >> uint64(8)
        mask |= mask >> uint64(16)
        mask |= mask >> uint64(32)
        while True:
            if has_half:
                draw = half
                has_half = False
            else:
                s_hi, s_lo = _step(s_hi, s_lo, i_hi, i_lo)
                x = s_hi ^ s_lo
                rot = s_hi >> uint64(58)
                value = (x >> rot) | (x << ((uint64(64) - rot) & uint64(63)))
                half = value >> uint64(32)
                has_half = True
                draw = value & _M32
            j = draw & mask
            if j <= top:
                break
        k = int(j)
        out[i], out[k] = out[k], out[i]
    return out


__all__ = ["digest_permutation", "permutation"]
