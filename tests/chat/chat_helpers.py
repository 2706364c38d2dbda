"""Shared constants of the chat tests."""

#: What the temporal and spatial experts' prompts contain (rules of the scripted model match it).
TEMPORAL = "Work out where in the story"
SPATIAL = "physically present"
