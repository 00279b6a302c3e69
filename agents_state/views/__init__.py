"""What people and models read: rendered text, summaries, context, graphs, the watch."""
