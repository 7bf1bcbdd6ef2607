"""What reading the journalist's documents ran into, in English.

Each key's translations are in the catalogs (`locale/`), with the key as the context."""

from __future__ import annotations

from ._text import Text

# Reading the journalist's documents (documents/parse.py and documents/ocr.py)
MESSAGES: dict[str, Text] = {
    "document_unsupported": (
        "{name}: Vicaran cannot read this kind of file; it reads PDF, Word (DOCX), HTML, "
        "Markdown and plain-text files, and pages photographed or scanned as PNG, JPEG or TIFF "
        "images."
    ),
    "document_unreadable_file": (
        "{name} could not be opened ({error}): check the path and the file's permissions."
    ),
    "document_not_regular": (
        "{name} is not a regular file (a pipe, a socket or a device): it was not read."
    ),
    "document_changed": (
        "{name} changed while it was being added (it is no longer the file found in the "
        "folder): it was not read; add it again."
    ),
    "document_collection_refused": (
        "{name} was not added: this investigation's documents belong to another conversation "
        "(its id was given in another one); start a new investigation to attach it."
    ),
    # why `vicaran docs add` leaves a path out (cli/documents.py)
    "docs_skip_kind": (
        "not a kind of file Vicaran reads (it reads PDF, Word .docx, HTML, Markdown, plain-text, "
        "PNG, JPEG and TIFF files)"
    ),
    "docs_skip_fifo": "a named pipe (FIFO), not a regular file",
    "docs_skip_socket": "a socket, not a regular file",
    "docs_skip_device": "a device, not a regular file",
    "docs_skip_special": "not a regular file",
    "docs_skip_link_outside": (
        "a link to a file outside the folder: links are followed only inside it"
    ),
    "docs_skip_link_folder_outside": (
        "a link to a folder outside the folder: links are followed only inside it"
    ),
    "docs_skip_link_folder_inside": (
        "a link to a folder inside this one: its files are read where they are"
    ),
    "docs_skip_link_loop": "a link that leads back to itself (a loop)",
    "docs_skip_link_dangling": "a link to a file that does not exist",
    "docs_skip_link_unreadable": "a link that could not be followed ({error})",
    "docs_skip_link_duplicate": "a link to {target}, read under its own name",
    "document_empty": "{name} is empty: there is nothing in it to read.",
    "document_too_large": (
        "{name} is {size}, over the limit of {limit}: split it into smaller files or raise "
        "VICARAN_DOCUMENT_MAX_BYTES."
    ),
    "request_too_large": (
        "This message is larger than this server accepts ({limit} bytes, "
        "VICARAN_MAX_REQUEST_BYTES): attach files of at most {document} bytes each "
        "(VICARAN_DOCUMENT_MAX_BYTES), or send them in separate messages."
    ),
    "document_too_many_pages": (
        "{name} has more than {count} page, the limit: split it into smaller files or raise "
        "VICARAN_DOCUMENT_MAX_PAGES.",
        "{name} has more than {count} pages, the limit: split it into smaller files or raise "
        "VICARAN_DOCUMENT_MAX_PAGES.",
    ),
    "document_encrypted": (
        "{name} is protected by a password: open it, save a copy without the password and add "
        "that copy."
    ),
    "document_corrupt": (
        "{name} is damaged or incomplete and cannot be read as {kind}: get a fresh copy of the "
        "file (a download may have been cut short)."
    ),
    "document_unpacks_too_large": (
        "{name} would unpack to more than {limit}, far beyond an ordinary Word document: it was "
        "not opened."
    ),
    # a file whose reader (a worker process) ran out of time or memory, or died
    "document_parse_timeout": (
        "{name} took longer than {seconds} s to read and was set aside "
        "(VICARAN_PARSE_TIMEOUT_SECONDS): it may be damaged, or built to stall a reader."
    ),
    "document_parse_memory": (
        "{name} needed more than the {limit} MB of memory a reader may use "
        "(VICARAN_PARSE_MEMORY_MB) and was set aside: it may be damaged, or built to exhaust "
        "memory."
    ),
    "document_parse_crashed": (
        "{name} stopped the {kind} reader that opened it and was set aside: it may be damaged, "
        "or built to exhaust the {limit} MB of memory a reader may use (VICARAN_PARSE_MEMORY_MB)."
    ),
    "document_parse_unavailable": (
        "{name} could not be read: no reader process could be started ({detail})."
    ),
    "document_image_ocr_missing": (
        "{name} is an image and OCR is not installed: install tesseract-ocr (Debian: apt-get "
        "install tesseract-ocr tesseract-ocr-por), then add it again."
    ),
    "document_image_unread": "{name} is an image and no text was read from it: {reason}.",
    "document_not_text": (
        "{name} does not look like text (its bytes match no text encoding): if it is a PDF or a "
        "Word file, give it the right extension."
    ),
    "page_damaged": "page {page} is damaged and could not be read",
    "page_ocr_missing": (
        "page {page} is a scanned image and OCR is not installed: install tesseract-ocr "
        "(Debian: apt-get install tesseract-ocr tesseract-ocr-por)"
    ),
    "page_ocr_no_languages": (
        "page {page} is a scanned image and OCR has no language data: install "
        "tesseract-ocr-por (and tesseract-ocr-eng)"
    ),
    "page_ocr_failed": "page {page} is a scanned image and OCR failed on it ({detail})",
    "page_ocr_timeout": "page {page} is a scanned image and OCR took longer than {seconds} s on it",
    "page_ocr_budget": (
        "page {page} is a scanned image and was not read: OCR of this file already took "
        "{seconds} s, the limit (VICARAN_OCR_DOCUMENT_SECONDS)"
    ),
    "page_ocr_pages_budget": (
        "page {page} is a scanned image and was not read: OCR already read {count} pages of "
        "this file, the limit (VICARAN_OCR_DOCUMENT_PAGES)"
    ),
    "page_ocr_investigation_pages": (
        "page {page} is a scanned image and was not read: OCR already read {count} pages of "
        "this investigation's files, the limit (VICARAN_OCR_INVESTIGATION_PAGES)"
    ),
    "page_ocr_investigation_seconds": (
        "page {page} is a scanned image and was not read: OCR of this investigation's files "
        "already took {seconds} s, the limit (VICARAN_OCR_INVESTIGATION_SECONDS)"
    ),
    "page_image_too_large": (
        "page {page} is an image of more than {limit} million pixels and was not read"
    ),
    "page_ocr_no_text": "page {page} is an image in which OCR found no text",
    # what one document may index (parse._TextBudget)
    "page_cut_chars": (
        "page {page} was indexed only in part: the document's text reached {limit} characters, "
        "the most indexed from one file (VICARAN_DOCUMENT_MAX_CHARS)"
    ),
    "page_skipped_chars": (
        "page {page} was not indexed: the document's text reached {limit} characters, the most "
        "indexed from one file (VICARAN_DOCUMENT_MAX_CHARS)"
    ),
    "page_cut_passages": (
        "page {page} was indexed only in part: the document reached {limit} passages, the most "
        "indexed from one file (VICARAN_DOCUMENT_MAX_PASSAGES)"
    ),
    "page_skipped_passages": (
        "page {page} was not indexed: the document reached {limit} passages, the most indexed "
        "from one file (VICARAN_DOCUMENT_MAX_PASSAGES)"
    ),
}
