"""Exact paired tests, a few lines of binomial arithmetic (no scipy for this)."""

from __future__ import annotations

from math import comb


def binomial_two_sided(k: int, n: int) -> float:
    """P of a split at least as uneven as k of n under a fair coin (two-sided, exact)."""
    if n == 0:
        return 1.0
    low = min(k, n - k)
    tail = sum(comb(n, i) for i in range(low + 1)) / 2**n
    return min(1.0, 2 * tail)


def mcnemar_exact(pass_to_fail: int, fail_to_pass: int) -> float:
    """Exact McNemar p-value: only the discordant pairs count, each side equally likely."""
    return binomial_two_sided(pass_to_fail, pass_to_fail + fail_to_pass)


def sign_test(differences: list[float]) -> tuple[int, int, float]:
    """(increases, decreases, two-sided p) of paired differences; ties left out."""
    up = sum(1 for d in differences if d > 0)
    down = sum(1 for d in differences if d < 0)
    return up, down, binomial_two_sided(up, up + down)
