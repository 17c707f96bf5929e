"""The change history: one row per change, written with it; undo and redo of an entry or a batch."""
