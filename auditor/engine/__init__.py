"""The audit engine: callable + pairs -> samples -> events -> bounds -> result.

- :mod:`.adapter` wraps any callable (batched with ``size``, seeded with ``rng``);
- :mod:`.pairs` holds neighbouring pairs, relations and the classic input patterns;
- :mod:`.events` and :mod:`.select` choose candidate output events on a selection sample;
- :mod:`.stats` gives the exact Clopper-Pearson bounds and the epsilon bound;
- :mod:`.run` certifies the chosen events on fresh samples (:func:`audit`);
- :mod:`.result` is the :class:`AuditResult` and its JSON form; :mod:`.progress` the bar.
"""
