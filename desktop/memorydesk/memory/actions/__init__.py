"""Every reviewer action (what a person does to memory from the desk), each a typed value that can be undone."""
