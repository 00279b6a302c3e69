"""The sub-agent handoff protocol of designs 000-003."""
