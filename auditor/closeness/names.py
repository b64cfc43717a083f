"""The distances the closeness tool knows (kept apart so the command line lists them without
importing NumPy)."""

DISTANCES = ("tv", "kl", "l1", "l2", "emd")
EXACT_REFERENCE_DISTANCES = ("tv", "l1", "emd")  # (n, t) search is exact for these

__all__ = ["DISTANCES", "EXACT_REFERENCE_DISTANCES"]
