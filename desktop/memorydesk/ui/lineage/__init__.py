"""The Lineage tab: runs on a timeline coloured by health (see ``tab``)."""
