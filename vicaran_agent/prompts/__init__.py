"""Agent instructions, one constant per agent. `{state_key}` placeholders come from session state."""
