"""Hostile documents cost their own file, never the process: parsers in capped worker processes,
and budgets (characters, passages, unpacked size, OCR pages and seconds) that match the bytes.

Whatever may blow up runs in a child process with a memory cap and a time guard
(`hostile.take_in_capped`), so that a parser running away takes down the child, not the test
run or the machine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import hostile

pytestmark = pytest.mark.timeout(300)

MEMO = b"# EPA memo\n\nInspectors found lead at 41 parts per billion in Riverton's water.\n"
PDF, DOCX, MARKDOWN = (
    "application/pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "text/markdown",
)


def write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def on_path(folder: Path) -> dict[str, str]:
    return {"PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"}


# --- a parser that runs away costs its file -------------------------------------------------


def test_self_drawing_pdfs_are_unreadable_and_the_memo_beside_them_is_indexed(env, tmp_path):
    files = [
        ("self-drawing.pdf", PDF, write(tmp_path, "a.pdf", hostile.self_drawing_pdf())),
        ("nested-forms.pdf", PDF, write(tmp_path, "b.pdf", hostile.nested_forms_pdf())),
        ("epa-memo.md", MARKDOWN, write(tmp_path, "memo.md", MEMO)),
    ]
    taken = hostile.take_in_capped([files], {})
    assert taken.returncode == 0, taken.output  # the process survived both
    records = taken.by_name()
    for bomb in ("self-drawing.pdf", "nested-forms.pdf"):
        assert records[bomb]["status"] == "unreadable"
        assert "VICARAN_PARSE_MEMORY_MB" in records[bomb]["reason"], records[bomb]["reason"]
    memo = records["epa-memo.md"]
    assert memo["status"] == "added" and memo["document"]["passages"] == 1


# --- budgets that match the bytes -------------------------------------------------------------


def test_a_pdf_of_pages_sharing_one_huge_stream_is_cut_at_the_character_budget(env, tmp_path):
    path = write(tmp_path, "one-stream.pdf", hostile.one_stream_pdf())
    limit = 1_000_000
    taken = hostile.take_in_capped(
        [[("one-stream.pdf", PDF, path)]], {"VICARAN_DOCUMENT_MAX_CHARS": str(limit)}
    )
    assert taken.returncode == 0, taken.output
    (record,) = taken.records
    document = record["document"]
    assert record["status"] == "added" and document["pages"] == 2000
    assert 0 < document["chars"] <= limit
    # the pages past the budget were never read: each says why, naming the setting
    cut = dict(document["unreadable"])
    assert len(cut) >= 1990 and 2000 in cut
    assert "VICARAN_DOCUMENT_MAX_CHARS" in cut[2000] and "not indexed" in cut[2000]


def test_the_passages_of_one_document_are_capped_too(env, tmp_path):
    path = write(tmp_path, "one-stream.pdf", hostile.one_stream_pdf(pages=40))
    taken = hostile.take_in_capped(
        [[("one-stream.pdf", PDF, path)]], {"VICARAN_DOCUMENT_MAX_PASSAGES": "500"}
    )
    assert taken.returncode == 0, taken.output
    (record,) = taken.records
    assert record["status"] == "added"
    assert 0 < record["document"]["passages"] <= 500
    reasons = dict(record["document"]["unreadable"])
    assert "VICARAN_DOCUMENT_MAX_PASSAGES" in reasons[40]


def test_a_docx_of_tiny_paragraphs_is_refused_before_it_is_unpacked(env, tmp_path):
    data = hostile.tiny_paragraphs_docx()
    assert len(data) < 300_000  # 277 KB that unpack to 95 MB
    path = write(tmp_path, "tiny.docx", data)
    taken = hostile.take_in_capped([[("tiny.docx", DOCX, path)]], {}, timeout=60)
    assert taken.returncode == 0, taken.output
    (record,) = taken.records
    assert record["status"] == "unreadable"
    assert "would unpack to more than 20 MB" in record["reason"], record["reason"]


def test_ocr_reads_at_most_the_document_page_budget(env, tmp_path):
    ocr = hostile.fake_tesseract(tmp_path / "ocr")
    path = write(tmp_path, "noise.pdf", hostile.noise_pdf(pages=12))
    taken = hostile.take_in_capped(
        [[("noise.pdf", PDF, path)]], {**on_path(ocr), "VICARAN_OCR_DOCUMENT_PAGES": "5"}
    )
    assert taken.returncode == 0, taken.output
    (record,) = taken.records
    assert hostile.ocr_calls(ocr) == 5
    assert record["document"]["ocr_pages"] == [1, 2, 3, 4, 5]
    reasons = dict(record["document"]["unreadable"])
    assert sorted(reasons) == list(range(6, 13))
    assert "VICARAN_OCR_DOCUMENT_PAGES" in reasons[12]


def test_ocr_of_an_investigations_attachments_shares_one_budget_across_turns(env, tmp_path):
    ocr = hostile.fake_tesseract(tmp_path / "ocr")
    first = [
        (f"scan-{n}.pdf", PDF, write(tmp_path, f"scan-{n}.pdf", hostile.noise_pdf(8, seed=n)))
        for n in (1, 2)
    ]
    later = [("scan-3.pdf", PDF, write(tmp_path, "scan-3.pdf", hostile.noise_pdf(3, seed=3)))]
    taken = hostile.take_in_capped(
        [first, later], {**on_path(ocr), "VICARAN_OCR_INVESTIGATION_PAGES": "6"}
    )
    assert taken.returncode == 0, taken.output
    assert hostile.ocr_calls(ocr) == 6  # over both turns and all three files
    records = taken.by_name()
    read = [len(records[f"scan-{n}.pdf"]["document"]["ocr_pages"]) for n in (1, 2, 3)]
    assert sum(read) == 6 and read[2] == 0
    reasons = dict(records["scan-3.pdf"]["document"]["unreadable"])
    assert "VICARAN_OCR_INVESTIGATION_PAGES" in reasons[1], reasons
    assert [r["ocr_pages"] for r in taken.records] == read  # what each file cost, recorded


def test_the_attachments_of_one_message_are_read_at_the_same_time(env, tmp_path):
    """A rendezvous: each scanned page waits until the other file's page is being read too;
    read one after the other, the first would wait in vain and say ALONE."""
    ocr = hostile.fake_tesseract(tmp_path / "ocr", text="Read together.", rendezvous=2)
    files = [
        (f"scan-{n}.pdf", PDF, write(tmp_path, f"scan-{n}.pdf", hostile.noise_pdf(1, seed=n)))
        for n in (1, 2)
    ]
    taken = hostile.take_in_capped([files], on_path(ocr))
    assert taken.returncode == 0, taken.output
    assert [r["status"] for r in taken.records] == ["added", "added"], taken.records
    assert hostile.ocr_calls(ocr) == 2
    store_text = [r["document"]["chars"] for r in taken.records]
    assert all(chars == len("Read together.") for chars in store_text), store_text


async def test_a_conversations_later_attachments_share_its_ocr_budget(env, tmp_path, monkeypatch):
    """Over the chat: what the first message's scans took is taken off the second's."""
    from google.genai import types

    from tests.support.conversation import Conversation
    from vicaran_agent import state_keys as keys
    from vicaran_agent.documents import ocr as ocr_module

    folder = hostile.fake_tesseract(tmp_path / "ocr")
    monkeypatch.setattr(ocr_module, "find_tesseract", lambda: str(folder / "tesseract"))
    env.set(VICARAN_OCR_INVESTIGATION_PAGES="4")

    def scan(name: str, seed: int) -> types.Part:
        data = hostile.noise_pdf(3, seed=seed)
        blob = types.Blob(data=data, mime_type=PDF, display_name=name)
        return types.Part(inline_data=blob)

    conversation = Conversation()
    await conversation.send("Investigate Acme's 2024 water contract.", [scan("a.pdf", 1)])
    await conversation.send("", [scan("b.pdf", 2)])
    assert hostile.ocr_calls(folder) == 4  # 3 pages, then 1 of the second file's 3
    state = await conversation.state()
    spent = [a["ocr_pages"] for a in state[keys.INVESTIGATION_DOCUMENTS]["attachments"]]
    assert spent == [3, 1]
