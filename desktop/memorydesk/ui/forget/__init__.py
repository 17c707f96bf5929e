"""The forget check in the window: the offer after a delete or a purge, and the receipt's dialog."""
