"""dpaudit's auditor: certified lower bounds on the epsilon of black-box mechanisms.

``audit(mechanism, pairs, epsilon=..., delta=..., samples=..., confidence=..., seed=...)`` selects
output events on one batch of samples, certifies them on fresh samples with exact one-sided
Clopper-Pearson bounds and a union bound, and returns an :class:`AuditResult`.
"""

from auditor.engine.adapter import Mechanism, as_mechanism
from auditor.engine.run import AuditConfig, audit, minimum_samples
from auditor.engine.pairs import RELATIONS, Pair, check_pair, generate_pairs
from auditor.engine.result import SCHEMA_VERSION, AuditResult, Witness
from auditor.catalogue.samplers import CATALOGUE, CatalogueEntry

__all__ = [
    "audit",
    "AuditConfig",
    "AuditResult",
    "Witness",
    "Pair",
    "RELATIONS",
    "check_pair",
    "generate_pairs",
    "minimum_samples",
    "Mechanism",
    "as_mechanism",
    "CATALOGUE",
    "CatalogueEntry",
    "SCHEMA_VERSION",
]
