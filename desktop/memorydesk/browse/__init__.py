"""Read models for the desk's views: lists, counts and details, read in short transactions."""
