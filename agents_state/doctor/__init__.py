"""``agents-state doctor``: diagnose a ``.agents/`` folder and repair what can be repaired."""
