"""Epsilon-closeness (t-closeness) of released tables and the (n, t) variant
(Li, Li and Venkatasubramanian 2007, 2010; notes 003)."""

from auditor.closeness.core import (
    DISTANCES, EXACT_REFERENCE_DISTANCES, SCHEMA_VERSION, ClassDistance, ClosenessResult,
    ReferenceSet, SensitiveTable, best_reference_set, closeness, distribution_distance,
    load_table, table_from_columns,
)

__all__ = [
    "DISTANCES", "EXACT_REFERENCE_DISTANCES", "SCHEMA_VERSION", "ClassDistance", "ClosenessResult",
    "ReferenceSet", "SensitiveTable", "best_reference_set", "closeness", "distribution_distance",
    "load_table", "table_from_columns",
]
