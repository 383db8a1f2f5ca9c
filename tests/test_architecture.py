"""The rules of the house (DESIGN §3), checked on the source: layering, pure modules, and
sizes. A change that breaks one fails here with the file and the import that broke it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "app"
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60

# Pure functions: no framework, no database, no other app module but these and the enums.
PURE = {
    "app.salience.decay",
    "app.retrieve.ranking",
    "app.retrieve.selector",
    "app.retrieve.validity",
    "app.retrieve.terms",
    "app.retrieve.sittings",
    "app.records.search_text",
    "app.records.dates",
    "app.capture.classifier",
    "app.embedding.unit",
    "app.metrics.registry",
    "app.text_guard",
    "app.llm.triples",
    "app.interpret.parse",
    "app.logs",
    "app.clock",
    "app.backlog",
}
FRAMEWORKS = ("fastapi", "starlette", "sqlalchemy", "pydantic", "pgvector", "psycopg")
# What a repository may build on besides other repositories and pure modules.
REPOSITORY_BASE = {
    "app.models",
    "app.db",
    "app.engine_cache",
    "app.trust",
    "app.enums",
    "app.records.filters",
}
# SQL modules that are not named *repository.
SQL_MODULES = {"app.retrieve.vector_cache"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(APP.rglob("*.py")):
        parts = path.relative_to(APP.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Every module `path` imports (`from a import b` counts a.b, not a, when b is a
    module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            submodules = {f"{node.module}.{a.name}" for a in node.names}
            submodules &= MODULES.keys()
            found.update(submodules or {node.module})
    return found


def _is_repository(module: str) -> bool:
    return module.rsplit(".", 1)[-1].endswith("repository") or module in SQL_MODULES


def _app_imports(module: str) -> set[str]:
    return {m for m in _imports(MODULES[module]) if m.startswith("app.") and m in MODULES}


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _is_repository(m)))
def test_repositories_import_no_feature_module(module: str) -> None:
    allowed = REPOSITORY_BASE | PURE
    wrong = {m for m in _app_imports(module) if m not in allowed and not _is_repository(m)}
    assert not wrong, f"{module} imports {sorted(wrong)}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.endswith(".router")))
def test_routers_import_no_repository(module: str) -> None:
    wrong = {m for m in _app_imports(module) if _is_repository(m)}
    assert not wrong, f"{module} imports {sorted(wrong)}"


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if m.endswith("service") or m.endswith(".router"))
)
def test_no_sql_expression_crosses_a_service(module: str) -> None:
    """Services and routers may hold a Session; every statement is a repository's."""
    sql = {m for m in _imports(MODULES[module]) if m.split(".")[0] == "sqlalchemy"}
    assert sql <= {"sqlalchemy.orm"}, f"{module} imports {sorted(sql)}"


@pytest.mark.parametrize("module", sorted(PURE))
def test_pure_modules_import_no_framework(module: str) -> None:
    imports = _imports(MODULES[module])
    frameworks = {m for m in imports if m.split(".")[0] in FRAMEWORKS}
    app_modules = {m for m in imports if m.startswith("app.")} - PURE - {"app.enums"}
    assert not frameworks and not app_modules, f"{module} imports {frameworks | app_modules}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_files_and_functions_stay_small(module: str) -> None:
    path = MODULES[module]
    source = path.read_text()
    assert source.count("\n") <= MAX_FILE_LINES, f"{path} has over {MAX_FILE_LINES} lines"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            assert length <= MAX_FUNCTION_LINES, f"{path}:{node.lineno} {node.name}: {length}"
