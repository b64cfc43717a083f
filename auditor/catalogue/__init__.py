"""The reference catalogue of mechanisms, correct and deliberately broken, each with a sampler,
default neighbouring pairs, a claim and the proofs that cover it."""

from auditor.catalogue.samplers import ALIASES, CATALOGUE, CatalogueEntry, get, names, sampler, snap

__all__ = ["ALIASES", "CATALOGUE", "CatalogueEntry", "get", "names", "sampler", "snap"]
