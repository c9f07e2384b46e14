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


def wilcoxon_signed_rank(differences: list[float]) -> tuple[int, int, float]:
    """(increases, decreases, two-sided exact p) of paired differences by Wilcoxon's
    signed-rank test: for scores on a scale (a judge's), where how far each pair moved
    counts, not only which way. Zeros are left out; tied sizes get their mean rank, and the
    p-value is exact under those ranks (every sign pattern counted)."""
    nonzero = sorted((abs(d), d > 0) for d in differences if d != 0)
    n = len(nonzero)
    up = sum(1 for _, positive in nonzero if positive)
    if n == 0:
        return 0, 0, 1.0
    doubled: list[int] = []  # twice each mean rank: integers, for exact counting
    i = 0
    while i < n:
        j = i
        while j < n and nonzero[j][0] == nonzero[i][0]:
            j += 1
        doubled += [i + 1 + j] * (j - i)  # 2 x the mean of ranks i+1 .. j
        i = j
    observed = sum(r for r, (_, positive) in zip(doubled, nonzero, strict=True) if positive)
    total = sum(doubled)
    ways = [1] + [0] * total  # ways[s]: sign patterns whose positive ranks sum to s
    for r in doubled:
        for s in range(total, r - 1, -1):
            ways[s] += ways[s - r]
    distance = abs(2 * observed - total)  # from the mean (total / 2), doubled
    extreme = sum(w for s, w in enumerate(ways) if abs(2 * s - total) >= distance)
    return up, n - up, min(1.0, extreme / 2**n)
