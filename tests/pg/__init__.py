"""Issue 17: the PostgreSQL store, against a real server."""
