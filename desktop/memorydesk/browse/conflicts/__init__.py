"""The conflict list, its filters, one conflict's trail, bursts, and their exports for a ticket."""
