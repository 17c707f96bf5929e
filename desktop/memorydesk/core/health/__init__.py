"""Health of a lineage run from its receipts: the rules, for one run and for many at once."""
