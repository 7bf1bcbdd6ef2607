"""A loopback fake of the Gemini API's `models.get` (what `vicaran doctor` asks; no tokens spent).

    with FakeGeminiModels(api_key="gemini-test") as fake:
        # GOOGLE_GEMINI_BASE_URL=fake.url: google-genai (and so ADK's Gemini) sends its calls here
        httpx.get(f"{fake.url}/v1beta/models/gemini-3.5-flash", headers={"x-goog-api-key": "..."})

The contract (Gemini API reference, "Method: models.get", `GET /v1beta/{name=models/*}`, and the
`Model` resource; google-genai 2.34 `models.py` sends `x-goog-api-key` and reads the camelCase
fields): 200 with the Model; the key from the `x-goog-api-key` header or the `key` parameter,
missing → 403 PERMISSION_DENIED, wrong → 400 INVALID_ARGUMENT with an `API_KEY_INVALID`
ErrorInfo; an unknown model → 404 NOT_FOUND; anything else → 404. Errors use Google's JSON error
envelope.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from tests.fakes.server import FakeServer, RecordedRequest, Response

DEFAULT_API_KEY = "gemini-test"
SERVICE = "generativelanguage.googleapis.com"
_JSON = "application/json; charset=UTF-8"


def model(name: str, *, input_tokens: int = 1_048_576, output_tokens: int = 65_536) -> dict:
    """A `Model` resource as models.get answers it (gemini-2.5-flash's shape)."""
    return {
        "name": f"models/{name}",
        "version": "001",
        "displayName": name.replace("-", " ").title(),
        "description": f"{name}, a test model.",
        "inputTokenLimit": input_tokens,
        "outputTokenLimit": output_tokens,
        "supportedGenerationMethods": [
            "generateContent",
            "countTokens",
            "createCachedContent",
            "batchGenerateContent",
        ],
        "temperature": 1,
        "topP": 0.95,
        "topK": 64,
        "maxTemperature": 2,
        "thinking": True,
    }


class FakeGeminiModels(FakeServer):
    """Answers `GET /v1beta/models/{model}` for the models it knows."""

    def __init__(
        self,
        models: list[str] | None = None,
        *,
        api_key: str = DEFAULT_API_KEY,
        latency: float = 0.0,
        clock: Any = None,
    ) -> None:
        super().__init__(latency=latency, clock=clock)
        names = models if models is not None else ["gemini-3.5-flash", "gemini-3.8-flash"]
        self.models = {name: model(name) for name in names}
        self.api_key = api_key

    def handle(self, request: RecordedRequest) -> Response:
        key = request.header("x-goog-api-key") or request.query.get("key", [""])[-1]
        if not key:
            return error(
                403,
                "Method doesn't allow unregistered callers (callers without established "
                "identity). Please use API Key or other form of API consumer identity to call "
                "this API.",
                "PERMISSION_DENIED",
            )
        if key != self.api_key:
            return error(
                400,
                "API key not valid. Please pass a valid API key.",
                "INVALID_ARGUMENT",
                reason="API_KEY_INVALID",
            )
        path = unquote(request.path)
        name = path.removeprefix("/v1beta/models/")
        if request.method != "GET" or name == path or "/" in name or ":" in name:
            return error(404, "Requested entity was not found.", "NOT_FOUND")
        found = self.models.get(name)
        if found is None:
            return error(
                404,
                f"models/{name} is not found for API version v1beta, or is not supported for "
                "GetModel. Call ListModels to see the list of available models and their "
                "supported methods.",
                "NOT_FOUND",
            )
        return Response(200, {"Content-Type": _JSON}, json.dumps(found, indent=2).encode())


def error(status: int, message: str, name: str, *, reason: str | None = None) -> Response:
    """Google's standard JSON error envelope."""
    body: dict[str, Any] = {"code": status, "message": message, "status": name}
    if reason:
        body["details"] = [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": reason,
                "domain": "googleapis.com",
                "metadata": {"service": SERVICE},
            }
        ]
    return Response(status, {"Content-Type": _JSON}, json.dumps({"error": body}).encode())
