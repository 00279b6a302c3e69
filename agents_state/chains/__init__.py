"""The orchestrator chains of designs 000 / 001 / 002."""
