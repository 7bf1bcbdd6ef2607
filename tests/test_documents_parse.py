"""Reading the journalist's files locally: pages, titles, OCR, encodings, limits and clear errors."""

from __future__ import annotations

import hashlib
import io
import stat
import struct
import zipfile
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from tests.support import documents as gen
from vicaran_agent.config import Settings
from vicaran_agent.documents import ocr, pdf_files, word_files
from vicaran_agent.documents.characters import storable_text
from vicaran_agent.documents.model import DocumentError, ParsedDocument
from vicaran_agent.documents.parse import kind_of, parse_bytes, parse_file

SCAN_TEXT = "The hospital paid 1,234,567 reais for medicines in March 2024."


def settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[arg-type]


def page_numbers_with(parsed: ParsedDocument, text: str) -> list[int]:
    return [page.number for page in parsed.pages if text in " ".join(page.text.split())]


def fake_tesseract(folder: Path, body: str, languages: tuple[str, ...] = ("eng", "osd")) -> str:
    """A `tesseract` stand-in: lists `languages`, logs its arguments, keeps the image of the Nth
    page it is given as `page-N.pgm`, then runs `body`."""
    script = folder / "tesseract"
    listing = "\n".join(languages)
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--list-langs" ]; then\n'
        f"  printf 'List of available languages in \"/x\" ({len(languages)}):\\n{listing}\\n'\n"
        "  exit 0\n"
        "fi\n"
        f'echo "$@" >> "{folder}/arguments"\n'
        f'cat > "{folder}/page-$(wc -l < "{folder}/arguments").pgm"\n'  # the page it was given
        f"{body}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


# --- PDF ---------------------------------------------------------------------------------------


def test_thirty_page_pdf_has_the_fact_on_page_17_only(tmp_path: Path) -> None:
    parsed = parse_file(gen.thirty_page_pdf(tmp_path / "review.pdf"), settings())
    assert parsed.kind == "pdf"
    assert parsed.page_count == 30
    assert [page.number for page in parsed.pages] == list(range(1, 31))
    assert page_numbers_with(parsed, gen.THIRTY_PAGE_FACT) == [gen.FACT_PAGE] == [17]
    assert page_numbers_with(parsed, "4,812") == [17]
    assert (
        parsed.title
        == parsed.metadata_title
        == ("Riverton Water Utility - Annual Operations Review 2023")
    )
    assert parsed.first_heading.startswith("Section 1:")
    assert parsed.language == "en"
    assert parsed.unreadable == [] and parsed.ocr_pages == []


def test_pdf_identity_is_the_sha256_and_size_of_its_bytes(tmp_path: Path) -> None:
    path = gen.text_pdf(tmp_path / "one.pdf", ["Only page."])
    data = path.read_bytes()
    parsed = parse_bytes(data, "one.pdf", settings=settings())
    assert parsed.sha256 == hashlib.sha256(data).hexdigest()
    assert parsed.size_bytes == len(data)
    assert parsed.path == ""
    assert parse_file(path, settings()).path == str(path)


def test_pdf_without_metadata_title_is_titled_by_its_first_line_else_its_name(
    tmp_path: Path,
) -> None:
    titled = parse_file(gen.text_pdf(tmp_path / "a.pdf", ["Relatório Final\nTexto do relatório."]))
    assert (titled.metadata_title, titled.first_heading) == ("", "Relatório Final")
    assert titled.title == "Relatório Final"
    numbers_only = parse_file(gen.text_pdf(tmp_path / "planilha_2024.pdf", ["1.234 | 5.678"]))
    assert numbers_only.title == "planilha_2024"


def test_pdf_placeholder_metadata_titles_are_ignored(tmp_path: Path) -> None:
    path = gen.text_pdf(
        tmp_path / "x.pdf", ["Parecer Técnico 12\nTexto."], title="Microsoft Word - doc1.docx"
    )
    parsed = parse_file(path, settings())
    assert parsed.metadata_title == ""
    assert parsed.title == "Parecer Técnico 12"


def test_chain_documents_titles_and_the_decisive_figure_on_page_2_of_the_annex(
    tmp_path: Path,
) -> None:
    files = gen.chain_documents(tmp_path)
    parsed = {key: parse_file(path, settings()) for key, path in files.items()}
    assert {key: doc.title for key, doc in parsed.items()} == gen.CHAIN_TITLES
    assert parsed["A"].kind == "docx" and parsed["B"].kind == parsed["C"].kind == "pdf"
    assert all(doc.language == "pt-BR" for doc in parsed.values())
    assert page_numbers_with(parsed["C"], gen.CHAIN_FIGURE) == [gen.CHAIN_FIGURE_PAGE] == [2]
    assert not page_numbers_with(parsed["A"], gen.CHAIN_FIGURE)
    assert not page_numbers_with(parsed["B"], gen.CHAIN_FIGURE)
    assert page_numbers_with(parsed["A"], "conforme o Contrato nº 002/2024") == [1]
    assert page_numbers_with(parsed["A"], "see Contrato 002/2024") == [1]
    assert page_numbers_with(parsed["B"], "conforme Anexo II") == [1]


def test_blank_pdf_page_is_neither_read_nor_unreadable(tmp_path: Path) -> None:
    path = gen.text_pdf(tmp_path / "gap.pdf", ["First page.", "", "Third page."])
    parsed = parse_file(path, settings())
    assert parsed.page_count == 3
    assert [page.number for page in parsed.pages] == [1, 3]
    assert parsed.unreadable == []


# --- OCR ---------------------------------------------------------------------------------------


def test_scanned_page_is_read_by_ocr(tmp_path: Path) -> None:
    gen.require_tesseract()
    parsed = parse_file(gen.image_only_pdf(tmp_path / "scan.pdf", SCAN_TEXT), settings())
    assert parsed.ocr_pages == [1]
    assert parsed.unreadable == []
    text = " ".join(parsed.pages[0].text.split())
    assert "1,234,567" in text
    assert "medicines in March 2024" in text


def test_scanned_page_without_tesseract_is_unreadable_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ocr, "find_tesseract", lambda: None)
    path = gen.text_pdf(tmp_path / "mixed.pdf", ["A text page.", "Another.", "More."])
    scan = gen.image_only_pdf(tmp_path / "scan.pdf", SCAN_TEXT)
    parsed = parse_bytes(_join_pdfs(path, scan), "mixed.pdf", settings=settings())
    assert [page.number for page in parsed.pages] == [1, 2, 3]
    assert [page.number for page in parsed.unreadable] == [4]
    reason = parsed.unreadable[0].reason
    assert reason == (
        "page 4 is a scanned image and OCR is not installed: install tesseract-ocr "
        "(Debian: apt-get install tesseract-ocr tesseract-ocr-por)"
    )
    assert reason.said_in("pt-BR").startswith(  # type: ignore[attr-defined]
        "a página 4 é uma imagem digitalizada e o OCR não está instalado"
    )
    assert parsed.ocr_pages == []


def test_scan_with_a_line_of_real_text_still_counts_as_a_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ocr, "find_tesseract", lambda: None)
    stamp = "Documento assinado eletronicamente em 03/04/2024."
    path = gen.image_only_pdf(tmp_path / "signed.pdf", SCAN_TEXT, stamp=stamp)
    parsed = parse_file(path, settings())
    assert [page.number for page in parsed.unreadable] == [1]
    assert [page.text for page in parsed.pages] == [stamp]  # what text there is stays readable


def test_ocr_uses_the_configured_languages_that_are_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = fake_tesseract(tmp_path, "echo 'Texto lido'", languages=("eng", "osd", "por"))
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    scan = gen.image_only_pdf(tmp_path / "scan.pdf", SCAN_TEXT)
    parsed = parse_file(scan, settings(vicaran_ocr_languages="deu+por"))
    assert [page.text for page in parsed.pages] == ["Texto lido"]
    assert parsed.ocr_pages == [1]
    assert "-l por " in (tmp_path / "arguments").read_text()


def test_ocr_falls_back_to_the_installed_languages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = fake_tesseract(tmp_path, "echo 'Read'", languages=("eng", "osd"))
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    parse_file(
        gen.image_only_pdf(tmp_path / "s.pdf", SCAN_TEXT), settings(vicaran_ocr_languages="deu")
    )
    assert "-l eng " in (tmp_path / "arguments").read_text()


def test_ocr_that_hangs_is_stopped_and_the_rest_of_the_file_waits_no_longer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = fake_tesseract(tmp_path, "exec sleep 30")
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    monkeypatch.setattr(ocr, "PAGE_TIMEOUT_SECONDS", 0.5)
    scan = gen.image_only_pdf(tmp_path / "scans.pdf", SCAN_TEXT, copies=3)
    parsed = parse_file(scan, settings(vicaran_ocr_document_seconds=0.5))
    assert parsed.pages == [] and parsed.ocr_pages == []
    reasons = {page.number: str(page.reason) for page in parsed.unreadable}
    assert reasons[1] == "page 1 is a scanned image and OCR took longer than 1 s on it"
    assert reasons[3].startswith("page 3 is a scanned image and was not read: OCR of this file")
    assert (tmp_path / "arguments").read_text().count("\n") <= 2  # page 3 never went to OCR


def test_ocr_failure_and_empty_result_are_reasons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = fake_tesseract(tmp_path, r"printf 'Error: image\033 too small\n' >&2; exit 1")
    monkeypatch.setattr(ocr, "find_tesseract", lambda: failing)
    scan = gen.image_only_pdf(tmp_path / "scan.pdf", SCAN_TEXT)
    [unreadable] = parse_file(scan, settings()).unreadable
    assert unreadable.reason == (
        "page 1 is a scanned image and OCR failed on it (Error: image too small)"
    )
    silent = tmp_path / "silent"
    silent.mkdir()
    quiet = fake_tesseract(silent, "exit 0")
    monkeypatch.setattr(ocr, "find_tesseract", lambda: quiet)
    [unreadable] = parse_file(scan, settings()).unreadable
    assert unreadable.reason == "page 1 is an image in which OCR found no text"


# --- images: photographed and scanned pages ----------------------------------------------------


def image_bytes(image: Image.Image, image_format: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=image_format, **options)
    return buffer.getvalue()


def pages_given_to_ocr(folder: Path) -> list[Image.Image]:
    """The images the fake Tesseract in `folder` was given, in order."""
    count = len((folder / "arguments").read_text().splitlines())
    return [Image.open(folder / f"page-{n}.pgm") for n in range(1, count + 1)]


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that says it is `width` x `height` (1 bit a pixel) and holds almost no data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(("name", "image_format"), [("photo.png", "PNG"), ("photo.JPG", "JPEG")])
def test_a_photographed_page_is_one_page_read_by_ocr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, image_format: str
) -> None:
    binary = fake_tesseract(tmp_path, "echo 'Texto lido na foto'", languages=("eng", "por"))
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    data = image_bytes(gen.page_image(SCAN_TEXT, "RGB"), image_format)
    parsed = parse_bytes(data, name, settings=settings(vicaran_ocr_languages="por"))
    assert (parsed.kind, parsed.page_count, parsed.ocr_pages) == ("image", 1, [1])
    assert [(page.number, page.text) for page in parsed.pages] == [(1, "Texto lido na foto")]
    assert parsed.unreadable == [] and parsed.title == "Texto lido na foto"
    assert "-l por " in (tmp_path / "arguments").read_text()
    [page] = pages_given_to_ocr(tmp_path)
    assert (page.mode, page.size) == ("L", (1654, 2339))  # greyscale, full size


def test_a_nameless_attachment_is_recognised_as_an_image_by_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = fake_tesseract(tmp_path, "echo 'Lido'")
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    page = gen.page_image(SCAN_TEXT)
    for image_format in ("PNG", "JPEG", "TIFF"):
        data = image_bytes(page, image_format)
        parsed = parse_bytes(data, "", mime="application/octet-stream", settings=settings())
        assert (parsed.kind, [p.text for p in parsed.pages]) == ("image", ["Lido"])


def test_a_multi_page_tiff_is_a_page_per_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = f'echo "Frame $(wc -l < "{tmp_path}/arguments")"'
    monkeypatch.setattr(ocr, "find_tesseract", lambda: fake_tesseract(tmp_path, body))
    frames = [gen.page_image(f"Page {n}.").crop((0, 0, 1654, 2339 - 100 * n)) for n in (1, 2, 3)]
    data = image_bytes(frames[0], "TIFF", save_all=True, append_images=frames[1:])
    parsed = parse_bytes(data, "ata.tiff", settings=settings())
    assert (parsed.page_count, parsed.ocr_pages) == (3, [1, 2, 3])
    assert [(page.number, page.text) for page in parsed.pages] == [
        (1, "Frame 1"),
        (2, "Frame 2"),
        (3, "Frame 3"),
    ]
    assert [page.size for page in pages_given_to_ocr(tmp_path)] == [frame.size for frame in frames]


def test_a_tiff_with_more_frames_than_the_page_limit_is_refused_before_any_ocr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = fake_tesseract(tmp_path, "echo 'Read'")
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    frames = [gen.page_image(f"Page {n}.") for n in (1, 2, 3)]
    data = image_bytes(frames[0], "TIFF", save_all=True, append_images=frames[1:])
    with pytest.raises(DocumentError) as error:
        parse_bytes(data, "ata.tif", settings=settings(vicaran_document_max_pages=2))
    assert str(error.value).startswith("ata.tif has more than 2 pages, the limit")
    assert not (tmp_path / "arguments").exists()
    assert parse_bytes(data, "ata.tif", settings=settings(vicaran_document_max_pages=3)).pages


def test_an_image_without_tesseract_is_refused_with_the_reason_in_both_languages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ocr, "find_tesseract", lambda: None)
    with pytest.raises(DocumentError) as error:
        parse_bytes(image_bytes(gen.page_image(SCAN_TEXT), "PNG"), "photo.png", settings=settings())
    assert str(error.value) == (
        "photo.png is an image and OCR is not installed: install tesseract-ocr (Debian: apt-get "
        "install tesseract-ocr tesseract-ocr-por), then add it again."
    )
    assert error.value.said_in("pt-BR").startswith(
        "photo.png é uma imagem e o OCR não está instalado: instale o tesseract-ocr"
    )


def test_an_image_in_which_no_text_is_read_is_refused_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = (
        "wall.png is an image and no text was read from it: page 1 is an image in which OCR "
        "found no text."
    )
    for output in ("exit 0", r"printf '\001\033\n'"):  # nothing; nothing but controls
        binary = fake_tesseract(tmp_path, output)
        monkeypatch.setattr(ocr, "find_tesseract", lambda found=binary: found)
        with pytest.raises(DocumentError) as error:
            parse_bytes(image_bytes(gen.page_image(""), "PNG"), "wall.png", settings=settings())
        assert str(error.value) == expected


def test_image_frames_share_the_file_ocr_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (
        f'if [ "$(wc -l < "{tmp_path}/arguments")" -eq 1 ]; then echo First; else exec sleep 30; fi'
    )
    monkeypatch.setattr(ocr, "find_tesseract", lambda: fake_tesseract(tmp_path, body))
    monkeypatch.setattr(ocr, "PAGE_TIMEOUT_SECONDS", 0.5)
    frames = [gen.page_image(f"Page {n}.") for n in (1, 2, 3)]
    data = image_bytes(frames[0], "TIFF", save_all=True, append_images=frames[1:])
    parsed = parse_bytes(data, "scans.tiff", settings=settings(vicaran_ocr_document_seconds=0.5))
    assert [(page.number, page.text) for page in parsed.pages] == [(1, "First")]
    reasons = {page.number: str(page.reason) for page in parsed.unreadable}
    assert reasons[2] == "page 2 is a scanned image and OCR took longer than 1 s on it"
    assert reasons[3].startswith("page 3 is a scanned image and was not read: OCR of this file")
    assert len((tmp_path / "arguments").read_text().splitlines()) == 2


@pytest.mark.parametrize("size", [(8000, 6000), (20000, 20000)])  # ours; Pillow's bomb limit
def test_an_image_of_too_many_pixels_is_never_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    binary = fake_tesseract(tmp_path, "echo 'Read'")
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    with pytest.raises(DocumentError) as error:
        parse_bytes(png_header_only(*size), "mural.png", settings=settings())
    assert str(error.value) == (
        "mural.png is an image and no text was read from it: page 1 is an image of more than "
        "40 million pixels and was not read."
    )
    assert not (tmp_path / "arguments").exists()


def test_a_photo_of_more_pixels_than_the_limit_is_read_at_a_smaller_scale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = fake_tesseract(tmp_path, "echo 'Read'")
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    photo = Image.new("L", (8160, 6120), 255)  # a 50-megapixel phone camera's photo
    parsed = parse_bytes(image_bytes(photo, "JPEG"), "photo.jpg", settings=settings())
    assert parsed.ocr_pages == [1]
    [page] = pages_given_to_ocr(tmp_path)
    assert page.size == (4080, 3060)  # decoded at half the scale: within the limit


def test_a_photo_is_turned_upright_by_its_orientation_tag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = fake_tesseract(tmp_path, "echo 'Read'")
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    sideways = Image.new("L", (300, 100), 255)
    sideways.putpixel((0, 0), 0)
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: the camera was turned; shown rotated 90 degrees clockwise
    parse_bytes(image_bytes(sideways, "JPEG", exif=exif, quality=100), "p.jpg", settings=settings())
    [page] = pages_given_to_ocr(tmp_path)
    assert page.size == (100, 300)
    assert page.getpixel((99, 0)) < 128  # the dark corner went round with the page


@pytest.mark.parametrize("mode", ["RGBA", "LA", "I;16"])
def test_transparent_and_16_bit_pages_reach_ocr_as_dark_text_on_white(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    binary = fake_tesseract(tmp_path, "echo 'Read'")
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    if mode == "I;16":  # white 65535; the text a dark grey, far above 255
        image = Image.new(mode, (400, 200), 65535)
        ImageDraw.Draw(image).rectangle((50, 50, 150, 100), fill=12_000)
    else:  # nothing but the text drawn: the rest transparent black
        image = Image.new(mode, (400, 200), 0)
        ImageDraw.Draw(image).rectangle((50, 50, 150, 100), fill="black")
    parse_bytes(image_bytes(image, "PNG"), "page.png", settings=settings())
    [page] = pages_given_to_ocr(tmp_path)
    assert page.getpixel((300, 150)) == 255  # the background is white
    assert page.getpixel((100, 75)) < 64  # the text is dark


def test_a_damaged_image_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = fake_tesseract(tmp_path, "echo 'Read'")
    monkeypatch.setattr(ocr, "find_tesseract", lambda: binary)
    with pytest.raises(DocumentError) as error:
        parse_bytes(b"\x89PNG\r\n\x1a\n not an image", "scan.png", settings=settings())
    assert str(error.value).startswith(
        "scan.png is damaged or incomplete and cannot be read as PNG, JPEG or TIFF"
    )
    gif = image_bytes(gen.page_image(SCAN_TEXT), "GIF")  # no format Pillow opens for Vicaran
    with pytest.raises(DocumentError, match=r"^photo\.png is damaged or incomplete"):
        parse_bytes(gif, "photo.png", settings=settings())
    data = image_bytes(gen.page_image(SCAN_TEXT), "PNG")
    with pytest.raises(DocumentError) as error:
        parse_bytes(data[: len(data) // 2], "cut.png", settings=settings())
    assert str(error.value) == (
        "cut.png is an image and no text was read from it: page 1 is damaged and could not be read."
    )


# --- DOCX --------------------------------------------------------------------------------------


def test_docx_paragraphs_and_tables_in_order_with_title_and_heading(tmp_path: Path) -> None:
    path = gen.docx_file(
        tmp_path / "nota.docx",
        [
            "Primeiro parágrafo sobre a licitação.",
            [["Item", "Valor"], ["Dipirona", "R$ 50.400,00"]],
            "Último parágrafo.",
        ],
        title="Nota Técnica 4/2024",
        heading="Análise da licitação",
    )
    parsed = parse_file(path, settings())
    assert parsed.kind == "docx" and parsed.page_count == 1
    assert parsed.pages[0].text.split("\n") == [
        "Análise da licitação",
        "Primeiro parágrafo sobre a licitação.",
        "Item | Valor",
        "Dipirona | R$ 50.400,00",
        "Último parágrafo.",
    ]
    assert (parsed.metadata_title, parsed.first_heading) == (
        "Nota Técnica 4/2024",
        "Análise da licitação",
    )
    assert parsed.title == "Nota Técnica 4/2024"
    assert parsed.language == "pt-BR"


def test_docx_without_title_property_is_titled_by_its_first_heading(tmp_path: Path) -> None:
    path = gen.docx_file(tmp_path / "x.docx", ["Texto."], heading="Parecer 9")
    parsed = parse_file(path, settings())
    assert (parsed.metadata_title, parsed.title) == ("", "Parecer 9")


def test_docx_without_core_properties_has_no_title_of_python_docx_making(tmp_path: Path) -> None:
    # python-docx gives a package without docProps/core.xml the title "Word Document"
    # (CorePropertiesPart.default); that is no title of the file's
    headed = gen.docx_file(tmp_path / "parecer.docx", ["Texto."], heading="Parecer 9")
    parsed = parse_file(gen.without_core_properties(headed), settings())
    assert (parsed.metadata_title, parsed.title) == ("", "Parecer 9")
    plain = gen.docx_file(tmp_path / "ata_reuniao.docx", ["12 | 34"])
    parsed = parse_file(gen.without_core_properties(plain), settings())
    assert (parsed.metadata_title, parsed.title) == ("", "ata_reuniao")


def test_docx_saved_by_python_docx_with_its_made_up_title_has_no_title(tmp_path: Path) -> None:
    import docx

    path = gen.without_core_properties(gen.docx_file(tmp_path / "memo.docx", ["12 | 34"]))
    resaved = docx.Document(str(path))
    assert resaved.core_properties.author == ""  # reading them makes them up: saved with it
    resaved.save(str(path))
    assert parse_file(path, settings()).title == "memo"


def test_docx_pages_split_at_hard_page_breaks(tmp_path: Path) -> None:
    path = gen.docx_file(
        tmp_path / "p.docx", ["Page one.", gen.PAGE_BREAK, "Page two.", gen.PAGE_BREAK, "Three."]
    )
    parsed = parse_file(path, settings())
    assert parsed.page_count == 3
    assert [(page.number, page.text) for page in parsed.pages] == [
        (1, "Page one."),
        (2, "Page two."),
        (3, "Three."),
    ]


def test_docx_pages_are_numbered_as_word_last_laid_them_out(tmp_path: Path) -> None:
    import docx
    from docx.oxml import OxmlElement

    document = docx.Document()
    for text in ("One.", "Two.", "Three."):
        document.add_paragraph(text)
    document.add_page_break()  # a hard break Word laid out too: only its rendered mark counts
    document.add_paragraph("Four.")
    for paragraph in (document.paragraphs[1], document.paragraphs[-1]):
        paragraph.runs[0]._r.insert(0, OxmlElement("w:lastRenderedPageBreak"))
    document.save(str(tmp_path / "word.docx"))
    parsed = parse_file(tmp_path / "word.docx", settings())
    assert [(page.number, page.text) for page in parsed.pages] == [
        (1, "One."),
        (2, "Two.\nThree."),
        (3, "Four."),
    ]


def test_docx_text_box_nested_table_and_tab_stops_are_read_once(tmp_path: Path) -> None:
    import docx
    from docx.oxml import parse_xml

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    mc = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
    box = "<w:txbxContent><w:p><w:r><w:t>Caixa de texto</w:t></w:r></w:p></w:txbxContent>"
    document = docx.Document()
    paragraph = document.add_paragraph("Antes.")
    paragraph._p.append(
        parse_xml(
            f"<w:r {w} {mc}><mc:AlternateContent><mc:Choice Requires='wps'>{box}</mc:Choice>"
            f"<mc:Fallback>{box}</mc:Fallback></mc:AlternateContent></w:r>"
        )
    )
    tabbed = document.add_paragraph("Coluna\tvalor")
    tabbed._p.get_or_add_pPr().append(
        parse_xml(f"<w:tabs {w}><w:tab w:val='left' w:pos='2000'/></w:tabs>")
    )
    outer = document.add_table(rows=1, cols=2)
    outer.cell(0, 0).text = "Fora"
    outer.cell(0, 1).add_table(rows=1, cols=1).cell(0, 0).text = "Dentro"
    document.save(str(tmp_path / "word.docx"))
    text = parse_file(tmp_path / "word.docx", settings()).pages[0].text
    assert text.count("Caixa de texto") == 1
    assert "Coluna\tvalor" in text.split("\n")
    assert text.count("Dentro") == 1
    assert "Fora | Dentro" in text


def _zipped(name: str, size: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as package:
        package.writestr(name, b"\0" * size)
    return buffer.getvalue()


def test_docx_that_would_unpack_to_a_bomb_is_refused(tmp_path: Path) -> None:
    limit = settings().vicaran_document_max_unpacked_bytes
    with pytest.raises(DocumentError) as error:
        parse_bytes(_zipped("word/document.xml", limit + 1), "bomb.docx", settings=settings())
    assert str(error.value) == (
        "bomb.docx would unpack to more than 20 MB, far beyond an ordinary Word document: "
        "it was not opened."
    )
    # what python-docx makes no tree of (media) counts against the file size limit
    small = settings(vicaran_document_max_bytes=1_000_000)
    with pytest.raises(DocumentError, match=r"would unpack to more than 1 MB"):
        parse_bytes(_zipped("word/media/image1.png", 1_000_001), "photo.docx", settings=small)


def test_damaged_docx_is_a_clear_error(tmp_path: Path) -> None:
    path = gen.docx_file(tmp_path / "ok.docx", ["Texto."])
    with pytest.raises(DocumentError, match=r"^cut\.docx is damaged or incomplete .* as DOCX"):
        parse_bytes(path.read_bytes()[:-200], "cut.docx", settings=settings())
    not_word = io.BytesIO()
    with zipfile.ZipFile(not_word, "w") as package:
        package.writestr("hello.txt", "not a Word document")
    with pytest.raises(DocumentError, match=r"^odd\.docx is damaged or incomplete"):
        parse_bytes(not_word.getvalue(), "odd.docx", settings=settings())


# --- HTML, Markdown, text ----------------------------------------------------------------------


def test_html_main_text_title_and_heading(tmp_path: Path) -> None:
    html = (
        "<html><head><title>Relatório da CPI</title><script>var x = 1;</script></head><body>"
        "<nav><a href='/'>Início</a></nav><article><h1>Conclusões da comissão</h1>"
        + "<p>A comissão concluiu que os contratos de merenda foram superfaturados. </p>" * 4
        + "</article></body></html>"
    )
    path = tmp_path / "cpi.html"
    path.write_text(html, encoding="utf-8")
    parsed = parse_file(path, settings())
    assert parsed.kind == "html" and parsed.page_count == 1
    assert "contratos de merenda foram superfaturados" in parsed.pages[0].text
    assert "var x" not in parsed.pages[0].text
    assert (parsed.metadata_title, parsed.first_heading) == (
        "Relatório da CPI",
        "Conclusões da comissão",
    )
    assert parsed.title == "Relatório da CPI"


def test_html_in_a_declared_legacy_encoding(tmp_path: Path) -> None:
    html = (
        '<html><head><meta charset="iso-8859-1"><title>Licitação</title></head><body>'
        "<p>Prefeitura de São João: licitação de ônibus escolares sob investigação.</p>"
        "</body></html>"
    )
    parsed = parse_bytes(html.encode("latin-1"), "pagina.htm", settings=settings())
    assert "Prefeitura de São João" in parsed.pages[0].text
    assert parsed.title == "Licitação"


def test_markdown_first_heading_and_text(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "Intro line.\n\n```\n# not a heading in code\n```\n\n## Background\n\n"
        "# Field notes on the bridge contract\n\nThe bridge cost twice its budget.\n",
        encoding="utf-8",
    )
    parsed = parse_file(path, settings())
    assert parsed.kind == "markdown" and parsed.page_count == 1
    assert parsed.first_heading == "Field notes on the bridge contract"
    assert parsed.title == "Field notes on the bridge contract"
    assert "The bridge cost twice its budget." in parsed.pages[0].text


def test_latin1_text_file_decodes(tmp_path: Path) -> None:
    text = (
        "Relatório anual da Secretaria de Saúde de São José dos Campos.\n"
        "As ações de vacinação alcançaram 92% da população-alvo em março, "
        "segundo a coordenação de vigilância epidemiológica do município.\n"
    )
    path = tmp_path / "relatorio.txt"
    path.write_bytes(text.encode("latin-1"))
    parsed = parse_file(path, settings())
    assert parsed.pages[0].text == text
    assert parsed.first_heading == "Relatório anual da Secretaria de Saúde de São José dos Campos."
    assert parsed.language == "pt-BR"


def test_text_pages_split_at_form_feeds(tmp_path: Path) -> None:
    parsed = parse_bytes(b"first\fsecond\f\fthird\f", "out.txt", settings=settings())
    assert parsed.page_count == 4
    assert [(page.number, page.text) for page in parsed.pages] == [
        (1, "first"),
        (2, "second"),
        (4, "third"),
    ]


def test_binary_file_named_text_is_a_clear_error() -> None:
    data = bytes(range(256)) * 64
    with pytest.raises(DocumentError, match=r"^blob\.txt does not look like text"):
        parse_bytes(data, "blob.txt", settings=settings())


# --- characters no database or reader should get --------------------------------------------


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("scan\x00", "scan"),
        ("a\x01b\x08c\x0e\x1b[0m\x1fd\x7fe", "abc[0mde"),
        ("tab\tand\nline", "tab\tand\nline"),
        (
            "dos\r\nmac\rvt\x0bff\x0cnel\x85ls\u2028ps\u2029fs\x1cgs\x1drs\x1e",
            "dos\nmac\nvt\nff\nnel\nls\nps\nfs\ngs\nrs\n",
        ),
        ("c1\x80\x9b31m\x9f", "c131m"),
        ("non\ufffe\uffff\ufdd0\ufdef\U0001fffe\U0010ffff", "non"),
        ("lone\ud800 \udfff!", "lone !"),
        ("pair \ud83d\ude00", "pair \U0001f600"),
        ("Relatório São João ½ 中文 \U0001f600 \ufffd \u200b\u00a0", None),  # kept as it is
    ],
)
def test_only_characters_a_database_and_a_reader_take_are_kept(
    raw: str, stored: str | None
) -> None:
    assert storable_text(raw) == (raw if stored is None else stored)


def unwanted(text: str) -> list[str]:
    """The characters of `text` that no stored field may hold."""
    return [
        char
        for char in text
        if (ord(char) < 0x20 and char not in "\t\n")
        or 0x7F <= ord(char) <= 0x9F
        or 0xD800 <= ord(char) <= 0xDFFF
        or 0xFDD0 <= ord(char) <= 0xFDEF
        or ord(char) & 0xFFFE == 0xFFFE
    ]


def _docx_with_controls(path: Path) -> Path:
    # XML 1.0 holds no C0 control but tab and line ends; C1 controls it does hold
    return gen.docx_file(
        path,
        ["Texto\x85com\x80controles\x9b31m sobre a licitação da merenda."],
        title="Nota\x9fTécnica\x85 4/2024",
        heading="Parecer\x9b técnico",
    )


@pytest.mark.parametrize(
    ("name", "make"),
    [
        (
            "notes\x07.txt",
            lambda p: p.write_bytes(b"Title\x07 line\x1b[1m\r\nbody\x0bmore\xc2\x9b\x00"),
        ),
        (
            "notes.md",
            lambda p: p.write_bytes(b"# Head\x07ing\x1b[2J\n\nBody\x01 text\xef\xbf\xbe."),
        ),
        (
            "page.html",
            lambda p: p.write_bytes(
                b"<html><head><title>Rel\x07at\xc3\xb3rio\x1b</title></head><body><h1>Con\x1bclus"
                b"\xc3\xb5es</h1>"
                + b"<p>A comiss\xc3\xa3o\x01 concluiu\x7f que houve fraude.</p>" * 5
                + b"</body></html>"
            ),
        ),
        ("nota.docx", _docx_with_controls),
        (
            "scan.pdf",
            lambda p: gen.text_pdf(p, ["Relatório\x07 de\x1b auditoria."], title="scan\x00\x1b"),
        ),
    ],
)
def test_every_reader_hands_over_fields_without_such_characters(
    tmp_path: Path, name: str, make: object
) -> None:
    path = tmp_path / "file"
    make(path)  # type: ignore[operator]
    parsed = parse_bytes(path.read_bytes(), name, settings=settings())
    fields = [parsed.file_name, parsed.title, parsed.metadata_title, parsed.first_heading]
    fields += [page.text for page in parsed.pages]
    assert parsed.pages and parsed.title
    assert {field: unwanted(field) for field in fields if unwanted(field)} == {}


def test_a_title_that_was_only_a_placeholder_and_controls_is_no_title(tmp_path: Path) -> None:
    path = gen.text_pdf(tmp_path / "memo.pdf", ["12 | 34"], title="Untitled\x00")
    assert parse_file(path, settings()).title == "memo"


# --- kinds -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "mime", "kind"),
    [
        ("a.PDF", None, "pdf"),
        ("a.docx", None, "docx"),
        ("a.htm", None, "html"),
        ("a.markdown", None, "markdown"),
        ("a.txt", None, "text"),
        ("", "application/pdf", "pdf"),
        (
            "upload",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "docx",
        ),
        ("upload", "text/html; charset=utf-8", "html"),
        ("upload", "text/markdown", "markdown"),
        ("upload", "TEXT/PLAIN", "text"),
        ("notes.md", "text/plain", "markdown"),  # the name wins
        ("photo.jpg", "image/jpeg", "image"),
        ("scan.PNG", None, "image"),
        ("scan.jpeg", None, "image"),
        ("scan.tif", None, "image"),
        ("scan.tiff", None, "image"),
        ("upload", "image/png", "image"),
        ("upload", "image/jpeg", "image"),
        ("upload", "image/tiff", "image"),
        ("photo.heic", "image/heic", None),
        ("upload", "image/gif", None),
        ("upload", None, None),
    ],
)
def test_kind_of_names_and_mime_types(name: str, mime: str | None, kind: str | None) -> None:
    assert kind_of(name, mime) == kind


def test_nameless_attachment_is_recognised_by_its_bytes(tmp_path: Path) -> None:
    data = gen.text_pdf(tmp_path / "x.pdf", ["Anexo enviado pelo chat."]).read_bytes()
    parsed = parse_bytes(data, "", mime="application/octet-stream", settings=settings())
    assert parsed.kind == "pdf"
    assert parsed.pages[0].text == "Anexo enviado pelo chat."
    docx_data = gen.docx_file(tmp_path / "x.docx", ["Olá."]).read_bytes()
    assert parse_bytes(docx_data, "blob", settings=settings()).kind == "docx"


def test_unsupported_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "photo.heic"
    path.write_bytes(b"\x00\x00\x00\x18ftypheic not read")
    with pytest.raises(DocumentError) as error:
        parse_file(path, settings())
    assert str(error.value) == (
        "photo.heic: Vicaran cannot read this kind of file; it reads PDF, Word (DOCX), HTML, "
        "Markdown and plain-text files, and pages photographed or scanned as PNG, JPEG or TIFF "
        "images."
    )


# --- errors and limits -------------------------------------------------------------------------


def test_encrypted_pdf_is_a_clear_error_in_both_languages(tmp_path: Path) -> None:
    path = gen.encrypted_pdf(tmp_path / "ata.pdf")
    with pytest.raises(DocumentError) as error:
        parse_file(path, settings())
    assert str(error.value) == (
        "ata.pdf is protected by a password: open it, save a copy without the password and add "
        "that copy."
    )
    assert error.value.said_in("pt-BR").startswith("ata.pdf está protegido por senha")


@pytest.mark.parametrize("keep", [0.5, 0.1])
def test_truncated_pdf_is_a_clear_error(tmp_path: Path, keep: float) -> None:
    data = gen.thirty_page_pdf(tmp_path / "full.pdf").read_bytes()
    with pytest.raises(DocumentError) as error:
        parse_bytes(data[: int(len(data) * keep)], "cut.pdf", settings=settings())
    assert str(error.value).startswith("cut.pdf is damaged or incomplete and cannot be read as PDF")


def test_garbage_named_pdf_is_a_clear_error() -> None:
    with pytest.raises(DocumentError, match=r"^junk\.pdf is damaged or incomplete"):
        parse_bytes(b"this is not a PDF at all", "junk.pdf", settings=settings())
    with pytest.raises(DocumentError, match=r"^empty\.pdf is empty"):
        parse_bytes(b"", "empty.pdf", settings=settings())


def test_too_large_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 5_000)
    small = settings(vicaran_document_max_bytes=4_000)
    expected = (
        "big.txt is 5 KB, over the limit of 4 KB: split it into smaller files or raise "
        "VICARAN_DOCUMENT_MAX_BYTES."
    )
    with pytest.raises(DocumentError) as error:
        parse_file(path, small)
    assert str(error.value) == expected
    with pytest.raises(DocumentError) as error:
        parse_bytes(path.read_bytes(), "big.txt", settings=small)
    assert str(error.value) == expected
    assert parse_file(path, settings(vicaran_document_max_bytes=5_000)).size_bytes == 5_000


def test_too_many_pages_is_refused_before_any_page_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[int] = []
    real = pdf_files._read_pdf_page
    monkeypatch.setattr(
        pdf_files, "_read_pdf_page", lambda pdf, n, *rest: read.append(n) or real(pdf, n, *rest)
    )
    path = gen.thirty_page_pdf(tmp_path / "review.pdf")
    with pytest.raises(DocumentError) as error:
        parse_file(path, settings(vicaran_document_max_pages=29))
    assert str(error.value) == (
        "review.pdf has more than 29 pages, the limit: split it into smaller files or raise "
        "VICARAN_DOCUMENT_MAX_PAGES."
    )
    assert read == []
    assert parse_file(path, settings(vicaran_document_max_pages=30)).page_count == 30
    assert read == list(range(1, 31))


def test_docx_page_cap_stops_at_the_first_page_past_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[object] = []
    real = word_files._docx_paragraph
    monkeypatch.setattr(
        word_files, "_docx_paragraph", lambda p, rendered: seen.append(p) or real(p, rendered)
    )
    items: list[str] = []
    for number in range(1, 11):
        items += [f"Page {number}.", gen.PAGE_BREAK]
    path = gen.docx_file(tmp_path / "long.docx", items)
    with pytest.raises(DocumentError, match=r"^long\.docx has more than 3 pages, the limit"):
        parse_file(path, settings(vicaran_document_max_pages=3))
    assert len(seen) == 6  # three pages of text and their three breaks; nothing after
    assert parse_file(path, settings(vicaran_document_max_pages=11)).page_count == 11


def test_page_limit_message_agrees_with_a_limit_of_one(tmp_path: Path) -> None:
    with pytest.raises(DocumentError) as error:
        parse_bytes(b"one\ftwo", "two.txt", settings=settings(vicaran_document_max_pages=1))
    assert str(error.value).startswith("two.txt has more than 1 page, the limit")
    assert error.value.said_in("pt-BR").startswith("two.txt tem mais de 1 página, o limite")


def test_unreadable_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"^missing\.pdf could not be opened \("):
        parse_file(tmp_path / "missing.pdf", settings())


def _join_pdfs(*paths: Path) -> bytes:
    """The pages of several PDFs, in order, in one PDF (via PDFium)."""
    import pypdfium2 as pdfium

    joined = pdfium.PdfDocument.new()
    for path in paths:
        source = pdfium.PdfDocument(path.read_bytes())
        joined.import_pages(source)
    buffer = io.BytesIO()
    joined.save(buffer)
    return buffer.getvalue()
