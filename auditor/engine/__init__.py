"""The audit engine: callable + pairs -> samples -> events -> bounds -> result.

- :mod:`.adapter` wraps any callable (batched with ``size``, seeded with ``rng``);
- :mod:`.pairs` holds neighbouring pairs, relations and the classic input patterns;
- :mod:`.events` and :mod:`.select` choose candidate output events on a selection sample;
- :mod:`.stats` gives the exact Clopper-Pearson bounds and the epsilon bound;
- :mod:`.schedule` fixes chunk sizes, the looks at the counts and the level of each look;
- :mod:`.executors` runs chunks on this process, a local pool, Dask or any Executor;
- :mod:`.session` goes through the phases of one audit and :mod:`.checkpoint` saves them;
- :mod:`.run` is :func:`audit`: validation, the plan, the result;
- :mod:`.result` is the :class:`AuditResult` and its JSON form; :mod:`.progress` the bars.
"""
