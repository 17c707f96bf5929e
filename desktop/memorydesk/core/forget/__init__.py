"""The forget check's pure parts: what a path answered, the receipt, and what to look for."""
