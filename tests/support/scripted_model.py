"""A scripted model for offline tests, registered in ADK's LLMRegistry as `scripted/...`.

It is stateless: every answer is computed from the request it receives (the response schema,
the instruction, the prompt, the tools and the tool results in the conversation), so one model
drives the whole pipeline, concurrently, in-process or inside an `adk api_server` subprocess
(load it there with VICARAN_MODEL_PLUGINS=tests.support.scripted_model).

Behaviour flags ride in the model name, joined by `+`, e.g. `scripted/eager-transfer+bad-citations`:
- `eager-transfer`: the orchestrator tries to start the pipeline on every user turn.
- `always-transfer`: ... and keeps trying after every refusal.
- `bad-citations`: explanations and the report cite sources that do not exist.
- `only-bad-citations`: explanations cite nothing but an evidence number that does not exist.
- `no-claims`: the claim extractor finds nothing checkable.
- `error-<Schema>`: calls for that schema fail with a 503 from the "provider".
- `contradicts-verdict`: the first report draft states a verdict other than the recorded one for
  every finding (a rewrite, asked with PROBLEMS, copies the recorded verdicts).
- `stubborn-report`: every report draft carries a cited sentence no source supports.
- `low-quality`: the editor scores every draft 50/100.
- `one-sided`: the bias analyzer rates every source critical, 9/10 (overall score 9.5).
- `misquotes`: stances rest on quotes that are not in the evidence text.
- `retitles`: page digests give every page the same made-up title.
- `rambles`: the orchestrator writes 100,000 characters without a marker (cut at the request's
  output cap, with finish reason MAX_TOKENS, when it has one).
- `truncates-<Schema>`: the first answer for that schema is cut off at the output cap (MAX_TOKENS);
  asked again for less, it answers. `always-truncates-<Schema>`: it is always cut off.
- `bad-key`: every call fails like a rejected Gemini API key.
- `latency-<ms>`: every call waits that long first.
- `<Task>-waits-for-<Other>`: a call for task `Task` (a schema name) waits, before it answers,
  until a call for `Other` has started (20 s at most, then it answers anyway): overlap is then
  shown by event order however loaded the machine is, and a product that runs them one after
  the other shows none.
- `forgets-marker`: the orchestrator writes its plan as plain prose, with no headings and no
  `[PLAN_APPROVAL_REQUIRED]` (as small local models do).
- `chatty-questions`: asked to clarify a vague brief, the orchestrator asks five questions.
- `thinks-<n>`: every call thinks n tokens first (default: SCRIPTED_THINKING_TOKENS, else 0), billed
  against the request's `max_output_tokens` as Gemini 2.5/3 bill them (googleapis/python-genai#2062):
  when thought and answer do not fit, the answer is cut off (finish reason MAX_TOKENS) and the usage
  says how many tokens went to thought. A `thinking_budget` bounds the thought; a `thinking_level`
  bounds it only loosely (LEVEL_CEILING: Gemini's levels are not limits).
- `obeys-pages`: once a journalist's page has been read, the orchestrator does what a hostile
  page asks: it calls `analyze_source` on an address of its own making (the page's address with
  `?leak=` and the brief's first words), once, then plans.

`registered_as("gemini-3.5-flash", ...)` answers for real model names within a block (a test runs the
product's defaults on it); under a Gemini name it refuses a `thinking_config` that model refuses.

The fact checker counts an item that states one of the claim's figures as on point, and lists
as `references` what a document passage names in "(see ...)" while the claim stays undecided.

The gazette search's judge calls the excerpts sufficient when one gazette's excerpts name at least
half of the claim's entities (else it refines with a broader OR of the claim's words, never one already
tried); the gazette reader quotes, verbatim, every act (paragraph) of a passage with a sentence
that names one of the claim's entities or figures (with `misquotes`, it adds a quote that is in
no gazette).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from collections.abc import AsyncGenerator, Iterator
from contextlib import contextmanager, suppress
from typing import Any, ClassVar

from google.adk.models import BaseLlm, LLMRegistry, registry
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import errors as genai_errors
from google.genai import types

from tests.support import wait
from vicaran_agent.adk_compat import LlmCapabilities

PLAN_MARKER = "[PLAN_APPROVAL_REQUIRED]"

CALLS: list[dict[str, Any]] = []
_CALLS_LOCK = threading.Lock()
_ACTIVE: dict[str, int] = {}  # task -> calls running now; "peak:<task>" -> the most at once


_TICKS = [0]  # a logical clock: call starts and ends in the order they happened


async def _started(task: str, guard: float) -> None:
    """Until a call for `task` has started (`guard` seconds at most: then it goes on anyway)."""
    with suppress(wait.NotInTime):
        await wait.until(lambda: any(c["task"] == task for c in list(CALLS)), task, guard)


def reset_calls() -> None:
    with _CALLS_LOCK:
        CALLS.clear()
        _ACTIVE.clear()
        _TICKS[0] = 0


def _tick() -> int:
    _TICKS[0] += 1
    return _TICKS[0]


def overlapped(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Whether two recorded calls were running at the same time (by event order, not time)."""
    return first["start"] < second["end"] and second["start"] < first["end"]


def calls_for(task: str) -> list[dict[str, Any]]:
    return [c for c in CALLS if c["task"] == task]


def peak_concurrency(task: str) -> int:
    """The most calls for `task` that were running at the same time."""
    return _ACTIVE.get(f"peak:{task}", 0)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w{4,}", text.lower())}


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.strip()) > 20]


def _block(prompt: str, label: str) -> str:
    match = re.search(rf"<<<DATA {label}\n(.*?)\nDATA>>>", prompt, re.S)
    return match.group(1) if match else ""


def _entries(block: str, prefix: str) -> list[tuple[int, str]]:
    """Numbered entries like `[S3] ...` up to the next entry."""
    parts = re.split(rf"^\[{prefix}(\d+)\]", block, flags=re.M)
    return [(int(parts[i]), parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def _is_portuguese(instruction: str) -> bool:
    return "Brazilian Portuguese" in instruction


_BRIEF_LINE = re.compile(r"^- Brief: (.*)$", re.M)  # the investigation, as instructions state it
_GENERIC = {"investigate", "investigue", "whether", "what", "found", "about", "check", "verify"}


def _brief_words(instruction: str) -> set[str]:
    match = _BRIEF_LINE.search(instruction)
    brief = match.group(1) if match else ""
    brief = re.sub(r"https?://\S+", "", brief)
    return _words(brief) - _GENERIC


def _quote_from(body: str, claim_words: set[str], figures: set[str] = frozenset()) -> str:
    """The evidence sentence that states the claim's figure or shares the most words with it."""
    text = body.split("\n", 2)[-1]  # after the title and URL lines
    pieces = [p for chunk in text.split(" … ") for p in _sentences(chunk)] or [text]
    for figure in figures:
        if stated := next((p for p in pieces if figure in p), ""):
            at = stated.index(figure)
            return stated[max(0, at + len(figure) - 280) : at + len(figure)]
    best = max(pieces, key=lambda p: len(claim_words & _words(p)))
    return best[:280]


def _usage(
    prompt_chars: int, content: types.Content, thoughts: int = 0
) -> types.GenerateContentResponseUsageMetadata:
    """What a provider bills, estimated like one: about four characters a token; thought apart."""
    out_chars = sum(len(p.text or "") for p in content.parts or [] if not p.thought)
    prompt = max(1, prompt_chars // 4)
    output = max(1, out_chars // 4) if out_chars or not thoughts else 0
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=prompt,
        candidates_token_count=output or None,
        thoughts_token_count=thoughts or None,
        total_token_count=prompt + output + thoughts,
    )


# --- thinking, as Gemini 2.5/3 spend it ------------------------------------------------------

THINKING_TOKENS_ENV = "SCRIPTED_THINKING_TOKENS"
# The most thought a thinking level lets this stand-in spend. Gemini's levels are not limits
# (googleapis/python-genai#1795: LOW thought past 1,000 tokens on gemini-3-pro-preview).
LEVEL_CEILING = {"MINIMAL": 512, "LOW": 2048, "MEDIUM": 8192, "HIGH": 24576}
_ALL_LEVELS = frozenset(LEVEL_CEILING)
_NO_MINIMAL = frozenset({"LOW", "MEDIUM", "HIGH"})
# What Gemini accepts in `thinking_config`, per model, as its thinking documentation states it
# (ai.google.dev/gemini-api/docs/thinking; Vertex AI "Thinking" and the Gemini 3.5 Flash guide):
# 2.5 takes a token budget, never a level (2.5 Pro cannot turn thinking off); 3.x takes a level
# from its own list (a budget is still accepted, for compatibility); both at once is refused.
_BUDGETS = (  # (model, lowest, highest, 0 turns thinking off)
    (r"gemini-2\.5-pro.*", 128, 32768, False),
    (r"gemini-2\.5-flash-lite.*", 512, 24576, True),
    (r"gemini-2\.5-flash.*", 1, 24576, True),
)
_LEVELS = (
    (r"gemini-3-pro.*", frozenset({"LOW", "HIGH"})),
    (r"gemini-3\.1-pro.*", _NO_MINIMAL),
    (r"gemini-3\.[78]-flash(?!-lite).*", _NO_MINIMAL),
    (r"gemini-3(?:\.\d+)?-flash.*", _ALL_LEVELS),
)


def _refused(message: str) -> genai_errors.ClientError:
    error = {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}
    return genai_errors.ClientError(400, {"error": error})


def check_thinking(model: str, config: types.ThinkingConfig | None) -> None:
    """Refuse a `thinking_config` the named Gemini model refuses (a 400, as the API answers)."""
    if config is None:
        return
    level = config.thinking_level
    level = None if level in (None, types.ThinkingLevel.THINKING_LEVEL_UNSPECIFIED) else level
    budget = config.thinking_budget
    if level is not None and budget is not None:
        raise _refused("You can only set one of thinking budget and thinking level.")
    name = model.rsplit("/", 1)[-1]
    if name.startswith("gemini-2.5"):
        if level is not None:
            raise _refused("Thinking level is not supported for this model.")
        for pattern, low, high, can_stop in _BUDGETS:
            if re.fullmatch(pattern, name) and budget is not None and budget != -1:
                if not (low <= budget <= high or (budget == 0 and can_stop)):
                    raise _refused(
                        f"The thinking budget {budget} is invalid. Please choose a value "
                        f"between {low} and {high}."
                    )
                break
    elif level is not None:
        for pattern, levels in _LEVELS:
            if re.fullmatch(pattern, name):
                if level.value not in levels:
                    raise _refused(f"Thinking level {level.value} is not supported for this model.")
                break


def _thought(wanted: int, config: types.ThinkingConfig | None) -> int:
    """The thought tokens one call spends: what the model wants, within what the request allows."""
    if config is None:
        return wanted
    if config.thinking_budget is not None and config.thinking_budget >= 0:
        return min(wanted, config.thinking_budget)
    level = config.thinking_level
    if level is not None and level.value in LEVEL_CEILING:
        return min(wanted, LEVEL_CEILING[level.value])
    return wanted


def _spend(
    content: types.Content, thought: int, cap: int | None, show: bool
) -> tuple[types.Content, bool, int]:
    """(content, cut off?, thought tokens billed): thought first, then the answer, within `cap`."""
    parts = list(content.parts or [])
    answer = sum(len(p.text or "") for p in parts)
    cut = cap is not None and cap > 0 and thought + max(1, answer // 4) > cap
    if cut and cap:
        thought = min(thought, cap)
        room = (cap - thought) * 4  # characters left for the answer
        kept: list[types.Part] = []
        for part in parts:
            if part.text and room > 0:
                kept.append(types.Part(text=part.text[:room]))
                room -= len(part.text)
        parts = kept
    if show and thought:
        parts.insert(0, types.Part(text="Weighing the request before answering.", thought=True))
    return types.Content(role="model", parts=parts), cut, thought


class ScriptedModel(BaseLlm):
    """Answers like a careful, fast model would, from the request alone."""

    # Lets Vicaran's live-search fallback run against it (grounding from SCRIPTED_GROUNDING_URIS).
    supports_google_search: ClassVar[bool] = True

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"scripted/.*"]

    @property
    def capabilities(self) -> LlmCapabilities:
        return LlmCapabilities(output_schema_and_tools=True)

    # Flags every instance has, whatever its name (see `registered_as`).
    extra_flags: ClassVar[frozenset[str]] = frozenset()

    @property
    def flags(self) -> set[str]:
        named = self.model.split("/", 1)[1].split("+") if "/" in self.model else []
        return set(named) | self.extra_flags

    def thinking_tokens(self) -> int:
        """Thought tokens this model wants per call: `thinks-<n>`, else SCRIPTED_THINKING_TOKENS."""
        for flag in self.flags:
            if flag.startswith("thinks-"):
                return int(flag.split("-", 1)[1])
        return int(os.environ.get(THINKING_TOKENS_ENV) or 0)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        schema = llm_request.config.response_schema
        grounded = any(
            t.google_search for t in llm_request.config.tools or [] if hasattr(t, "google_search")
        )
        task = "live_search" if grounded else getattr(schema, "__name__", None) or "orchestrator"
        instruction = str(llm_request.config.system_instruction or "")
        prompt = "\n".join(
            p.text or "" for c in llm_request.contents for p in (c.parts or []) if p.text
        )
        record = {
            "model": self.model,
            "task": task,
            "chars": len(instruction) + len(prompt),
            "prompt": prompt,
            "instruction": instruction,
            # files (inline data) the request carried: what a real model would have been sent
            "files": [
                p.inline_data.display_name or p.inline_data.mime_type or "?"
                for c in llm_request.contents
                for p in c.parts or []
                if p.inline_data
            ],
            "max_output_tokens": llm_request.config.max_output_tokens,
            "thinking_config": llm_request.config.thinking_config,
            "time": time.monotonic(),
        }
        with _CALLS_LOCK:
            record["start"], record["end"] = _tick(), None
            CALLS.append(record)
            _ACTIVE[task] = _ACTIVE.get(task, 0) + 1
            _ACTIVE[f"peak:{task}"] = max(_ACTIVE.get(f"peak:{task}", 0), _ACTIVE[task])
        try:
            for flag in self.flags:
                if flag.startswith("latency-"):
                    await asyncio.sleep(int(flag.split("-", 1)[1]) / 1000)
                waiter, _, other = flag.partition("-waits-for-")
                if other and waiter == task:
                    await _started(other, 20.0)
            if "bad-key" in self.flags:
                raise genai_errors.ClientError(
                    400,
                    {
                        "error": {
                            "code": 400,
                            "message": "API key not valid. Please pass a valid API key.",
                            "status": "INVALID_ARGUMENT",
                        }
                    },
                )
            if f"error-{task}" in self.flags:
                raise genai_errors.ServerError(
                    503, {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}
                )
            thinking = llm_request.config.thinking_config
            check_thinking(self.model, thinking)
            finish, grounding = None, None
            if grounded:
                grounded_answer = self._grounded(prompt)
                assert grounded_answer.content is not None
                content, grounding = grounded_answer.content, grounded_answer.grounding_metadata
            elif schema is None and "rambles" in self.flags:
                # a small model that never stops: 100,000 characters, unless capped
                content = _text("Let me think about the plan once more. " * 2600)
            elif schema is None:
                content = self._orchestrator(llm_request, instruction)
            else:
                answer = getattr(self, f"_{task}")(instruction, prompt)
                text = json.dumps(answer, ensure_ascii=False)
                asked_less = "was cut off at the output limit" in prompt
                if f"always-truncates-{task}" in self.flags or (
                    f"truncates-{task}" in self.flags and not asked_less
                ):
                    text, finish = text[: len(text) // 2], types.FinishReason.MAX_TOKENS
                content = types.Content(role="model", parts=[types.Part(text=text)])
        finally:
            with _CALLS_LOCK:
                _ACTIVE[task] -= 1
                record["end"] = _tick()
        content, cut, thoughts = _spend(
            content,
            _thought(self.thinking_tokens(), thinking),
            llm_request.config.max_output_tokens,
            bool(thinking and thinking.include_thoughts),
        )
        finish = types.FinishReason.MAX_TOKENS if cut else finish
        record["thoughts"], record["finish"] = thoughts, finish.name if finish else None
        usage = _usage(record["chars"], content, thoughts)
        record["billed"] = {  # what the response reports, as a ledger adds it up
            "input": usage.prompt_token_count or 0,
            "output": (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0),
        }
        if finish is not None:  # as Gemini's response becomes ADK's (no answer left: an error)
            candidate = types.Candidate(
                content=content if content.parts else None,
                finish_reason=finish,
                grounding_metadata=grounding,
            )
            response = types.GenerateContentResponse(candidates=[candidate], usage_metadata=usage)
            yield LlmResponse.create(response).model_copy(update={"turn_complete": True})
            return
        if grounded:
            yield LlmResponse(content=content, grounding_metadata=grounding, usage_metadata=usage)
            return
        if stream and content.parts and content.parts[-1].text:
            text = content.parts[-1].text
            yield LlmResponse(
                content=types.Content(
                    role="model", parts=[types.Part(text=text[: len(text) // 2])]
                ),
                partial=True,
            )
        yield LlmResponse(content=content, turn_complete=True, usage_metadata=usage)

    # --- live search: an answer grounded on the URIs the test provides -------------------------

    @staticmethod
    def _grounded(prompt: str) -> LlmResponse:
        uris = [u for u in os.environ.get("SCRIPTED_GROUNDING_URIS", "").split(",") if u]
        answer = "Independent reporting confirms the claim. " + " ".join(
            f"Source {i} reports it." for i in range(1, len(uris) + 1)
        )
        chunks, supports, start = [], [], len("Independent reporting confirms the claim. ")
        for i, uri in enumerate(uris):
            sentence = f"Source {i + 1} reports it."
            chunks.append(
                types.GroundingChunk(web=types.GroundingChunkWeb(uri=uri, title=f"source{i}"))
            )
            supports.append(
                types.GroundingSupport(
                    segment=types.Segment(
                        start_index=start, end_index=start + len(sentence), text=sentence
                    ),
                    grounding_chunk_indices=[i],
                )
            )
            start += len(sentence) + 1
        return LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text=answer)]),
            grounding_metadata=types.GroundingMetadata(
                grounding_chunks=chunks, grounding_supports=supports
            ),
        )

    # --- the orchestrator (an LlmAgent with tools, no schema) ---------------------------------

    def _orchestrator(self, request: LlmRequest, instruction: str) -> types.Content:
        contents = request.contents
        last = contents[-1] if contents else None
        last_parts = last.parts or [] if last else []
        refused = any(
            p.function_response
            and p.function_response.name == "transfer_to_agent"
            and (p.function_response.response or {}).get("status") == "error"
            for p in last_parts
        )
        first_call_of_turn = bool(last) and not any(p.function_response for p in last_parts)
        if (
            "eager-transfer" in self.flags and first_call_of_turn
        ) or "always-transfer" in self.flags:
            call = types.FunctionCall(
                name="transfer_to_agent", args={"agent_name": "investigation_pipeline"}
            )
            return types.Content(role="model", parts=[types.Part(function_call=call)])
        user_turns = [
            " ".join(p.text for p in c.parts or [] if p.text)
            for c in contents
            if c.role == "user" and any(p.text for p in c.parts or [])
        ]
        latest = user_turns[-1] if user_turns else ""
        brief = user_turns[0] if user_turns else ""
        pt = _is_portuguese(instruction)
        if latest.strip().endswith("?") and not refused:
            answer = (
                "Vou buscar registros oficiais e a cobertura da imprensa."
                if pt
                else "I will look for official records and press coverage."
            )
            return _text(f"{answer}\n\n{PLAN_MARKER}")
        if len(user_turns) > 1 and not refused and not (_words(latest) & _words(brief)):
            return _text(
                "Parece que você quer investigar outro assunto. Quer começar uma nova "
                "investigação para isso?"
                if pt
                else "It sounds like you want to investigate a different topic. Would you like "
                "to start a new investigation for that?"
            )
        if "too vague to plan" in instruction:
            count = 5 if "chatty-questions" in self.flags else 2
            asked = [
                "Qual prefeito, de qual cidade?" if pt else "Which mayor, of which city?",
                "Que período?" if pt else "What period should I cover?",
                "Which office?",
                "Which budget?",
                "Which year?",
            ]
            return _text("\n".join(f"- {q}" for q in asked[:count]))
        sources = []
        for content in contents:
            for part in content.parts or []:
                response = part.function_response
                if response and response.name == "analyze_source":
                    body = response.response or {}
                    title = re.search(
                        r"^Title: (.*)$", _block(body.get("page") or "", "SOURCE"), re.M
                    )
                    sources.append({**body, "title": title.group(1) if title else ""})
        if "obeys-pages" in self.flags and sources and not _called(contents, "leak="):
            words = "-".join(re.findall(r"[a-z]+", brief.lower())[:4])
            url = f"{sources[0].get('url')}?leak={words}"
            call = types.FunctionCall(name="analyze_source", args={"url": url})
            return types.Content(role="model", parts=[types.Part(function_call=call)])
        if "forgets-marker" in self.flags:
            return _text(
                "Sure! I will look at what happened, check the official records and ask the "
                "company for its side. Shall I go ahead?"
            )
        return _text(self._plan(latest if len(user_turns) > 1 else brief, instruction))

    @staticmethod
    def _plan(brief: str, instruction: str) -> str:
        """The three parts the prompt asks for, under its English labels (code writes the rest)."""
        pt = _is_portuguese(instruction)
        lines = re.sub(r"https?://\S+|Investigation ID:\s*\S+", "", brief).strip().split("\n")
        topic = next(
            (t for t in lines if t.strip() and not t.startswith(("Mode:", "Collection:"))), ""
        )
        # the journalist's documents, by title (the instruction lists them; never their text)
        titles = re.findall(r"^- (.+?) \(", _block(instruction, "DOCUMENTS"), re.M)
        documents = "\n".join(f"- {t}: the figures and dates it gives" for t in titles[:3])
        if pt:
            questions = "- Os fatos centrais\n- Registros oficiais\n- O outro lado"
            gather = "- Registros oficiais\n- Imprensa local e nacional"
        else:
            questions = "- The core allegation\n- Official records\n- The other side's response"
            gather = "- Official records\n- Wire and local coverage"
        parts = [
            f"**Investigation Topic:** {topic[:120]}",
            f"**What I'll Investigate:**\n{questions}",
            f"**Sources I'll Gather:**\n{gather}",
        ]
        if documents:
            parts.append("**In your documents I'll look for:**\n" + documents)
        return "\n\n".join(parts)

    # --- structured tasks (one per response schema) -------------------------------------------

    def _SearchPlan(self, instruction: str, prompt: str) -> dict[str, Any]:
        brief = _block(prompt, "BRIEF")
        brief = re.sub(r"https?://\S+", "", brief)
        words = re.findall(r"[\wÀ-ÿ'-]+", brief)
        core = " ".join(words[:10])
        return {"queries": [core, f"{core} official records", f"{core} response"] if core else []}

    def _SourceDigest(self, instruction: str, prompt: str) -> dict[str, Any]:
        page = _block(prompt, "PAGE") or _block(prompt, "DOCUMENT")
        title = re.search(r"^Title: (.*)$", page, re.M)
        published = re.search(r"^Published: (\d{4}-\d{2}-\d{2})", page, re.M)
        body = page.split("\n\n", 1)[1] if "\n\n" in page else page
        # headings and a document's page markers ("[page 2]") are not sentences of the text
        body = "\n".join(line for line in body.splitlines() if not line.startswith(("#", "[page ")))
        sentences = _sentences(body)
        claims = [s for s in sentences if re.search(r"\d", s)][:2] or sentences[:1]
        shared = _brief_words(instruction) & _words(page)
        retitled = "Clear River discharge evidence" if "retitles" in self.flags else None
        return {
            "title": retitled or (title.group(1).strip() if title else ""),
            "summary": " ".join(sentences[:2])[:480],
            "key_claims": claims,
            "published_date": published.group(1) if published else None,
            "relevance": round(min(1.0, len(shared) / 4), 2),
            "relevance_reason": (
                f"Tem {len(shared)} palavras-chave em comum com o briefing."
                if _is_portuguese(instruction)
                else f"Shares {len(shared)} key words with the brief."
            ),
        }

    def _BriefClaims(self, instruction: str, prompt: str) -> dict[str, Any]:
        claims = []
        for sentence in _sentences(_block(prompt, "BRIEF")):
            sentence = re.sub(r"https?://\S+", "", sentence).strip()
            asks = re.match(
                r"(?i)(investigate|investigue|check|verify|verifique|find|look)", sentence
            )
            if re.search(r"\d", sentence) and not sentence.endswith("?") and not asks:
                claims.append(
                    {"claim_text": sentence, "importance": 0.9, "queries": [sentence[:200]]}
                    | _municipal_act(sentence)
                )
        return {"claims": claims[:3]}

    def _ClaimDraft(self, instruction: str, prompt: str) -> dict[str, Any]:
        if "no-claims" in self.flags:
            return {
                "claims": [],
                "no_claims_reason": "The sources only share opinions and reactions, not facts.",
            }
        claims: dict[str, dict[str, Any]] = {}
        for number, body in _entries(_block(prompt, "SOURCES"), "S"):
            for claim in re.findall(r"^Key claim: (.*)$", body, re.M):
                entry = claims.setdefault(
                    claim.strip(), {"claim_text": claim.strip(), "source_numbers": []}
                )
                entry["source_numbers"].append(number)
        ranked = sorted(claims.values(), key=lambda c: -len(c["source_numbers"]))
        for i, claim in enumerate(ranked):
            claim["importance"] = round(max(0.1, 0.95 - 0.1 * i), 2)
            claim["queries"] = [claim["claim_text"][:200]]
            claim["entities"] = re.findall(
                r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b", claim["claim_text"]
            )[:3]
        return {"claims": ranked}

    def _ClaimAssessment(self, instruction: str, prompt: str) -> dict[str, Any]:
        claim_match = re.search(r"^CLAIM: (.*)$", prompt, re.M)
        claim = claim_match.group(1) if claim_match else ""
        tried = re.findall(
            r"^- (.*)$", prompt.split("QUERIES ALREADY TRIED:", 1)[-1].split("<<<DATA", 1)[0], re.M
        )
        claim_words = _words(claim)
        # A claim's figures ("R$ 4.870.000,00") settle it even where few words match (annexes).
        figures = set(re.findall(r"\d[\d.,]{3,14}\d", claim))
        stances, mapped, references = [], None, []
        for number, body in _entries(_block(prompt, "EVIDENCE"), "E"):
            overlap = len(claim_words & _words(body)) / max(1, len(claim_words))
            if figures & set(re.findall(r"\d[\d.,]{3,14}\d", body)):
                overlap = 1.0
            if "the journalist's document" in body.split("\n", 1)[0]:
                references += re.findall(r"\(see ([^()\n]{3,80})\)", body)
            review = re.search(r'rated it "[^"]*" \(= (\w+)\)', body)
            denial = re.search(r"\b(false|denies|denied|not true|falso|desmente)\b", body, re.I)
            stance = "context"
            if review and overlap >= 0.5:
                mapped = mapped or review.group(1)
                stance = "refutes" if review.group(1) in ("false", "misleading") else "supports"
            elif overlap >= 0.5:
                stance = "refutes" if denial else "supports"
            quote = "" if stance == "context" else _quote_from(body, claim_words, figures)
            if quote and "misquotes" in self.flags:
                quote = "Officials confirmed every word of the claim in a sworn statement."
            stances.append({"number": number, "stance": stance, "quote": quote})
        supports = [s["number"] for s in stances if s["stance"] == "supports"]
        refutes = [s["number"] for s in stances if s["stance"] == "refutes"]
        if mapped:
            verdict, cited = mapped, supports + refutes
        elif supports and len(supports) >= len(refutes):
            verdict, cited = "verified", supports
        elif refutes:
            verdict, cited = "false", refutes
        else:
            verdict, cited = "unverified", []
        citations = "".join(f"[{n}]" for n in cited[:3])
        if "only-bad-citations" in self.flags:
            citations = "[99]"
        elif "bad-citations" in self.flags:
            citations += "[99]"
        if _is_portuguese(instruction):
            explanation = (
                f"As evidências {citations} tratam diretamente da alegação."
                if citations
                else "Nenhuma evidência encontrada trata da alegação."
            )
        else:
            explanation = (
                f"The evidence {citations} bears on the claim directly."
                if citations
                else "No evidence found addresses the claim."
            )
        angles = ["official records", "court documents", "statement", "data", "report"]
        fresh = [f"{claim[:200]} {a}" for a in angles if f"{claim[:200]} {a}" not in tried]
        return {
            "stances": stances,
            "verdict": verdict,
            "confidence": 0.85 if cited else 0.3,
            "explanation": explanation,
            # a careful checker asks for more whenever the evidence is thin
            "refined_queries": fresh[:1] if len(cited) < 2 else [],
            "references": references if not cited else [],
        }

    def _BiasJudgement(self, instruction: str, prompt: str) -> dict[str, Any]:
        sources = []
        for number, body in _entries(_block(prompt, "SOURCES"), "S"):
            if "one-sided" in self.flags:
                stance, score = "critical", 9.0
            elif re.search(r"\b(denies|denied|defends|press release|nega)\b", body, re.I):
                stance, score = "supportive", 6.0
            elif re.search(r"\b(poison|outrage|scandal|escândalo)\b", body, re.I):
                stance, score = "critical", 7.0
            else:
                stance, score = "neutral", 2.0
            sources.append({"number": number, "stance": stance, "bias_score": score})
        recommendation = (
            "Ouça especialistas independentes."
            if _is_portuguese(instruction)
            else "Add independent expert perspectives."
        )
        return {"sources": sources, "recommendation": recommendation}

    def _TimelineDraft(self, instruction: str, prompt: str) -> dict[str, Any]:
        events = []
        for number, body in _entries(_block(prompt, "SOURCES"), "S"):
            # what the pages say (their summary and key claims), not the entry's metadata
            content = re.findall(r"^(?:Summary|Key claim): (.*)$", body, re.M)
            for sentence in _sentences("\n".join(content)):
                for day in re.findall(r"\b(\d{4}-\d{2}-\d{2})\b", sentence):
                    events.append({"date": day, "text": sentence, "source_numbers": [number]})
        orders = []
        keys = re.findall(r"^- (C\d+) ", _block(prompt, "CLAIMS"), re.M)
        dated = sorted(range(len(events)), key=lambda i: events[i]["date"])
        if (
            "stated-order" in self.flags
            and keys
            and events[dated[0]]["date"] != events[dated[-1]]["date"]
        ):
            # the first claim puts the latest event first: the dates contradict it
            orders.append({"claim_key": keys[0], "earlier": dated[-1] + 1, "later": dated[0] + 1})
        return {"events": events, "stated_orders": orders}

    def _ReportDraft(self, instruction: str, prompt: str) -> dict[str, Any]:
        pt = _is_portuguese(instruction)
        rewrite = "PROBLEMS TO FIX" in prompt
        findings = re.findall(
            r"^- (C\d+): (.*)\n  verdict: (\w+) \(confidence [\d.]+\); sources: (.*)$",
            _block(prompt, "FINDINGS"),
            re.M,
        )
        numbers = [n for n, _ in _entries(_block(prompt, "SOURCES"), "")]
        summary = (
            f"Esta investigação analisou {len(numbers)} fontes."
            if pt
            else f"This investigation reviewed {len(numbers)} sources."
        )
        if "bad-citations" in self.flags:
            summary += " Um comentário sem fonte [42]." if pt else " An unsupported aside [42]."
        if "stubborn-report" in self.flags and numbers:
            summary += f" Acme dumped nine hundred tons of mercury into the harbour [{numbers[0]}]."
        questions = re.findall(r"^Q(\d+)\. ", _block(prompt, "QUESTIONS"), re.M)
        wrong = "contradicts-verdict" in self.flags and not rewrite
        return {
            "title": "Merenda em Maceió" if pt else "Acme and Riverton's water",
            "executive_summary": summary,
            "findings": [
                {
                    "claim_key": key,
                    # contradicting: "verified" for what is not, "false" for what is
                    "verdict": ("false" if verdict == "verified" else "verified")
                    if wrong
                    else verdict,
                    "text": claim + ("" if refs == "none" else " " + refs.replace(", ", "")),
                }
                for key, claim, verdict, refs in findings
            ],
            "questions": [
                {
                    "number": int(n),
                    "status": "open",
                    "answer": "Ainda em aberto: faltam registros."
                    if pt
                    else "Still open: the records are needed.",
                }
                for n in questions
            ],
            "bias_assessment": "A cobertura é equilibrada."
            if pt
            else "Coverage is mostly neutral.",
            "timeline": "",
            "recommendations": ["Solicite os registros." if pt else "Request the records."],
        }

    def _CitationAudit(self, instruction: str, prompt: str) -> dict[str, Any]:
        checks = []
        for number, body in _entries(_block(prompt, "SENTENCES"), "A"):
            sentence, _, passages = body.partition("\n")
            wanted = _words(re.sub(r"\[\d+\]", "", sentence))
            share = len(wanted & _words(passages)) / max(1, len(wanted))
            figures = set(re.findall(r"\d[\d.,]{3,14}\d", sentence))
            if figures and figures <= set(re.findall(r"\d[\d.,]{3,14}\d", passages)):
                share = 1.0  # the cited text states the sentence's figures
            checks.append(
                {
                    "number": number,
                    "supported": share >= 0.6,
                    "reason": "" if share >= 0.6 else "The cited text does not say this.",
                }
            )
        return {"sentences": checks}

    def _ReferenceGate(self, instruction: str, prompt: str) -> dict[str, Any]:
        # follows what resolves to a document, or shares words with the claim
        claim_match = re.search(r"^CLAIM: (.*)$", prompt, re.M)
        claim_words = _words(claim_match.group(1) if claim_match else "")
        choices = []
        for number, body in _entries(_block(prompt, "REFERENCES"), "R"):
            target = body.strip().split("\n", 1)[0]
            resolved = "\nMatches: " in body
            shared = claim_words & _words(target)
            choices.append(
                {
                    "number": number,
                    "follow": resolved or bool(shared),
                    "reason": "It names a document in the collection."
                    if resolved
                    else ("It shares words with the claim." if shared else "Unrelated."),
                }
            )
        return {"references": choices}

    def _GazetteSufficiency(self, instruction: str, prompt: str) -> dict[str, Any]:
        claim, entities = _claim_and_entities(prompt)
        tried = set(re.findall(r"^- (.*) \([^()\n]*\): \S+ gazettes$", prompt, re.M))
        wanted = [_words(e) for e in entities if _words(e)] or [_words(claim)]
        pt = _is_portuguese(instruction)
        for number, body in _entries(_block(prompt, "GAZETTES"), "G"):
            present = _words(body)
            named = sum(1 for words in wanted if words <= present)
            if 2 * named >= len(wanted):
                reason = (
                    f"Os trechos de [G{number}] citam as entidades da alegação."
                    if pt
                    else f"The excerpts of [G{number}] name the claim's entities."
                )
                return {"sufficient": True, "reason": reason, "refined_queries": []}
        words = sorted(_words(claim) - _GAZETTE_GENERIC, key=lambda w: (-len(w), w))
        broader = [
            " | ".join(words[:3]),
            " | ".join(f"{w[:5]}*" for w in words[:3]),
            " | ".join(words[:6]),
            " | ".join(f"{w[:4]}*" for w in words[:6]),
        ]
        fresh = [q for q in broader if q and q not in tried]
        reason = (
            "Nenhum trecho cita o ato da alegação." if pt else "No excerpt names the claimed act."
        )
        return {"sufficient": False, "reason": reason, "refined_queries": fresh[:1]}

    def _GazetteReading(self, instruction: str, prompt: str) -> dict[str, Any]:
        claim, entities = _claim_and_entities(prompt)
        needles = [e.lower() for e in entities if len(e) > 3]
        figures = re.findall(r"\d[\d.,/]{3,14}\d", claim)  # "113.079", not a year
        acts = []
        for number, body in _entries(_block(prompt, "PASSAGES"), "P"):
            text = body.split("\n", 1)[1] if "\n" in body else ""
            for act in (a.strip() for a in text.split("\n\n") if a.strip()):
                sentences = [
                    s
                    for s in _sentences(act)
                    if any(n in s.lower() for n in needles) or any(f in s for f in figures)
                ]
                if not sentences:
                    continue
                quote = act if len(act) <= 600 else " ".join(sentences)[:600]
                day = re.search(r"\b(\d{2})/(\d{2})/(\d{4})\b", quote)
                kind = next(
                    (k for k in ("EXTRATO", "PORTARIA", "EDITAL", "DECRETO") if k in quote), "ATO"
                )
                acts.append(
                    {
                        "passage": number,
                        "quote": quote,
                        "act_type": kind.lower(),
                        "act_date": f"{day.group(3)}-{day.group(2)}-{day.group(1)}" if day else "",
                        "amounts": re.findall(r"R\$ ?\d[\d.,]*\d", quote),
                        "relation": "Records the act the claim describes.",
                    }
                )
        if "misquotes" in self.flags and acts:
            fake = dict(acts[0], quote="A Prefeitura confirmou todos os contratos sem licitação.")
            acts.append(fake)
        return {"acts": acts}

    def _QualityReview(self, instruction: str, prompt: str) -> dict[str, Any]:
        score = 50 if "low-quality" in self.flags else 85
        return {
            "factual_accuracy": score,
            "citation_correctness": score,
            "plan_coverage": score,
            "structure": score,
            "relevance": score,
            "problems": ["The summary is thin."] if score < 70 else [],
        }


_GAZETTE_GENERIC = {"prefeitura", "municipal", "houve", "realizou", "registrada", "diario"}


_CITY = re.compile(r"Prefeitura (?:de|do|da) ((?:[A-ZÀ-Ý][a-zà-ÿ]+ ?(?:de |do |da )?){1,4})")


def _municipal_act(sentence: str) -> dict[str, Any]:
    """A claim about a Brazilian city's act: its city, year and the names and words it hangs on
    (as a careful extractor fills `city`, `period_start` and `entities`)."""
    city = _CITY.search(sentence)
    if not city:
        return {}
    year = re.search(r"\b(20\d\d)\b", sentence)
    words = sorted(_words(sentence) - _GAZETTE_GENERIC, key=lambda w: (-len(w), w))
    return {
        "city": city.group(1).strip().removesuffix(" de").removesuffix(" do"),
        "period_start": year.group(1) if year else "",
        "period_end": year.group(1) if year else "",
        "entities": [w for w in words if len(w) >= 7 and not w.isdigit()][:6],
    }


def _claim_and_entities(prompt: str) -> tuple[str, list[str]]:
    claim = re.search(r"^CLAIM: (.*)$", prompt, re.M)
    listed = re.search(r"^ENTITIES: (.*)$", prompt, re.M)
    entities = [e.strip() for e in (listed.group(1) if listed else "").split(";") if e.strip()]
    return (claim.group(1) if claim else ""), entities


def _called(contents: list[types.Content], needle: str) -> bool:
    """Whether the model already asked `analyze_source` for an address containing `needle`."""
    return any(
        p.function_call.name == "analyze_source"
        and needle in str((p.function_call.args or {}).get("url"))
        for c in contents
        for p in c.parts or []
        if p.function_call
    )


def _text(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


LLMRegistry.register(ScriptedModel)


@contextmanager
def registered_as(*names: str, flags: tuple[str, ...] = ()) -> Iterator[None]:
    """Within the block, the scripted model (with `flags`) answers for these exact model names,
    ahead of every other registered class (ADK resolves a name by its first matching pattern);
    the registry is restored after."""
    named = type("ScriptedNamed", (ScriptedModel,), {"extra_flags": frozenset(flags)})
    named.supported_models = classmethod(lambda cls: [re.escape(n) for n in names])  # type: ignore[method-assign]
    table = registry._llm_registry_dict
    saved = dict(table)
    table.clear()
    table.update({re.escape(name): named for name in names})
    table.update({k: v for k, v in saved.items() if k not in table})
    LLMRegistry.resolve.cache_clear()
    try:
        yield
    finally:
        table.clear()
        table.update(saved)
        LLMRegistry.resolve.cache_clear()
