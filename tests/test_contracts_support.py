"""The contract-fixture loader reads the citation, status, headers and body of a recording."""

from __future__ import annotations

import httpx
import pytest

from tests.support import contracts


def test_a_recording_is_parsed_and_served(tmp_path, monkeypatch) -> None:
    service = tmp_path / "svc"
    service.mkdir()
    (service / "ok.http").write_bytes(
        b"# source: example/repo api.py (Model), 2026-07-15\n"
        b"HTTP/1.1 429 Too Many Requests\nRetry-After: 7\nContent-Type: application/json\n\n"
        b'{"detail": "slow down"}\n'
    )
    monkeypatch.setattr(contracts, "CONTRACTS", tmp_path)
    recorded = contracts.load("svc", "ok")
    assert recorded.sources == ("source: example/repo api.py (Model), 2026-07-15",)
    assert (recorded.status, recorded.header("retry-after")) == (429, "7")
    assert recorded.json() == {"detail": "slow down"}
    assert [r.name for r in contracts.every("svc")] == ["ok"]
    with contracts.serve(recorded) as server:
        answer = httpx.get(f"{server.url}/anything")
    assert (answer.status_code, answer.headers["retry-after"], answer.json()) == (
        429,
        "7",
        {"detail": "slow down"},
    )


def test_a_recording_without_a_citation_is_refused(tmp_path, monkeypatch) -> None:
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "bare.http").write_bytes(b"HTTP/1.1 200 OK\n\n{}\n")
    monkeypatch.setattr(contracts, "CONTRACTS", tmp_path)
    with pytest.raises(ValueError, match="cite"):
        contracts.load("svc", "bare")
