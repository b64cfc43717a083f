"""Local protocols: RAPPOR (client, population simulator, decoder) and the estimators of the
randomized-response family and one-bit telemetry."""
