"""The forget check (``check.forget_check``): every way an agent could still get a fact or a text back."""
