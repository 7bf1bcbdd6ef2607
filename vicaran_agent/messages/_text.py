"""What a message is: its English text, or (one, other) for a message that counts."""

from __future__ import annotations

Text = str | tuple[str, str]
