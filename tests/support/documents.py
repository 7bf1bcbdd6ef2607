"""Test documents, generated: text PDFs (fpdf2), page images and scans (Pillow), DOCX (python-docx).

Text PDFs use a core font (Windows-1252 text: Portuguese and English) and place lines without
layout work, so thousands of pages take about a second. Every figure and fact is fictional.
"""

from __future__ import annotations

import io
import os
import random
import textwrap
import zipfile
from collections.abc import Sequence
from pathlib import Path

import docx
import pytest
from fpdf import FPDF
from lxml import etree
from PIL import Image, ImageDraw, ImageFont

LINE_CHARS = 95  # characters per line at FONT_SIZE on an A4 page
LINES_PER_PAGE = 54
FONT_SIZE = 10
_TOP_MM, _LEFT_MM, _LINE_MM = 18.0, 15.0, 4.9

PAGE_BREAK = "\f"  # in docx_file's paragraphs: a hard page break

# The 30-page PDF: one distinctive fact, on page 17 only.
FACT_PAGE = 17
THIRTY_PAGE_FACT = "Inspectors counted 4,812 burst water mains in Riverton during 2023."

# The reference chain: doc A cites the contract (doc B), which sends to its annex (doc C),
# whose page 2 holds the figure that decides the claim.
CHAIN_FIGURE = "R$ 4.870.000,00"
CHAIN_FIGURE_PAGE = 2
CHAIN_CLAIM = "The hospital's 2024 medicine contract 002/2024 was worth R$ 4.87 million"
CHAIN_TITLES = {
    "A": "Relatório de Auditoria nº 17/2024 - Hospital Regional de Santa Luzia",
    "B": "Contrato nº 002/2024",
    "C": "Anexo II - Planilha de preços do Contrato nº 002/2024",
}
CHAIN_FILES = {
    "A": "relatorio_auditoria_17_2024.docx",
    "B": "contrato_002_2024.pdf",
    "C": "anexo_ii_planilha.pdf",
}


def text_pdf(path: Path, pages: list[str], title: str | None = None) -> Path:
    """A PDF with a text layer: one page per string (paragraphs on "\\n"), metadata `title`."""
    pdf = _pdf(pages, title)
    pdf.output(str(path))
    return Path(path)


def encrypted_pdf(path: Path, user_password: str = "segredo") -> Path:
    """A PDF that opens only with a password."""
    pdf = _pdf(["Confidential: the minutes of the board meeting."], "Board minutes")
    pdf.set_encryption(owner_password="owner-" + user_password, user_password=user_password)
    pdf.output(str(path))
    return Path(path)


def thirty_page_pdf(path: Path) -> Path:
    """30 pages of an annual review; THIRTY_PAGE_FACT (one line) is on page FACT_PAGE only."""
    pages = [_filler(number, random.Random(number)) for number in range(1, 31)]
    pages[FACT_PAGE - 1] = pages[FACT_PAGE - 1] + "\n" + THIRTY_PAGE_FACT
    return text_pdf(path, pages, title="Riverton Water Utility - Annual Operations Review 2023")


def many_pages_pdf(path: Path, count: int, seed: int = 11) -> Path:
    """`count` pages of varied, page-sized text (~2,000 characters each), for the benchmark."""
    rng = random.Random(seed)
    pages = [_filler(number, rng, sentences=18) for number in range(1, count + 1)]
    return text_pdf(path, pages, title=f"Generated report of {count} pages")


def image_only_pdf(path: Path, text: str, copies: int = 1, stamp: str | None = None) -> Path:
    """A page that is a picture of `text` (large, clear type) with no text layer: a scan.

    `copies` such pages; `stamp`: a line of real text at the foot of each (as the electronic
    signature note that document systems print over scanned pages).
    """
    image = page_image(text)
    pdf = FPDF(format="A4")
    pdf.core_fonts_encoding = "windows-1252"
    pdf.set_font("Helvetica", size=8)
    for _ in range(copies):
        pdf.add_page()
        pdf.image(image, x=0, y=0, w=pdf.w, h=pdf.h)
        if stamp:
            pdf.text(_LEFT_MM, pdf.h - 8, stamp)
    pdf.output(str(path))
    return Path(path)


def require_tesseract() -> None:
    """Skip the test when `tesseract` is not installed; fail it instead under VICARAN_REQUIRE_OCR=1
    (CI installs it)."""
    from vicaran_agent.documents import ocr

    if ocr.find_tesseract() is None:
        reason = "tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-por)"
        if os.environ.get("VICARAN_REQUIRE_OCR") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


def page_image(text: str, mode: str = "L") -> Image.Image:
    """An A4 page at 200 dpi with `text` in large, clear type: a photographed or scanned page."""
    image = Image.new(mode, (1654, 2339), "white")
    draw = ImageDraw.Draw(image)
    font = _scan_font(56)
    y = 160
    for line in textwrap.wrap(text, 38):
        draw.text((140, y), line, fill="black", font=font)
        y += 90
    return image


def docx_file(
    path: Path,
    paragraphs: Sequence[str | Sequence[Sequence[str]]],
    title: str | None = None,
    heading: str | None = None,
) -> Path:
    """A Word file: `heading` (Heading 1) then `paragraphs` in order.

    An item is a paragraph, PAGE_BREAK (a hard page break) or a table (a list of rows of cells);
    `title` goes in the file's properties.
    """
    document = docx.Document()
    if title is not None:
        document.core_properties.title = title
    if heading is not None:
        document.add_heading(heading, level=1)
    for item in paragraphs:
        if item == PAGE_BREAK:
            document.add_page_break()
        elif isinstance(item, str):
            document.add_paragraph(item)
        else:
            rows = [list(row) for row in item]
            table = document.add_table(rows=len(rows), cols=max(len(row) for row in rows))
            for cells, row in zip(table.rows, rows, strict=True):
                for cell, value in zip(cells.cells, row, strict=False):
                    cell.text = value
    document.save(str(path))
    return Path(path)


def without_core_properties(path: Path) -> Path:
    """The Word file at `path` rewritten without `docProps/core.xml` (title, author, dates) and
    every mention of it, as some generators write packages; returns `path`."""
    core = "docProps/core.xml"
    with zipfile.ZipFile(path) as package:
        members = {info.filename: package.read(info) for info in package.infolist()}
    del members[core]
    for name, attribute in (("_rels/.rels", "Target"), ("[Content_Types].xml", "PartName")):
        root = etree.fromstring(members[name])
        for element in list(root):
            if element.get(attribute, "").lstrip("/") == core:
                root.remove(element)
        members[name] = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        for name, data in members.items():
            package.writestr(name, data)
    Path(path).write_bytes(buffer.getvalue())
    return Path(path)


def chain_documents(folder: Path) -> dict[str, Path]:
    """Doc A (an audit report) -> doc B (the contract) -> doc C (its annex: the figure, page 2)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    report = docx_file(
        folder / CHAIN_FILES["A"],
        [
            "A auditoria examinou as compras do Hospital Regional de Santa Luzia em 2024.",
            "A compra de medicamentos do hospital foi feita conforme o Contrato nº 002/2024, "
            "firmado com a Distribuidora Farmacêutica Vale Verde Ltda. após o Pregão "
            "Eletrônico nº 41/2023.",
            "Summary in English: the hospital's 2024 medicine purchase was made under a single "
            "contract (see Contrato 002/2024); its value is set out in the contract's annexes.",
            "A equipe recomenda publicar o contrato e seus anexos no portal da transparência.",
        ],
        title=CHAIN_TITLES["A"],
        heading=CHAIN_TITLES["A"],
    )
    contract = text_pdf(
        folder / CHAIN_FILES["B"],
        [
            "CONTRATO Nº 002/2024\n"
            "Contrato de fornecimento que entre si celebram o Hospital Regional de Santa Luzia "
            "e a Distribuidora Farmacêutica Vale Verde Ltda.\n"
            "CLÁUSULA PRIMEIRA - DO OBJETO: fornecimento parcelado de medicamentos da relação "
            "do Anexo I, pelo prazo de doze meses.\n"
            "CLÁUSULA SEGUNDA - DA ENTREGA: as entregas serão feitas no almoxarifado central, "
            "em até dez dias após cada pedido.\n"
            "CLÁUSULA TERCEIRA - DOS PREÇOS: os preços unitários e o valor global são os da "
            "planilha de preços, conforme Anexo II.",
            "CLÁUSULA QUARTA - DO PAGAMENTO: em até trinta dias após o atesto da nota fiscal.\n"
            "CLÁUSULA QUINTA - DA VIGÊNCIA: doze meses a partir da assinatura.\n"
            "Santa Luzia, 15 de janeiro de 2024.\n"
            "Diretora-Geral do Hospital Regional de Santa Luzia\n"
            "Representante legal da Distribuidora Farmacêutica Vale Verde Ltda.",
        ],
        title=CHAIN_TITLES["B"],
    )
    first, second = _price_table()
    annex = text_pdf(
        folder / CHAIN_FILES["C"],
        [
            "ANEXO II - PLANILHA DE PREÇOS\nItem | Descrição | Qtd. | Preço unitário | Total\n"
            + "\n".join(first),
            "ANEXO II - PLANILHA DE PREÇOS (continuação)\n"
            "Item | Descrição | Qtd. | Preço unitário | Total\n"
            + "\n".join(second)
            + f"\nVALOR GLOBAL: {CHAIN_FIGURE}",
        ],
        title=CHAIN_TITLES["C"],
    )
    return {"A": report, "B": contract, "C": annex}


def brl(value: float) -> str:
    """R$ 1.234,56 (Brazilian currency format)."""
    text = f"{value:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".")
    return f"R$ {text}"


# --- internals ---------------------------------------------------------------------------------

_DRUGS = [
    ("Dipirona 500 mg, comprimido", 240_000, 0.21),
    ("Amoxicilina 500 mg, cápsula", 180_000, 0.48),
    ("Omeprazol 20 mg, cápsula", 150_000, 0.19),
    ("Soro fisiológico 0,9%, 500 ml", 90_000, 4.35),
    ("Ceftriaxona 1 g, frasco-ampola", 60_000, 11.90),
    ("Insulina NPH 100 UI/ml, frasco", 20_000, 27.40),
    ("Enoxaparina 40 mg, seringa", 25_000, 18.75),
    ("Heparina 5.000 UI/ml, frasco", 12_000, 36.10),
    ("Midazolam 5 mg/ml, ampola", 30_000, 3.85),
    ("Propofol 10 mg/ml, frasco", 18_000, 14.20),
    ("Vancomicina 500 mg, frasco", 15_000, 16.30),
    ("Meropeném 1 g, frasco", 12_000, 42.60),
    ("Albumina humana 20%, frasco", 3_000, 189.00),
    ("Noradrenalina 2 mg/ml, ampola", 15_000, 9.70),
    ("Fentanil 50 mcg/ml, ampola", 20_000, 6.15),
]


def _price_table() -> tuple[list[str], list[str]]:
    """The annex's rows (page 1, page 2); their totals add up to CHAIN_FIGURE exactly."""
    rows, total = [], 0.0
    for item, (name, quantity, price) in enumerate(_DRUGS, start=1):
        line_total = round(quantity * price, 2)
        total += line_total
        quantity_text = f"{quantity:,}".replace(",", ".")
        rows.append(f"{item:02d} | {name} | {quantity_text} | {brl(price)} | {brl(line_total)}")
    rest = round(4_870_000.00 - total, 2)
    assert rest > 0, "the drugs add up to more than the contract"
    rows.append(f"{len(_DRUGS) + 1:02d} | Materiais médico-hospitalares, lote | 1 | {brl(rest)}")
    return rows[:9], rows[9:]


_TOPICS = [
    "staffing and overtime at the pumping stations",
    "the training calendar for field crews",
    "procurement of meters and valves",
    "customer complaints about billing",
    "the reservoir level monitoring programme",
    "energy use at the treatment plant",
    "the fleet of service vehicles",
    "laboratory sampling of drinking water",
    "the capital works schedule for the northern district",
    "the audit committee's recommendations",
]
_VOCABULARY = (
    "review budget schedule district crew station meter valve reservoir treatment plant "
    "supply demand contract tender audit report quarter target staff training safety "
    "inspection sample laboratory energy fleet vehicle invoice customer service network "
    "pressure pipeline upgrade maintenance programme committee council board finance "
    "revenue expense forecast risk compliance permit licence survey mapping data system"
)
_WORDS = _VOCABULARY.split()


def _filler(number: int, rng: random.Random, sentences: int = 12) -> str:
    """A page of plausible, varied report text that names its page and never the 30-page fact."""
    topic = _TOPICS[number % len(_TOPICS)]
    lines = [f"Section {number}: {topic}."]
    for _ in range(sentences):
        words = rng.choices(_WORDS, k=rng.randint(10, 16))
        lines.append(" ".join(words).capitalize() + ".")
    return f"{lines[0]}\n" + " ".join(lines[1:])


def _pdf(pages: Sequence[str], title: str | None) -> FPDF:
    pdf = FPDF(format="A4")
    pdf.core_fonts_encoding = "windows-1252"  # what the core fonts' WinAnsiEncoding holds
    pdf.set_font("Helvetica", size=FONT_SIZE)
    if title:
        pdf.set_title(title)
    for number, text in enumerate(pages, start=1):
        lines = [
            wrapped
            for paragraph in text.split("\n")
            for wrapped in (textwrap.wrap(paragraph, LINE_CHARS) or [""])
        ]
        if len(lines) > LINES_PER_PAGE:
            raise ValueError(f"page {number} has {len(lines)} lines; a page holds {LINES_PER_PAGE}")
        pdf.add_page()
        for at, line in enumerate(lines):
            if line:
                pdf.text(_LEFT_MM, _TOP_MM + at * _LINE_MM, line)
    return pdf


def _scan_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans when the system has it (accents), else Pillow's own font (ASCII)."""
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default(size=size)
