"""The durable store: the only package that writes workflow state to disk."""
