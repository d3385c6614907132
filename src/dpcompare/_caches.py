"""One switch for the module-level caches: :func:`clear_caches`.

Every certified composition is memoised per argument tuple with a bounded ``functools.lru_cache``
(16 entries for composed pairs, which can hold 10⁵–10⁶ atoms each; 64 for the small RDP order arrays;
4 for a sweep's baseline; a few small tables: the last one-step partition, DFT twiddles, quadrature
nodes). ``CACHED`` lists them all (a test walks the package and checks it). A long-running process that wants the memory back, or a benchmark that
wants a cold run, calls ``clear_caches()``. Only modules already imported are touched, so the call never
imports scipy or dp-accounting.

>>> import dpcompare as dc
>>> dc.clear_caches() >= 0
True
"""

from __future__ import annotations

import sys

#: module (relative to dpcompare) → its module-level lru_cache'd functions
CACHED: dict[str, tuple[str, ...]] = {
    "composition.closed_form": ("compose_laplace", "compose_gaussian"),
    "composition.gaussian_mixture": ("compose_mixture", "mixture_tail_bound"),
    "composition.random_allocation": ("compose_random_allocation", "_cached_law"),
    "composition.sgm_compose": ("compose_subsampled_gaussian", "pessimistic_pair", "tail_bound", "pessimistic_side",
                                "_shared_partition"),
    "composition.sgm_far_grids": ("window_points",),
    "composition.sgm_step": ("hermite_rule",),
    "composition.sgm_sides": ("optimistic_side", "pessimistic_side_cut"),
    "composition.sgm_summary": ("summary_composition",),
    "composition.wor": ("compose_without_replacement", "compose_with_replacement"),
    "dpsgd.rdp_bound": ("_rdp_orders_cached",),
    "mechanisms.continuous": ("_raw_is_directed",),
    "dpsgd.sweep": ("_baseline",),
    "tradeoff.compose": ("_twiddle_tables",),
    "tradeoff.low_band_dft": ("_tables",),
}

__all__ = ["CACHED", "clear_caches"]


def clear_caches() -> int:
    """Empty every module-level cache of dpcompare; returns how many caches were cleared."""
    cleared = 0
    for module, names in CACHED.items():
        mod = sys.modules.get(f"{__package__}.{module}")
        for name in names if mod is not None else ():
            clear = getattr(getattr(mod, name, None), "cache_clear", None)
            if clear is not None:
                clear()
                cleared += 1
    return cleared
