"""Hypothesis runs derandomized by default: the same examples on every run, so a property test
cannot pass on one CI run and fail on the next. HYPOTHESIS_PROFILE=explore searches afresh
(random examples, five times as many) to look for new counterexamples locally."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
