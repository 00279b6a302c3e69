"""Typed records: the state and configuration models without pydantic's start-up cost."""
