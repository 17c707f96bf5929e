"""Graph geometry for the Knowledge Graph tab: layouts and force/stress placement (pure numpy)."""
