"""The knowledge graph as the Knowledge Graph tab reads it: the whole graph, its index, a fact's focus."""
