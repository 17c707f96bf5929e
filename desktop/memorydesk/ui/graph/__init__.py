"""The Knowledge Graph tab: the outline, the network canvas, the side panel."""
