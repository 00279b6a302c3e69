"""What a workflow costs: token usage read from the host's transcripts, booked per agent, task
and phase (issue 24)."""
