"""The code's shape (issue 22): small modules, and no HTML written in Python strings."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "vicaran_agent"
MAX_LINES = 500
# An opening or closing tag of HTML, as a page or a fragment would be written.
_TAG = re.compile(
    r"</?(?:a|div|span|p|h[1-6]|li|ul|ol|table|tr|td|th|script|style|html|body|"
    r"section|article|main|header|footer|nav|br|em|strong|code|pre|form|input)"
    r"(?:\s[^<>]*)?/?>",
    re.IGNORECASE,
)


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


@functools.cache
def _sources() -> dict[Path, tuple[str, ast.Module]]:
    """Each module's text and syntax tree, read and parsed once for every check here."""
    return {p: (text := p.read_text(encoding="utf-8"), ast.parse(text)) for p in _modules()}


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string of a module but its docstrings; an f-string whole, `{}` for each value."""
    skipped = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v.value if isinstance(v, ast.Constant) else "{}" for v in node.values]
            skipped.update(id(v) for v in node.values)
            found.append((node.lineno, "".join(str(part) for part in parts)))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skipped
        ):
            found.append((node.lineno, node.value))
    return found


def test_no_module_is_over_500_lines():
    long = {
        str(p.relative_to(PACKAGE)): n
        for p, (text, _) in _sources().items()
        if (n := len(text.splitlines())) > MAX_LINES
    }
    assert long == {}


def test_no_html_is_written_in_python_strings():
    """Pages and fragments come from templates/ (Jinja2, autoescaped); the Markdown renderer
    makes tokens, never markup."""
    found = [
        f"{p.relative_to(PACKAGE)}:{line}: {text[:60]!r}"
        for p, (_, tree) in _sources().items()
        for line, text in _strings(tree)
        if _TAG.search(text)
    ]
    assert found == []


_EMPTY_CONTAINERS = {"dict", "set", "list", "defaultdict", "OrderedDict", "deque"}
_WEAK = {"WeakKeyDictionary", "WeakValueDictionary", "WeakSet"}


def _registries(tree: ast.Module) -> list[tuple[int, str]]:
    """Module-level names bound to an empty container: state filled as the process runs."""
    found = []
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if (isinstance(node, ast.AnnAssign) and node.value is not None)
            else []
        )
        value = getattr(node, "value", None)
        empty = (
            isinstance(value, ast.Dict | ast.Set | ast.List)
            and not (getattr(value, "keys", None) or getattr(value, "elts", None))
        ) or (
            isinstance(value, ast.Call)
            and not value.args
            and (getattr(value.func, "id", None) or getattr(value.func, "attr", None))
            in _EMPTY_CONTAINERS | _WEAK
        )
        if empty:
            found += [(node.lineno, ast.unparse(t)) for t in targets]
    return found


def test_no_module_keeps_a_registry_of_its_own():
    """What the process shares lives in one container (`services.Services`), so a test (or a
    second app) gets its own by `services.use`, not by patching and clearing module globals."""
    found = [
        f"{p.relative_to(PACKAGE)}:{line}: {name}"
        for p, (_, tree) in _sources().items()
        for line, name in _registries(tree)
    ]
    assert found == []


_GETTEXT = {"_", "gettext", "ngettext", "N_"}


def _hidden_messages(tree: ast.AST) -> list[int]:
    """Lines where a message is marked inside an f-string: Babel's extractor never sees it, so
    the catalog check would not ask for its translation."""
    return [
        node.lineno
        for joined in ast.walk(tree)
        if isinstance(joined, ast.JoinedStr)
        for node in ast.walk(joined)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in _GETTEXT
    ]


def test_no_message_is_marked_inside_an_f_string():
    found = [
        f"{p.relative_to(PACKAGE)}:{line}"
        for p, (_, tree) in _sources().items()
        for line in _hidden_messages(tree)
    ]
    assert found == []


def test_the_checks_find_what_they_look_for(tmp_path):
    """Each check fails on what it forbids (a test that cannot fail is no test)."""
    tree = ast.parse('"""<p>a docstring may show markup</p>"""\nX = f"<a href={1}>x</a>"\n')
    assert [text for _, text in _strings(tree) if _TAG.search(text)] == ["<a href={}>x</a>"]
    assert not _TAG.search("a < b and c > d")
    module = ast.parse(
        "A: dict[str, int] = {}\nB = set()\nC = weakref.WeakKeyDictionary()\nD = {1: 2}\n"
    )
    assert [name for _, name in _registries(module)] == ["A", "B", "C"]
    assert _hidden_messages(ast.parse('x = f"## {_(\'Evidence\')}"\ny = _("ok")\n')) == [1]
