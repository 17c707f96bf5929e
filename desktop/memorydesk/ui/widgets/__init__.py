"""Parts every tab shares: lazy list models, filter bars, splitters, prompts, progress, text helpers."""
