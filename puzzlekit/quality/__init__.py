"""Contract checks (check_family, check_verifier), golden corpora and the pytest plugin."""
