"""PDFs (PDFium) and page images (Pillow): text per page, scanned pages to OCR, every page's
size and pixels checked before it is drawn or decoded.
"""

from __future__ import annotations

import io
import logging
import math
from itertools import islice
from typing import TYPE_CHECKING

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ..i18n import Phrase
from . import ocr
from .model import DocumentError, UnreadablePage

if TYPE_CHECKING:
    from PIL.Image import Image
from .content import (
    IMAGE_FORMATS,
    MAX_IMAGES_LOOKED_AT,
    MAX_PAGE_CHARS,
    MAX_RENDER_PIXELS,
    PDFIUM_LOCK,
    SCAN_IMAGE_SHARE,
    SCAN_TEXT_CHARS,
    Content,
    Limits,
    ReadContext,
    TextBudget,
    check_pages,
    clean_title,
    first_line,
    tidy,
)

logger = logging.getLogger(__name__)


def read_pdf_file(data: bytes, name: str, context: ReadContext) -> Content:
    with PDFIUM_LOCK:
        pdf = _open_pdf(data, name)
    try:
        with PDFIUM_LOCK:
            count = len(pdf)
            title = _pdf_title(pdf)
        if count == 0:
            raise DocumentError(Phrase("document_corrupt", name=name, kind="PDF"))
        check_pages(count, name, context.limits)
        content = Content(count, TextBudget(context.limits), metadata_title=title)
        for number in range(1, count + 1):
            if content.full:  # the pages left are not even loaded
                content.not_read(number, count)
                break
            _read_pdf_page(pdf, number, context.ocr, content)
    finally:
        with PDFIUM_LOCK:
            pdf.close()
    content.first_heading = first_line(content.pages[0].text) if content.pages else ""
    return content


def _open_pdf(data: bytes, name: str) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        if getattr(error, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
            raise DocumentError(Phrase("document_encrypted", name=name)) from None
        logger.debug("PDFium could not open %s: %s", name, error)
        raise DocumentError(Phrase("document_corrupt", name=name, kind="PDF")) from None


def _pdf_title(pdf: pdfium.PdfDocument) -> str:
    try:
        return clean_title(pdf.get_metadata_dict().get("Title", ""))
    except (pdfium.PdfiumError, ValueError):
        logger.debug("a PDF's metadata could not be read", exc_info=True)
        return ""


def _read_pdf_page(
    pdf: pdfium.PdfDocument, number: int, reader: ocr.PageReader, content: Content
) -> None:
    """One page's text into `content`; a scanned page goes through OCR."""
    with PDFIUM_LOCK:
        try:
            page = pdf[number - 1]
        except pdfium.PdfiumError:
            content.unreadable.append(UnreadablePage(number, Phrase("page_damaged", page=number)))
            return
        try:
            text = _pdf_text(page)
            scanned = _looks_scanned(page, text)
        except pdfium.PdfiumError:
            page.close()
            content.unreadable.append(UnreadablePage(number, Phrase("page_damaged", page=number)))
            return
    try:
        if scanned:
            try:
                text = tidy(reader.read(number, lambda: _render(page, number))) or text
                content.ocr_pages.append(number)
            except ocr.PageNotRead as why:
                content.unreadable.append(UnreadablePage(number, why.reason))
    finally:
        with PDFIUM_LOCK:
            page.close()
    content.add(number, text)


def _pdf_text(page: pdfium.PdfPage) -> str:
    textpage = page.get_textpage()
    try:
        count = min(textpage.count_chars(), MAX_PAGE_CHARS)
        return tidy(textpage.get_text_range(0, count)) if count > 0 else ""
    finally:
        textpage.close()


def _looks_scanned(page: pdfium.PdfPage, text: str) -> bool:
    """No text layer but something drawn, or little text over a page-sized image."""
    if len(text) >= SCAN_TEXT_CHARS:
        return False
    if not text.strip():
        return pdfium_c.FPDFPage_CountObjects(page.raw) > 0
    width, height = page.get_size()
    area = max(width * height, 1.0)
    images = page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=2)
    for image in islice(images, MAX_IMAGES_LOOKED_AT):
        left, bottom, right, top = image.get_bounds()
        if (right - left) * (top - bottom) >= SCAN_IMAGE_SHARE * area:
            return True
    return False


def _render(page: pdfium.PdfPage, number: int) -> Image:
    """The page drawn in greyscale for OCR, at DPI unless that would be too many pixels."""
    width, height = page.get_size()
    scale = ocr.DPI / 72
    pixels = max(width * height, 1.0) * scale * scale
    if pixels > MAX_RENDER_PIXELS:
        scale *= math.sqrt(MAX_RENDER_PIXELS / pixels)
    with PDFIUM_LOCK:
        try:
            return page.render(scale=scale, grayscale=True, may_draw_forms=True).to_pil()
        except pdfium.PdfiumError:
            raise ocr.PageNotRead(Phrase("page_damaged", page=number)) from None


def read_image_file(data: bytes, name: str, context: ReadContext) -> Content:
    """A photographed or scanned page read by OCR like a scanned PDF page: a PNG or JPEG is one
    page, a TIFF a page a frame. A file of which no page could be read is refused with why."""
    from PIL import Image as Pillow  # imported here, as python-docx is

    reader = context.ocr
    if not reader.binary:
        raise DocumentError(Phrase("document_image_ocr_missing", name=name))
    try:
        image = Pillow.open(io.BytesIO(data), formats=IMAGE_FORMATS)  # reads the header only
    except Pillow.DecompressionBombError:  # over Pillow's own limit (MAX_IMAGE_PIXELS)
        reason = _too_large(1)
        raise DocumentError(Phrase("document_image_unread", name=name, reason=reason)) from None
    except Exception:  # Pillow fails in many ways on damaged files
        logger.debug("Pillow could not open %s", name, exc_info=True)
        kinds = ", ".join(IMAGE_FORMATS[:-1]) + " or " + IMAGE_FORMATS[-1]
        raise DocumentError(Phrase("document_corrupt", name=name, kind=kinds)) from None
    with image:
        count = _frame_count(image, name, context.limits)
        content = Content(count, TextBudget(context.limits))
        for number in range(1, count + 1):
            if content.full:
                content.not_read(number, count)
                break
            _read_frame(image, number, reader, content)
    if not content.pages:  # then every page is unreadable, and says why
        reason = content.unreadable[0].reason
        raise DocumentError(Phrase("document_image_unread", name=name, reason=reason))
    content.first_heading = first_line(content.pages[0].text)
    return content


def _frame_count(image: Image, name: str, limits: Limits) -> int:
    """A page for each frame of a TIFF (counted no further than the page limit), else one."""
    if image.format != "TIFF":
        return 1  # an animated PNG's or a camera's extra JPEG frames are no pages
    count = 1
    while True:
        try:
            image.seek(count)
        except EOFError:
            return count
        except Exception:  # a damaged directory of frames: the frames before it are read
            logger.debug("a TIFF's frame %d could not be found", count + 1, exc_info=True)
            return count
        count += 1
        check_pages(count, name, limits)


def _read_frame(image: Image, number: int, reader: ocr.PageReader, content: Content) -> None:
    """One frame's text into `content`, by OCR."""
    try:
        text = tidy(reader.read(number, lambda: _page_picture(image, number)))
        if not text:
            raise ocr.PageNotRead(Phrase("page_ocr_no_text", page=number))
    except ocr.PageNotRead as why:
        content.unreadable.append(UnreadablePage(number, why.reason))
        return
    content.ocr_pages.append(number)
    content.add(number, text)


def _page_picture(image: Image, number: int) -> Image:
    """Frame `number` as OCR reads it: upright (by its orientation tag), dark on white, of at most
    MAX_RENDER_PIXELS (a JPEG is decoded at a smaller scale; another image is not decoded)."""
    from PIL import ImageOps

    try:
        image.seek(number - 1)
        width, height = image.size
        if width * height > MAX_RENDER_PIXELS and image.format in ("JPEG", "MPO"):
            # libjpeg decodes at 1/2, 1/4 or 1/8 of the size, at a fraction of the cost
            reduction = 2 ** math.ceil(math.log2(math.sqrt(width * height / MAX_RENDER_PIXELS)))
            image.draft("L", (math.ceil(width / reduction), math.ceil(height / reduction)))
            width, height = image.size
        if width * height > MAX_RENDER_PIXELS:
            raise ocr.PageNotRead(_too_large(number))
        return _on_white(ImageOps.exif_transpose(image))  # decodes the frame
    except ocr.PageNotRead:
        raise
    except Exception:  # a damaged or cut file; Pillow fails in many ways
        logger.debug("Pillow could not decode page %d", number, exc_info=True)
        raise ocr.PageNotRead(Phrase("page_damaged", page=number)) from None


def _on_white(image: Image) -> Image:
    """Greyscale, what is transparent white, and 16-bit shades scaled down (not cut) to 8 bits."""
    from PIL import Image as Pillow

    if image.mode.startswith("I"):
        return image.convert("I").point(lambda value: value * (1 / 256)).convert("L")
    if image.has_transparency_data:  # text drawn on nothing: onto white paper
        if image.mode not in ("RGBA", "LA"):
            image = image.convert("RGBA")
        page = Pillow.new("L", image.size, 255)
        page.paste(image.convert("L"), mask=image.getchannel("A"))
        return page
    return image.convert("L")


def _too_large(number: int) -> Phrase:
    return Phrase("page_image_too_large", page=number, limit=MAX_RENDER_PIXELS // 1_000_000)
