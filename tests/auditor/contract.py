"""The command-line/JSON contract the tests hold the auditor to."""

# keys every `dpaudit audit --json` document and every AuditResult.to_dict() carries
AUDIT_JSON_KEYS = (
    "schema_version",
    "claimed_epsilon",
    "delta",
    "confidence",
    "epsilon_lower_bound",
    "unbounded_witness",
    "delta_lower_bound",
    "violation",
    "verdict",
    "detectable_epsilon",
    "hint",
    "p_value",
    "witness",
    "samples",
    "seed",
    "reproducible",
    "seconds",
)
