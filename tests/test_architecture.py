"""The rules of the house (DESIGN §3), checked on the source: layering, pure modules,
sizes, and how domains (the packages `app/<domain>`) depend on each other: no cycle, no
model importing a domain, no reach into another domain's repository outside the lists
below. A change that breaks one fails here with the file and the import that broke it."""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "app"
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60

# Pure functions: no framework, no database, no other app module but these and the enums.
PURE = {
    "app.decay_math",
    "app.salience.decay",
    "app.retrieve.ranking",
    "app.retrieve.selector",
    "app.retrieve.validity",
    "app.retrieve.terms",
    "app.retrieve.sittings",
    "app.records.search_text",
    "app.records.payload_json",
    "app.records.dates",
    "app.records.event_time",
    "app.capture.classifier",
    "app.embedding.unit",
    "app.metrics.registry",
    "app.text_guard",
    "app.llm.triples",
    "app.interpret.parse",
    "app.logs",
    "app.clock",
    "app.backlog",
    "app.json_walk",
    "app.json_codec",
    "app.records.ids",
}
FRAMEWORKS = ("fastapi", "starlette", "sqlalchemy", "pydantic", "pgvector", "psycopg")
# What a repository may build on besides other repositories and pure modules.
REPOSITORY_BASE = {
    "app.models",
    "app.write_behind",  # database plumbing beside app.db: writes sent without waiting
    "app.db",
    "app.engine_cache",
    "app.trust",
    "app.enums",
    "app.records.filters",
    "app.records.clauses",
    "app.relations.clauses",
    "app.entities.clauses",
    "app.retrieve.lexical_scores",  # what both stores' BM25 take and return: no SQL
    "app.models.clauses",
    "app.models.staging",
    "app.models.binary_vector",  # pgvector's binary form, which the vector reads decode
}
# SQL modules that are not named *repository.
SQL_MODULES = {"app.retrieve.vector_cache"}
# Packages of app/ that are no domain: the tables, and the clauses below every domain.
NOT_DOMAINS = {"models"}
# Another domain's repository that any module may import, each with its reason (five at most).
# Repositories other domains may import, each with its reason (at most five). Any other
# cross-domain import of a repository fails: go through that domain's service or a small
# published module (as app/records/clauses.py, app/relations/clauses.py).
ALLOWED_REACH_INS = {
    "app.audit.repository": "the append-only log: each domain's write appends its own entry "
    "in its own transaction, and there is no rule to put a service in front of",
    "app.records.repository": "the record rows are the material of every domain's unit of "
    "work: capture stages and bulk-inserts them, revision, consolidation and salience lock "
    "them and change status or payload, in the caller's transaction. The rules on those "
    "changes (trust, audit, revision semantics) belong to each caller's service; a records "
    "service in front would only forward",
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(APP.rglob("*.py")):
        parts = path.relative_to(APP.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()
DOMAINS = {
    path.parent.name for path in APP.glob("*/__init__.py") if path.parent.name not in NOT_DOMAINS
}


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


def _domain(module: str) -> str | None:
    """The domain `module` belongs to (`app.records.service` -> records), or None."""
    parts = module.split(".")
    if len(parts) > 1 and parts[0] == "app" and parts[1] in DOMAINS:
        return parts[1]
    return None


def _domain_edges() -> dict[tuple[str, str], set[str]]:
    """(domain, domain it imports) -> the module imports that make the edge."""
    edges: dict[tuple[str, str], set[str]] = {}
    for module, path in MODULES.items():
        source = _domain(module)
        for imported in _imports(path):
            target = _domain(imported)
            if source is not None and target is not None and target != source:
                edges.setdefault((source, target), set()).add(f"{module} imports {imported}")
    return edges


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as its path (first node repeated at the end), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        path.append(node)
        for successor in sorted(graph.get(node, set())):
            if successor in path:
                return [*path[path.index(successor) :], successor]
            if successor not in done and (found := visit(successor)):
                return found
        path.pop()
        done.add(node)
        return None

    for node in sorted(graph):
        if node not in done and (found := visit(node)):
            return found
    return None


def _reach_ins() -> dict[str, set[str]]:
    """Repository -> the modules outside its domain that import it."""
    found: dict[str, set[str]] = {}
    for module in MODULES:
        for imported in _app_imports(module):
            if _is_repository(imported) and _domain(imported) != _domain(module):
                found.setdefault(imported, set()).add(module)
    return found


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


def test_no_cycle_between_domains() -> None:
    edges = _domain_edges()
    graph: dict[str, set[str]] = {}
    for source, target in edges:
        graph.setdefault(source, set()).add(target)
    cycle = _cycle(graph)
    if cycle is not None:
        why = [min(edges[pair]) for pair in pairwise(cycle)]
        pytest.fail(f"{' -> '.join(cycle)}: {'; '.join(why)}")


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if m.split(".")[:2] == ["app", "models"])
)
def test_models_import_no_domain(module: str) -> None:
    wrong = {m for m in _imports(MODULES[module]) if _domain(m) is not None}
    assert not wrong, f"{module} imports {sorted(wrong)}"


def test_no_reach_into_another_domains_repository() -> None:
    wrong = {
        f"{module} imports {repository}"
        for repository, modules in _reach_ins().items()
        if repository not in ALLOWED_REACH_INS
        for module in modules
    }
    assert not wrong, f"through that domain's service or a published module: {sorted(wrong)}"


def test_allowed_reach_ins_are_few_reasoned_and_used() -> None:
    assert len(ALLOWED_REACH_INS) <= 5 and all(ALLOWED_REACH_INS.values())
    assert ALLOWED_REACH_INS.keys() <= _reach_ins().keys(), "strike an exception no one uses"
