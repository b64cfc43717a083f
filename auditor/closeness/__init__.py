"""Epsilon-closeness (t-closeness) of a released table, and the (n, t) variant.

Definitions (notes 003, "Epsilon-closeness"; Li, Li and Venkatasubramanian, "t-Closeness: Privacy
Beyond k-Anonymity and l-Diversity", ICDE 2007, and "Closeness: A New Privacy Measure for Data
Publishing", TKDE 2010):

* Rows are grouped into *equivalence classes* by their quasi-identifier (QI) values.
* ``P_Q`` is the distribution of the sensitive attribute over the whole table and ``P_L`` its
  distribution inside one class. A class is t-close when ``D(P_L, P_Q) <= t``; the table's
  closeness is the maximum of ``D(P_L, P_Q)`` over its classes, and the table is t-close when
  that maximum is at most t.
* Distances ``D``: total variation ``tv = 1/2 sum |P_L - P_Q|``, ``l1 = sum |P_L - P_Q|``,
  ``l2 = sqrt(sum (P_L - P_Q)^2)``, Kullback-Leibler ``kl = sum P_L log(P_L / P_Q)`` (natural log,
  infinite when the reference has an empty bin where the class has mass), and the Earth Mover's
  Distance ``emd``. For a categorical attribute the EMD with equal ground distance is the TV
  distance (Li et al. 2007, section 4.2). For an ordered attribute with distinct values
  ``v_1 < ... < v_m`` the ground distance is ``|i - j| / (m - 1)`` and
  ``EMD = 1/(m - 1) sum_{i=1}^{m} |sum_{j<=i} (P_L(v_j) - P_Q(v_j))|`` (ibid., section 4.2).
* (n, t)-closeness, as in the notes: a class is (n, t)-close when some subset ``M`` of the table
  with ``|M| >= n`` has ``D(P_L, P_{Q|M}) <= t``. Li et al. (2010, Definition 2) require ``M`` to
  be a *natural superset* of the class (a generalisation of its QI values); the notes' version,
  implemented here, lets ``M`` be any subset, so its distance is a lower bound on the paper's.
  Only the counts of each sensitive value in ``M`` matter, so the best ``M`` is found exactly over
  integer count vectors ``0 <= x_v <= N_v`` with ``sum x_v >= n`` (see :func:`best_reference_set`).
* Partition-level (n, t)-closeness, also in the notes: a partitioning is (n, t)-close when *one*
  subset ``M`` with ``|M| >= n`` has ``D(P_L, P_{Q|M}) <= t`` for *each* class; its closeness
  ``min_M max_L D(P_L, P_{Q|M})`` lies between the largest class-level one and the whole
  table's (:func:`shared_reference_set`, ``closeness(..., shared=True)``).

With the whole table as reference every value seen in a class occurs in the table, so KL against
the whole table is always finite; KL is infinite only against a reference with an empty bin,
which :func:`distribution_distance` reports as ``inf`` and results flag as ``infinite``.

Modules: :mod:`~auditor.closeness.table` (the CSV table, reduced to integer codes),
:mod:`~auditor.closeness.distances` (the distances), :mod:`~auditor.closeness.reference` (the
exact (n, t) reference-set search), :mod:`~auditor.closeness.shared` (the one set of the
partition-level variant), :mod:`~auditor.closeness.result` (the result types) and
:mod:`~auditor.closeness.analysis` (:func:`closeness` itself). SciPy is imported only inside the
reference-set solver.
"""

from proofs.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "auditor.closeness.analysis": ("closeness",),
        "auditor.closeness.names": ("DISTANCES", "EXACT_REFERENCE_DISTANCES"),
        "auditor.closeness.distances": ("distribution_distance",),
        "auditor.closeness.reference": ("ReferenceSet", "best_reference_set"),
        "auditor.closeness.shared": ("shared_reference_set",),
        "auditor.closeness.result": ("SCHEMA_VERSION", "ClassDistance", "ClosenessResult"),
        "auditor.closeness.table": ("SensitiveTable", "load_table", "table_from_columns"),
    },
    globals(),
)
