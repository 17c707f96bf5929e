"""Adapters that make other memory systems write lineage receipts as they work (stdlib only)."""
