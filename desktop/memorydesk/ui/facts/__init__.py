"""The Facts tab: a lazy list of facts, filters, a detail pane, reviewer actions."""
