"""The Policies tab: every policy, its edits, and what every dispatch carries."""
