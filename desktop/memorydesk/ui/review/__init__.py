"""The Review tab: the review queue (``browse.review``), its filters, evidence and actions."""
