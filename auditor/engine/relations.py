"""The named neighbouring relations (kept apart so the command line can list them without
importing NumPy)."""

RELATIONS = ("any", "add-remove", "replace-one", "sensitivity")

__all__ = ["RELATIONS"]
