"""The Conflicts tab: the conflict list, bursts, and the trail of one conflict."""
