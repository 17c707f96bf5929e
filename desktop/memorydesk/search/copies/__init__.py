"""Every copy search keeps of one file, and how it follows the file while agents write."""
