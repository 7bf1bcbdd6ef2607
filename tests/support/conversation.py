"""Drive Vicaran through ADK's Runner, like a journalist in the dev UI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.adk.events import Event
from google.adk.plugins import BasePlugin
from google.adk.runners import InMemoryRunner
from google.genai import types

from vicaran_agent.agent import build_app


def text_of(event: Event) -> str:
    if not event.content or not event.content.parts:
        return ""
    return "".join(p.text or "" for p in event.content.parts if not p.thought)


class Conversation:
    """One session with a freshly built Vicaran app."""

    def __init__(self, plugins: Sequence[BasePlugin] = (), user_id: str = "journalist") -> None:
        self.user_id = user_id  # the ADK user: whose conversation this is
        self.app = build_app()
        if plugins:
            self.app = self.app.model_copy(update={"plugins": [*self.app.plugins, *plugins]})
        self.runner = InMemoryRunner(app=self.app)
        self.session_id: str | None = None
        self.events: list[Event] = []

    async def send(
        self,
        text: str,
        attachments: Sequence[types.Part] = (),
        state_delta: dict[str, Any] | None = None,
    ) -> list[Event]:
        """One message: its text, and files attached to it (`inline_data` parts, as the dev UI
        sends them); `state_delta` as a client may send it along (`/run_sse` "stateDelta")."""
        if self.session_id is None:
            session = await self.runner.session_service.create_session(
                app_name=self.app.name, user_id=self.user_id
            )
            self.session_id = session.id
        turn = []
        async for event in self.runner.run_async(
            user_id=self.user_id,
            session_id=self.session_id,
            state_delta=state_delta,
            new_message=types.Content(
                role="user", parts=([types.Part(text=text)] if text else []) + list(attachments)
            ),
        ):
            turn.append(event)
        self.events += turn
        return turn

    async def state(self) -> dict[str, Any]:
        session = await self.runner.session_service.get_session(
            app_name=self.app.name, user_id=self.user_id, session_id=self.session_id or ""
        )
        assert session is not None
        return dict(session.state)

    @staticmethod
    def texts(events: list[Event]) -> list[str]:
        return [t for t in (text_of(e) for e in events) if t]
