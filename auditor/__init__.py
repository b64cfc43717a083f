"""dpaudit's auditor: certified lower bounds on the epsilon of black-box mechanisms.

``audit(mechanism, pairs, epsilon=..., delta=..., samples=..., confidence=..., seed=...)`` selects
output events on one batch of samples, certifies them on fresh samples with exact one-sided
Clopper-Pearson bounds and a union bound, and returns an :class:`AuditResult`. Names are loaded
on first use, so ``import auditor`` loads no NumPy, SciPy, SymPy or matplotlib.
"""

from proofs.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "auditor.engine.adapter": ("Mechanism", "as_mechanism"),
        "auditor.engine.run": ("audit",),
        "auditor.engine.config": ("AuditConfig", "minimum_samples"),
        "auditor.engine.pairs": ("Pair", "check_pair", "generate_pairs"),
        "auditor.engine.relations": ("RELATIONS",),
        "auditor.engine.result": ("SCHEMA_VERSION", "VERDICTS", "AuditResult", "Witness"),
        "auditor.engine.replay": ("ReplayResult", "replay"),
        "auditor.catalogue.entries": ("CATALOGUE", "CatalogueEntry"),
    },
    globals(),
)
