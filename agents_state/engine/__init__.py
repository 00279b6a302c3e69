"""The pure workflow state machine: phases, tasks, events, waves and the next action."""
