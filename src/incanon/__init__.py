"""incanon: keep role-playing LLM agents in canon."""
__version__ = "0.1.0"
