"""The reference catalogue of mechanisms, correct and deliberately broken: each entry ties a
:mod:`proofs` description (and the theorems that cover it) to a sampler, default neighbouring
pairs and a claim. :func:`sampler_for` samples any description with numeric parameters."""

from proofs.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "auditor.catalogue.entries": (
            "ALIASES",
            "CATALOGUE",
            "CatalogueEntry",
            "get",
            "names",
            "sampler",
        ),
        "auditor.catalogue.samplers": (
            "bloom_bits",
            "sampler_for",
            "snap",
            "supported_descriptions",
        ),
    },
    globals(),
)
