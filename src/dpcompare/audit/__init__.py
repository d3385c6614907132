"""Audits against claims: empirical mechanisms from attack results, with confidence regions.

- :mod:`.inputs` — :class:`Counts`, :class:`Scores`, :class:`OneRun`, validated at creation;
- :mod:`.binomial` — exact Clopper–Pearson and order-statistic bounds;
- :mod:`.empirical` — :class:`EmpiricalMechanism`, the attack's curve with its confidence band;
- :mod:`.one_run` — one-run audits (Steinke, Nasr & Jagielski 2023; Mahloujifar, Melis & Chaudhuri 2024);
- :mod:`.claim` — :func:`audit`, the comparison of an audit with a claimed mechanism.
"""

from .binomial import clopper_pearson, clopper_pearson_lower, clopper_pearson_upper
from .empirical import EmpiricalMechanism, hull_pair, hull_vertices
from .inputs import Counts, OneRun, Scores

__all__ = ["Counts", "EmpiricalMechanism", "OneRun", "Scores", "clopper_pearson", "clopper_pearson_lower",
           "clopper_pearson_upper", "hull_pair", "hull_vertices"]

from .claim import AuditResult, Gap, audit  # noqa: E402

__all__ += ["AuditResult", "Gap", "audit"]
