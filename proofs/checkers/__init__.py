"""The checkers: each module decides the claims it `supports` and returns a
:class:`proofs.results.Finding` from `check(claim)`; :func:`proofs.check` (in
:mod:`proofs.dispatch`) dispatches to them.

- :mod:`.pure`: pure DP (SMT over the formulations of :mod:`.formulations`, structured proofs);
- :mod:`.profiles`: (eps, delta) at numeric values and privacy profiles;
- :mod:`.calibration`: Gaussian calibrations over ranges of eps and delta;
- :mod:`.composition`: sequential composition rules and k-fold composition (KOV);
  :mod:`.rules` holds the symbolic arguments for general rules;
- :mod:`.group`, :mod:`.postprocessing`;
- :mod:`.renyi` (Renyi DP and zCDP of the Gaussian, conversions) and :mod:`.rdp` (the RDP
  accountant);
- :mod:`.estimators`, :mod:`.densities`, :mod:`.distances`.
"""
