"""agents-state: durable workflow state for coding-agent orchestration."""

__all__ = ["__version__"]

__version__ = "0.1.0"
